//! The [`Evaluator`] trait: the only thing search knows of an evaluation function.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{Move, Position};
use std::sync::Arc;

/// One position to evaluate, with its legal moves in the order the priors must follow.
#[derive(Clone, Copy, Debug)]
pub struct EvalInput<'a, B: BitSet> {
    /// The position (side to move included).
    pub position: &'a Position<B>,
    /// Its legal moves; the evaluator returns one prior per move, in this order.
    pub moves: &'a [Move],
    /// How many times this position has occurred in the game so far (1 for a new one), for
    /// encodings that show the repetition count.
    pub occurrences: u8,
    /// Plies played so far in the game.
    pub ply: u32,
}

/// Win, draw and loss probabilities from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wdl {
    /// Probability that the side to move wins.
    pub win: f32,
    /// Probability of a draw or no result.
    pub draw: f32,
    /// Probability that the side to move loses.
    pub loss: f32,
}

impl Wdl {
    /// A certain win / draw / loss and everything between, from a scalar in [-1, 1].
    pub fn from_value(v: f32) -> Wdl {
        let v = v.clamp(-1.0, 1.0);
        Wdl {
            win: (1.0 + v) / 2.0,
            draw: 0.0,
            loss: (1.0 - v) / 2.0,
        }
    }
    /// Expected score in [-1, 1]: win minus loss.
    pub fn value(&self) -> f32 {
        self.win - self.loss
    }
}

/// What an evaluator says of one position.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Evaluation {
    /// A probability per legal move, in the order of [`EvalInput::moves`]; sums to 1.
    pub priors: Vec<f32>,
    /// The outlook for the side to move.
    pub wdl: Wdl,
}

/// Evaluates batches of positions: a policy over the legal moves and a value for each.
///
/// Search gathers many leaves and calls [`Evaluator::evaluate`] once per batch, so network
/// evaluators can run one forward pass for all of them. Implementations are shared between
/// threads.
pub trait Evaluator<B: BitSet>: Send + Sync {
    /// Evaluates every input; returns one [`Evaluation`] per input, in order.
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation>;
    /// A short name for reports (`uniform`, `rollout`, `net:brandubh-0042`).
    fn name(&self) -> String;
    /// A second, costlier opinion for the positions the search visits often (see
    /// [`Layered`]): where there is one, a node that reaches
    /// [`SearchConfig::refine_visits`](super::SearchConfig::refine_visits) visits takes its
    /// children's priors from it, and its value as extra visits. None by default.
    fn refiner(&self) -> Option<&dyn Evaluator<B>> {
        None
    }
}

/// A fast evaluator for every leaf and a slow one for the nodes the search keeps coming back
/// to: the search runs at nearly the fast one's speed, and the slow one's judgement steers the
/// few hundred lines that decide the move. This is how Go programs played with networks
/// before those were fast (priors from the network only for nodes with enough playouts), and
/// what lets a network that costs a hundred times the hand-written evaluation help at equal
/// time.
pub struct Layered<B: BitSet> {
    /// Evaluates every new leaf.
    pub fast: Arc<dyn Evaluator<B>>,
    /// Refines nodes once they are visited often.
    pub slow: Arc<dyn Evaluator<B>>,
}

impl<B: BitSet> Evaluator<B> for Layered<B> {
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        self.fast.evaluate(rules, inputs)
    }
    fn name(&self) -> String {
        format!("{}+{}", self.fast.name(), self.slow.name())
    }
    fn refiner(&self) -> Option<&dyn Evaluator<B>> {
        Some(&*self.slow)
    }
}
