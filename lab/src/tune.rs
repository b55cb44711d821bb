//! `tafl tune`: a [`Linear`](tafl_engine::search::Linear) evaluation fitted to a network's values.
//!
//! A network's evaluation is better than the hand-written one (it wins at equal simulations)
//! but costs a thousand times more a position, so at equal time the hand-written search, with
//! its ten times the simulations, is as strong. Tuning moves what the network knows into the
//! cheap evaluation instead (as chess engines tuned their hand-written weights on data, "Texel
//! tuning"): positions from games of a fast player with random moves mixed in (the kind of
//! positions a search visits, not only good play), each labelled with the network's value,
//! and the linear evaluation's weights fitted to those values by least squares through its
//! `tanh`, starting from the hand-written weights.
//!
//! One game in ten (by index) is held out; the report compares the hand-written and the
//! tuned value on those games' positions. Everything is drawn from the seed, so a tuning
//! reproduces on one machine (the network's values may differ in the last bits elsewhere).

use crate::players::{build, evaluator_on, resolve};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::PathBuf;
use tafl_engine::search::softmax;
use tafl_engine::{
    board::game_seed,
    formats::OpeningSuite,
    search::{square_classes, EvalInput, EvaluatorSpec, LinearWeights, MoveTerms, PriorWeights},
    BitSet, Game, Move, Position, Rules, Side,
};
use tafl_nn::Inference;

/// One game in this many (by index) is a validation game.
pub const VALIDATION_ONE_IN: u64 = 10;

/// Positions labelled by one call to the teacher.
const LABEL_CHUNK: usize = 256;

/// Positions a step of the fits.
const BATCH: usize = 256;

/// The fits' first learning rate.
const LR: f32 = 0.01;

/// What a tuning needs.
#[derive(Clone, Debug)]
pub struct TuneRequest {
    /// The network whose values are learned (a checkpoint or run folder, or `shipped`).
    pub teacher: String,
    /// Who plays the games the positions come from (a player spec or `level:N`).
    pub player: String,
    /// Games to play.
    pub games: u32,
    /// Uniformly random plies at the start of the games that start from the start position.
    pub opening_plies: u32,
    /// An opening suite: every other game starts from its positions in turn.
    pub openings: Option<PathBuf>,
    /// Passes over the training positions.
    pub epochs: u32,
    /// The teacher's inference engine (`None`: the process's default).
    pub inference: Option<Inference>,
    /// The command line, written into the weights file.
    pub made_by: String,
    /// How the games are played: seed, ply limit, exploration, threads.
    pub play: crate::study::StudyGames,
}

/// How a tuning went.
#[derive(Clone, Debug)]
pub struct Report {
    /// The fitted weights.
    pub weights: LinearWeights,
    /// Positions the fit learned from.
    pub train_positions: usize,
    /// Positions of the held-out games.
    pub validation_positions: usize,
    /// Mean squared difference from the teacher's value on the held-out positions: the
    /// hand-written evaluation, then the tuned one.
    pub mse: [f64; 2],
    /// Share of held-out positions where the evaluation and the teacher agree which side is
    /// ahead: hand-written, tuned.
    pub same_sign: [f64; 2],
    /// Cross-entropy of the priors against the teacher's on the held-out positions (nats):
    /// hand-written, tuned.
    pub prior_cross_entropy: [f64; 2],
    /// Share of held-out positions where the priors' and the teacher's likeliest move agree:
    /// hand-written, tuned.
    pub prior_top1: [f64; 2],
}

/// A position to learn from: the evaluation's features and the teacher's value for the
/// defenders.
struct Sample {
    game: u64,
    features: Vec<f32>,
    target: f32,
    /// The side to move.
    side: Side,
    /// Each legal move's terms, and the teacher's prior for it.
    moves: Vec<MoveTerms>,
    priors: Vec<f32>,
}

/// A recorded position with what the teacher needs to evaluate it.
struct Seen<B: BitSet> {
    game: u64,
    position: Position<B>,
    moves: Vec<Move>,
    occurrences: u8,
    ply: u32,
}

