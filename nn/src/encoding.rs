//! Encoding v1: positions as input planes, moves as policy indices, and the 8 board
//! symmetries acting on both.
//!
//! # Input planes
//!
//! The input of the network is `[PLANES, n, n]` `f32` values (`PLANES` = 11). Within a plane,
//! square `rank * n + file` (the engine's square index, `a1` = 0) sits at row `rank`, column
//! `file`, so plane `p` of square `sq` is element `p * n * n + sq` of the flat input.
//!
//! | plane | name            | value                                                               |
//! | ----- | --------------- | ------------------------------------------------------------------- |
//! | 0     | attackers       | 1 on every attacking soldier                                        |
//! | 1     | defenders       | 1 on every defending soldier (the king not included)                |
//! | 2     | king            | 1 on the king                                                       |
//! | 3     | attackers move  | 1 everywhere when the attackers are to move, else 0                 |
//! | 4     | throne          | 1 on the throne square (all 0 for rules without a throne)           |
//! | 5     | refuges         | 1 on the restricted refuge squares (`corners` knob)                 |
//! | 6     | escapes         | 1 where the king escapes: the refuges, or every edge square         |
//! | 7     | board           | 1 everywhere (lets convolutions tell the edge from padding)         |
//! | 8     | repeated        | 1 everywhere when the position has occurred before (occurrences >= 2) |
//! | 9     | repeated twice  | 1 everywhere when occurrences >= 3                                  |
//! | 10    | ply             | `min(ply, 512) / 512` everywhere                                    |
//!
//! Planes 8 and 9 are all 0 under rules whose `repetition` knob is `ignore`, where the count
//! changes nothing. Colours are absolute (attackers are always plane 0), because the two sides
//! of Tafl play different games; plane 3 says who moves. The value head speaks for the side to
//! move.
//!
//! # Policy index
//!
//! A move slides a piece from a square in one of four directions over a distance of 1..n-1
//! squares, so every move has the index
//!
//! ```text
//! index = from * 4 * (n - 1) + direction * (n - 1) + (distance - 1)
//! ```
//!
//! with `direction` in the engine's order ([`tafl_engine::board::DIRECTIONS`]): 0 north (rank + 1),
//! 1 east (file + 1), 2 south (rank - 1), 3 west (file - 1). The index space has
//! `n * n * 4 * (n - 1)` entries, most of which no legal move ever uses (they leave the board);
//! the network's policy head predicts all of them, and evaluation takes the softmax over the
//! legal moves only.
//!
//! ```text
//!  7x7 board, from d4 (square 24):  base = 24 * 24 = 576
//!      north d5..d7  ->  576 + 0*6 + 0..2
//!      east  e4..g4  ->  576 + 1*6 + 0..2
//!      south d3..d1  ->  576 + 2*6 + 0..2
//!      west  c4..a4  ->  576 + 3*6 + 0..2
//! ```
//!
//! # Symmetries
//!
//! Symmetry `s` (numbered as in [`tafl_engine::board::SYMMETRIES`]) maps square `sq` to
//! [`tafl_engine::board::transform_square`]`(n, s, sq)`. It acts on planes by moving every value to the
//! mapped square, and on policy indices by mapping the from-square and the direction (the
//! distance is kept), which is a permutation of the whole index space. For a ruleset whose
//! special squares are symmetric, encoding a transformed position equals transforming the
//! encoding, and the legal moves of the transformed position are the transformed legal moves.
//! [`Encoder::symmetries`] lists the symmetries under which the ruleset's special squares are
//! invariant (all 8 for every built-in ruleset); only those are valid for augmentation.

use tafl_engine::{
    board::{transform_square, SYMMETRIES},
    rules::{Escape, Repetition},
    search::EvalInput,
    BitSet, Move, Position, Ruleset, Side, Sq,
};

/// The version of the input encoding and policy index described in this module. Models name it
/// in their manifest; a model trained with another version is refused.
pub const ENCODING_VERSION: u32 = 1;

