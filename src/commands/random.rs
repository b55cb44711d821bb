//! `tafl random`: uniformly random games in parallel, reproducible from the seed alone.

use crate::common::RulesArg;
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::time::Instant;
use tafl_engine::{
    board::{game_seed, random_game, GameTally},
    with_board, BitSet, Rules, Ruleset,
};

/// The arguments of `tafl random`.
#[derive(clap::Args, Debug)]
pub struct RandomArgs {
    /// Ruleset id or rules file.
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Seed: the same seed gives the same figures whatever the thread count.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// End a game with no result after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

impl RandomArgs {
    /// Runs `tafl random`.
    pub fn run(self) -> Result<(), String> {
        let RandomArgs {
            rules,
            games,
            seed,
            ply_limit,
            threads,
        } = self;
        let rs = rules.ruleset;
        let limit = (ply_limit > 0).then_some(ply_limit);
        tafl_lab::limits::at_most("--games", games, tafl_lab::limits::MAX_RANDOM_GAMES)?;
        run(&rs, games, seed, limit, threads)
    }
}

/// Plays `games` random games of `rs` and prints the tallies.
pub fn run(
    rs: &Ruleset,
    games: u64,
    seed: u64,
    ply_limit: Option<u32>,
    threads: Option<usize>,
) -> Result<(), String> {
    let pool = crate::common::pool(threads)?;
    let bar = crate::common::progress_bar(games, rs.id());
    let t0 = Instant::now();
    let stats =
        pool.install(|| with_board!(rs, B, rules => play_all::<B>(&rules, games, seed, ply_limit, &bar)));
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();
    print!("{}", report(rs.id(), &stats, seed, ply_limit));
    eprintln!(
        "{games} games, {} plies in {secs:.2} s ({:.0} plies/s)",
        stats.total_plies,
        stats.total_plies as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Plays games `0..games` with per-game seeds; the tally is a sum, so neither the order nor
/// the thread count changes it.
pub fn play_all<B: BitSet>(
    rules: &Rules<B>,
    games: u64,
    seed: u64,
    ply_limit: Option<u32>,
    bar: &ProgressBar,
) -> GameTally {
    const CHUNK: u64 = 256;
    let chunks = games.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut s = GameTally::default();
            let end = (c + 1).saturating_mul(CHUNK).min(games);
            for i in c * CHUNK..end {
                let (o, plies) = random_game(rules, game_seed(seed, i), ply_limit);
                s.add(o, plies);
            }
            bar.inc(end - c * CHUNK);
            s
        })
        .reduce(GameTally::default, GameTally::merge)
}

/// The figures as printed by `tafl random`.
pub fn report(id: &str, s: &GameTally, seed: u64, ply_limit: Option<u32>) -> String {
    let pct = |x: u64| {
        if s.games == 0 {
            0.0
        } else {
            100.0 * x as f64 / s.games as f64
        }
    };
    let mut out = format!(
        "rules: {id}, games: {}, seed: {seed}, ply limit: {}\n",
        s.games,
        ply_limit.map_or("none".to_string(), |l| l.to_string())
    );
    out.push_str(&format!(
        "defender wins: {} ({:.2}%)\n",
        s.defender_wins,
        pct(s.defender_wins)
    ));
    out.push_str(&format!(
        "attacker wins: {} ({:.2}%)\n",
        s.attacker_wins,
        pct(s.attacker_wins)
    ));
    out.push_str(&format!(
        "decisive games: {} ({:.2}%)\n",
        s.decisive(),
        pct(s.decisive())
    ));
    out.push_str(&format!("draws: {} ({:.2}%)\n", s.draws, pct(s.draws)));
    out.push_str(&format!(
        "no result: {} ({:.2}%)\n",
        s.no_result,
        pct(s.no_result)
    ));
    out.push_str(&format!(
        "average length (plies, decided games): {:.2}\n",
        s.avg_decided_length()
    ));
    let parts: Vec<String> = GameTally::REASONS
        .iter()
        .filter(|r| s.by_reason[**r as usize] > 0)
        .map(|r| format!("{} {}", r.name(), s.by_reason[*r as usize]))
        .collect();
    out.push_str(&format!("endings: {}\n", parts.join(", ")));
    out
}
