//! The hand-written evaluation: what a Tafl player looks at, as numbers.
//!
//! Every term is computed from the rules as data (escape squares, how the king is captured,
//! which empty squares are hostile), so the same code reads every ruleset. The terms are
//! exposed as [`Features`] so that each can be tested on a diagram; [`Heuristic`] weighs them
//! into a value and ranks moves for the search's priors.

use super::evaluator::{EvalInput, Evaluation, Evaluator, Wdl};
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{Move, Position};
use crate::ruleset::{Escape, KingCapture};
use crate::side::Side;

/// King moves looked ahead when measuring the distance to escape; farther counts as "far".
const ROUTE_DEPTH: u32 = 4;

/// The terms of the hand-written evaluation for one position (all from the board alone; the
/// side to move matters only for [`Heuristic`]'s tactical bonus).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Features {
    /// Defenders' share of their starting number minus the attackers' share of theirs.
    pub material: f32,
    /// Squares the king can move to, over the most a king can have (`2 (n - 1)`).
    pub king_mobility: f32,
    /// Escape squares the king reaches in one move.
    pub escapes_in_one: u32,
    /// Escape squares the king reaches in at most two moves (the board as it stands).
    pub escapes_in_two: u32,
    /// King moves to the nearest escape square with the board as it stands, 1 to
    /// [`ROUTE_DEPTH`]; `None` when none is reachable in that many.
    pub escape_distance: Option<u32>,
    /// Escape squares connected to the king by squares without attackers (orthogonal steps):
    /// escape squares an attackers' wall has not yet cut off. Zero means the king is enclosed.
    pub open_escapes: u32,
    /// All escape squares of the rules.
    pub escapes: u32,
    /// Share of the board in the king's region (squares connected to it without attackers).
    pub king_region: f32,
    /// Corner escapes only: attackers on the squares two steps from a corner (the diagonal
    /// that seals it), at most 3 counted per corner, over 3 per corner; 0 for edge escape.
    pub blockade: f32,
    /// Hostile neighbours of the king (attackers, hostile empty squares) over the number its
    /// capture needs where it stands; 0 where it cannot be captured (a strong king on the edge).
    pub king_danger: f32,
    /// The attackers, moving now, could capture the king with one move.
    pub king_capture_threat: bool,
}

/// How many terms the value weighs ([`Heuristic::value_terms`]).
pub const VALUE_TERM_COUNT: usize = 15;

/// The names of the value's terms, in order, as a [`Linear`](super::Linear) weights file writes them.
pub const VALUE_TERMS: [&str; VALUE_TERM_COUNT] = [
    "material",
    "king_mobility",
    "escape_route",
    "escapes_in_two",
    "open_escapes",
    "king_region",
    "blockade",
    "king_danger",
    "walled_in",
    "defenders_to_move_escape_in_one",
    "attackers_to_move_two_escapes_open",
    "attackers_to_move_one_escape_open",
    "king_capture_threat_attackers_to_move",
    "king_capture_threat_defenders_to_move",
    "constant",
];

/// The hand-written weights of the value's terms: the defenders' value is
/// `tanh(HAND_WEIGHTS . terms)`. The route term counts 1 for an escape one king move away,
/// 0.55 for two, 0.3 for three, 0.15 for four; being to move with an escape open is nearly
/// a win, an attacker able to take the king nearly a loss.
pub const HAND_WEIGHTS: [f32; VALUE_TERM_COUNT] = [
    0.8, 0.4, 0.9, 0.15, 0.6, 0.3, -0.6, -0.6, -0.8, 4.0, 2.5, 0.6, -4.0, -0.5, -0.9,
];

/// `weights . terms`, summed in order (so that the hand-written weights give exactly the sum
/// the evaluation always computed).
pub fn weigh(weights: &[f32], terms: &[f32]) -> f32 {
    let mut s = 0.0;
    for (w, t) in weights.iter().zip(terms) {
        s += w * t;
    }
    s
}

/// A hand-written evaluation: see [`Features`] for its terms; priors favour king runs toward
/// escape squares for the defenders, and for the attackers moves that block the king's lines,
/// close in on it or build corner blockades.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heuristic;

