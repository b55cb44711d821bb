//! `tafl arena`: two players in colour-swapped pairs, results per side and an Elo difference.
//! The games are played by the trainer's match code, the same that plays arenas and ladders
//! inside a training run.

use tafl_engine::{play_match_with, FinishedGame, MatchResult, MatchSettings};
use tafl_engine::{with_board, BitSet, Rules, Ruleset, Side, ThinkingLimit};
use tafl_lab::players::{build, Resolved};

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
    /// Probability, each move, that either player plays a uniformly random legal move instead
    /// of its own; a level's own exploration stays where higher.
    pub exploration: f32,
    /// Thinking time of both players (their own simulations by default).
    pub limit: ThinkingLimit,
    /// Threads of each player's search (`--search-threads`); `None`: a player that thinks by
    /// time gets the cores of one game (the cores shared out among the games played at once),
    /// a player by simulations one tree.
    pub search_threads: Option<usize>,
    /// How those threads share a search, when given (`--parallel`): it replaces the players'
    /// own; `None` keeps each player's (a level's `parallel`, else root).
    pub parallel: Option<tafl_engine::Parallelism>,
}

/// A word of a shell command line: as it is when it is plain, else in single quotes.
fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.,/:=+@%".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The command line that plays the same match again (players and rules as given).
pub fn command_line(a: &str, b: &str, rules: &str, s: &Settings) -> String {
    let mut line = format!(
        "tafl arena {} {} --rules {} --games {} --seed {} --ply-limit {} --opening-plies {} --exploration {}",
        shell_word(a),
        shell_word(b),
        shell_word(rules),
        s.games,
        s.seed,
        s.ply_limit.unwrap_or(0),
        s.opening_plies,
        s.exploration
    );
    let limit = s.limit.flag();
    if !limit.is_empty() {
        line.push(' ');
        line.push_str(&limit);
    }
    if let Some(n) = s.search_threads {
        line.push_str(&format!(" --search-threads {n}"));
    }
    if let Some(p) = s.parallel {
        line.push_str(&format!(" --parallel {p}"));
    }
    line
}

/// A player's search threads as the report names them (`2 search threads, tree parallel`).
fn threads_text(p: &Resolved) -> String {
    match p.threads {
        0 | 1 => "1 search thread".to_string(),
        n => format!("{n} search threads, {} parallel", p.parallel),
    }
}

/// One finished game as the match's log on stderr names it, so that a long match shows its
/// games as they end and an interrupted one keeps them.
fn game_line(g: &FinishedGame, games: u64) -> String {
    let result = match g.score {
        s if s > 0.75 => "A wins",
        s if s < 0.25 => "B wins",
        _ => "draw",
    };
    let mut line = format!(
        "game {} of {games} (pair {}, A {}): {result} after {} plies",
        g.game + 1,
        g.game / 2 + 1,
        g.a_side.name(),
        g.plies
    );
    if let Some(why) = &g.stopped {
        line.push_str(&format!(" [{why}]"));
    }
    line
}

/// Per-side tallies and the Elo estimate, as printed by `tafl arena`.
pub fn report(a: &str, b: &str, r: &MatchResult) -> String {
    let mut out = format!("{a} vs {b}: {} games in colour-swapped pairs\n", r.scores.len());
    out.push_str(&format!(
        "{:<12} {:>6} {:>6} {:>6}\n",
        "A plays", "wins", "draws", "losses"
    ));
    for (side, (w, d, l)) in [
        (Side::Attackers, r.as_attackers),
        (Side::Defenders, r.as_defenders),
    ] {
        out.push_str(&format!("{:<12} {w:>6} {d:>6} {l:>6}\n", side.name()));
    }
    let avg = r.plies.iter().map(|&p| p as f64).sum::<f64>() / r.plies.len().max(1) as f64;
    out.push_str(&format!("average length: {avg:.1} plies\n"));
    out.push_str(&format!("A: {}\n", r.elo()));
    if !r.stopped.is_empty() {
        out.push_str(&format!(
            "{} game(s) ended outside the rules (a program's forfeit or its own rules' verdict):\n",
            r.stopped.len()
        ));
        for s in &r.stopped {
            out.push_str(&format!("  {s}\n"));
        }
    }
    out
}

fn play<B: BitSet>(
    rules: &Rules<B>,
    a: &Resolved,
    b: &Resolved,
    settings: &MatchSettings,
    bar: &indicatif::ProgressBar,
) -> Result<MatchResult, String> {
    let games = settings.games.div_ceil(2) as u64 * 2;
    play_match_with(
        rules,
        &|s| build::<B>(a, s, rules),
        &|s| build::<B>(b, s, rules),
        settings,
        &|g| {
            bar.suspend(|| eprintln!("{}", game_line(g, games)));
            bar.inc(1);
        },
    )
}