/// Plays the games, labels their positions with the teacher and fits the weights.
pub fn run<B: BitSet>(req: &TuneRequest, rules: &Rules<B>) -> Result<Report, String> {
    req.play.check(false)?;
    if req.games < VALIDATION_ONE_IN as u32 {
        return Err(format!(
            "--games {}: at least {VALIDATION_ONE_IN} games are needed (one in {VALIDATION_ONE_IN} is held out)",
            req.games
        ));
    }
    let player = resolve(&req.player)?;
    let suite = match &req.openings {
        Some(p) => OpeningSuite::load(p)?
            .positions(rules)
            .map_err(|e| format!("--openings {}: {e}", p.display()))?,
        None => Vec::new(),
    };
    let teacher = evaluator_on(&EvaluatorSpec::Model(req.teacher.clone()), rules, req.inference)?;

    let bar = crate::work::progress_bar(req.games as u64, "games");
    let games: Vec<Vec<Seen<B>>> = (0..req.games as u64)
        .into_par_iter()
        .map(|g| {
            let r = play(req, rules, &player, &suite, g);
            bar.inc(1);
            r
        })
        .collect::<Result<_, String>>()?;
    bar.finish_and_clear();
    let seen: Vec<Seen<B>> = games.into_iter().flatten().collect();

    let bar = crate::work::progress_bar(seen.len() as u64, "teacher's values");
    let (classes, firsts) = square_classes(rules.n);
    let samples: Vec<Sample> = seen
        .par_chunks(LABEL_CHUNK)
        .flat_map_iter(|chunk| {
            let inputs: Vec<EvalInput<'_, B>> = chunk
                .iter()
                .map(|s| EvalInput {
                    position: &s.position,
                    moves: &s.moves,
                    occurrences: s.occurrences,
                    ply: s.ply,
                })
                .collect();
            let evals = teacher.evaluate(rules, &inputs);
            bar.inc(chunk.len() as u64);
            chunk
                .iter()
                .zip(evals)
                .map(|(s, e)| {
                    let v = e.wdl.win - e.wdl.loss;
                    Sample {
                        game: s.game,
                        features: LinearWeights::features(rules, &s.position, &classes, firsts.len()),
                        target: if s.position.to_move() == Side::Defenders {
                            v
                        } else {
                            -v
                        },
                        side: s.position.to_move(),
                        moves: MoveTerms::of(rules, &s.position, &s.moves, &classes),
                        priors: e.priors,
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect();
    bar.finish_and_clear();

    let (validation, train): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| s.game % VALIDATION_ONE_IN == 0);
    let hand = LinearWeights::hand_written(rules);
    let start = hand.value_vec();
    let fitted = fit(&train, &start, req.epochs, req.play.seed);
    let mut weights = hand.clone();
    weights.set_value(&fitted);
    weights.made_by = req.made_by.clone();
    let mut cross_entropy = [0.0; 2];
    let mut top1 = [0.0; 2];
    let mut counted = 0;
    for side in [Side::Attackers, Side::Defenders] {
        let of_side = |set: &[&Sample]| -> Vec<(Vec<MoveTerms>, Vec<f32>)> {
            set.iter()
                .filter(|s| s.side == side && s.moves.len() > 1)
                .map(|s| (s.moves.clone(), s.priors.clone()))
                .collect()
        };
        let (train_side, validation_side) = (of_side(&train), of_side(&validation));
        let hand_priors = &hand.priors[side as usize];
        let fitted = fit_priors(&train_side, hand_priors, req.epochs, req.play.seed ^ side as u64);
        for (i, w) in [hand_priors, &fitted].into_iter().enumerate() {
            let (ce, t1) = prior_scores(&validation_side, w);
            cross_entropy[i] += ce * validation_side.len() as f64;
            top1[i] += t1 * validation_side.len() as f64;
        }
        counted += validation_side.len();
        weights.priors[side as usize] = fitted;
    }
    let per = |x: [f64; 2]| x.map(|v| v / counted.max(1) as f64);
    Ok(Report {
        mse: [mse(&validation, &start), mse(&validation, &fitted)],
        same_sign: [same_sign(&validation, &start), same_sign(&validation, &fitted)],
        prior_cross_entropy: per(cross_entropy),
        prior_top1: per(top1),
        train_positions: train.len(),
        validation_positions: validation.len(),
        weights,
    })
}

/// One game's positions: from the start after random opening plies (even games) or from the
/// suite's positions in turn (odd games, when there is a suite), each move the player's or,
/// with probability `exploration`, a uniformly random one.
fn play<B: BitSet>(
    req: &TuneRequest,
    rules: &Rules<B>,
    player: &crate::players::Resolved,
    suite: &[Position<B>],
    g: u64,
) -> Result<Vec<Seen<B>>, String> {
    let seed = game_seed(req.play.seed, g);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut p = build(player, seed, rules)?;
    let from_suite = !suite.is_empty() && g % 2 == 1;
    let start = if from_suite {
        suite[(g / 2) as usize % suite.len()]
    } else {
        Position::start(rules)
    };
    let mut game = Game::from_position(rules, start).with_ply_limit(Some(req.play.ply_limit));
    let mut random_plies = if from_suite { 0 } else { req.opening_plies };
    let mut seen = Vec::new();
    while game.outcome().is_none() {
        let moves = game.moves(rules);
        if moves.as_slice().is_empty() {
            break;
        }
        if random_plies == 0 {
            seen.push(Seen {
                game: g,
                position: *game.position(),
                moves: moves.as_slice().to_vec(),
                occurrences: game.occurrences().min(u8::MAX as usize) as u8,
                ply: game.ply(),
            });
        }
        let random = random_plies > 0 || rng.random::<f32>() < req.play.exploration;
        random_plies = random_plies.saturating_sub(1);
        let mv = if random {
            moves.as_slice()[rng.random_range(0..moves.as_slice().len())]
        } else {
            match p.choose(rules, &game) {
                Some((mv, _)) => mv,
                None => break,
            }
        };
        game.play_unchecked(rules, mv);
    }
    Ok(seen)
}

/// `tanh(w . x)`.
fn value(w: &[f32], x: &[f32]) -> f32 {
    tafl_engine::search::weigh(w, x).tanh()
}

/// Mean squared difference between the value of `w` and the targets.
fn mse(samples: &[&Sample], w: &[f32]) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let d = (value(w, &s.features) - s.target) as f64;
            d * d
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// Share of samples where the value of `w` and the target have the same sign (both near
/// zero counts as agreeing).
fn same_sign(samples: &[&Sample], w: &[f32]) -> f64 {
    let agree = samples
        .iter()
        .filter(|s| {
            let v = value(w, &s.features);
            (v >= 0.0) == (s.target >= 0.0) || (v.abs() < 0.05 && s.target.abs() < 0.05)
        })
        .count();
    agree as f64 / samples.len().max(1) as f64
}

/// Adam from `start` over `count` samples in shuffled mini-batches for `epochs` passes, the
/// learning rate falling linearly to a tenth; `gradient(batch, w, grad)` adds the batch's mean
/// gradient at `w` to `grad` (zeroed before each batch).
fn descend(
    count: usize,
    start: &[f32],
    epochs: u32,
    seed: u64,
    label: &str,
    gradient: impl Fn(&[usize], &[f32], &mut [f32]),
) -> Vec<f32> {
    let mut w = start.to_vec();
    let mut adam = Adam::new(w.len());
    let mut grad = vec![0.0f32; w.len()];
    let mut order: Vec<usize> = (0..count).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let bar = crate::work::progress_bar(epochs as u64, label);
    for epoch in 0..epochs {
        // Fisher-Yates from the seeded stream.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let lr = LR * (1.0 - 0.9 * epoch as f32 / epochs.max(1) as f32);
        for batch in order.chunks(BATCH) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            gradient(batch, &w, &mut grad);
            adam.step(&mut w, &grad, lr);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    w
}

/// Least squares through the `tanh`, from `start`.
fn fit(samples: &[&Sample], start: &[f32], epochs: u32, seed: u64) -> Vec<f32> {
    descend(
        samples.len(),
        start,
        epochs,
        seed ^ 0x7E5E_1A3D,
        "fit value",
        |batch, w, grad| {
            for &i in batch {
                let s = samples[i];
                let y = value(w, &s.features);
                // d/dw (y - target)^2 = 2 (y - target) (1 - y^2) x
                let d = 2.0 * (y - s.target) * (1.0 - y * y) / batch.len() as f32;
                for (g, x) in grad.iter_mut().zip(&s.features) {
                    *g += d * x;
                }
            }
        },
    )
}

/// The priors of `w` over one position's moves.
fn prior_probs(w: &PriorWeights, moves: &[MoveTerms]) -> Vec<f32> {
    let logits: Vec<f32> = moves.iter().map(|t| w.logit(t)).collect();
    softmax(&logits)
}

/// Mean cross-entropy against the teacher's priors, and the share of positions whose
/// likeliest move is the teacher's.
fn prior_scores(set: &[(Vec<MoveTerms>, Vec<f32>)], w: &PriorWeights) -> (f64, f64) {
    let argmax = |v: &[f32]| {
        v.iter()
            .enumerate()
            .fold(
                (0, f32::NEG_INFINITY),
                |b, (i, &x)| if x > b.1 { (i, x) } else { b },
            )
            .0
    };
    let (mut ce, mut top) = (0.0f64, 0usize);
    for (moves, target) in set {
        let p = prior_probs(w, moves);
        ce -= target
            .iter()
            .zip(&p)
            .map(|(t, q)| (*t as f64) * (q.max(1e-12) as f64).ln())
            .sum::<f64>();
        top += usize::from(argmax(&p) == argmax(target));
    }
    let n = set.len().max(1) as f64;
    (ce / n, top as f64 / n)
}

/// Cross-entropy of the priors against the teacher's, from `start`.
fn fit_priors(
    set: &[(Vec<MoveTerms>, Vec<f32>)],
    start: &PriorWeights,
    epochs: u32,
    seed: u64,
) -> PriorWeights {
    let fitted = descend(
        set.len(),
        &start.to_vec(),
        epochs,
        seed ^ 0x9813_5EED,
        "fit priors",
        |batch, w, grad| {
            let mut at = start.clone();
            at.set_from(w);
            for &i in batch {
                let (moves, target) = &set[i];
                let p = prior_probs(&at, moves);
                for ((t, q), y) in moves.iter().zip(&p).zip(target) {
                    // d(cross-entropy)/d(logit) = q - y
                    let d = (q - y) / batch.len() as f32;
                    for (j, x) in at.active(t) {
                        grad[j] += d * x;
                    }
                }
            }
        },
    );
    let mut out = start.clone();
    out.set_from(&fitted);
    out
}

/// Adam's moments for one weight vector.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    fn step(&mut self, w: &mut [f32], grad: &[f32], lr: f32) {
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        self.t += 1;
        let (c1, c2) = (1.0 - b1.powi(self.t), 1.0 - b2.powi(self.t));
        for j in 0..w.len() {
            self.m[j] = b1 * self.m[j] + (1.0 - b1) * grad[j];
            self.v[j] = b2 * self.v[j] + (1.0 - b2) * grad[j] * grad[j];
            w[j] -= lr * (self.m[j] / c1) / ((self.v[j] / c2).sqrt() + eps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fit finds weights that reproduce targets made by known weights.
    #[test]
    fn the_fit_recovers_known_weights() {
        let truth = [0.5f32, -1.0, 0.25, 0.0];
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let samples: Vec<Sample> = (0..4000)
            .map(|i| {
                let features: Vec<f32> = (0..4).map(|_| rng.random_range(-1.0..1.0)).collect();
                Sample {
                    game: i,
                    target: value(&truth, &features),
                    features,
                    side: Side::Defenders,
                    moves: Vec::new(),
                    priors: Vec::new(),
                }
            })
            .collect();
        let refs: Vec<&Sample> = samples.iter().collect();
        let start = [0.0f32; 4];
        let w = fit(&refs, &start, 30, 1);
        assert!(mse(&refs, &w) < 1e-4, "{w:?}");
        for (a, b) in w.iter().zip(truth) {
            assert!((a - b).abs() < 0.05, "{w:?} against {truth:?}");
        }
        assert!(mse(&refs, &start) > 0.1);
        assert_eq!(same_sign(&refs, &w), 1.0);
    }
}
