//! A learned linear evaluation: the hand-written evaluation's terms and the pieces' squares,
//! weighed by a file that `tafl tune` fits to a network's values.
//!
//! It runs at the hand-written evaluation's speed (the same terms, plus one table lookup per
//! piece), so a search with it keeps the hand-written search's simulations a second while its
//! value and priors carry some of what a network learned: the linear end of the "network shaped
//! for CPU play" spectrum, as chess engines tuned their hand-written evaluations' weights on
//! data before NNUE. The priors weigh the hand-written prior's logit, captures, distance and
//! the squares a move leaves and reaches ([`PriorWeights`]).
//!
//! The value for the defenders is `tanh(value . terms + squares)`, where `terms` are
//! [`Heuristic::value_terms`] and `squares` sums, over the pieces, a weight for the piece's kind
//! and its square's symmetry class (a square and its 7 images under the board's symmetries
//! share one weight, so the tables learn from 8 times the positions). Soldiers' weights are
//! divided by their side's starting number, so that a weight reads as "a whole side there".
//! [`HAND_WEIGHTS`] and zero square weights give exactly the hand-written value.
//!
//! The file (TOML) a person can read and edit:
//!
//! ```toml
//! ruleset = "brandubh"
//! board = 7
//! made_by = "tafl tune --rules brandubh ..."
//! [value]            # one weight per term of VALUE_TERMS
//! material = 0.8
//! # ...
//! [squares]          # one weight per symmetry class, named by its first square
//! classes = ["a1", "b1", "c1", "d1", "b2", "c2", "d2", "c3", "d3", "d4"]
//! attackers = [0.0, ...]
//! defenders = [0.0, ...]
//! king = [0.0, ...]
//! [priors.attackers]  # and [priors.defenders]; absent: the hand-written priors
//! hand = 1.0
//! captures = 0.0
//! distance = 0.0
//! to = [0.0, ...]     # per class, as [squares]
//! from = [0.0, ...]
//! king_to = [0.0, ...]
//! ```

use super::evaluator::{EvalInput, Evaluation, Evaluator, Wdl};
use super::heuristic::{weigh, Heuristic, PriorSquares, HAND_WEIGHTS, VALUE_TERMS, VALUE_TERM_COUNT};
use super::mcts::softmax;
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::compiled::NONE;
use crate::position::{Move, Position};
use crate::side::Side;
use crate::square::{square_name, Sq};
use crate::symmetry::{transform_square, SYMMETRIES};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The largest weights file read (a 19x19 board's file is about 4 kB).
pub const MAX_LINEAR_FILE_BYTES: u64 = 1 << 20;

/// Weights beyond this size are refused as a sign of a broken file or fit.
const MAX_WEIGHT: f32 = 1.0e4;

/// The symmetry classes of an `n x n` board's squares: for each square, the index of its class,
/// classes numbered in the order of their smallest square; and each class's smallest square.
pub fn square_classes(n: usize) -> (Vec<usize>, Vec<Sq>) {
    let mut firsts: Vec<Sq> = Vec::new();
    let class = (0..n * n)
        .map(|sq| {
            let first = SYMMETRIES
                .iter()
                .map(|&s| transform_square(n, s, sq as Sq))
                .min()
                .expect("eight symmetries");
            match firsts.iter().position(|&f| f == first) {
                Some(c) => c,
                None => {
                    firsts.push(first);
                    firsts.len() - 1
                }
            }
        })
        .collect();
    (class, firsts)
}

/// The weights of a linear evaluation, as fitted or read from a file: per value term and per
/// square class and piece kind.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearWeights {
    /// The ruleset (id) the weights were fitted under.
    pub ruleset: String,
    /// The board side.
    pub board: usize,
    /// What made them (a command line), kept in the file for people.
    pub made_by: String,
    /// One weight per term of [`VALUE_TERMS`].
    pub value: [f32; VALUE_TERM_COUNT],
    /// One weight per square class ([`square_classes`]) for the attackers, as a whole side.
    pub attackers: Vec<f32>,
    /// The same for the defenders' soldiers.
    pub defenders: Vec<f32>,
    /// The same for the king.
    pub king: Vec<f32>,
    /// The priors' weights, per side to move (indexed by `Side as usize`).
    pub priors: [PriorWeights; 2],
}

/// How many of a move's parts the linear priors weigh one by one ([`MOVE_PARTS`]).
pub const MOVE_PART_COUNT: usize = 7;