/// The squares `from` (any set of squares, read as kings) reaches in one king move over
/// `empty`, the empty squares of the board with the king lifted off it.
fn king_reach<B: BitSet>(rules: &Rules<B>, from: B, empty: B) -> B {
    rules.reach(from, empty & rules.king_pass, empty & rules.king_stop)
}

/// Squares connected to `from` by orthogonal steps through `through`.
fn flood<B: BitSet>(rules: &Rules<B>, from: B, through: B) -> B {
    let mut region = from;
    loop {
        let next = region | (rules.neighbours(region) & through);
        if next == region {
            return region;
        }
        region = next;
    }
}

/// How many hostile neighbours the king on `king` needs to be captured; `None` where it cannot
/// be captured.
fn king_capture_needs<B: BitSet>(rules: &Rules<B>, king: usize) -> Option<u32> {
    let near_throne = rules.near_throne.has(king);
    match rules.king_capture {
        KingCapture::Strong if rules.edge.has(king) => None,
        KingCapture::Strong => Some(4),
        KingCapture::StrongNearThrone if near_throne => Some(4),
        KingCapture::StrongNearThrone | KingCapture::Weak => Some(2),
    }
}

impl Heuristic {
    /// Computes every term of the evaluation for `pos`.
    pub fn features<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> Features {
        let n = rules.n as f32;
        let king_sq = pos.king() as usize;
        let king = pos.king_set();
        let attackers = pos.attackers();
        let empty = rules.board & !pos.occupied();
        let empty_no_king = empty | king;

        let reach1 = king_reach(rules, king, empty_no_king);
        let escapes_in_one = (reach1 & rules.escape).count();
        let mut seen = reach1;
        let mut frontier = reach1;
        let mut escape_distance = (escapes_in_one > 0).then_some(1);
        let mut escapes_in_two = escapes_in_one;
        for depth in 2..=ROUTE_DEPTH {
            if escape_distance.is_some() && depth > 2 {
                break;
            }
            frontier = king_reach(rules, frontier, empty_no_king) & !seen & !king;
            seen |= frontier;
            if depth == 2 {
                escapes_in_two = (seen & rules.escape).count();
            }
            if escape_distance.is_none() && (frontier & rules.escape).any() {
                escape_distance = Some(depth);
            }
            if frontier.is_empty() {
                break;
            }
        }

        let region = flood(rules, king, rules.board & !attackers);
        let escapes = rules.escape.count();
        let open_escapes = (region & rules.escape).count();

        let blockade = if rules.ruleset.file.escape == Escape::Corners && rules.corners.any() {
            let sealed: u32 = rules
                .corner_rings
                .iter()
                .map(|&ring| (ring & attackers).count().min(3))
                .sum();
            sealed as f32 / (3 * rules.corner_rings.len()) as f32
        } else {
            0.0
        };

        // Empty squares hostile to the king (the empty throne, corners), per the rules.
        let hostile_empty = rules.hostile_empty[Side::Defenders as usize] & empty;
        let hostile = attackers | hostile_empty;
        let king_nbrs = rules.neighbours(king);
        let needs = king_capture_needs(rules, king_sq);
        let king_danger = needs.map_or(0.0, |k| {
            ((king_nbrs & hostile).count() as f32 / k as f32).min(1.0)
        });
        let king_capture_threat = needs.is_some_and(|k| {
            // Squares an attacker reaches in one move.
            let reach = rules.reach(attackers, empty & rules.soldier_pass, empty & rules.soldier_stop);
            if k >= 4 {
                // Surrounded on every side: one empty neighbour left, an attacker can fill it,
                // and every other neighbour is hostile (off-board sides never count).
                let open = king_nbrs & !hostile;
                king_nbrs.count() == 4 && open.count() == 1 && (open & reach).any()
            } else {
                // Sandwiched: an empty neighbour an attacker can fill, opposite a hostile one.
                (0..4).any(|d| {
                    let a = rules.nbr[king_sq][d];
                    let b = rules.nbr[king_sq][(d + 2) % 4];
                    a != crate::compiled::NONE
                        && b != crate::compiled::NONE
                        && reach.has(a as usize)
                        && hostile.has(b as usize)
                })
            }
        });

        Features {
            material: pos.defenders().count() as f32 / rules.start_soldiers[Side::Defenders as usize] as f32
                - attackers.count() as f32 / rules.start_soldiers[Side::Attackers as usize] as f32,
            king_mobility: reach1.count() as f32 / (2.0 * (n - 1.0)),
            escapes_in_one,
            escapes_in_two,
            escape_distance,
            open_escapes,
            escapes,
            king_region: region.count() as f32 / (rules.n * rules.n) as f32,
            blockade,
            king_danger,
            king_capture_threat,
        }
    }

