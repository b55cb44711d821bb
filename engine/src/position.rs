//! [`Position`]: the pieces on the board and the side to move, as bit sets.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::IllegalMove;
use crate::outcome::Outcome;
use crate::side::{Piece, Side};
use crate::square::{square_name, Sq};
use std::fmt;

/// A move: a piece slides from `from` to `to`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Move {
    /// Where the piece starts.
    pub from: Sq,
    /// Where it stops.
    pub to: Sq,
}

impl Move {
    /// A move from `from` to `to`.
    pub const fn new(from: Sq, to: Sq) -> Move {
        Move { from, to }
    }
    /// The move as text on an `n x n` board: `e1-e4`.
    pub fn text(self, n: usize) -> String {
        format!("{}-{}", square_name(n, self.from), square_name(n, self.to))
    }
}

/// What a move did: the piece that moved and the soldiers it captured.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveEffect<B> {
    /// The piece that moved.
    pub piece: Piece,
    /// The side that moved.
    pub mover: Side,
    /// Where it landed.
    pub to: Sq,
    /// Soldiers removed by the move (custodial and shieldwall captures).
    pub captured: B,
    /// The move captured the king.
    pub king_captured: bool,
}

/// The board and the side to move. `Copy`, so search can copy-make.
///
/// A position knows nothing of its history; [`crate::Game`] adds the repetition record and
/// the ply count. All methods take the [`Rules`] they are played under.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position<B: BitSet> {
    pub(crate) attackers: B,
    pub(crate) defenders: B,
    pub(crate) king: B,
    pub(crate) king_sq: Sq,
    pub(crate) to_move: Side,
    pub(crate) hash: u64,
}

impl<B: BitSet> Position<B> {
    /// The start position of the rules.
    pub fn start(rules: &Rules<B>) -> Position<B> {
        let rs = &rules.ruleset;
        Position::from_pieces(rules, &rs.start, rs.file.first)
            .unwrap_or_else(|e| panic!("validated start position rejected: {e}"))
    }

    /// A position from a list of pieces; checks it against the rules.
    pub fn from_pieces(
        rules: &Rules<B>,
        pieces: &[(Sq, Piece)],
        to_move: Side,
    ) -> Result<Position<B>, String> {
        rules.ruleset.check_pieces(pieces)?;
        let mut pos = Position {
            attackers: B::EMPTY,
            defenders: B::EMPTY,
            king: B::EMPTY,
            king_sq: 0,
            to_move,
            hash: 0,
        };
        for &(sq, p) in pieces {
            let bit = B::single(sq as usize);
            match p {
                Piece::Attacker => pos.attackers |= bit,
                Piece::Defender => pos.defenders |= bit,
                Piece::King => {
                    pos.king = bit;
                    pos.king_sq = sq;
                }
            }
        }
        pos.hash = rules.zobrist.hash_of(&pos);
        Ok(pos)
    }

    /// A position from a diagram (see [`crate::diagram`]) with `to_move` to play.
    pub fn from_diagram(rules: &Rules<B>, text: &str, to_move: Side) -> Result<Position<B>, String> {
        let pieces = crate::diagram::parse_diagram(rules.n, text).map_err(|e| e.to_string())?;
        Position::from_pieces(rules, &pieces, to_move)
    }

    /// The pieces as a list, in square order.
    pub fn pieces(&self) -> Vec<(Sq, Piece)> {
        let mut v: Vec<(Sq, Piece)> = Vec::new();
        v.extend(self.attackers.squares().map(|s| (s as Sq, Piece::Attacker)));
        v.extend(self.defenders.squares().map(|s| (s as Sq, Piece::Defender)));
        v.push((self.king_sq, Piece::King));
        v.sort_by_key(|x| x.0);
        v
    }

    /// The position as a diagram with coordinates, marking the squares in `marks`.
    pub fn diagram(&self, rules: &Rules<B>, marks: &[Sq]) -> String {
        crate::diagram::write_diagram(&rules.ruleset, &self.pieces(), marks)
    }

