//! Legal move generation without heap allocation.
//!
//! Two generators that tests hold against each other and against [`Position::check_move`]:
//! - per piece, the squares it can reach (ray masks and the first blocker on each ray), for
//!   move lists and search;
//! - for a whole army at once, a bit-parallel Kogge-Stone fill in each direction, for
//!   counting moves (perft leaves) and for picking the k-th move (uniformly random playouts)
//!   without listing them.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{Move, Position};
use crate::side::Side;
use crate::square::Sq;

/// The most legal moves any position on a board up to 19x19 can have: each empty square is
/// reached from at most four directions, and each piece reaches at most 36 squares, so with
/// `P` pieces the count is at most `min(4 * (361 - P), 36 * P)` <= 1300.
pub const MAX_MOVES: usize = 1300;

/// A list of moves on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::default(); MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList::default()
    }
    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Keeps the moves for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut n = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if keep(m) {
                self.moves[n] = m;
                n += 1;
            }
        }
        self.len = n;
    }
    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    fn push(&mut self, m: Move) {
        // The bound above makes overflow impossible; the check keeps it a logic error, not UB.
        if self.len < MAX_MOVES {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<B: BitSet> Position<B> {
    /// The squares the piece on `from` can move to (empty when it cannot move).
    #[inline]
    pub fn targets(&self, rules: &Rules<B>, from: Sq) -> B {
        let king = from == self.king_sq;
        let (stop, pass) = if king {
            (rules.king_stop, rules.king_pass)
        } else {
            (rules.soldier_stop, rules.soldier_pass)
        };
        let occ = self.occupied();
        // Squares that end a slide: pieces, and empty squares this piece may not pass.
        let blockers = occ | (rules.board & !pass);
        let rays = &rules.rays[from as usize];
        let mut t = B::EMPTY;
        for (d, &ray) in rays.iter().enumerate() {
            let hit = ray & blockers;
            let seg = if hit.is_empty() {
                ray
            } else if d < 2 {
                // North and east rays run toward higher indices: the first blocker is the lowest.
                ray & B::below(hit.lowest() + 1)
            } else {
                ray & !B::below(hit.highest())
            };
            t |= seg;
        }
        t & stop & !occ
    }

    /// Calls `f(from, targets)` for every piece of the side to move that has a move.
    #[inline]
    pub fn for_each_piece_moves(&self, rules: &Rules<B>, mut f: impl FnMut(Sq, B)) {
        for from in self.side_pieces(self.to_move).squares() {
            let t = self.targets(rules, from as Sq);
            if t.any() {
                f(from as Sq, t);
            }
        }
    }

    /// Fills `list` with every legal move of the side to move.
    pub fn legal_moves(&self, rules: &Rules<B>, list: &mut MoveList) {
        list.clear();
        self.for_each_piece_moves(rules, |from, t| {
            for to in t.squares() {
                list.push(Move::new(from, to as Sq));
            }
        });
    }

    /// Every legal move, in a new list.
    pub fn moves(&self, rules: &Rules<B>) -> MoveList {
        let mut l = MoveList::new();
        self.legal_moves(rules, &mut l);
        l
    }

    /// Whether `mv` is among the legal moves (fast check for moves from outside).
    pub fn is_legal(&self, rules: &Rules<B>, mv: Move) -> bool {
        let from = mv.from as usize;
        (mv.from as usize) < rules.n * rules.n
            && (mv.to as usize) < rules.n * rules.n
            && self.side_pieces(self.to_move).has(from)
            && self.targets(rules, mv.from).has(mv.to as usize)
    }

    /// The soldiers of the side to move and the masks that govern them.
    #[inline]
    fn soldiers_to_move(&self) -> B {
        match self.to_move {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders,
        }
    }

    /// Number of legal moves of the side to move, counted without listing them.
    #[inline]
    pub fn count_moves(&self, rules: &Rules<B>) -> u32 {
        let empty = rules.board & !self.occupied();
        let mut total = 0;
        for (set, stop, pass) in self.movers(rules) {
            if set.is_empty() {
                continue;
            }
            let (stop, pass) = (stop & empty, pass & empty);
            for d in 0..4 {
                total += (rules.slide(set, pass, d) & stop).count();
            }
        }
        total
    }

    /// Whether the side to move has any legal move; stops at the first one found.
    #[inline]
    pub fn has_move(&self, rules: &Rules<B>) -> bool {
        let empty = rules.board & !self.occupied();
        for (set, stop, pass) in self.movers(rules) {
            if set.is_empty() {
                continue;
            }
            let (stop, pass) = (stop & empty, pass & empty);
            for d in 0..4 {
                let mut g = set;
                loop {
                    let reach = rules.step(g, d);
                    if (reach & stop).any() {
                        return true;
                    }
                    g = reach & pass;
                    if g.is_empty() {
                        break;
                    }
                }
            }
        }
        false
    }

    /// The `k`-th legal move (0-based, `k < count_moves()`) in the order of
    /// [`Position::count_moves`] (soldiers then king, by direction, by target square); drawing
    /// `k` uniformly draws each legal move with equal chance.
    #[inline]
    pub fn nth_move(&self, rules: &Rules<B>, mut k: u32) -> Option<Move> {
        let empty = rules.board & !self.occupied();
        for (set, stop, pass) in self.movers(rules) {
            if set.is_empty() {
                continue;
            }
            let (stop, pass) = (stop & empty, pass & empty);
            for d in 0..4 {
                let targets = rules.slide(set, pass, d) & stop;
                let c = targets.count();
                if k < c {
                    let to = targets.nth(k);
                    // The mover is the first piece of the group looking back from the target.
                    let back = rules.rays[to][(d + 2) % 4] & set;
                    let from = if d < 2 { back.highest() } else { back.lowest() };
                    return Some(Move::new(from as Sq, to as Sq));
                }
                k -= c;
            }
        }
        None
    }

    /// One legal move chosen by `choose(count)`, which must return an index below `count`
    /// (it is called only when there is a move): the targets of every direction are computed
    /// once, for both the count and the choice. `choose(count)` uniform in `0..count` draws
    /// every legal move with equal chance; the order is that of [`Position::nth_move`].
    #[inline]
    pub fn pick_move(&self, rules: &Rules<B>, choose: impl FnOnce(u32) -> u32) -> Option<Move> {
        let empty = rules.board & !self.occupied();
        let mut targets = [B::EMPTY; 8];
        let mut counts = [0u32; 8];
        let mut total = 0;
        let movers = self.movers(rules);
        for (g, (set, stop, pass)) in movers.iter().enumerate() {
            if set.is_empty() {
                continue;
            }
            let (stop, pass) = (*stop & empty, *pass & empty);
            for d in 0..4 {
                let t = rules.slide(*set, pass, d) & stop;
                targets[g * 4 + d] = t;
                counts[g * 4 + d] = t.count();
                total += counts[g * 4 + d];
            }
        }
        if total == 0 {
            return None;
        }
        let mut k = choose(total);
        for i in 0..8 {
            if k < counts[i] {
                let (set, d) = (movers[i / 4].0, i % 4);
                let to = targets[i].nth(k);
                let back = rules.rays[to][(d + 2) % 4] & set;
                let from = if d < 2 { back.highest() } else { back.lowest() };
                return Some(Move::new(from as Sq, to as Sq));
            }
            k -= counts[i];
        }
        None
    }

    /// The groups that move alike: the soldiers of the side to move, then the king if it is
    /// the defenders' turn, each with where it may stop and where it may slide on.
    #[inline]
    fn movers(&self, rules: &Rules<B>) -> [(B, B, B); 2] {
        let soldiers = (self.soldiers_to_move(), rules.soldier_stop, rules.soldier_pass);
        let king = if self.to_move == Side::Defenders {
            (self.king, rules.king_stop, rules.king_pass)
        } else {
            (B::EMPTY, B::EMPTY, B::EMPTY)
        };
        [soldiers, king]
    }
}
