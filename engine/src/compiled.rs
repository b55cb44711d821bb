//! [`Rules`]: a [`Ruleset`] compiled into the bit masks and tables that play uses.

use crate::bitset::BitSet;
use crate::ruleset::{
    KingArmed, KingCapture, Repetition, Ruleset, Shieldwall, ThronePass, ThroneStop, YesNo,
};
use crate::side::{Piece, Side};
use crate::square::{square, Sq};
use crate::zobrist::ZobristKeys;

/// Directions, in the order of every per-direction table: north (+n), east (+1), south (-n), west (-1).
pub const DIRECTIONS: [Dir; 4] = [Dir::North, Dir::East, Dir::South, Dir::West];

/// One of the four orthogonal directions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    /// Toward higher ranks.
    North = 0,
    /// Toward later files.
    East = 1,
    /// Toward lower ranks.
    South = 2,
    /// Toward earlier files.
    West = 3,
}

/// Marks "no square" in neighbour tables (off the board).
pub const NONE: Sq = Sq::MAX;

/// A ruleset compiled for a bit set type that fits its board.
#[derive(Clone, Debug)]
pub struct Rules<B: BitSet> {
    /// The rules as data.
    pub ruleset: Ruleset,
    /// Board side.
    pub n: usize,
    pub(crate) board: B,
    pub(crate) edge: B,
    pub(crate) corners: B,
    pub(crate) throne_sq: Option<Sq>,
    pub(crate) near_throne: B,
    pub(crate) escape: B,
    /// Per direction: the squares a one-step shift may land on without wrapping around a rank.
    pub(crate) dir_mask: [B; 4],
    /// Where soldiers may stop, and where they may slide on past.
    pub(crate) soldier_stop: B,
    pub(crate) soldier_pass: B,
    /// The same for the king.
    pub(crate) king_stop: B,
    pub(crate) king_pass: B,
    /// Per square and direction: every square beyond it up to the edge.
    pub(crate) rays: Vec<[B; 4]>,
    /// Per square and direction: the neighbouring square or [`NONE`].
    pub(crate) nbr: Vec<[Sq; 4]>,
    /// Per victim side: empty squares that act as a capturing jaw against it.
    pub(crate) hostile_empty: [B; 2],
    /// The first and last file, and the first and last rank (for shieldwalls and forts).
    pub(crate) files_edge: [B; 2],
    pub(crate) ranks_edge: [B; 2],
    pub(crate) king_armed: KingArmed,
    pub(crate) king_capture: KingCapture,
    pub(crate) occupied_throne_hostile: bool,
    pub(crate) shieldwall: bool,
    /// Relaxed shieldwalls: any move of the enclosing side captures (see [`Shieldwall`]).
    pub(crate) shieldwall_relaxed: bool,
    pub(crate) linnaean: bool,
    pub(crate) exit_fort: bool,
    pub(crate) encirclement: bool,
    pub(crate) repetition: Repetition,
    /// Per corner: the board squares two orthogonal steps from it (the diagonal that seals
    /// it off), for the evaluation's blockade term; fixed by the board, so computed once.
    pub(crate) corner_rings: Vec<B>,
    /// Soldiers of each side (indexed by [`Side`]) in the start position, at least 1.
    pub(crate) start_soldiers: [u32; 2],
    /// The Zobrist keys of this board size.
    pub zobrist: ZobristKeys,
}