/// The parts of a move that the hand-written prior sums with fixed weights, and one it does not
/// look at, each weighed on its own by the linear priors; the names a weights file gives them.
/// For the side to move: the move's piece lands on a king's line that ends on an escape square
/// (`blocks_run`), on a square the king reaches now (`king_reach`), next to the king
/// (`near_king`), on a corner's sealing ring (`corner_guard`); the king lands on an escape
/// square (`king_escape`) or one move from one (`king_threat`); and the enemy pieces or
/// hostile squares beside the moved soldier with an empty square opposite, where an enemy
/// could close the sandwich (`exposed`).
pub const MOVE_PARTS: [&str; MOVE_PART_COUNT] = [
    "blocks_run",
    "king_reach",
    "near_king",
    "corner_guard",
    "king_escape",
    "king_threat",
    "exposed",
];

/// How many classes of a square's place relative to the king there are ([`NEAR_CLASS_NAMES`]).
pub const NEAR_CLASSES: usize = 10;

/// The names of the classes of a square's place relative to the king, as a weights file's header lists them: the
/// squares apart on the nearer and the farther axis, `3` meaning three or more.
pub const NEAR_CLASS_NAMES: [&str; NEAR_CLASSES] = [
    "0x0", "0x1", "0x2", "0x3", "1x1", "1x2", "1x3", "2x2", "2x3", "3x3",
];

/// The class of a square's place relative to the king, from the king's and the square's
/// (file, rank): the distances along the two axes, each capped at 3, the smaller first (the
/// class is the same under the board's 8 symmetries), numbered as [`NEAR_CLASS_NAMES`].
fn near_class_at(king: (usize, usize), sq: (usize, usize)) -> usize {
    let dx = king.0.abs_diff(sq.0).min(3);
    let dy = king.1.abs_diff(sq.1).min(3);
    let (lo, hi) = (dx.min(dy), dx.max(dy));
    // Rows of the triangle lo <= hi <= 3 start at 0, 4, 7, 9.
    [0, 4, 7, 9][lo] + (hi - lo)
}

/// The weights of one side's moves: a move's logit is `hand x` the hand-written prior's
/// logit `+ captures x` the enemy soldiers it takes `+ distance x` the squares it travels over
/// the board side `+` each of [`MOVE_PARTS`] times its weight, plus, by the symmetry classes of
/// its squares, `to[to] + from[from]` and, by their places relative to the king ([`NEAR_CLASS_NAMES`]),
/// `near_to[..] + near_from[..]` for a soldier, or `king_to[to]` for the king.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorWeights {
    /// The hand-written prior's logit.
    pub hand: f32,
    /// Per enemy soldier the move captures.
    pub captures: f32,
    /// Per board side the piece travels.
    pub distance: f32,
    /// Per part of [`MOVE_PARTS`].
    pub parts: [f32; MOVE_PART_COUNT],
    /// Per class of a soldier's destination.
    pub to: Vec<f32>,
    /// Per class of a soldier's origin.
    pub from: Vec<f32>,
    /// Per class of the king's destination.
    pub king_to: Vec<f32>,
    /// Per class of a soldier's destination relative to the king ([`NEAR_CLASS_NAMES`]).
    pub near_to: [f32; NEAR_CLASSES],
    /// Per class of a soldier's origin relative to the king ([`NEAR_CLASS_NAMES`]).
    pub near_from: [f32; NEAR_CLASSES],
}

/// The scalar weights before the class tables in [`PriorWeights::to_vec`]: hand, captures,
/// distance and the parts.
const PRIOR_SCALARS: usize = 3 + MOVE_PART_COUNT;

impl PriorWeights {
    /// The hand-written priors: the hand logit alone.
    pub fn hand_written(classes: usize) -> PriorWeights {
        PriorWeights {
            hand: 1.0,
            captures: 0.0,
            distance: 0.0,
            parts: [0.0; MOVE_PART_COUNT],
            to: vec![0.0; classes],
            from: vec![0.0; classes],
            king_to: vec![0.0; classes],
            near_to: [0.0; NEAR_CLASSES],
            near_from: [0.0; NEAR_CLASSES],
        }
    }

    /// The weights in one vector: hand, captures, distance, the parts, to, from, king_to,
    /// near_to, near_from.
    pub fn to_vec(&self) -> Vec<f32> {
        let mut v = vec![self.hand, self.captures, self.distance];
        v.extend(&self.parts);
        v.extend(&self.to);
        v.extend(&self.from);
        v.extend(&self.king_to);
        v.extend(&self.near_to);
        v.extend(&self.near_from);
        v
    }

