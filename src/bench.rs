//! `tafl bench`: engine speed on one thread, the figures the issues set targets for.

use std::time::Instant;
use tafl_engine::{game_seed, random_game, with_board, BitSet, MoveList, Position, Rules, Ruleset};

/// Search simulations per second on `rs` from its start position: one search on one thread,
/// and one search per thread on two threads (searches are single-threaded; self-play and
/// arenas run one per game).
pub fn search(rs: &Ruleset, seconds: f64) {
    use rayon::prelude::*;
    use tafl_engine::{Evaluator, Game, Rollout, Search, SearchConfig, Uniform};
    with_board!(rs, B, rules => {
        let evals: Vec<Box<dyn Evaluator<B>>> = vec![Box::new(Uniform), Box::new(Rollout::default())];
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
                let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("cannot start threads: {e}");
                        return;
                    }
                };
                let rate: f64 = pool.install(|| (0..threads).into_par_iter().map(sims_per_thread).sum());
                println!("{:<22} search {:<10} {threads} thread(s) {:>12.0} simulations/s", rs.id(), eval.name(), rate);
            }
        }
        // One search on several threads (root parallelism, as `--search-threads` plays): the
        // simulations a second one player gets out of a time limit.
        for threads in [1usize, 2] {
            let rate = one_search_rate(&rules, threads, seconds);
            println!(
                "{:<22} one search heuristic   {threads} thread(s) {:>12.0} simulations/s",
                rs.id(),
                rate
            );
        }
    });
}

/// Simulations per second of one `mcts:heuristic` player thinking a fixed time per move on
/// `threads` search threads, over a few moves from the start.
fn one_search_rate<B: BitSet>(rules: &Rules<B>, threads: usize, seconds: f64) -> f64 {
    use tafl_engine::{classic_evaluator, Game, Player, PlayerSpec, SearchConfig, ThinkingLimit};
    let Ok(spec) = PlayerSpec::parse("mcts:heuristic") else {
        return 0.0;
    };
    let Ok(mut player) = Player::new(&spec, 1, &SearchConfig::default(), &classic_evaluator) else {
        return 0.0;
    };
    player.threads = threads;
    let moves = 4;
    player.limit = ThinkingLimit::MoveTime(std::time::Duration::from_secs_f64(seconds / moves as f64));
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
    sims as f64 / t0.elapsed().as_secs_f64()
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