impl<B: BitSet> Rules<B> {
    /// Compiles a ruleset. Returns an error when the board does not fit in `B`.
    pub fn new(ruleset: &Ruleset) -> Result<Rules<B>, String> {
        let n = ruleset.size();
        if n * n > B::CAPACITY {
            return Err(format!(
                "a {n}x{n} board does not fit in a {}-bit set",
                B::CAPACITY
            ));
        }
        let f = &ruleset.file;
        let board = B::below(n * n);
        let mut edge = B::EMPTY;
        let mut file_first = B::EMPTY;
        let mut file_last = B::EMPTY;
        let mut rank_first = B::EMPTY;
        let mut rank_last = B::EMPTY;
        for i in 0..n {
            file_first |= B::single(square(n, 0, i) as usize);
            file_last |= B::single(square(n, n - 1, i) as usize);
            rank_first |= B::single(square(n, i, 0) as usize);
            rank_last |= B::single(square(n, i, n - 1) as usize);
        }
        edge |= file_first | file_last | rank_first | rank_last;
        let corners = ruleset
            .corners
            .iter()
            .fold(B::EMPTY, |a, &s| a | B::single(s as usize));
        let throne = ruleset.throne.map_or(B::EMPTY, |s| B::single(s as usize));
        let mut nbr = vec![[NONE; 4]; n * n];
        let mut rays = vec![[B::EMPTY; 4]; n * n];
        for rank in 0..n {
            for file in 0..n {
                let sq = square(n, file, rank) as usize;
                let steps: [(isize, isize); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
                for (d, (df, dr)) in steps.iter().enumerate() {
                    let (mut x, mut y) = (file as isize + df, rank as isize + dr);
                    let mut first = true;
                    while (0..n as isize).contains(&x) && (0..n as isize).contains(&y) {
                        let t = square(n, x as usize, y as usize);
                        if first {
                            nbr[sq][d] = t;
                            first = false;
                        }
                        rays[sq][d] |= B::single(t as usize);
                        x += df;
                        y += dr;
                    }
                }
            }
        }
        let mut near_throne = throne;
        if let Some(t) = ruleset.throne {
            for &s in &nbr[t as usize] {
                if s != NONE {
                    near_throne |= B::single(s as usize);
                }
            }
        }
        let throne_blocks_soldiers = f.throne_pass != ThronePass::All;
        let throne_blocks_king = f.throne_pass == ThronePass::Nobody;
        let soldier_stop = board & !corners & !throne;
        let soldier_pass = board & !corners & if throne_blocks_soldiers { !throne } else { board };
        let king_stop = board
            & if f.throne_stop == ThroneStop::Nobody {
                !throne
            } else {
                board
            };
        let king_pass = board & !corners & if throne_blocks_king { !throne } else { board };
        let hostile = |victim: Side| {
            let mut h = B::EMPTY;
            if f.corner_hostile.against(victim) {
                h |= corners;
            }
            if f.empty_throne_hostile.against(victim) {
                h |= throne;
            }
            h
        };
        let escape = match f.escape {
            crate::ruleset::Escape::Corners => corners,
            crate::ruleset::Escape::Edge => edge,
        };
        let start_soldiers = [Piece::Attacker, Piece::Defender]
            .map(|piece| (ruleset.start.iter().filter(|(_, p)| *p == piece).count() as u32).max(1));
        Ok(Rules {
            ruleset: ruleset.clone(),
            n,
            board,
            edge,
            corners,
            throne_sq: ruleset.throne,
            near_throne,
            escape,
            dir_mask: [board, board & !file_first, board, board & !file_last],
            soldier_stop,
            soldier_pass,
            king_stop,
            king_pass,
            rays,
            nbr,
            hostile_empty: [hostile(Side::Attackers), hostile(Side::Defenders)],
            files_edge: [file_first, file_last],
            ranks_edge: [rank_first, rank_last],
            king_armed: f.king_armed,
            king_capture: f.king_capture,
            occupied_throne_hostile: f.occupied_throne_hostile_to_attackers == YesNo::Yes,
            shieldwall: f.shieldwall != Shieldwall::No,
            shieldwall_relaxed: f.shieldwall == Shieldwall::Relaxed,
            linnaean: f.linnaean_capture == YesNo::Yes && ruleset.throne.is_some(),
            exit_fort: f.exit_fort == YesNo::Yes,
            encirclement: f.encirclement == YesNo::Yes,
            repetition: f.repetition,
            corner_rings: Vec::new(),
            start_soldiers,
            zobrist: ZobristKeys::new(n * n),
        }
        .with_corner_rings())
    }

    /// Fills [`Rules::corner_rings`] (which needs the neighbour steps of the compiled rules).
    fn with_corner_rings(mut self) -> Rules<B> {
        self.corner_rings = self
            .corners
            .squares()
            .map(|c| {
                let corner = B::single(c);
                let near = self.neighbours(corner);
                self.neighbours(near) & !near & !corner
            })
            .collect();
        self
    }

    /// The neighbour of `sq` in direction `d`, or [`NONE`] off the board.
    #[inline]
    pub fn neighbour(&self, sq: Sq, d: Dir) -> Sq {
        self.nbr[sq as usize][d as usize]
    }

    /// Every square one step from a square of `s` in direction `d`.
    #[inline]
    pub(crate) fn step(&self, s: B, d: usize) -> B {
        let moved = match d {
            0 => s.shl(self.n as u32),
            1 => s.shl(1),
            2 => s.shr(self.n as u32),
            _ => s.shr(1),
        };
        moved & self.dir_mask[d]
    }

    /// Every square `k` steps from a square of `s` in direction `d`, without wrap masking.
    #[inline]
    fn shift(&self, s: B, d: usize, k: u32) -> B {
        match d {
            0 => s.shl(k * self.n as u32),
            1 => s.shl(k),
            2 => s.shr(k * self.n as u32),
            _ => s.shr(k),
        }
    }

    /// Every square a piece of `from` can slide to in direction `d` through squares of `pass`
    /// (empty squares it may cross), plus the first square after each run; the caller keeps
    /// those it may stop on. Kogge-Stone doubling: log2(n) steps for any run length. Runs of
    /// different pieces never overlap (a piece blocks the one behind it), so the result's
    /// size counts moves.
    #[inline]
    pub(crate) fn slide(&self, from: B, pass: B, d: usize) -> B {
        let mut g = from;
        let mut p = pass & self.dir_mask[d];
        let mut k = 1u32;
        while (k as usize) < self.n {
            g |= p & self.shift(g, d, k);
            p &= self.shift(p, d, k);
            k *= 2;
        }
        self.step(g, d)
    }

    /// Every square a piece of `from` reaches in one move in any direction, crossing squares of
    /// `pass` and stopping on squares of `stop` (both already limited to empty squares).
    #[inline]
    pub(crate) fn reach(&self, from: B, pass: B, stop: B) -> B {
        let mut to = B::EMPTY;
        for d in 0..4 {
            to |= self.slide(from, pass, d);
        }
        to & stop
    }

    /// Every square orthogonally next to a square of `s`.
    #[inline]
    pub(crate) fn neighbours(&self, s: B) -> B {
        self.step(s, 0) | self.step(s, 1) | self.step(s, 2) | self.step(s, 3)
    }

    /// True for corner squares.
    pub fn is_corner(&self, sq: Sq) -> bool {
        self.corners.has(sq as usize)
    }
    /// True for the throne square.
    pub fn is_throne(&self, sq: Sq) -> bool {
        self.throne_sq == Some(sq)
    }
}