    /// Attacking soldiers.
    #[inline]
    pub fn attackers(&self) -> B {
        self.attackers
    }
    /// Defending soldiers (without the king).
    #[inline]
    pub fn defenders(&self) -> B {
        self.defenders
    }
    /// The king's square as a one-square set.
    #[inline]
    pub fn king_set(&self) -> B {
        self.king
    }
    /// The king's square.
    #[inline]
    pub fn king(&self) -> Sq {
        self.king_sq
    }
    /// The side to move.
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// The Zobrist hash of board and side to move, kept up to date move by move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> B {
        self.attackers | self.defenders | self.king
    }
    /// The pieces of one side (the king counts for the defenders).
    #[inline]
    pub fn side_pieces(&self, side: Side) -> B {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders | self.king,
        }
    }
    /// What stands on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Sq) -> Option<Piece> {
        let i = sq as usize;
        if self.attackers.has(i) {
            Some(Piece::Attacker)
        } else if self.defenders.has(i) {
            Some(Piece::Defender)
        } else if self.king_sq == sq {
            Some(Piece::King)
        } else {
            None
        }
    }

    /// Plays a move after checking that it is legal; the error says why it is not.
    /// Returns what the move did and the game-ending outcome it caused, if any (checks 1-5 and 7
    /// of the order in `RULES.md`; repetition and ply limits need the history that
    /// [`crate::Game`] keeps).
    pub fn play(
        &mut self,
        rules: &Rules<B>,
        mv: Move,
    ) -> Result<(MoveEffect<B>, Option<Outcome>), IllegalMove> {
        if let Err(reason) = self.check_move(rules, mv) {
            return Err(IllegalMove {
                text: mv.text(rules.n),
                reason,
            });
        }
        let effect = self.play_unchecked(rules, mv);
        let outcome = self
            .decisive_outcome(rules, &effect)
            .or_else(|| self.no_moves_outcome(rules));
        Ok((effect, outcome))
    }

    /// Plays a move that the caller knows is legal (generated by this position's move
    /// generator): the hot path of search and self-play. An illegal move leaves the position
    /// in an unspecified (but memory-safe) state.
    #[inline]
    pub fn play_unchecked(&mut self, rules: &Rules<B>, mv: Move) -> MoveEffect<B> {
        let mover = self.to_move;
        let from = mv.from as usize;
        let to = mv.to as usize;
        let path = B::single(from) | B::single(to);
        let piece = if self.king_sq == mv.from {
            self.king ^= path;
            self.king_sq = mv.to;
            Piece::King
        } else if mover == Side::Attackers {
            self.attackers ^= path;
            Piece::Attacker
        } else {
            self.defenders ^= path;
            Piece::Defender
        };
        let z = &rules.zobrist;
        self.hash ^= z.piece(piece.index(), from) ^ z.piece(piece.index(), to) ^ z.side;
        let mut effect = MoveEffect {
            piece,
            mover,
            to: mv.to,
            captured: B::EMPTY,
            king_captured: false,
        };
        self.capture(rules, &mut effect);
        self.to_move = mover.opponent();
        effect
    }

    /// Why `mv` is not legal here, or `Ok` when it is. Written square by square, apart from
    /// the bit-parallel generator, so tests can use it as an independent check.
    pub fn check_move(&self, rules: &Rules<B>, mv: Move) -> Result<(), String> {
        let n = rules.n;
        let (from, to) = (mv.from as usize, mv.to as usize);
        if from >= n * n || to >= n * n {
            return Err("square off the board".into());
        }
        let piece = match self.piece_at(mv.from) {
            None => return Err(format!("no piece on {}", square_name(n, mv.from))),
            Some(p) if p.side() != self.to_move => {
                return Err(format!(
                    "the piece on {} belongs to the {}",
                    square_name(n, mv.from),
                    p.side()
                ))
            }
            Some(p) => p,
        };
        if from == to {
            return Err("a move must change square".into());
        }
        let (ff, fr, tf, tr) = (from % n, from / n, to % n, to / n);
        if ff != tf && fr != tr {
            return Err("pieces move along a rank or a file only".into());
        }
        let step: isize = if ff == tf {
            if tr > fr {
                n as isize
            } else {
                -(n as isize)
            }
        } else if tf > ff {
            1
        } else {
            -1
        };
        let king = piece == Piece::King;
        let mut s = from as isize + step;
        while s != to as isize {
            let sq = s as Sq;
            if self.piece_at(sq).is_some() {
                return Err(format!("{} is in the way", square_name(n, sq)));
            }
            if rules.is_corner(sq) {
                return Err(format!(
                    "nobody may pass through the corner {}",
                    square_name(n, sq)
                ));
            }
            if rules.is_throne(sq) {
                let pass = rules.ruleset.file.throne_pass;
                use crate::ruleset::ThronePass;
                let allowed = matches!(pass, ThronePass::All) || (king && matches!(pass, ThronePass::King));
                if !allowed {
                    return Err(format!(
                        "this piece may not pass through the throne {}",
                        square_name(n, sq)
                    ));
                }
            }
            s += step;
        }
        if self.piece_at(mv.to).is_some() {
            return Err(format!("{} is occupied", square_name(n, mv.to)));
        }
        if !king && rules.is_corner(mv.to) {
            return Err(format!(
                "only the king may stop on the corner {}",
                square_name(n, mv.to)
            ));
        }
        if rules.is_throne(mv.to) {
            use crate::ruleset::ThroneStop;
            if !king || rules.ruleset.file.throne_stop == ThroneStop::Nobody {
                return Err(format!(
                    "this piece may not stop on the throne {}",
                    square_name(n, mv.to)
                ));
            }
        }
        Ok(())
    }
}

impl<B: BitSet> fmt::Display for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} to move, hash {:016x})", self.to_move, self.hash)
    }
}