/// Runs the command.
pub fn run(
    rs: &Ruleset,
    a: &Resolved,
    b: &Resolved,
    settings: &Settings,
    threads: Option<usize>,
) -> Result<(), String> {
    let games = settings
        .games
        .div_ceil(2)
        .checked_mul(2)
        .and_then(|g| u32::try_from(g).ok())
        .ok_or_else(|| format!("--games: {} is too many", settings.games))?;
    let pool = crate::common::pool(threads)?;
    let match_settings = MatchSettings {
        games,
        ply_limit: settings.ply_limit,
        opening_plies: settings.opening_plies,
        threads: pool.current_num_threads(),
        seed: settings.seed,
        exploration: settings.exploration,
        limit: settings.limit,
        // Each player's own (set just below), unless the command line gave a count.
        search_threads: 0,
    };
    // The cores of one game: a timed search can use them; one by simulations keeps one tree,
    // so that it plays as it was measured.
    let per_game = (tafl_lab::limits::cores() / pool.current_num_threads().max(1)).max(1);
    let (mut a, mut b) = (
        a.for_rules(rs)
            .thinking(settings.limit, settings.search_threads, per_game),
        b.for_rules(rs)
            .thinking(settings.limit, settings.search_threads, per_game),
    );
    if let Some(p) = settings.parallel {
        a.parallel = p;
        b.parallel = p;
    }
    let (a, b) = (&a, &b);
    let bar = crate::common::progress_bar(games as u64, "arena");
    // Inside the pool, so that network players batch for as many callers as there are threads.
    let result =
        pool.install(|| with_board!(rs, B, rules => play::<B>(&rules, a, b, &match_settings, &bar)))?;
    bar.finish_and_clear();
    print!("{}", report(&a.label, &b.label, &result));
    if settings.opening_plies > 0 {
        println!(
            "each pair opened with {} random plies (seed {})",
            settings.opening_plies, settings.seed
        );
    }
    let p = settings.exploration;
    if p > 0.0 {
        println!(
            "exploration {p}: each move, either player plays a uniformly random legal move with probability {p} (a level's own where higher)"
        );
    } else {
        println!("exploration 0: no random moves but a level's own");
    }
    if settings.limit != ThinkingLimit::Simulations {
        println!(
            "thinking time: {} for both players (A: {}; B: {}); {} game(s) lost on time",
            settings.limit,
            threads_text(a),
            threads_text(b),
            result.on_time
        );
    } else if a.threads != 1 || b.threads != 1 {
        println!("search threads: A: {}; B: {}", threads_text(a), threads_text(b));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_game_is_logged_with_its_pair_side_and_result() {
        let g = FinishedGame {
            game: 3,
            a_side: Side::Defenders,
            score: 0.0,
            plies: 67,
            on_time: false,
            stopped: None,
        };
        assert_eq!(
            game_line(&g, 40),
            "game 4 of 40 (pair 2, A defenders): B wins after 67 plies"
        );
        let g = FinishedGame {
            game: 0,
            a_side: Side::Attackers,
            score: 0.5,
            stopped: Some("forfeit".into()),
            ..g
        };
        assert_eq!(
            game_line(&g, 2),
            "game 1 of 2 (pair 1, A attackers): draw after 67 plies [forfeit]"
        );
        let won = FinishedGame { score: 1.0, ..g };
        assert!(game_line(&won, 2).contains("A wins"));
    }

    #[test]
    fn the_rerun_line_names_every_setting_and_quotes_odd_words() {
        let s = Settings {
            games: 200,
            seed: 1,
            ply_limit: Some(400),
            opening_plies: 4,
            exploration: 0.1,
            limit: ThinkingLimit::Simulations,
            search_threads: None,
            parallel: None,
        };
        assert_eq!(
            command_line("mcts:model=shipped:100", "mcts:heuristic:100", "brandubh", &s),
            "tafl arena mcts:model=shipped:100 mcts:heuristic:100 --rules brandubh --games 200 --seed 1 --ply-limit 400 --opening-plies 4 --exploration 0.1"
        );
        let timed = Settings {
            limit: ThinkingLimit::parse_clock("10+0.1").unwrap(),
            search_threads: Some(2),
            ..s
        };
        assert!(command_line("a", "b", "brandubh", &timed).ends_with(" --clock 10+0.1 --search-threads 2"));
        let tree = Settings {
            parallel: Some(tafl_engine::Parallelism::Tree),
            ..timed
        };
        assert!(command_line("a", "b", "brandubh", &tree).ends_with(" --search-threads 2 --parallel tree"));
        let line = command_line("mcts:model=my run's/x:8", "random", "a b.toml", &s);
        assert!(
            line.starts_with("tafl arena 'mcts:model=my run'\\''s/x:8' random --rules 'a b.toml' "),
            "{line}"
        );
    }
}