    /// Replaces the weights from a vector in the order of [`PriorWeights::to_vec`].
    pub fn set_from(&mut self, w: &[f32]) {
        let c = self.to.len();
        assert_eq!(
            w.len(),
            PRIOR_SCALARS + 3 * c + 2 * NEAR_CLASSES,
            "a weight vector of the wrong length"
        );
        (self.hand, self.captures, self.distance) = (w[0], w[1], w[2]);
        self.parts.copy_from_slice(&w[3..PRIOR_SCALARS]);
        let w = &w[PRIOR_SCALARS..];
        self.to.copy_from_slice(&w[..c]);
        self.from.copy_from_slice(&w[c..2 * c]);
        self.king_to.copy_from_slice(&w[2 * c..3 * c]);
        self.near_to.copy_from_slice(&w[3 * c..3 * c + NEAR_CLASSES]);
        self.near_from.copy_from_slice(&w[3 * c + NEAR_CLASSES..]);
    }

    /// Whether these weights give any part or place relative to the king a weight (weights
    /// from before those terms do not, and a search with them need not compute them:
    /// [`MoveTerms::for_each`]'s `detail`).
    pub fn weighs_parts(&self) -> bool {
        self.parts
            .iter()
            .chain(&self.near_to)
            .chain(&self.near_from)
            .any(|w| *w != 0.0)
    }

    /// A move's logit.
    pub fn logit(&self, t: &MoveTerms) -> f32 {
        let mut l = self.plain_logit(t);
        if !t.king {
            l += self.near_to[t.near_to as usize] + self.near_from[t.near_from as usize];
        }
        l + self.parts.iter().zip(&t.parts).map(|(w, x)| w * x).sum::<f32>()
    }

    /// A move's logit without the parts and the places near the king: [`PriorWeights::logit`]
    /// where those weigh nothing.
    pub fn plain_logit(&self, t: &MoveTerms) -> f32 {
        let squares = if t.king {
            self.king_to[t.to as usize]
        } else {
            self.to[t.to as usize] + self.from[t.from as usize]
        };
        self.hand * t.hand + self.captures * t.captures + self.distance * t.distance + squares
    }

    /// Where a move's terms enter [`PriorWeights::to_vec`], with their values (for a fit); a
    /// king's move has its class-table entries after the first at value 0.
    pub fn active(&self, t: &MoveTerms) -> [(usize, f32); PRIOR_SCALARS + 4] {
        let c = self.to.len();
        let tables = PRIOR_SCALARS;
        let mut out = [(0, 0.0); PRIOR_SCALARS + 4];
        out[0] = (0, t.hand);
        out[1] = (1, t.captures);
        out[2] = (2, t.distance);
        for (k, x) in t.parts.iter().enumerate() {
            out[3 + k] = (3 + k, *x);
        }
        let near = tables + 3 * c;
        out[PRIOR_SCALARS..].copy_from_slice(&if t.king {
            let king_to = (tables + 2 * c + t.to as usize, 1.0);
            [king_to, (king_to.0, 0.0), (king_to.0, 0.0), (king_to.0, 0.0)]
        } else {
            [
                (tables + t.to as usize, 1.0),
                (tables + c + t.from as usize, 1.0),
                (near + t.near_to as usize, 1.0),
                (near + NEAR_CLASSES + t.near_from as usize, 1.0),
            ]
        });
        out
    }
}

/// What a move's prior weighs ([`PriorWeights`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveTerms {
    /// The hand-written prior's logit.
    pub hand: f32,
    /// Enemy soldiers the move sandwiches against a piece of its side or a square hostile to
    /// them (the custodial capture, without the rules' special cases).
    pub captures: f32,
    /// Squares travelled over the board side.
    pub distance: f32,
    /// The parts of [`MOVE_PARTS`], in order (0 or 1, and 0 to 2 for `exposed`).
    pub parts: [f32; MOVE_PART_COUNT],
    /// The king moves.
    pub king: bool,
    /// The symmetry class of the origin.
    pub from: u16,
    /// The symmetry class of the destination.
    pub to: u16,
    /// The class of the origin relative to the king ([`NEAR_CLASS_NAMES`]) (0 for a king's move).
    pub near_from: u8,
    /// The class of the destination relative to the king ([`NEAR_CLASS_NAMES`]) (0 for a king's move).
    pub near_to: u8,
}

impl MoveTerms {
    /// The terms of each move of `pos`; `classes` from [`square_classes`].
    pub fn of<B: BitSet>(
        rules: &Rules<B>,
        pos: &Position<B>,
        moves: &[Move],
        classes: &[usize],
    ) -> Vec<MoveTerms> {
        let mut out = Vec::with_capacity(moves.len());
        MoveTerms::for_each(rules, pos, moves, classes, true, |t| out.push(t));
        out
    }

