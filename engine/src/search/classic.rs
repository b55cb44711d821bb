//! Evaluators that need no network and no knowledge: uniform, and random rollouts (the
//! hand-written evaluation is in `heuristic.rs`).
//! They let search run, be tested and play at all with no model.

use super::evaluator::{EvalInput, Evaluation, Evaluator, Wdl};
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::Game;
use crate::position::Position;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn uniform_priors(n: usize) -> Vec<f32> {
    vec![1.0 / n.max(1) as f32; n]
}

/// Uniform priors and a value of 0 everywhere: search driven by terminal positions alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct Uniform;

impl<B: BitSet> Evaluator<B> for Uniform {
    fn evaluate(&self, _rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|i| Evaluation {
                priors: uniform_priors(i.moves.len()),
                wdl: Wdl {
                    win: 0.0,
                    draw: 1.0,
                    loss: 0.0,
                },
            })
            .collect()
    }
    fn name(&self) -> String {
        "uniform".into()
    }
}

/// Uniform priors and the result of random playouts: the classic pure-MCTS baseline.
#[derive(Clone, Copy, Debug)]
pub struct Rollout {
    /// Playouts per evaluation.
    pub playouts: u32,
    /// A playout that reaches this many plies counts as a draw.
    pub max_plies: u32,
    /// Mixed into each playout's seed (with the position's hash and ply), so evaluations are
    /// reproducible whatever thread runs them.
    pub seed: u64,
}

impl Default for Rollout {
    fn default() -> Self {
        Rollout {
            playouts: 1,
            max_plies: 200,
            seed: 0,
        }
    }
}

impl Rollout {
    fn playout<B: BitSet>(&self, rules: &Rules<B>, pos: &Position<B>, seed: u64) -> f32 {
        let me = pos.to_move();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut game = Game::from_position(rules, *pos).with_ply_limit(Some(self.max_plies));
        loop {
            if let Some(o) = game.outcome() {
                return match o.winner {
                    Some(w) if w == me => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
            let Some(mv) = game.pick_move(rules, |c| rng.random_range(0..c)) else {
                return 0.0;
            };
            game.play_unchecked(rules, mv);
        }
    }
}

impl<B: BitSet> Evaluator<B> for Rollout {
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|i| {
                let base = i.position.hash() ^ self.seed ^ ((i.ply as u64) << 48);
                let n = self.playouts.max(1);
                let v: f32 = (0..n)
                    .map(|k| self.playout(rules, i.position, crate::random::game_seed(base, k as u64)))
                    .sum::<f32>()
                    / n as f32;
                Evaluation {
                    priors: uniform_priors(i.moves.len()),
                    wdl: Wdl::from_value(v),
                }
            })
            .collect()
    }
    fn name(&self) -> String {
        format!(
            "rollout{}",
            if self.playouts > 1 {
                format!("x{}", self.playouts)
            } else {
                String::new()
            }
        )
    }
}
