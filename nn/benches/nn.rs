//! Throughput of the default network of each board size: positions/s of inference at batch
//! 1, 16 and 256 and training samples/s at batch 256, on one and two threads, with the
//! effective GFLOP/s (2 FLOP per multiply-add; a training step counts 3 forward passes).
//!
//! `cargo bench -p tafl-nn --bench nn` runs everything (several minutes on two cores).
//! Options after `--`: `--sizes 7,9` `--threads 1,2` `--batches 1,16,256` `--no-train`
//! `--seconds 3` `--blocks 6 --channels 64 --pool-every 0` (override the default net).
//! `TAFL_NN_BACKEND=ndarray` (with `--features ndarray`) measures another backend.
//! `--engines burn,onnxruntime` (default: both, onnxruntime where its library loads) picks the
//! inference engines; training is burn's only. `% peak` is against [`tafl_nn::peak_gflops`].

use burn::optim::momentum::MomentumConfig;
use burn::optim::SgdConfig;
use std::time::{Duration, Instant};
use tafl_engine::{Game, Rules, Ruleset};
use tafl_nn::{
    forward_rate, peak_gflops, Backend, Batch, Encoder, Inference, Learner, LossConfig, NetConfig, Sample,
    TaflNet, PLANES,
};

struct Options {
    sizes: Vec<usize>,
    threads: Vec<usize>,
    batches: Vec<usize>,
    train: bool,
    seconds: f64,
    blocks: Option<usize>,
    channels: Option<usize>,
    pool_every: Option<usize>,
    engines: Vec<Inference>,
}

fn list(v: &str) -> Vec<usize> {
    v.split(',').filter_map(|x| x.trim().parse().ok()).collect()
}