    /// [`MoveTerms::of`] handed to `f` one move at a time, in the order of `moves` (the search
    /// weighs them as they come, with no list in between, and what it does not read of them
    /// is never stored). Without `detail`, the parts and the places
    /// relative to the king, which weights from before them leave at 0, are left at 0 too
    /// ([`PriorWeights::weighs_parts`]), and only the hand-written prior's logit is found.
    #[inline]
    pub fn for_each<B: BitSet>(
        rules: &Rules<B>,
        pos: &Position<B>,
        moves: &[Move],
        classes: &[usize],
        detail: bool,
        mut f: impl FnMut(MoveTerms),
    ) {
        // One look at the squares for all the moves: the hand-written logit comes from them too.
        let sq = PriorSquares::of(rules, pos, detail);
        let side = pos.to_move();
        let enemy = side.opponent();
        let enemies = match side {
            Side::Attackers => pos.defenders(),
            Side::Defenders => pos.attackers(),
        };
        let own = pos.side_pieces(side);
        let n = rules.n;
        let king = pos.king() as usize;
        let king_at = (king % n, king / n);
        let bit = |b: bool| if b { 1.0 } else { 0.0 };
        // Squares that close a sandwich on a moved soldier: enemy pieces and the empty squares
        // hostile to its side.
        let hostile_to_us = rules.hostile_empty[side as usize];
        let empty = rules.board & !pos.occupied();
        let closers = enemies | (hostile_to_us & empty);
        for m in moves {
            let (from, to) = (m.from as usize, m.to as usize);
            let is_king = from == king;
            let parts = detail.then(|| sq.parts(rules, is_king, to));
            let hand = match &parts {
                Some(p) => p.hand_logit(side, is_king),
                None => sq.hand_logit(rules, side, is_king, to),
            };
            let own_after = (own & !B::single(from)) | B::single(to);
            let empty_after = rules.board & !((pos.occupied() & !B::single(from)) | B::single(to));
            let hostile = own_after | (rules.hostile_empty[enemy as usize] & empty_after);
            let captures = (0..4)
                .filter(|&d| {
                    let e = rules.nbr[to][d];
                    if e == NONE || !enemies.has(e as usize) {
                        return false;
                    }
                    let beyond = rules.nbr[e as usize][d];
                    beyond != NONE && hostile.has(beyond as usize)
                })
                .count();
            let exposed = if is_king || !detail {
                0
            } else {
                // Each direction with its opposite (north, east, south, west): an enemy
                // or a hostile empty square on one side, an empty square the enemy may
                // move to on the other (the origin counts as empty).
                let closes = |a: Sq| a != NONE && closers.has(a as usize);
                let open = |b: Sq| {
                    b != NONE
                        && (b as usize == from || empty.has(b as usize))
                        && !hostile_to_us.has(b as usize)
                };
                let nb = &rules.nbr[to];
                [(0, 2), (1, 3), (2, 0), (3, 1)]
                    .iter()
                    .filter(|&&(d, o)| closes(nb[d]) && open(nb[o]))
                    .count()
            };
            let (ff, fr, tf, tr) = (from % n, from / n, to % n, to / n);
            let travelled = ff.abs_diff(tf) + fr.abs_diff(tr);
            let (near_from, near_to) = if is_king || !detail {
                (0, 0)
            } else {
                (
                    near_class_at(king_at, (ff, fr)) as u8,
                    near_class_at(king_at, (tf, tr)) as u8,
                )
            };
            f(MoveTerms {
                hand,
                captures: captures as f32,
                distance: travelled as f32 / n as f32,
                parts: match parts {
                    Some(parts) => [
                        bit(parts.blocks_run),
                        bit(parts.king_reach),
                        bit(parts.near_king),
                        bit(parts.corner_guard),
                        bit(parts.king_escape),
                        bit(parts.king_threat),
                        exposed as f32,
                    ],
                    None => [0.0; MOVE_PART_COUNT],
                },
                king: is_king,
                from: classes[from] as u16,
                to: classes[to] as u16,
                near_from,
                near_to,
            });
        }
    }
}

