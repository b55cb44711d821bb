//! Playing a study's rows in parallel: per-game seeds, progress bars and the stop flag (raised by `Ctrl-C` in the program).

use super::{BalancePlan, Play, RowSpec};
use crate::players::{build, Resolved};
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;
use tafl_engine::{
    board::{game_seed, random_game, GameTally},
    formats::fnv1a64,
    search::play_game_from,
    with_board, BitSet, Game, Outcome, Position, Rules,
};

/// Installs a `Ctrl-C` handler that raises the returned flag, for a program that runs a study
/// or sweep and has no handler of its own (a library leaves the process's signals to its host,
/// so [`super::run`] and [`super::sweep::run`] take the flag instead). The first `Ctrl-C` lets
/// the games in flight end and discards the row in progress; a second one quits at once (the
/// outputs of finished rows are on disk). Installing twice returns the same flag.
pub fn stop_on_ctrl_c() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static HANDLER: OnceLock<()> = OnceLock::new();
    HANDLER.get_or_init(|| {
        let installed = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!(
                "\ninterrupted: stopping after the games in flight; the outputs keep the finished rows \
                 (Ctrl-C again quits now)"
            );
        });
        if let Err(e) = installed {
            eprintln!("note: Ctrl-C will not stop cleanly: {e}");
        }
    });
    &STOP
}

/// The seed of a row: FNV-1a over (ruleset, changes, play kind), mixed with the study's seed.
pub fn row_seed(seed: u64, ruleset: &str, changes: &str, play: Play) -> u64 {
    let bytes = ruleset
        .bytes()
        .chain([0])
        .chain(changes.bytes())
        .chain([0])
        .chain(play.name().bytes());
    game_seed(seed, fnv1a64(bytes))
}

/// Plays one row with a progress bar; `None` when `stop` was raised before it ended.
pub fn play_row(plan: &BalancePlan, row: &RowSpec, stop: &AtomicBool) -> Result<Option<GameTally>, String> {
    let games = plan.games(row.play);
    let label = format!("{} {}", plan.variant_label(row), row.play.name());
    let bar = crate::work::progress_bar(games, &label);
    let seed = plan.row_seed(row);
    let limit = plan.settings.ply_limit;
    let rs = plan.ruleset(row);
    let t0 = Instant::now();
    let stats = match row.play {
        Play::Random => with_board!(rs, B, rules => random_row::<B>(&rules, games, seed, limit, &bar, stop)),
        Play::Skilled => {
            let e = plan.settings.exploration;
            let suite = plan.variants[row.variant].openings.as_ref();
            with_board!(rs, B, rules => {
                let starts = match suite {
                    Some(s) => s.positions::<B>(&rules).map_err(|e| format!("--openings: {e}"))?,
                    None => Vec::new(),
                };
                skilled_games::<B>(&rules, &plan.skilled, e, 0..games, seed, limit, &starts, &bar, stop)
            })?
            .map(|g| tally(&g))
        }
    };
    bar.finish_and_clear();
    if let Some(s) = &stats {
        eprintln!(
            "{label}: {games} games, {} plies in {:.2} s",
            s.total_plies,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(stats)
}

/// Uniformly random games `0..games` of a row, in chunks that check `stop` first.
pub fn random_row<B: BitSet>(
    rules: &Rules<B>,
    games: u64,
    seed: u64,
    ply_limit: Option<u32>,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Option<GameTally> {
    const CHUNK: u64 = 256;
    (0..games.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut s = GameTally::default();
            let end = (c + 1).saturating_mul(CHUNK).min(games);
            for i in c * CHUNK..end {
                let (o, plies) = random_game(rules, game_seed(seed, i), ply_limit);
                s.add(o, plies);
            }
            bar.inc(end - c * CHUNK);
            Some(s)
        })
        .reduce(|| Some(GameTally::default()), |a, b| Some(a?.merge(b?)))
}

/// One game's result, as the studies keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// How it ended.
    pub outcome: Outcome,
    /// Its plies.
    pub plies: u32,
    /// [`Game::fingerprint`]: its moves and its end.
    pub fingerprint: u64,
}

/// Skilled games `games` (game indices, `0..n` for a whole row) of a row: both sides are `player`, each seeded from the game's
/// seed, each playing a uniformly random move with probability `exploration` each ply; game
/// `i` starts from `starts[i % len]` (an opening suite's positions), or from the start
/// position when `starts` is empty. The games in index order; `None` when stopped.
#[allow(clippy::too_many_arguments)]
pub fn skilled_games<B: BitSet>(
    rules: &Rules<B>,
    player: &Resolved,
    exploration: f32,
    games: std::ops::Range<u64>,
    seed: u64,
    ply_limit: Option<u32>,
    starts: &[Position<B>],
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Option<Vec<GameResult>>, String> {
    let results: Vec<Option<GameResult>> = games
        .into_par_iter()
        .map(|i| {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let s = game_seed(seed, i);
            let mut attackers = build::<B>(player, game_seed(s, 1), rules)?;
            let mut defenders = build::<B>(player, game_seed(s, 2), rules)?;
            // A level's own mistakes stay; the study's exploration rule is the least there is.
            attackers.exploration = attackers.exploration.max(exploration);
            defenders.exploration = defenders.exploration.max(exploration);
            let start = match starts.len() {
                0 => Game::new(rules),
                n => Game::from_position(rules, starts[(i % n as u64) as usize]),
            };
            let game = play_game_from(
                rules,
                start.with_ply_limit(ply_limit),
                &mut attackers,
                &mut defenders,
            );
            bar.inc(1);
            // A game stops without an outcome only if a player fails to move: no result.
            Ok(Some(GameResult {
                outcome: game.outcome().unwrap_or_else(Outcome::no_result),
                plies: game.ply(),
                fingerprint: game.fingerprint(),
            }))
        })
        .collect::<Result<_, String>>()?;
    Ok(results.into_iter().collect())
}

/// The tally of some games.
pub fn tally(games: &[GameResult]) -> GameTally {
    let mut t = GameTally::default();
    for g in games {
        t.add(g.outcome, g.plies);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_seeds_differ_by_every_part_of_the_row() {
        let a = row_seed(0, "hnefatafl", "", Play::Random);
        assert_eq!(a, row_seed(0, "hnefatafl", "", Play::Random));
        for b in [
            row_seed(1, "hnefatafl", "", Play::Random),
            row_seed(0, "tablut", "", Play::Random),
            row_seed(0, "hnefatafl", "encirclement=yes", Play::Random),
            row_seed(0, "hnefatafl", "", Play::Skilled),
        ] {
            assert_ne!(a, b);
        }
    }

    #[test]
    fn a_raised_stop_flag_discards_the_row() {
        let rules = Rules::<u128>::new(&tafl_engine::Ruleset::builtin("brandubh")).unwrap();
        let bar = ProgressBar::hidden();
        let stop = AtomicBool::new(false);
        let s = random_row(&rules, 300, 5, Some(400), &bar, &stop).unwrap();
        assert_eq!(s.games, 300);
        stop.store(true, Ordering::Relaxed);
        assert!(random_row(&rules, 300, 5, Some(400), &bar, &stop).is_none());
    }
}
