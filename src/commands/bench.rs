//! `tafl bench`: engine speed on one thread, the figures the issues set targets for.

use crate::common::RulesArg;
use std::time::Instant;
use tafl_engine::{
    board::{game_seed, random_game, MoveList},
    with_board, BitSet, Position, Rules, Ruleset,
};

/// The arguments of `tafl bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Rulesets to measure (comma separated).
    #[arg(long, default_value = "brandubh,tablut,hnefatafl,copenhagen")]
    rules: String,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Also measure search simulations per second (Uniform, Rollout and Heuristic evaluators) on
    /// this ruleset, one and two threads.
    #[arg(long, value_parser = crate::common::parse_rules)]
    search: Option<RulesArg>,
    /// The players whose one search `--search` times (repeat the flag for several; default:
    /// `mcts:heuristic`, `mcts:linear=shipped` where linear weights are shipped for the rules,
    /// and `mcts:model=shipped`, `mcts:hybrid=shipped` and `mcts:hybrid=shipped,linear=shipped`
    /// where a network is), for instance a network of one's own: `--player mcts:model=RUN`.
    #[arg(long = "player", value_name = "SPEC")]
    players: Vec<String>,
    /// Also measure the network's forward passes on this ruleset's network (shipped, else a
    /// fresh default one): positions and GFLOP/s per engine (burn, onnxruntime, int8), batch
    /// and thread count, with the fraction of the machine's peak.
    #[arg(long, value_parser = crate::common::parse_rules)]
    network: Option<RulesArg>,
    /// Also play self-play games of this training config (`default`: the embedded
    /// Brandubh config) with its rules' shipped model: games per hour and the evaluation
    /// cache's hit rate (`tafl --inference burn bench ...` for the burn path).
    #[arg(long)]
    selfplay: Option<String>,
    /// Games of `--selfplay`.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
}

impl BenchArgs {
    /// Runs `tafl bench`.
    pub fn run(self) -> Result<(), String> {
        let BenchArgs {
            rules,
            seconds,
            search,
            players,
            network,
            selfplay,
            games,
        } = self;
        let mut sets = Vec::new();
        for id in rules.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            sets.push(Ruleset::load(id).map_err(|e| e.to_string())?);
        }
        if !(seconds > 0.0 && seconds.is_finite()) {
            return Err("--seconds must be a positive number".into());
        }
        if seconds > 3600.0 {
            return Err(format!(
                "--seconds: {seconds} is too long; at most 3600 (an hour)"
            ));
        }
        if !players.is_empty() && search.is_none() {
            return Err("--player: the players are timed by --search RULES; give it too".into());
        }
        for spec in &players {
            tafl_lab::players::resolve(spec).map_err(|e| format!("--player {spec}: {e}"))?;
        }
        // `self::`: the module's functions, which some of the arguments' names shadow.
        self::run(&sets, seconds);
        if let Some(rules) = search {
            self::search(&rules.ruleset, seconds, &players)?;
        }
        if let Some(rules) = network {
            self::network(&rules.ruleset, seconds)?;
        }
        if let Some(file) = selfplay {
            let config = if file == "default" {
                tafl_trainer::TrainConfig::parse(tafl_trainer::DEFAULT_CONFIG, "default")?
            } else {
                let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
                tafl_trainer::TrainConfig::parse(&text, &file)?
            };
            self::selfplay(&config, games)?;
        }
        Ok(())
    }
}