/// The weights of a file's table of named weights (`[value]`, a side's `parts`), in the order
/// of `names`: a name not among them is refused; a missing one is refused where `required`,
/// else 0.
fn named_weights<const N: usize>(
    table: &BTreeMap<String, f32>,
    names: &[&str; N],
    at: &str,
    what: &str,
    required: bool,
) -> Result<[f32; N], String> {
    if let Some(extra) = table.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(format!(
            "[{at}] has `{extra}`, which is not a {what} (the {what}s: {})",
            names.join(", ")
        ));
    }
    let mut out = [0.0; N];
    for (w, name) in out.iter_mut().zip(names) {
        *w = match table.get(*name) {
            Some(x) => *x,
            None if required => return Err(format!("[{at}] has no weight for `{name}`")),
            None => 0.0,
        };
    }
    Ok(out)
}

/// One side's prior weights as a file writes them: [`PriorWeights`] with the parts by name.
/// Files from before the parts and the king-relative tables were added lack them: they read
/// as 0, which leaves such a file's priors what they were.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct PriorFile {
    hand: f32,
    captures: f32,
    distance: f32,
    to: Vec<f32>,
    from: Vec<f32>,
    king_to: Vec<f32>,
    #[serde(default)]
    near_to: Vec<f32>,
    #[serde(default)]
    near_from: Vec<f32>,
    #[serde(default)]
    parts: BTreeMap<String, f32>,
}

impl PriorFile {
    fn of(w: &PriorWeights) -> PriorFile {
        PriorFile {
            hand: w.hand,
            captures: w.captures,
            distance: w.distance,
            to: w.to.clone(),
            from: w.from.clone(),
            king_to: w.king_to.clone(),
            near_to: w.near_to.to_vec(),
            near_from: w.near_from.to_vec(),
            parts: MOVE_PARTS
                .iter()
                .zip(w.parts)
                .map(|(n, x)| (n.to_string(), x))
                .collect(),
        }
    }