/// Number of input planes of encoding v1.
pub const PLANES: usize = 11;

/// Plane numbers of encoding v1, in order (see the module documentation).
pub mod plane {
    /// Attacking soldiers.
    pub const ATTACKERS: usize = 0;
    /// Defending soldiers, the king excluded.
    pub const DEFENDERS: usize = 1;
    /// The king.
    pub const KING: usize = 2;
    /// All ones when the attackers are to move.
    pub const ATTACKERS_TO_MOVE: usize = 3;
    /// The throne square.
    pub const THRONE: usize = 4;
    /// Restricted refuge squares.
    pub const REFUGES: usize = 5;
    /// Squares where the king escapes.
    pub const ESCAPES: usize = 6;
    /// All ones.
    pub const BOARD: usize = 7;
    /// All ones when the position occurred before.
    pub const REPEATED: usize = 8;
    /// All ones when the position occurred at least twice before.
    pub const REPEATED_TWICE: usize = 9;
    /// The ply count, scaled to [0, 1].
    pub const PLY: usize = 10;
}

/// Name and meaning of every plane of encoding v1, in plane order (the table above), for
/// manifests and client documentation.
pub const PLANE_INFO: [(&str, &str); PLANES] = [
    ("attackers", "1 on every attacking soldier"),
    (
        "defenders",
        "1 on every defending soldier (the king not included)",
    ),
    ("king", "1 on the king"),
    (
        "attackers_to_move",
        "1 everywhere when the attackers are to move, else 0",
    ),
    (
        "throne",
        "1 on the throne square (all 0 for rules without a throne)",
    ),
    ("refuges", "1 on the restricted refuge squares"),
    (
        "escapes",
        "1 where the king escapes: the refuges, or every edge square under edge escape",
    ),
    ("board", "1 everywhere"),
    (
        "repeated",
        "1 everywhere when the position has occurred before (occurrences >= 2)",
    ),
    ("repeated_twice", "1 everywhere when occurrences >= 3"),
    ("ply", "min(ply, 512) / 512 everywhere"),
];

/// Plies at which the ply plane saturates at 1.
pub const PLY_SCALE: u32 = 512;

/// Direction steps `(file, rank)` in the order of [`tafl_engine::board::DIRECTIONS`].
const STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// Encoding v1 for one ruleset: input planes, the policy index and the symmetry tables.
///
/// Built once per ruleset and shared; every method is cheap and allocation-free unless it
/// returns a `Vec`.
#[derive(Clone, Debug)]
pub struct Encoder {
    n: usize,
    /// Planes that depend only on the rules (throne, refuges, escapes, board), `[PLANES * n * n]`.
    fixed: Vec<f32>,
    repetition_matters: bool,
    /// Per symmetry: the image of every square.
    square_map: [Vec<Sq>; 8],
    /// Per symmetry: the image of every direction.
    dir_map: [[u8; 4]; 8],
    /// Symmetries under which the rules' special squares are invariant.
    valid: Vec<u8>,
}