/// Search simulations per second on `rs` from its start position: one search on one thread,
/// and one search per thread on two threads (searches are single-threaded; self-play and
/// arenas run one per game); then one search of each of `players` (the built-in choice when
/// empty) thinking a fixed time, on one and two threads. A player that cannot be built for
/// these rules (a network trained for others) is an error naming it.
pub fn search(rs: &Ruleset, seconds: f64, players: &[String]) -> Result<(), String> {
    use rayon::prelude::*;
    use tafl_engine::{
        search::{Evaluator, Heuristic, Rollout, Search, SearchConfig, Uniform},
        Game,
    };
    with_board!(rs, B, rules => {
        let evals: Vec<Box<dyn Evaluator<B>>> = vec![Box::new(Uniform), Box::new(Rollout::default()), Box::new(Heuristic)];
        for eval in &evals {
            for threads in [1usize, 2] {
                let sims_per_thread = |t: usize| {
                    let t0 = Instant::now();
                    let mut sims = 0u64;
                    let mut i = 0;
                    while t0.elapsed().as_secs_f64() < seconds {
                        let game = Game::new(&rules);
                        let config = SearchConfig { simulations: 800, ..SearchConfig::default() };
                        let mut s = Search::new(config, &game, (t * 1000 + i) as u64);
                        if let Some(r) = s.run(&rules, eval.as_ref(), 0.0) {
                            sims += r.simulations as u64;
                        }
                        i += 1;
                    }
                    sims as f64 / t0.elapsed().as_secs_f64()
                };
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| format!("cannot start threads: {e}"))?;
                let rate: f64 = pool.install(|| (0..threads).into_par_iter().map(sims_per_thread).sum());
                println!("{:<22} search {:<10} {threads} thread(s) {:>12.0} simulations/s", rs.id(), eval.name(), rate);
            }
        }
        // One player's search on several threads, both ways `--parallel` offers: the
        // simulations a second one player gets out of a time limit. The network player too,
        // where a model was shipped for these rules: its evaluations cost far more than the
        // tree walk, which is what a shared tree's lock serialises; the hybrid, which asks it
        // only of the nodes visited often; and the linear evaluation, alone and as the
        // hybrid's fast layer, where linear weights are shipped.
        use tafl_engine::search::Parallelism;
        let mut chosen: Vec<&str> = players.iter().map(String::as_str).collect();
        if chosen.is_empty() {
            chosen.push("mcts:heuristic");
            let linear = tafl_models::shipped::linear_for_rules(rs).is_ok();
            if linear {
                chosen.push("mcts:linear=shipped");
            }
            if tafl_models::shipped::for_rules(rs).is_ok() {
                chosen.push("mcts:model=shipped");
                chosen.push("mcts:hybrid=shipped");
                if linear {
                    chosen.push("mcts:hybrid=shipped,linear=shipped");
                }
            }
        }
        for spec in chosen {
            for (threads, parallel) in [(1usize, Parallelism::Root), (2, Parallelism::Root), (2, Parallelism::Tree)] {
                let rate = one_search_rate(&rules, spec, threads, parallel, seconds).map_err(|e| format!("--player {spec}: {e}"))?;
                println!(
                    "{:<22} one search {spec:<36} {threads} thread(s) {:>12.0} simulations/s{}",
                    rs.id(),
                    rate,
                    if threads > 1 { format!(" ({parallel} parallel)") } else { String::new() }
                );
            }
        }
        Ok(())
    })
}

/// Simulations per second of one `spec` player thinking a fixed time per move on `threads`
/// search threads sharing the work as `parallel` says, over a few moves from the start.
fn one_search_rate<B: BitSet>(
    rules: &Rules<B>,
    spec: &str,
    threads: usize,
    parallel: tafl_engine::search::Parallelism,
    seconds: f64,
) -> Result<f64, String> {
    use tafl_engine::{search::ThinkingLimit, Game};
    let moves = 4;
    let limit = ThinkingLimit::MoveTime(std::time::Duration::from_secs_f64(seconds / moves as f64));
    // Each measurement starts from a fresh network with an empty evaluation cache: the same
    // moves from the start would otherwise find the previous measurement's evaluations.
    let mut resolved = tafl_lab::players::resolve(spec)?.thinking(limit, Some(threads), threads);
    if let tafl_engine::search::PlayerSpec::Mcts { evaluator, .. } = &resolved.spec {
        if let Some(path) = evaluator.model_path() {
            tafl_lab::players::release_model(path);
        }
    }
    resolved.parallel = parallel;
    let mut player = tafl_lab::players::build(&resolved, 1, rules)?;
    let mut game = Game::new(rules);
    let t0 = Instant::now();
    let mut sims = 0u64;
    for _ in 0..moves {
        let Some((mv, result)) = player.choose(rules, &game) else {
            break;
        };
        sims += result.map_or(0, |r| r.simulations as u64);
        game.play_unchecked(rules, mv);
        if game.outcome().is_some() {
            break;
        }
    }
    Ok(sims as f64 / t0.elapsed().as_secs_f64())
}

