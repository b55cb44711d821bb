//! Captures after a move: custodial captures of soldiers, the shieldwall, and the king.

use crate::bitset::BitSet;
use crate::compiled::{Rules, NONE};
use crate::position::{MoveEffect, Position};
use crate::ruleset::{KingArmed, KingCapture};
use crate::side::{Piece, Side};
use crate::square::Sq;

impl<B: BitSet> Position<B> {
    /// Removes what the move captured and records it in `effect`; the side that moved is
    /// still `self.to_move`.
    #[inline]
    pub(crate) fn capture(&mut self, rules: &Rules<B>, effect: &mut MoveEffect<B>) {
        let mover = effect.mover;
        let to = effect.to as usize;
        let can_hammer = effect.piece != Piece::King || rules.king_armed.hammer();
        let victims = match mover {
            Side::Attackers => self.defenders,
            Side::Defenders => self.attackers,
        };
        // Cheap filter: most moves land next to no enemy soldier.
        if can_hammer && (rules.neighbours(B::single(to)) & victims).any() {
            for d in 0..4 {
                let v = rules.nbr[to][d];
                if v == NONE || !victims.has(v as usize) {
                    continue;
                }
                let beyond = rules.nbr[v as usize][d];
                if beyond != NONE && self.is_anvil(rules, beyond, mover) {
                    effect.captured |= B::single(v as usize);
                }
            }
        }
        if rules.shieldwall_relaxed {
            effect.captured |= self.any_shieldwall(rules, effect);
        } else if rules.shieldwall && rules.edge.has(to) {
            effect.captured |= self.shieldwall(rules, effect, effect.to);
        }
        if rules.linnaean && mover == Side::Attackers {
            effect.captured |= self.linnaean(rules, effect.to);
        }
        if effect.captured.any() {
            self.remove(rules, effect.captured, mover.opponent());
        }
        if mover == Side::Attackers {
            effect.king_captured = self.king_captured(rules, effect.to);
        }
    }

    fn remove(&mut self, rules: &Rules<B>, set: B, side: Side) {
        let idx = match side {
            Side::Attackers => Piece::Attacker.index(),
            Side::Defenders => Piece::Defender.index(),
        };
        for sq in set.squares() {
            self.hash ^= rules.zobrist.piece(idx, sq);
        }
        match side {
            Side::Attackers => self.attackers &= !set,
            Side::Defenders => self.defenders &= !set,
        }
    }

    /// Whether `sq` is the far jaw of a capture made by `mover` against an enemy soldier.
    #[inline]
    fn is_anvil(&self, rules: &Rules<B>, sq: Sq, mover: Side) -> bool {
        let i = sq as usize;
        let victim = mover.opponent();
        match mover {
            Side::Attackers if self.attackers.has(i) => return true,
            Side::Defenders if self.defenders.has(i) => return true,
            _ => {}
        }
        if self.king_sq == sq {
            // The king is an anvil for his own side when armed; the throne he sits on is one
            // against attackers when the rules say so.
            return mover == Side::Defenders
                && (rules.king_armed.anvil()
                    || (rules.occupied_throne_hostile && rules.is_throne(sq) && victim == Side::Attackers));
        }
        !self.occupied().has(i) && rules.hostile_empty[victim.index()].has(i)
    }

    /// Whether the attacker that just landed on `to` completed the king's capture.
    fn king_captured(&self, rules: &Rules<B>, to: Sq) -> bool {
        let k = self.king_sq as usize;
        let Some(dir) = (0..4).find(|&d| rules.nbr[to as usize][d] == self.king_sq) else {
            return false;
        };
        let strong = match rules.king_capture {
            KingCapture::Strong => true,
            KingCapture::StrongNearThrone => rules.near_throne.has(k),
            KingCapture::Weak => false,
        };
        if strong {
            if rules.edge.has(k) {
                return false;
            }
            (0..4).all(|d| {
                let s = rules.nbr[k][d];
                self.attackers.has(s as usize) || (rules.is_throne(s) && !self.occupied().has(s as usize))
            })
        } else {
            // Like a soldier: the attacker on `to` is one jaw, the square beyond the king the other.
            let beyond = rules.nbr[k][dir];
            beyond != NONE
                && (self.attackers.has(beyond as usize)
                    || (!self.occupied().has(beyond as usize)
                        && rules.hostile_empty[Side::Defenders.index()].has(beyond as usize)))
        }
    }