impl Encoder {
    /// The encoder for a ruleset.
    pub fn new(ruleset: &Ruleset) -> Encoder {
        let n = ruleset.size();
        let nn = n * n;
        let mut fixed = vec![0.0; PLANES * nn];
        let edge = |sq: usize| {
            let (f, r) = (sq % n, sq / n);
            f == 0 || r == 0 || f == n - 1 || r == n - 1
        };
        for sq in 0..nn {
            fixed[plane::BOARD * nn + sq] = 1.0;
            let escape = match ruleset.file.escape {
                Escape::Corners => ruleset.corners.contains(&(sq as Sq)),
                Escape::Edge => edge(sq),
            };
            if escape {
                fixed[plane::ESCAPES * nn + sq] = 1.0;
            }
        }
        if let Some(t) = ruleset.throne {
            fixed[plane::THRONE * nn + t as usize] = 1.0;
        }
        for &c in &ruleset.corners {
            fixed[plane::REFUGES * nn + c as usize] = 1.0;
        }
        let square_map: [Vec<Sq>; 8] =
            std::array::from_fn(|s| (0..nn as Sq).map(|sq| transform_square(n, s as u8, sq)).collect());
        let dir_map: [[u8; 4]; 8] = std::array::from_fn(|s| {
            std::array::from_fn(|d| {
                let (mut df, mut dr) = STEPS[d];
                if s & 4 != 0 {
                    std::mem::swap(&mut df, &mut dr);
                }
                if s & 1 != 0 {
                    df = -df;
                }
                if s & 2 != 0 {
                    dr = -dr;
                }
                STEPS.iter().position(|&st| st == (df, dr)).unwrap_or(0) as u8
            })
        });
        let mut enc = Encoder {
            n,
            fixed,
            repetition_matters: ruleset.file.repetition != Repetition::Ignore,
            square_map,
            dir_map,
            valid: Vec::new(),
        };
        let fixed = enc.fixed.clone();
        let mut moved = vec![0.0; fixed.len()];
        enc.valid = SYMMETRIES
            .iter()
            .copied()
            .filter(|&s| {
                enc.transform_planes(s, &fixed, &mut moved);
                moved == fixed
            })
            .collect();
        enc
    }

    /// Board side.
    pub fn board_size(&self) -> usize {
        self.n
    }

    /// Number of input planes ([`PLANES`]).
    pub fn planes(&self) -> usize {
        PLANES
    }

    /// Length of one encoded position: `PLANES * n * n`.
    pub fn input_len(&self) -> usize {
        PLANES * self.n * self.n
    }

    /// Policy outputs per from-square: `4 * (n - 1)`.
    pub fn moves_per_square(&self) -> usize {
        4 * (self.n - 1)
    }

    /// Size of the policy index space: `n * n * 4 * (n - 1)`.
    pub fn policy_size(&self) -> usize {
        self.n * self.n * self.moves_per_square()
    }

    /// The symmetries under which the rules' special squares are invariant, identity first.
    pub fn symmetries(&self) -> &[u8] {
        &self.valid
    }

    /// The policy index of a move, or `None` when it is not a straight slide on this board.
    pub fn move_index(&self, mv: Move) -> Option<usize> {
        let n = self.n as i32;
        let (from, to) = (mv.from as i32, mv.to as i32);
        if from < 0 || to < 0 || from >= n * n || to >= n * n || from == to {
            return None;
        }
        let (ff, fr, tf, tr) = (from % n, from / n, to % n, to / n);
        let (dir, dist) = if ff == tf {
            if tr > fr {
                (0, tr - fr)
            } else {
                (2, fr - tr)
            }
        } else if fr == tr {
            if tf > ff {
                (1, tf - ff)
            } else {
                (3, ff - tf)
            }
        } else {
            return None;
        };
        Some(self.index(from as usize, dir, dist as usize))
    }

    /// The move of a policy index, or `None` when the index is out of range or the move
    /// would leave the board.
    pub fn index_move(&self, index: usize) -> Option<Move> {
        if index >= self.policy_size() {
            return None;
        }
        let (from, dir, dist) = self.split(index);
        let n = self.n as i32;
        let (df, dr) = STEPS[dir];
        let f = (from % self.n) as i32 + df * dist as i32;
        let r = (from / self.n) as i32 + dr * dist as i32;
        if !(0..n).contains(&f) || !(0..n).contains(&r) {
            return None;
        }
        Some(Move::new(from as Sq, (r * n + f) as Sq))
    }

    /// The index under symmetry `sym`: maps the from-square and the direction, keeps the
    /// distance. A permutation of `0..policy_size()` for every symmetry, valid or not.
    #[inline]
    pub fn transform_index(&self, sym: u8, index: usize) -> usize {
        let (from, dir, dist) = self.split(index);
        let s = (sym & 7) as usize;
        self.index(
            self.square_map[s][from] as usize,
            self.dir_map[s][dir] as usize,
            dist,
        )
    }