    /// The terms the value weighs, named in [`VALUE_TERMS`], for the defenders: the
    /// [`Features`] as the value reads them, each tactical case its own indicator, and a
    /// constant last. [`HAND_WEIGHTS`] over them is this evaluation's value; a learned
    /// [`Linear`](super::Linear) evaluation weighs the same terms (and the squares) its own way.
    pub fn value_terms<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> [f32; VALUE_TERM_COUNT] {
        let f = Heuristic::features(rules, pos);
        let route = match f.escape_distance {
            Some(1) => 1.0,
            Some(2) => 0.55,
            Some(3) => 0.3,
            Some(_) => 0.15,
            None => 0.0,
        };
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let defenders_move = pos.to_move() == Side::Defenders;
        [
            f.material,
            f.king_mobility,
            route,
            f.escapes_in_two.min(4) as f32,
            f.open_escapes as f32 / f.escapes.max(1) as f32,
            f.king_region,
            f.blockade,
            f.king_danger,
            // Walled in: the king can no longer run; only captures can reopen the board.
            flag(f.open_escapes == 0),
            flag(defenders_move && f.escapes_in_one >= 1),
            flag(!defenders_move && f.escapes_in_one >= 2),
            flag(!defenders_move && f.escapes_in_one == 1),
            flag(f.king_capture_threat && !defenders_move),
            flag(f.king_capture_threat && defenders_move),
            1.0,
        ]
    }

    /// The value for the defenders in [-1, 1].
    pub fn defender_score<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> f32 {
        weigh(&HAND_WEIGHTS, &Heuristic::value_terms(rules, pos)).tanh()
    }

    pub(crate) fn priors<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, moves: &[Move]) -> Vec<f32> {
        super::mcts::softmax(&Heuristic::prior_logits(rules, pos, moves))
    }

    /// The priors' logits, one per move: king runs toward escape squares for the defenders;
    /// for the attackers, blocking the king's lines, closing in on it, sealing corners.
    pub fn prior_logits<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, moves: &[Move]) -> Vec<f32> {
        let sq = PriorSquares::of(rules, pos, false);
        let king = pos.king();
        // The side chosen once, outside the loop over the moves (this runs at every node), and
        // the attackers never move the king.
        match pos.to_move() {
            Side::Defenders => moves
                .iter()
                .map(|m| sq.hand_logit(rules, Side::Defenders, m.from == king, m.to as usize))
                .collect(),
            Side::Attackers => moves
                .iter()
                .map(|m| sq.hand_logit(rules, Side::Attackers, false, m.to as usize))
                .collect(),
        }
    }
}

/// What the hand-written prior looks at in one move, for the side to move: whether the piece
/// lands on a king's line that ends on an escape square, on a square the king reaches now,
/// next to the king, or on a corner's sealing ring; whether the king lands on an escape
/// square, or one move from one with the board as it stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PriorParts {
    pub blocks_run: bool,
    pub king_reach: bool,
    pub near_king: bool,
    pub corner_guard: bool,
    pub king_escape: bool,
    pub king_threat: bool,
}

impl PriorParts {
    /// The hand-written prior's logit of a move with these parts, by `side` to move
    /// (`king_move`: the king's): king runs toward escape squares for the defenders (their
    /// other moves weigh nothing); for the attackers, blocking the king's lines, closing in
    /// on it, sealing corners.
    #[inline]
    pub fn hand_logit(&self, side: Side, king_move: bool) -> f32 {
        match side {
            Side::Defenders if !king_move => 0.0,
            Side::Defenders if self.king_escape => 6.0,
            Side::Defenders if self.king_threat => 1.8,
            Side::Defenders => 0.7,
            Side::Attackers => {
                let line = if self.blocks_run {
                    2.0
                } else if self.king_reach {
                    0.5
                } else {
                    0.0
                };
                let near = if self.near_king { 1.0 } else { 0.0 };
                let guard = if self.corner_guard { 0.6 } else { 0.0 };
                line + near + guard
            }
        }
    }
}