    /// The weights, refused (naming the side's table) where a table has the wrong length or
    /// a part is not one of [`MOVE_PARTS`].
    fn weights(self, side: &str, classes: usize) -> Result<PriorWeights, String> {
        for (kind, v) in [("to", &self.to), ("from", &self.from), ("king_to", &self.king_to)] {
            if v.len() != classes {
                return Err(format!(
                    "[priors.{side}] {kind} has {} weights, one per class ({classes}) expected",
                    v.len()
                ));
            }
        }
        let near = |kind: &str, v: &[f32]| -> Result<[f32; NEAR_CLASSES], String> {
            match v.len() {
                0 => Ok([0.0; NEAR_CLASSES]),
                NEAR_CLASSES => Ok(v.try_into().expect("length checked")),
                k => Err(format!(
                    "[priors.{side}] {kind} has {k} weights, one per place near the king ({NEAR_CLASSES}: {}) expected",
                    NEAR_CLASS_NAMES.join(", ")
                )),
            }
        };
        let parts = named_weights(
            &self.parts,
            &MOVE_PARTS,
            &format!("priors.{side}.parts"),
            "part",
            false,
        )?;
        Ok(PriorWeights {
            hand: self.hand,
            captures: self.captures,
            distance: self.distance,
            parts,
            near_to: near("near_to", &self.near_to)?,
            near_from: near("near_from", &self.near_from)?,
            to: self.to,
            from: self.from,
            king_to: self.king_to,
        })
    }
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct LinearFile {
    ruleset: String,
    board: usize,
    #[serde(default)]
    made_by: String,
    value: BTreeMap<String, f32>,
    squares: SquaresFile,
    /// Absent: the hand-written priors.
    #[serde(default)]
    priors: Option<PriorsFile>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct PriorsFile {
    attackers: PriorFile,
    defenders: PriorFile,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct SquaresFile {
    classes: Vec<String>,
    attackers: Vec<f32>,
    defenders: Vec<f32>,
    king: Vec<f32>,
}

impl LinearWeights {
    /// The hand-written evaluation as a linear one for `rules`: [`HAND_WEIGHTS`], squares 0.
    pub fn hand_written<B: BitSet>(rules: &Rules<B>) -> LinearWeights {
        let classes = square_classes(rules.n).1.len();
        LinearWeights {
            ruleset: rules.ruleset.file.id.clone(),
            board: rules.n,
            made_by: "the hand-written weights".into(),
            value: HAND_WEIGHTS,
            attackers: vec![0.0; classes],
            defenders: vec![0.0; classes],
            king: vec![0.0; classes],
            priors: [
                PriorWeights::hand_written(classes),
                PriorWeights::hand_written(classes),
            ],
        }
    }

    /// How many weights the value has: the terms, then attackers', defenders' and the king's
    /// classes, the order of [`LinearWeights::features`] and [`LinearWeights::value_vec`].
    pub fn value_len(&self) -> usize {
        VALUE_TERM_COUNT + 3 * self.attackers.len()
    }

    /// The value's weights in one vector, in the order of [`LinearWeights::features`].
    pub fn value_vec(&self) -> Vec<f32> {
        let mut v = self.value.to_vec();
        v.extend(&self.attackers);
        v.extend(&self.defenders);
        v.extend(&self.king);
        v
    }

    /// Replaces the value's weights from a vector in the order of [`LinearWeights::value_vec`].
    pub fn set_value(&mut self, w: &[f32]) {
        let c = self.attackers.len();
        assert_eq!(w.len(), self.value_len(), "a weight vector of the wrong length");
        self.value.copy_from_slice(&w[..VALUE_TERM_COUNT]);
        let rest = &w[VALUE_TERM_COUNT..];
        self.attackers.copy_from_slice(&rest[..c]);
        self.defenders.copy_from_slice(&rest[c..2 * c]);
        self.king.copy_from_slice(&rest[2 * c..]);
    }

    /// What the weights multiply for `pos`, in the order of [`LinearWeights::value_vec`]: the value
    /// terms, then each class's share of the attackers and of the defenders' soldiers, and
    /// whether the king stands in it. The defenders' value is `tanh(weights . features)`.
    pub fn features<B: BitSet>(
        rules: &Rules<B>,
        pos: &Position<B>,
        classes: &[usize],
        count: usize,
    ) -> Vec<f32> {
        let mut x = Heuristic::value_terms(rules, pos).to_vec();
        x.resize(VALUE_TERM_COUNT + 3 * count, 0.0);
        let att = 1.0 / rules.start_soldiers[Side::Attackers as usize].max(1) as f32;
        let def = 1.0 / rules.start_soldiers[Side::Defenders as usize].max(1) as f32;
        for sq in pos.attackers().squares() {
            x[VALUE_TERM_COUNT + classes[sq]] += att;
        }
        for sq in pos.defenders().squares() {
            x[VALUE_TERM_COUNT + count + classes[sq]] += def;
        }
        x[VALUE_TERM_COUNT + 2 * count + classes[pos.king() as usize]] = 1.0;
        x
    }

    /// Reads a weights file, refusing (with the file and the reason) a file too large, not
    /// TOML, missing or adding a term, with the wrong number or names of square classes, or
    /// with a weight that is not a finite number of sensible size.
    pub fn load(path: &Path) -> Result<LinearWeights, String> {
        let at = path.display();
        let size = std::fs::metadata(path)
            .map_err(|e| format!("linear weights `{at}`: {e}"))?
            .len();
        if size > MAX_LINEAR_FILE_BYTES {
            return Err(format!(
                "linear weights `{at}`: {size} bytes, more than the {MAX_LINEAR_FILE_BYTES} a weights file may hold"
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("linear weights `{at}`: {e}"))?;
        LinearWeights::parse(&text).map_err(|e| format!("linear weights `{at}`: {e}"))
    }

    /// Parses the text of a weights file (see [`LinearWeights::load`]).
    pub fn parse(text: &str) -> Result<LinearWeights, String> {
        let f: LinearFile = toml::from_str(text).map_err(|e| e.to_string())?;
        if !(7..=19).contains(&f.board) {
            return Err(format!("board {} is not a board side of 7 to 19", f.board));
        }
        let value = named_weights(&f.value, &VALUE_TERMS, "value", "term", true)?;
        let firsts = square_classes(f.board).1;
        let names: Vec<String> = firsts
            .iter()
            .map(|&s| square_name(f.board, s).to_string())
            .collect();
        if f.squares.classes != names {
            return Err(format!(
                "[squares] classes must be the {} symmetry classes of a {}x{} board, named by their first squares: {:?}",
                names.len(),
                f.board,
                f.board,
                names
            ));
        }
        for (kind, v) in [
            ("attackers", &f.squares.attackers),
            ("defenders", &f.squares.defenders),
            ("king", &f.squares.king),
        ] {
            if v.len() != names.len() {
                return Err(format!(
                    "[squares] {kind} has {} weights, one per class ({}) expected",
                    v.len(),
                    names.len()
                ));
            }
        }
        let priors = match f.priors {
            Some(p) => [
                p.attackers.weights("attackers", names.len())?,
                p.defenders.weights("defenders", names.len())?,
            ],
            None => [
                PriorWeights::hand_written(names.len()),
                PriorWeights::hand_written(names.len()),
            ],
        };
        let w = LinearWeights {
            ruleset: f.ruleset,
            board: f.board,
            made_by: f.made_by,
            value,
            attackers: f.squares.attackers,
            defenders: f.squares.defenders,
            king: f.squares.king,
            priors,
        };
        let all = w
            .value_vec()
            .into_iter()
            .chain(w.priors.iter().flat_map(|p| p.to_vec()));
        if let Some((i, x)) = all
            .enumerate()
            .find(|(_, x)| !x.is_finite() || x.abs() > MAX_WEIGHT)
        {
            return Err(format!(
                "weight {i} is {x}, not a finite number within +-{MAX_WEIGHT}"
            ));
        }
        Ok(w)
    }

    /// The file's text: the weights with their names, readable and editable.
    pub fn to_toml(&self) -> String {
        let firsts = square_classes(self.board).1;
        let file = LinearFile {
            ruleset: self.ruleset.clone(),
            board: self.board,
            made_by: self.made_by.clone(),
            value: VALUE_TERMS
                .iter()
                .zip(self.value)
                .map(|(n, w)| (n.to_string(), w))
                .collect(),
            squares: SquaresFile {
                classes: firsts
                    .iter()
                    .map(|&s| square_name(self.board, s).to_string())
                    .collect(),
                attackers: self.attackers.clone(),
                defenders: self.defenders.clone(),
                king: self.king.clone(),
            },
            priors: Some(PriorsFile {
                attackers: PriorFile::of(&self.priors[Side::Attackers as usize]),
                defenders: PriorFile::of(&self.priors[Side::Defenders as usize]),
            }),
        };
        let body = toml::to_string(&file).expect("weights serialize");
        format!(
            "# A linear evaluation (engine/src/search/linear.rs): the defenders' value is\n\
             # tanh(sum of [value] weights x the hand-written terms + the [squares] weights of the\n\
             # pieces' square classes; a soldier's weight is its side's weight over its starting number).\n\
             # The priors' near_to and near_from weigh a soldier's squares by place relative to the king,\n\
             # the squares apart on the nearer and the farther axis ({}; 3 means three or more).\n{body}",
            NEAR_CLASS_NAMES.join(", ")
        )
    }
}

/// The linear evaluation for one ruleset: [`LinearWeights`] expanded to a weight per square.
#[derive(Clone, Debug)]
pub struct Linear {
    weights: LinearWeights,
    /// Per square: an attacker's, a defender soldier's and the king's weight there.
    attacker: Vec<f32>,
    defender: Vec<f32>,
    king: Vec<f32>,
    /// Each square's symmetry class.
    classes: Vec<usize>,
    /// Per side to move: whether its priors weigh the parts or the places near the king.
    weighs_parts: [bool; 2],
}

impl Linear {
    /// The evaluation of `weights` under `rules`; refused when they were fitted for another
    /// ruleset or board.
    pub fn new<B: BitSet>(weights: LinearWeights, rules: &Rules<B>) -> Result<Linear, String> {
        let id = &rules.ruleset.file.id;
        if weights.board != rules.n || &weights.ruleset != id {
            return Err(format!(
                "the weights are for {} ({}x{}), not for {id} ({}x{})",
                weights.ruleset, weights.board, weights.board, rules.n, rules.n
            ));
        }
        let (class, _) = square_classes(rules.n);
        let att = rules.start_soldiers[Side::Attackers as usize].max(1) as f32;
        let def = rules.start_soldiers[Side::Defenders as usize].max(1) as f32;
        Ok(Linear {
            attacker: class.iter().map(|&c| weights.attackers[c] / att).collect(),
            defender: class.iter().map(|&c| weights.defenders[c] / def).collect(),
            king: class.iter().map(|&c| weights.king[c]).collect(),
            classes: class,
            weighs_parts: weights.priors.each_ref().map(PriorWeights::weighs_parts),
            weights,
        })
    }

    /// Reads a weights file ([`LinearWeights::load`]) for `rules`.
    pub fn load<B: BitSet>(path: &Path, rules: &Rules<B>) -> Result<Linear, String> {
        let w = LinearWeights::load(path)?;
        Linear::new(w, rules).map_err(|e| format!("linear weights `{}`: {e}", path.display()))
    }

    /// The weights.
    pub fn weights(&self) -> &LinearWeights {
        &self.weights
    }

    /// The value for the defenders in [-1, 1].
    pub fn defender_score<B: BitSet>(&self, rules: &Rules<B>, pos: &Position<B>) -> f32 {
        let mut s = weigh(&self.weights.value, &Heuristic::value_terms(rules, pos));
        for sq in pos.attackers().squares() {
            s += self.attacker[sq];
        }
        for sq in pos.defenders().squares() {
            s += self.defender[sq];
        }
        s += self.king[pos.king() as usize];
        s.tanh()
    }
}

impl<B: BitSet> Evaluator<B> for Linear {
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|i| {
                let d = self.defender_score(rules, i.position);
                let v = if i.position.to_move() == Side::Defenders {
                    d
                } else {
                    -d
                };
                let w = &self.weights.priors[i.position.to_move() as usize];
                let detail = self.weighs_parts[i.position.to_move() as usize];
                let mut logits = Vec::with_capacity(i.moves.len());
                MoveTerms::for_each(rules, i.position, i.moves, &self.classes, detail, |t| {
                    logits.push(if detail { w.logit(&t) } else { w.plain_logit(&t) })
                });
                Evaluation {
                    priors: softmax(&logits),
                    wdl: Wdl::from_value(v),
                }
            })
            .collect()
    }
    fn name(&self) -> String {
        format!("linear:{}", self.weights.ruleset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::square::parse_square;

    #[test]
    fn move_terms_weigh_the_hand_written_parts_one_by_one() {
        let r = Rules::<u128>::new(&crate::Ruleset::builtin("brandubh")).unwrap();
        // The king on a4 runs north to the corner a7 over a5 and a6; the defender on e6 stands
        // where an attacker moving beside it could be taken.
        let diagram = "
            7 # . . . . . #
            6 . . A . D . .
            5 . . . . . . .
            4 K . . . . . .
            3 . . . . . . .
            2 . . . . . . .
            1 # . . . . . #
              a b c d e f g
            ";
        let (classes, _) = square_classes(7);
        let terms_of = |side: Side| {
            let p = Position::from_diagram(&r, diagram, side).unwrap();
            let moves: Vec<Move> = p.moves(&r).as_slice().to_vec();
            let terms = MoveTerms::of(&r, &p, &moves, &classes);
            move |from: &str, to: &str| {
                let m = Move::new(parse_square(7, from).unwrap(), parse_square(7, to).unwrap());
                terms[moves.iter().position(|x| *x == m).unwrap()]
            }
        };
        let part = |t: MoveTerms, name: &str| t.parts[MOVE_PARTS.iter().position(|n| *n == name).unwrap()];
        let at = terms_of(Side::Attackers);
        // a6 blocks the king's run to a7, and the corner beside it closes a sandwich on it.
        assert_eq!(part(at("c6", "a6"), "blocks_run"), 1.0);
        assert_eq!(part(at("c6", "a6"), "exposed"), 1.0);
        // d6: the defender on e6 beside it, c6 (left empty by the move) opposite.
        assert_eq!(part(at("c6", "d6"), "exposed"), 1.0);
        assert_eq!(part(at("c6", "d6"), "blocks_run"), 0.0);
        assert_eq!(part(at("c6", "b6"), "exposed"), 0.0);
        // c4: on the king's row, two squares from it.
        let c4 = at("c6", "c4");
        assert_eq!(part(c4, "king_reach"), 1.0);
        assert_eq!(part(c4, "near_king"), 0.0);
        assert_eq!(NEAR_CLASS_NAMES[c4.near_to as usize], "0x2");
        assert_eq!(NEAR_CLASS_NAMES[c4.near_from as usize], "2x2");
        let de = terms_of(Side::Defenders);
        assert_eq!(part(de("a4", "a7"), "king_escape"), 1.0);
        assert_eq!(part(de("a4", "a5"), "king_threat"), 1.0);
        assert_eq!(part(de("a4", "a5"), "king_escape"), 0.0);
        assert_eq!(part(de("a4", "b4"), "king_threat"), 0.0);
        assert!(de("a4", "b4").king && !de("e6", "e5").king);
        // The king's place classes are those of the 8 symmetries: one class per unordered pair
        // of distances capped at 3.
        let d4 = parse_square(7, "d4").unwrap() as usize;
        let at = |sq: usize| (sq % 7, sq / 7);
        let class =
            |sq: &str| NEAR_CLASS_NAMES[near_class_at(at(d4), at(parse_square(7, sq).unwrap() as usize))];
        assert_eq!(class("d5"), "0x1");
        assert_eq!(class("c4"), "0x1");
        assert_eq!(class("e5"), "1x1");
        assert_eq!(class("f3"), "1x2");
        assert_eq!(class("a7"), "3x3");
        assert_eq!(class("a6"), "2x3");
        assert_eq!(NEAR_CLASS_NAMES.len(), NEAR_CLASSES);
    }
}