    /// The defender a Linnaean capture takes (see [`RulesFile::linnaean_capture`]): the
    /// attacker that landed on `to`, two squares from the throne with the king on it, takes
    /// the defender between them when attackers hold the throne's three other sides.
    ///
    /// [`RulesFile::linnaean_capture`]: crate::RulesFile::linnaean_capture
    fn linnaean(&self, rules: &Rules<B>, to: Sq) -> B {
        let Some(t) = rules.throne_sq else {
            return B::EMPTY;
        };
        if self.king_sq != t {
            return B::EMPTY;
        }
        for d in 0..4 {
            let v = rules.nbr[t as usize][d];
            if v == NONE || rules.nbr[v as usize][d] != to || !self.defenders.has(v as usize) {
                continue;
            }
            let others = (0..4).filter(|&e| e != d).all(|e| {
                let s = rules.nbr[t as usize][e];
                s != NONE && self.attackers.has(s as usize)
            });
            return if others { B::single(v as usize) } else { B::EMPTY };
        }
        B::EMPTY
    }

    /// Relaxed shieldwalls: soldiers of the side not to move in every row along an edge that
    /// the mover's pieces (or corners) enclose after the move, whatever moved: each edge
    /// square of the mover's, and each corner, is tried as a bracket.
    fn any_shieldwall(&self, rules: &Rules<B>, effect: &MoveEffect<B>) -> B {
        let own = match effect.mover {
            Side::Attackers => self.attackers,
            Side::Defenders if rules.king_armed == KingArmed::Yes => self.defenders | self.king,
            Side::Defenders => self.defenders,
        };
        let mut taken = B::EMPTY;
        for s in (own & rules.edge).squares() {
            taken |= self.shieldwall(rules, effect, s as Sq);
        }
        for &c in &rules.ruleset.corners {
            taken |= self.shieldwall(rules, effect, c);
        }
        taken
    }

    /// Soldiers taken by a shieldwall bracketed at `anchor`, an edge square: the square the
    /// move went to (Copenhagen), or any bracket of the mover's (relaxed shieldwalls).
    fn shieldwall(&self, rules: &Rules<B>, effect: &MoveEffect<B>, anchor: Sq) -> B {
        let mover = effect.mover;
        let king_counts = rules.king_armed == KingArmed::Yes;
        if !rules.shieldwall_relaxed && effect.piece == Piece::King && !king_counts {
            return B::EMPTY;
        }
        let own = match mover {
            Side::Attackers => self.attackers,
            Side::Defenders if king_counts => self.defenders | self.king,
            Side::Defenders => self.defenders,
        };
        let enemy = self.side_pieces(mover.opponent()) & !effect.captured;
        let to = anchor as usize;
        let n = rules.n;
        let (file, rank) = (to % n, to / n);
        let mut taken = B::EMPTY;
        // Each edge the square lies on: the direction pointing inward and the two along it.
        let edges = [
            (rank == 0, 0usize, [1usize, 3usize]),
            (rank == n - 1, 2, [1, 3]),
            (file == 0, 1, [0, 2]),
            (file == n - 1, 3, [0, 2]),
        ];
        for (on_edge, inward, along) in edges {
            if !on_edge {
                continue;
            }
            for a in along {
                let mut run = B::EMPTY;
                let mut len = 0;
                let mut s = rules.nbr[to][a];
                while s != NONE && enemy.has(s as usize) {
                    let front = rules.nbr[s as usize][inward];
                    if front == NONE || !own.has(front as usize) {
                        len = 0;
                        break;
                    }
                    run |= B::single(s as usize);
                    len += 1;
                    s = rules.nbr[s as usize][a];
                }
                if len < 2 || s == NONE {
                    continue;
                }
                // A run ends at the first non-enemy square: the far bracket must be ours or a corner.
                if own.has(s as usize) || rules.is_corner(s) {
                    taken |= run & !self.king;
                }
            }
        }
        taken
    }
}
