//! Evaluators that need no network: uniform, random rollouts and a hand-written heuristic.
//! They let search run, be tested and play at all with no model.

use super::evaluator::{EvalInput, Evaluation, Evaluator, Wdl};
use crate::bitset::BitSet;
use crate::game::Game;
use crate::position::{Move, Position};
use crate::rules::Rules;
use crate::side::Side;
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
            let Some(mv) = game.position().pick_move(rules, |c| rng.random_range(0..c)) else {
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

/// A hand-written evaluation: the king's distance to escape, open lines to escape squares,
/// king mobility, attackers next to the king and material; priors favour king runs and moves
/// next to the king.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heuristic;

impl Heuristic {
    /// The value for the defenders in [-1, 1].
    pub fn defender_score<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> f32 {
        let n = rules.n as f32;
        let king = pos.king() as usize;
        let king_targets = pos.targets(rules, pos.king());
        let escapes_in_one = (king_targets & rules.escape).count() as f32;
        let (kf, kr) = ((king % rules.n) as f32, (king / rules.n) as f32);
        // Manhattan distance to the nearest escape square.
        let dist = rules
            .escape
            .squares()
            .map(|s| {
                let (f, r) = ((s % rules.n) as f32, (s / rules.n) as f32);
                (f - kf).abs() + (r - kr).abs()
            })
            .fold(2.0 * n, f32::min);
        let mobility = king_targets.count() as f32 / (2.0 * (n - 1.0));
        let hugging = (rules.neighbours(pos.king_set()) & pos.attackers()).count() as f32;
        let start_att = rules
            .ruleset
            .start
            .iter()
            .filter(|(_, p)| *p == crate::Piece::Attacker)
            .count()
            .max(1) as f32;
        let start_def = rules
            .ruleset
            .start
            .iter()
            .filter(|(_, p)| *p == crate::Piece::Defender)
            .count()
            .max(1) as f32;
        let material =
            pos.defenders().count() as f32 / start_def - pos.attackers().count() as f32 / start_att;
        let mut s = 0.8 * material + 0.6 * mobility - 0.35 * hugging + 0.8 * (1.0 - dist / n);
        s += match (pos.to_move(), escapes_in_one as u32) {
            (Side::Defenders, e) if e >= 1 => 4.0,
            (Side::Attackers, e) if e >= 2 => 2.5,
            (Side::Attackers, 1) => 0.6,
            _ => 0.0,
        };
        (s - 0.6).tanh()
    }

    fn priors<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, moves: &[Move]) -> Vec<f32> {
        let near_king = rules.neighbours(pos.king_set());
        let logits: Vec<f32> = moves
            .iter()
            .map(|m| {
                let to = m.to as usize;
                match pos.to_move() {
                    Side::Defenders if m.from == pos.king() && rules.escape.has(to) => 6.0,
                    Side::Defenders if m.from == pos.king() => 0.7,
                    Side::Attackers if near_king.has(to) => 1.0,
                    _ => 0.0,
                }
            })
            .collect();
        let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = logits.iter().map(|l| (l - m).exp()).collect();
        let s: f32 = e.iter().sum();
        e.iter().map(|x| x / s).collect()
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