fn options() -> Options {
    let mut o = Options {
        sizes: vec![7, 9, 11, 19],
        threads: vec![1, 2],
        batches: vec![1, 16, 256],
        train: true,
        seconds: 3.0,
        blocks: None,
        channels: None,
        pool_every: None,
        engines: vec![Inference::Burn, Inference::OnnxRuntime],
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--sizes" => o.sizes = list(&value),
            "--threads" => o.threads = list(&value),
            "--batches" => o.batches = list(&value),
            "--seconds" => o.seconds = value.parse().unwrap_or(o.seconds),
            "--blocks" => o.blocks = value.parse().ok(),
            "--channels" => o.channels = value.parse().ok(),
            "--pool-every" => o.pool_every = value.parse().ok(),
            "--engines" => o.engines = value.split(',').filter_map(|e| e.trim().parse().ok()).collect(),
            "--no-train" => {
                o.train = false;
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o
}

fn ruleset_for(n: usize) -> Ruleset {
    let id = match n {
        7 => "brandubh",
        9 => "tablut",
        11 => "copenhagen",
        _ => "alea-evangelii",
    };
    Ruleset::builtin(id)
}

/// Samples from a random game, cycled to `count`.
fn samples(ruleset: &Ruleset, count: usize) -> Vec<Sample> {
    tafl_engine::with_board!(ruleset, B, rules => samples_of::<B>(&rules, ruleset, count))
}

fn samples_of<B: tafl_engine::BitSet>(rules: &Rules<B>, ruleset: &Ruleset, count: usize) -> Vec<Sample> {
    let enc = Encoder::new(ruleset);
    let mut game = Game::new(rules);
    let mut out = Vec::new();
    let mut k = 0usize;
    while out.len() < count {
        if game.outcome().is_some() {
            game = Game::new(rules);
        }
        let pos = *game.position();
        let moves = pos.moves(rules);
        let visits: Vec<f32> = (0..moves.len()).map(|i| ((i * 7 + k) % 5) as f32).collect();
        out.push(Sample::new(
            &enc,
            &pos,
            1,
            game.ply(),
            moves.as_slice(),
            &visits,
            tafl_engine::search::Wdl::from_value(0.2),
            40.0,
        ));
        k += 1;
        game.play_unchecked(rules, moves.as_slice()[(k * 13) % moves.len()]);
    }
    out
}

/// Runs `f` until `seconds` have passed (at least twice, after one warm-up); returns the
/// mean time of one run.
fn time(seconds: f64, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut runs = 0u32;
    while runs < 2 || start.elapsed().as_secs_f64() < seconds {
        f();
        runs += 1;
    }
    start.elapsed() / runs
}

fn planes(ruleset: &Ruleset, samples: &[Sample], batch: usize) -> Vec<f32> {
    let n = ruleset.size();
    let mut flat = Vec::with_capacity(batch * PLANES * n * n);
    for s in samples.iter().cycle().take(batch) {
        flat.extend_from_slice(&s.planes);
    }
    flat
}

fn main() {
    let o = options();
    let backend: Backend = std::env::var("TAFL_NN_BACKEND")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(Backend::DEFAULT);
    let Ok(device) = backend.device() else {
        eprintln!("backend {backend} is not compiled in");
        return;
    };
    println!("backend {backend}");
    if o.engines.contains(&Inference::OnnxRuntime) {
        match tafl_nn::onnxruntime_library() {
            Ok(lib) => println!("onnxruntime {}", lib.display()),
            Err(e) => println!("no onnxruntime rows: {e}"),
        }
    }
    for &t in &o.threads {
        println!("{}", peak_gflops(t).1);
    }
    println!(
        "{:<6} {:<22} {:>11} {:>7} {:>5} {:>12} {:>10} {:>8} {:>6}",
        "board", "net", "engine", "threads", "batch", "what", "per s", "GFLOP/s", "% peak"
    );
    for &n in &o.sizes {
        let ruleset = ruleset_for(n);
        let mut config = NetConfig::for_board(n);
        if let Some(b) = o.blocks {
            config.blocks = b;
        }
        if let Some(c) = o.channels {
            config.channels = c;
        }
        if let Some(p) = o.pool_every {
            config.global_pool_every = p;
        }
        let flop = 2.0 * config.macs_per_position() as f64;
        let net = format!(
            "{}x{}{} {:.0}MFLOP",
            config.blocks,
            config.channels,
            if config.global_pool_every > 0 {
                " gpool"
            } else {
                ""
            },
            flop / 1e6
        );
        let data = samples(&ruleset, 256);
        let enc = Encoder::new(&ruleset);
        for &threads in &o.threads {
            let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() else {
                continue;
            };
            let peak = peak_gflops(threads).0;
            let row = |engine: &str, batch: usize, what: &str, per_s: f64, flop: f64| {
                let gflops = per_s * flop / 1e9;
                println!(
                    "{n:<6} {net:<22} {engine:>11} {threads:>7} {batch:>5} {what:>12} {per_s:>10.1} {gflops:>8.1} {:>5.0}%",
                    100.0 * gflops / peak
                );
            };
            pool.install(|| {
                let model: TaflNet = config.init(&device);
                let x = planes(&ruleset, &data, data.len());
                for &engine in &o.engines {
                    for &batch in &o.batches {
                        // An engine that cannot run here (no onnxruntime) has no rows.
                        let Ok(per_s) = forward_rate(&model, engine, &x, batch, threads, o.seconds) else {
                            break;
                        };
                        row(engine.name(), batch, "positions", per_s, flop);
                    }
                }
                if o.train {
                    let ad = device.clone().autodiff();
                    let optim = SgdConfig::new()
                        .with_momentum(Some(MomentumConfig::new().with_momentum(0.9)))
                        .init();
                    let mut learner = Learner::new(config.init(&ad), optim, LossConfig::new());
                    let batch = Batch::new(&enc, &data, &ad);
                    let t = time(o.seconds, || {
                        learner.step(&batch, 1e-3);
                    });
                    row("burn", 256, "train", 256.0 / t.as_secs_f64(), 3.0 * flop);
                }
            });
        }
    }
}