    /// Moves every value of a `[planes, n, n]` input (any number of planes) to its square's
    /// image under `sym`: `output[p][T(sq)] = input[p][sq]`.
    pub fn transform_planes(&self, sym: u8, input: &[f32], output: &mut [f32]) {
        let nn = self.n * self.n;
        let map = &self.square_map[(sym & 7) as usize];
        for (src, dst) in input.chunks_exact(nn).zip(output.chunks_exact_mut(nn)) {
            for (sq, &v) in src.iter().enumerate() {
                dst[map[sq] as usize] = v;
            }
        }
    }

    /// Writes the planes of a position, seen through symmetry `sym`, into `out`
    /// (`input_len()` values). `occurrences` counts this position in the game so far (1 for a
    /// new one); `ply` is the number of plies played.
    pub fn encode<B: BitSet>(&self, pos: &Position<B>, occurrences: u8, ply: u32, sym: u8, out: &mut [f32]) {
        let nn = self.n * self.n;
        let out = &mut out[..PLANES * nn];
        let s = (sym & 7) as usize;
        let map = &self.square_map[s];
        if s == 0 {
            out.copy_from_slice(&self.fixed);
        } else {
            // The fixed planes of a valid symmetry are their own image; transform anyway, so
            // an asymmetric custom ruleset is still encoded truthfully.
            self.transform_planes(sym, &self.fixed, out);
        }
        for sq in pos.attackers().squares() {
            out[plane::ATTACKERS * nn + map[sq] as usize] = 1.0;
        }
        for sq in pos.defenders().squares() {
            out[plane::DEFENDERS * nn + map[sq] as usize] = 1.0;
        }
        out[plane::KING * nn + map[pos.king() as usize] as usize] = 1.0;
        let fill = |out: &mut [f32], p: usize, v: f32| out[p * nn..(p + 1) * nn].fill(v);
        if pos.to_move() == Side::Attackers {
            fill(out, plane::ATTACKERS_TO_MOVE, 1.0);
        }
        if self.repetition_matters && occurrences >= 2 {
            fill(out, plane::REPEATED, 1.0);
            if occurrences >= 3 {
                fill(out, plane::REPEATED_TWICE, 1.0);
            }
        }
        let ply = ply.min(PLY_SCALE) as f32 / PLY_SCALE as f32;
        if ply > 0.0 {
            fill(out, plane::PLY, ply);
        }
    }

    /// [`Encoder::encode`] for an evaluation input.
    pub fn encode_input<B: BitSet>(&self, input: &EvalInput<'_, B>, sym: u8, out: &mut [f32]) {
        self.encode(input.position, input.occurrences, input.ply, sym, out);
    }

    /// The planes of a position as a new vector (see [`Encoder::encode`]).
    pub fn encode_vec<B: BitSet>(&self, pos: &Position<B>, occurrences: u8, ply: u32, sym: u8) -> Vec<f32> {
        let mut v = vec![0.0; self.input_len()];
        self.encode(pos, occurrences, ply, sym, &mut v);
        v
    }

    /// The policy indices of `moves` seen through symmetry `sym`, in order. Moves that are
    /// not straight slides (never produced by the engine) get index 0.
    pub fn move_indices(&self, moves: &[Move], sym: u8) -> Vec<u32> {
        moves
            .iter()
            .map(|&mv| {
                let i = self.move_index(mv).unwrap_or(0);
                self.transform_index(sym, i) as u32
            })
            .collect()
    }

    #[inline]
    fn index(&self, from: usize, dir: usize, dist: usize) -> usize {
        let k = self.n - 1;
        from * 4 * k + dir * k + (dist - 1)
    }

    #[inline]
    fn split(&self, index: usize) -> (usize, usize, usize) {
        let k = self.n - 1;
        (index / (4 * k), (index / k) % 4, index % k + 1)
    }
}
