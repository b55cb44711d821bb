//! `tafl arena`: two players in colour-swapped pairs, results per side and an Elo difference.

use crate::players::{build, Resolved};
use indicatif::ProgressBar;
use rayon::prelude::*;
use tafl_engine::stats::EloEstimate;
use tafl_engine::{
    game_seed, play_game_from, random_opening, score_for, with_board, BitSet, Rules, Ruleset, Side,
};

/// Mixed into the match seed for the openings, so they do not share a stream with the players.
pub const OPENING_SEED: u64 = 0x0BE1_1115;

/// One game's result, from player A's point of view.
#[derive(Clone, Copy, Debug)]
pub struct GameResult {
    /// Side A played.
    pub a_side: Side,
    /// A's score: 1, 0.5 or 0.
    pub a_score: f64,
    /// Plies played.
    pub plies: u32,
}

/// How a match is played.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Games (rounded up to whole pairs).
    pub games: u64,
    /// Seed of the openings and of every game's players.
    pub seed: u64,
    /// Plies after which a game ends with no result.
    pub ply_limit: Option<u32>,
    /// Random plies opening each pair.
    pub opening_plies: u32,
}

/// Plays `games` games (rounded up to pairs): in pair `i`, A takes the attackers in game
/// `2i` and the defenders in game `2i+1`, both from the pair's random opening. Each game's
/// players are seeded from (seed, game).
pub fn play_pairs<B: BitSet>(
    rules: &Rules<B>,
    a: &Resolved,
    b: &Resolved,
    settings: &Settings,
    bar: &ProgressBar,
) -> Result<Vec<GameResult>, String> {
    let games = settings.games.div_ceil(2) * 2;
    // Build once to surface spec errors before the parallel part.
    build::<B>(a, 0, rules)?;
    build::<B>(b, 0, rules)?;
    let results: Result<Vec<GameResult>, String> = (0..games)
        .into_par_iter()
        .map(|g| {
            let s = game_seed(settings.seed, g);
            let mut pa = build::<B>(a, s, rules)?;
            let mut pb = build::<B>(b, s ^ 0x5EED, rules)?;
            let a_side = if g % 2 == 0 {
                Side::Attackers
            } else {
                Side::Defenders
            };
            let opening = random_opening(
                rules,
                settings.opening_plies,
                game_seed(settings.seed ^ OPENING_SEED, g / 2),
                settings.ply_limit,
            );
            let game = match a_side {
                Side::Attackers => play_game_from(rules, opening, &mut pa, &mut pb),
                Side::Defenders => play_game_from(rules, opening, &mut pb, &mut pa),
            };
            bar.inc(1);
            Ok(GameResult {
                a_side,
                a_score: score_for(game.outcome(), a_side),
                plies: game.ply(),
            })
        })
        .collect();
    results
}

/// Per-side tallies and the Elo estimate, as printed by `tafl arena`.
pub fn report(a: &str, b: &str, results: &[GameResult]) -> String {
    let mut out = format!("{a} vs {b}: {} games in colour-swapped pairs\n", results.len());
    out.push_str(&format!(
        "{:<12} {:>6} {:>6} {:>6}\n",
        "A plays", "wins", "draws", "losses"
    ));
    for side in [Side::Attackers, Side::Defenders] {
        let mine: Vec<_> = results.iter().filter(|r| r.a_side == side).collect();
        let w = mine.iter().filter(|r| r.a_score == 1.0).count();
        let d = mine.iter().filter(|r| r.a_score == 0.5).count();
        let l = mine.iter().filter(|r| r.a_score == 0.0).count();
        out.push_str(&format!("{:<12} {w:>6} {d:>6} {l:>6}\n", side.name()));
    }
    let avg = results.iter().map(|r| r.plies as f64).sum::<f64>() / results.len().max(1) as f64;
    out.push_str(&format!("average length: {avg:.1} plies\n"));
    let scores: Vec<f64> = results.iter().map(|r| r.a_score).collect();
    let e = EloEstimate::from_scores(&scores);
    out.push_str(&format!("A: {e}\n"));
    out
}

/// Runs the command.
pub fn run(
    rs: &Ruleset,
    a: &Resolved,
    b: &Resolved,
    settings: &Settings,
    threads: Option<usize>,
) -> Result<(), String> {
    let pool = crate::cli::pool(threads)?;
    let bar = crate::random_cmd::progress_bar(settings.games.div_ceil(2) * 2, "arena");
    let results =
        pool.install(|| with_board!(rs, B, rules => play_pairs::<B>(&rules, a, b, settings, &bar)))?;
    bar.finish_and_clear();
    print!("{}", report(&a.label, &b.label, &results));
    if settings.opening_plies > 0 {
        println!(
            "each pair opened with {} random plies (seed {})",
            settings.opening_plies, settings.seed
        );
    }
    Ok(())
}