/// Prints move generations per second at the start position and random-game plies per second.
pub fn run(sets: &[Ruleset], seconds: f64) {
    for rs in sets {
        let (gens, count, plies) = with_board!(rs, B, rules => measure::<B>(&rules, seconds));
        println!(
            "{:<22} movegen (list) {:>12.0}/s   count {:>12.0}/s   random plies {:>12.0}/s",
            rs.id(),
            gens,
            count,
            plies
        );
    }
}

fn measure<B: BitSet>(rules: &Rules<B>, seconds: f64) -> (f64, f64, f64) {
    let pos = Position::start(rules);
    let mut list = MoveList::new();
    let rate = |f: &mut dyn FnMut() -> u64| {
        let t0 = Instant::now();
        let mut work = 0u64;
        while t0.elapsed().as_secs_f64() < seconds {
            work += f();
        }
        work as f64 / t0.elapsed().as_secs_f64()
    };
    let gens = rate(&mut || {
        for _ in 0..1000 {
            pos.legal_moves(rules, std::hint::black_box(&mut list));
        }
        1000
    });
    let count = rate(&mut || {
        let mut s = 0u32;
        for _ in 0..1000 {
            s = s.wrapping_add(std::hint::black_box(&pos).count_moves(rules));
        }
        std::hint::black_box(s);
        1000
    });
    let mut game = 0u64;
    let plies = rate(&mut || {
        game += 1;
        random_game(rules, game_seed(1, game), Some(10_000)).1 as u64
    });
    (gens, count, plies)
}

/// Forward-pass speed of the network `tafl` plays `rs` with (the shipped model, else a fresh
/// default network for the board): positions and GFLOP/s per engine, batch and thread count,
/// with the fraction of the machine's peak ([`tafl_nn::peak_gflops`]).
pub fn network(rs: &tafl_engine::Ruleset, seconds: f64) -> Result<(), String> {
    use tafl_nn::{forward_rate, peak_gflops, Encoder, Inference};
    let device = tafl_nn::default_device();
    let (model, config, what) = match tafl_models::shipped::for_rules(rs) {
        Ok((m, own)) => {
            let (model, manifest) = tafl_nn::load_checkpoint_bytes(
                m.manifest,
                m.weights.to_vec(),
                &own,
                &device,
                std::path::Path::new(m.name),
            )
            .map_err(|e| e.to_string())?;
            (model, manifest.model, "shipped")
        }
        Err(_) => {
            let config = tafl_nn::NetConfig::for_board(rs.size());
            (config.init(&device), config, "fresh")
        }
    };
    let flop = 2.0 * config.macs_per_position() as f64;
    // A few positions of a random game, as the network sees them.
    let planes = with_board!(rs, B, rules => {
        let enc = Encoder::new(rs);
        let mut game = tafl_engine::Game::new(&rules);
        let mut planes = Vec::new();
        for k in 0..16usize {
            let mut p = vec![0.0; enc.input_len()];
            enc.encode(game.position(), 1, game.ply(), 0, &mut p);
            planes.extend(p);
            let moves = game.position().moves(&rules);
            if game.outcome().is_some() || moves.is_empty() {
                break;
            }
            game.play_unchecked(&rules, moves.as_slice()[(k * 7) % moves.len()]);
        }
        planes
    });
    match tafl_nn::onnxruntime_library() {
        Ok(lib) => println!("onnxruntime: {}", lib.display()),
        Err(e) => println!("no onnxruntime rows: {e}"),
    }
    for threads in [1usize, 2] {
        println!("{}", peak_gflops(threads).1);
    }
    let net = format!(
        "{} {}x{}{}",
        what,
        config.blocks,
        config.channels,
        if config.global_pool_every > 0 {
            " gpool"
        } else {
            ""
        }
    );
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let peak = peak_gflops(threads).0;
        for engine in [Inference::Burn, Inference::OnnxRuntime, Inference::Int8] {
            for batch in [1usize, 16, 256] {
                let Ok(rate) =
                    pool.install(|| forward_rate(&model, engine, &planes, batch, threads, seconds))
                else {
                    break;
                };
                let gflops = rate * flop / 1e9;
                println!(
                    "{:<22} network {net:<18} {:<11} {threads} thread(s) batch {batch:>3} {rate:>10.0} positions/s {gflops:>6.1} GFLOP/s {:>4.0}% of peak",
                    rs.id(),
                    engine.name(),
                    100.0 * gflops / peak
                );
            }
        }
    }
    Ok(())
}