/// The squares the hand-written priors look at in one position, found once for all its
/// moves (the linear priors weigh each on its own, [`super::MoveTerms`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PriorSquares<B: BitSet> {
    /// The empty squares and the king's own (the king's moves pass from there).
    pub empty_no_king: B,
    /// The king's orthogonal neighbours.
    pub near_king: B,
    /// Squares the king reaches in one move now.
    pub reach1: B,
    /// Squares on a king's line that ends on an escape square: a piece there blocks a run.
    pub blocking: B,
    /// Corner escapes only: the squares that seal a corner (its ring); empty otherwise.
    pub guards: B,
}

impl<B: BitSet> PriorSquares<B> {
    /// The squares of `pos`; with the defenders to move and not `all`, only what their
    /// king's moves need (the hand-written prior looks at nothing else of theirs).
    #[inline]
    pub fn of(rules: &Rules<B>, pos: &Position<B>, all: bool) -> PriorSquares<B> {
        let king = pos.king_set();
        let empty_no_king = (rules.board & !pos.occupied()) | king;
        if !all && pos.to_move() == Side::Defenders {
            return PriorSquares {
                empty_no_king,
                near_king: B::EMPTY,
                reach1: B::EMPTY,
                blocking: B::EMPTY,
                guards: B::EMPTY,
            };
        }
        let mut blocking = B::EMPTY;
        let pass = empty_no_king & rules.king_pass;
        for d in 0..4 {
            let line = rules.slide(king, pass, d) & rules.king_stop & empty_no_king;
            if (line & rules.escape).any() {
                blocking |= line;
            }
        }
        let guards = if rules.ruleset.file.escape == Escape::Corners {
            rules.corner_rings.iter().fold(B::EMPTY, |a, &r| a | r)
        } else {
            B::EMPTY
        };
        PriorSquares {
            empty_no_king,
            near_king: rules.neighbours(king),
            reach1: king_reach(rules, king, empty_no_king),
            blocking,
            guards,
        }
    }

    /// The parts of a move to `to` (`king_move`: the king's).
    #[inline]
    pub fn parts(&self, rules: &Rules<B>, king_move: bool, to: usize) -> PriorParts {
        // Only the king's moves look at the escape squares (most moves are not his).
        let escape = king_move && rules.escape.has(to);
        PriorParts {
            blocks_run: self.blocking.has(to),
            king_reach: self.reach1.has(to),
            near_king: self.near_king.has(to),
            corner_guard: self.guards.has(to),
            king_escape: escape,
            king_threat: king_move && !escape && self.escape_next(rules, to),
        }
    }

    /// The hand-written prior's logit of a move to `to` by `side` ([`PriorParts::hand_logit`]),
    /// looking only at what that logit needs: nothing for the defenders' other pieces.
    #[inline]
    pub fn hand_logit(&self, rules: &Rules<B>, side: Side, king_move: bool, to: usize) -> f32 {
        if side == Side::Defenders && !king_move {
            return 0.0;
        }
        self.parts(rules, king_move, to).hand_logit(side, king_move)
    }

    /// A king on `to` would reach an escape square in one move, with the board as it stands.
    pub fn escape_next(&self, rules: &Rules<B>, to: usize) -> bool {
        (king_reach(rules, B::single(to), self.empty_no_king) & rules.escape).any()
    }
}

impl<B: BitSet> Evaluator<B> for Heuristic {
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|i| {
                let d = Heuristic::defender_score(rules, i.position);
                let v = if i.position.to_move() == Side::Defenders {
                    d
                } else {
                    -d
                };
                Evaluation {
                    priors: Heuristic::priors(rules, i.position, i.moves),
                    wdl: Wdl::from_value(v),
                }
            })
            .collect()
    }
    fn name(&self) -> String {
        "heuristic".into()
    }
}
