//! The fast inference path agrees with the reference: a [`NetEvaluator`] running ONNX Runtime
//! gives the same best moves, priors and values as one running burn, on fixed positions of the
//! shipped Brandubh and Tablut networks (real weights) and of a fresh network with a moves-left
//! head, as it does after its model is replaced. `scripts/install-onnxruntime.sh` provides the
//! library (as CI does before the tests); no speed is asserted here (see `cargo bench`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tafl_engine::{
    search::{EvalInput, Evaluation, Evaluator},
    Game, Rules, Ruleset,
};
use tafl_nn::burn::module::Module;
use tafl_nn::{
    default_device, load_checkpoint, BatchConfig, Inference, NetConfig, NetEvaluator, OnnxNet, TaflNet,
};

/// Largest difference allowed between a prior or a win/draw/loss probability of the two
/// engines: both compute in f32, in other summation orders, and ONNX Runtime folds batch
/// norms into the convolutions.
const TOLERANCE: f32 = 1e-4;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Installs the runtime where it is missing (idempotent; a few seconds when installed).
fn install() {
    let out = Command::new(root().join("scripts/install-onnxruntime.sh"))
        .output()
        .expect("run scripts/install-onnxruntime.sh");
    assert!(
        out.status.success(),
        "scripts/install-onnxruntime.sh failed (it needs python3 and PyPI access):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = tafl_nn::onnxruntime_library().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("onnxruntime: {}", lib.display());
}

/// Positions along a few deterministic games, from the start on.
fn games(ruleset: &Ruleset, count: usize) -> Vec<Game<u128>> {
    let rules = Rules::<u128>::new(ruleset).unwrap();
    (0..count)
        .map(|i| {
            let mut g = Game::new(&rules);
            for k in 0..i % 23 {
                if g.outcome().is_some() {
                    break;
                }
                let moves = g.moves(&rules);
                g.play_unchecked(&rules, moves.as_slice()[(k * 7 + i * 3) % moves.len()]);
            }
            g
        })
        .collect()
}

fn evaluator(model: TaflNet, ruleset: &Ruleset, inference: Inference, threads: usize) -> NetEvaluator {
    let config = BatchConfig {
        max_batch: 64,
        max_wait: Duration::from_millis(5),
        callers: 1,
        threads,
        inference,
        ..BatchConfig::default()
    };
    NetEvaluator::new(
        model,
        ruleset,
        default_device(),
        config,
        format!("net:{inference}"),
    )
}

fn evaluate(eval: &NetEvaluator, ruleset: &Ruleset, gs: &[Game<u128>]) -> Vec<Evaluation> {
    let rules = Rules::<u128>::new(ruleset).unwrap();
    let moves: Vec<_> = gs.iter().map(|g| g.moves(&rules)).collect();
    let inputs: Vec<EvalInput<'_, u128>> = gs
        .iter()
        .zip(&moves)
        .map(|(g, m)| EvalInput {
            position: g.position(),
            moves: m.as_slice(),
            occurrences: 1,
            ply: g.ply(),
        })
        .collect();
    eval.evaluate(&rules, &inputs)
}

fn best(e: &Evaluation) -> usize {
    (0..e.priors.len())
        .max_by(|&a, &b| e.priors[a].total_cmp(&e.priors[b]))
        .unwrap_or(0)
}

/// Compares the engines on `gs`; returns the largest difference seen.
fn agree(fast: &[Evaluation], reference: &[Evaluation]) -> f32 {
    assert_eq!(fast.len(), reference.len());
    let mut worst = 0f32;
    for (i, (f, r)) in fast.iter().zip(reference).enumerate() {
        assert_eq!(f.priors.len(), r.priors.len(), "position {i}");
        let d = f
            .priors
            .iter()
            .zip(&r.priors)
            .map(|(a, b)| (a - b).abs())
            .chain([
                (f.wdl.win - r.wdl.win).abs(),
                (f.wdl.draw - r.wdl.draw).abs(),
                (f.wdl.loss - r.wdl.loss).abs(),
            ])
            .fold(0f32, f32::max);
        assert!(d < TOLERANCE, "position {i}: differs by {d}: {f:?} vs {r:?}");
        // The same best move, unless two moves are tied within the tolerance.
        let (bf, br) = (best(f), best(r));
        assert!(
            bf == br || (r.priors[bf] - r.priors[br]).abs() < TOLERANCE,
            "position {i}: best move {bf} vs {br}"
        );
        worst = worst.max(d);
    }
    worst
}

fn shipped(id: &str) -> (TaflNet, Ruleset) {
    let ruleset = Ruleset::builtin(id);
    let (model, _) = load_checkpoint(&root().join("checkpoints").join(id), &ruleset, &default_device())
        .unwrap_or_else(|e| panic!("{e}"));
    (model, ruleset)
}

#[test]
fn onnxruntime_agrees_with_burn_on_the_shipped_networks() {
    install();
    for id in ["brandubh", "tablut"] {
        let (model, ruleset) = shipped(id);
        let gs = games(&ruleset, 60);
        let reference = evaluate(
            &evaluator(model.clone(), &ruleset, Inference::Burn, 1),
            &ruleset,
            &gs,
        );
        for threads in [1, 2] {
            let fast = evaluator(model.clone(), &ruleset, Inference::OnnxRuntime, threads);
            assert_eq!(fast.inference(), Inference::OnnxRuntime);
            let worst = agree(&evaluate(&fast, &ruleset, &gs), &reference);
            eprintln!("{id}, {threads} thread(s): largest difference {worst:.2e}");
        }
        // `auto` takes the fast path where the library is there.
        let auto = evaluator(model, &ruleset, Inference::Auto, 0);
        assert_eq!(auto.inference(), Inference::OnnxRuntime);
        agree(&evaluate(&auto, &ruleset, &gs), &reference);
    }
}

#[test]
fn onnxruntime_follows_a_replaced_model_and_serves_the_moves_left_head() {
    install();
    let ruleset = Ruleset::builtin("brandubh");
    let device = default_device();
    device.seed(7);
    let config = NetConfig::tiny(7).with_moves_left(true);
    let first = config.init(&device);
    let second = config.init(&device);
    let gs = games(&ruleset, 30);
    let fast = evaluator(first, &ruleset, Inference::OnnxRuntime, 1);
    let _ = evaluate(&fast, &ruleset, &gs);
    fast.replace_model(second.clone());
    let after = evaluate(&fast, &ruleset, &gs);
    let reference = evaluate(
        &evaluator(second.clone(), &ruleset, Inference::Burn, 1),
        &ruleset,
        &gs,
    );
    agree(&after, &reference);

    // The bare session: logits as burn's forward pass computes them.
    let mut net = OnnxNet::new(&second.valid(), 1).unwrap_or_else(|e| panic!("{e}"));
    let enc = tafl_nn::Encoder::new(&ruleset);
    let mut planes = vec![0.0; enc.input_len()];
    enc.encode(gs[5].position(), 1, gs[5].ply(), 0, &mut planes);
    let out = net.forward(&planes, 1).unwrap_or_else(|e| panic!("{e}"));
    let n = ruleset.size();
    let input = tafl_nn::burn::prelude::Tensor::<4>::from_data(
        tafl_nn::burn::prelude::TensorData::new(planes.clone(), [1, tafl_nn::PLANES, n, n]),
        &device,
    );
    let want = second.valid().forward(input);
    let policy = want.policy.into_data().try_to_vec::<f32>().unwrap();
    let wdl = want.wdl.into_data().try_to_vec::<f32>().unwrap();
    assert_eq!(out.policy.len(), policy.len());
    for (a, b) in out.policy.iter().chain(&out.wdl).zip(policy.iter().chain(&wdl)) {
        assert!((a - b).abs() < 1e-3, "{a} vs {b}");
    }
    // A batch of the wrong size is an error, not a panic.
    assert!(net.forward(&planes, 2).is_err());
}

/// The int8 evaluator against the float one on the shipped networks, at fixed positions: how
/// often the best move is the same, and how far the value (win minus loss) moves. Quantization
/// changes numbers, so the bounds are statistical, set with a margin under what was measured
/// (printed, for the record): the same best move on 95.5-99.5% of the positions with 8-bit
/// weights (CPUs with VNNI), 91.5-97.5% with the 7-bit weights of other CPUs; values within
/// 0.014 on average, priors within 0.024 in total variation. A broken quantization (a wrong
/// scale, a tensor clipped) keeps the best move far less often.
#[test]
fn int8_keeps_the_shipped_networks_best_moves_and_values() {
    install();
    for id in ["brandubh", "tablut", "hnefatafl", "copenhagen"] {
        let (model, ruleset) = shipped(id);
        let gs = games(&ruleset, 200);
        let float = evaluate(
            &evaluator(model.clone(), &ruleset, Inference::OnnxRuntime, 1),
            &ruleset,
            &gs,
        );
        let int8_eval = evaluator(model, &ruleset, Inference::Int8, 1);
        assert_eq!(int8_eval.inference(), Inference::Int8);
        let int8 = evaluate(&int8_eval, &ruleset, &gs);
        let same_best = float
            .iter()
            .zip(&int8)
            .filter(|(f, q)| best(f) == best(q))
            .count() as f64
            / gs.len() as f64;
        let value = |e: &Evaluation| e.wdl.win - e.wdl.loss;
        let value_error = float
            .iter()
            .zip(&int8)
            .map(|(f, q)| (value(f) - value(q)).abs() as f64)
            .sum::<f64>()
            / gs.len() as f64;
        let prior_error = float
            .iter()
            .zip(&int8)
            .map(|(f, q)| {
                f.priors
                    .iter()
                    .zip(&q.priors)
                    .map(|(a, b)| (a - b).abs() as f64)
                    .sum::<f64>()
                    / 2.0
            })
            .sum::<f64>()
            / gs.len() as f64;
        eprintln!("{id}: same best move {same_best:.3}, mean |value difference| {value_error:.4}, mean prior total variation {prior_error:.4}");
        assert!(same_best >= 0.85, "{id}: best move kept in {same_best}");
        assert!(
            value_error <= 0.02,
            "{id}: value moved by {value_error} on average"
        );
        assert!(
            prior_error <= 0.04,
            "{id}: priors moved by {prior_error} on average"
        );
    }
}
