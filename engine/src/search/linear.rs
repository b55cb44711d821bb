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
use super::heuristic::{weigh, Heuristic, HAND_WEIGHTS, VALUE_TERMS, VALUE_TERM_COUNT};
use super::mcts::softmax;
use crate::bitset::BitSet;
use crate::position::{Move, Position};
use crate::rules::Rules;
use crate::rules::NONE;
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

/// The weights of one side's moves: a move's logit is `hand x` the hand-written prior's
/// logit `+ captures x` the enemy soldiers it takes `+ distance x` the squares it travels over
/// the board side, plus, by the symmetry classes of its squares, `to[to] + from[from]` for a
/// soldier or `king_to[to]` for the king.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriorWeights {
    /// The hand-written prior's logit.
    pub hand: f32,
    /// Per enemy soldier the move captures.
    pub captures: f32,
    /// Per board side the piece travels.
    pub distance: f32,
    /// Per class of a soldier's destination.
    pub to: Vec<f32>,
    /// Per class of a soldier's origin.
    pub from: Vec<f32>,
    /// Per class of the king's destination.
    pub king_to: Vec<f32>,
}

impl PriorWeights {
    /// The hand-written priors: the hand logit alone.
    pub fn hand_written(classes: usize) -> PriorWeights {
        PriorWeights {
            hand: 1.0,
            captures: 0.0,
            distance: 0.0,
            to: vec![0.0; classes],
            from: vec![0.0; classes],
            king_to: vec![0.0; classes],
        }
    }

    /// The weights in one vector: hand, captures, distance, to, from, king_to.
    pub fn to_vec(&self) -> Vec<f32> {
        let mut v = vec![self.hand, self.captures, self.distance];
        v.extend(&self.to);
        v.extend(&self.from);
        v.extend(&self.king_to);
        v
    }

    /// Replaces the weights from a vector in the order of [`PriorWeights::to_vec`].
    pub fn set_from(&mut self, w: &[f32]) {
        let c = self.to.len();
        assert_eq!(w.len(), 3 + 3 * c, "a weight vector of the wrong length");
        (self.hand, self.captures, self.distance) = (w[0], w[1], w[2]);
        self.to.copy_from_slice(&w[3..3 + c]);
        self.from.copy_from_slice(&w[3 + c..3 + 2 * c]);
        self.king_to.copy_from_slice(&w[3 + 2 * c..]);
    }

    /// A move's logit.
    pub fn logit(&self, t: &MoveTerms) -> f32 {
        let squares = if t.king {
            self.king_to[t.to as usize]
        } else {
            self.to[t.to as usize] + self.from[t.from as usize]
        };
        self.hand * t.hand + self.captures * t.captures + self.distance * t.distance + squares
    }

    /// Where a move's terms enter [`PriorWeights::to_vec`], with their values (for a fit).
    pub fn active(&self, t: &MoveTerms) -> [(usize, f32); 5] {
        let c = self.to.len();
        let (a, b) = if t.king {
            ((3 + 2 * c + t.to as usize, 1.0), (3 + 2 * c + t.to as usize, 0.0))
        } else {
            ((3 + t.to as usize, 1.0), (3 + c + t.from as usize, 1.0))
        };
        [(0, t.hand), (1, t.captures), (2, t.distance), a, b]
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
    /// The king moves.
    pub king: bool,
    /// The symmetry class of the origin.
    pub from: u16,
    /// The symmetry class of the destination.
    pub to: u16,
}

impl MoveTerms {
    /// The terms of each move of `pos`; `classes` from [`square_classes`].
    pub fn of<B: BitSet>(
        rules: &Rules<B>,
        pos: &Position<B>,
        moves: &[Move],
        classes: &[usize],
    ) -> Vec<MoveTerms> {
        let hand = Heuristic::prior_logits(rules, pos, moves);
        let side = pos.to_move();
        let enemy = side.opponent();
        let enemies = match side {
            Side::Attackers => pos.defenders(),
            Side::Defenders => pos.attackers(),
        };
        let own = pos.side_pieces(side);
        let n = rules.n;
        moves
            .iter()
            .zip(hand)
            .map(|(m, hand)| {
                let (from, to) = (m.from as usize, m.to as usize);
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
                let (ff, fr, tf, tr) = (from % n, from / n, to % n, to / n);
                let travelled = ff.abs_diff(tf) + fr.abs_diff(tr);
                MoveTerms {
                    hand,
                    captures: captures as f32,
                    distance: travelled as f32 / n as f32,
                    king: m.from == pos.king(),
                    from: classes[from] as u16,
                    to: classes[to] as u16,
                }
            })
            .collect()
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
    attackers: PriorWeights,
    defenders: PriorWeights,
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
        if let Some(extra) = f.value.keys().find(|k| !VALUE_TERMS.contains(&k.as_str())) {
            return Err(format!(
                "[value] has `{extra}`, which is not a term (the terms: {})",
                VALUE_TERMS.join(", ")
            ));
        }
        let mut value = [0.0; VALUE_TERM_COUNT];
        for (i, name) in VALUE_TERMS.iter().enumerate() {
            value[i] = *f
                .value
                .get(*name)
                .ok_or_else(|| format!("[value] has no weight for `{name}`"))?;
        }
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
            Some(p) => {
                for (side, w) in [("attackers", &p.attackers), ("defenders", &p.defenders)] {
                    for (kind, v) in [("to", &w.to), ("from", &w.from), ("king_to", &w.king_to)] {
                        if v.len() != names.len() {
                            return Err(format!(
                                "[priors.{side}] {kind} has {} weights, one per class ({}) expected",
                                v.len(),
                                names.len()
                            ));
                        }
                    }
                }
                [p.attackers, p.defenders]
            }
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
                attackers: self.priors[Side::Attackers as usize].clone(),
                defenders: self.priors[Side::Defenders as usize].clone(),
            }),
        };
        let body = toml::to_string(&file).expect("weights serialize");
        format!(
            "# A linear evaluation (engine/src/search/linear.rs): the defenders' value is\n\
             # tanh(sum of [value] weights x the hand-written terms + the [squares] weights of the\n\
             # pieces' square classes; a soldier's weight is its side's weight over its starting number).\n{body}"
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
                let logits: Vec<f32> = MoveTerms::of(rules, i.position, i.moves, &self.classes)
                    .iter()
                    .map(|t| w.logit(t))
                    .collect();
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