/// Self-play as `tafl train` plays it after the teacher's iterations: `games` games of
/// `config`'s `[selfplay]` section with the shipped model of its rules, `parallel_games` at a
/// time through one batched evaluator (with the config's evaluation cache). Prints games per
/// hour, network positions per second, batch size and the cache's hit rate. `tafl --inference
/// burn bench --selfplay ...` measures the burn path.
pub fn selfplay(config: &tafl_trainer::TrainConfig, games: u32) -> Result<(), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use tafl_nn::{BatchConfig, NetEvaluator};
    let rs = config.ruleset()?;
    let sp = &config.selfplay;
    let (m, own) = tafl_models::shipped::for_rules(&rs)?;
    let device = tafl_nn::default_device();
    let (model, _) = tafl_nn::load_checkpoint_bytes(
        m.manifest,
        m.weights.to_vec(),
        &own,
        &device,
        std::path::Path::new(m.name),
    )
    .map_err(|e| e.to_string())?;
    let threads = (sp.parallel_games.min(games.max(1))) as usize;
    let batch = BatchConfig {
        callers: threads,
        max_wait: std::time::Duration::from_millis(3),
        seed: config.seed,
        cache_entries: sp.eval_cache as usize,
        ..BatchConfig::default()
    };
    let net = NetEvaluator::new(model, &rs, device, batch, "net:shipped");
    let encoder = tafl_nn::Encoder::new(&rs);
    let next = AtomicU64::new(0);
    let plies = AtomicU64::new(0);
    let t0 = Instant::now();
    with_board!(&rs, B, rules => {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games as u64 {
                        break;
                    }
                    let game = tafl_trainer::selfplay::play_game(
                        &rules,
                        &net as &dyn tafl_engine::search::Evaluator<B>,
                        &encoder,
                        sp,
                        game_seed(config.seed, g),
                        false,
                        None,
                        &[],
                    );
                    plies.fetch_add(game.stats.plies, Ordering::Relaxed);
                });
            }
        });
    });
    let secs = t0.elapsed().as_secs_f64();
    let stats = net.stats();
    println!(
        "{:<22} self-play {} games ({} at once, {} simulations, {} fast) with {}: {:.0} games/hour, {:.0} plies/s, {:.0} network positions/s, mean batch {:.1}, cache hit rate {:.1}%",
        rs.id(),
        games,
        threads,
        sp.simulations,
        sp.fast_simulations,
        net.inference(),
        games as f64 * 3600.0 / secs,
        plies.load(Ordering::Relaxed) as f64 / secs,
        stats.positions as f64 / secs,
        stats.positions as f64 / stats.batches.max(1) as f64,
        100.0 * stats.cache_hit_rate()
    );
    Ok(())
}
