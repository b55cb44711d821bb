//! `tafl arena`: two players in colour-swapped pairs, results per side and an Elo difference.
//! The games are played by the trainer's match code, the same that plays arenas and ladders
//! inside a training run.

use crate::common::RulesArg;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tafl_engine::{
    formats::{GameRecord, OpeningSuite},
    search::{play_match_from, FinishedGame, MatchResult, MatchSettings, Openings},
};
use tafl_engine::{search::ThinkingLimit, with_board, BitSet, Rules, Ruleset, Side};
use tafl_lab::players::{build, Resolved};

/// The arguments of `tafl arena`.
#[derive(clap::Args, Debug)]
pub struct ArenaArgs {
    /// Player A (`random`, `greedy`, `mcts:rollout:800`, `level:3`, ...), or another
    /// program through its engine protocol: `htp:COMMAND` (hnefatafl.org's), `htp-host:COMMAND`
    /// (the same program as a bot that connects to us, `--host ADDRESS` added: the mode that
    /// plays its `--ai monte-carlo --seconds S`), `otep:COMMAND` (OpenTafl's), started for each
    /// game (an illegal or missing reply loses the game).
    a: String,
    /// Player B.
    b: String,
    /// Ruleset id or rules file.
    #[arg(long)]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Games (rounded up to whole pairs). Default: 100, or with --openings two for each
    /// position of the suite.
    #[arg(long)]
    games: Option<u64>,
    /// Seed of every game's players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Plies after which a game ends with no result (0: none).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Uniformly random plies opening each pair (both games of a pair share it; default 4).
    /// Search players without noise are deterministic: with no opening, every pair would
    /// repeat the same two games.
    #[arg(long, conflicts_with = "openings")]
    opening_plies: Option<u32>,
    /// An opening suite (`tafl openings` makes one; checkpoints/openings/ ships one per
    /// ruleset): each pair starts from its next position, colours swapped, cycling through
    /// the suite when --games asks for more. Under defender-favoured rules this is what lets
    /// a match between skilled players measure strength on 7x7 and 9x9 boards.
    #[arg(long, value_name = "FILE")]
    openings: Option<String>,
    /// Probability, each move, that either player plays a uniformly random legal move
    /// instead of its own (the exploration rule of `tafl balance`'s skilled rows); a
    /// level's own random moves stay where higher. Under rules where one side wins every
    /// game between competent players, this is what lets a match measure strength.
    #[arg(long, default_value_t = 0.0)]
    exploration: f32,
    /// Thinking time (both players; the default is each player's simulations).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// A folder that receives each game as a game record as it ends (`game-0001.txt`, ...:
    /// the players of each side, the match's rerun line, the start position, the moves, the
    /// result and how the game ended, with what another program did where it ended one
    /// outside the rules). `tafl records eval FOLDER` reads them. The folder is made; one that
    /// already holds game records is refused.
    #[arg(long, value_name = "FOLDER")]
    records: Option<std::path::PathBuf>,
}

impl ArenaArgs {
    /// Runs `tafl arena`.
    pub fn run(self) -> Result<(), String> {
        let ArenaArgs {
            a,
            b,
            rules,
            games,
            seed,
            ply_limit,
            opening_plies,
            openings,
            exploration,
            think,
            threads,
            records,
        } = self;
        let rs = rules.ruleset;
        let (a_spec, b_spec) = (a, b);
        let (a, b) = (
            tafl_lab::players::resolve(&a_spec)?,
            tafl_lab::players::resolve(&b_spec)?,
        );
        let openings = match openings {
            Some(path) => Some(SuiteArg::load(&path).map_err(|e| format!("--openings: {e}"))?),
            None => None,
        };
        let opening_plies = match (&openings, opening_plies) {
            (Some(_), _) => 0,
            (None, plies) => plies.unwrap_or(4),
        };
        let games = match (games, &openings) {
            (Some(g), _) => g,
            (None, Some(s)) => 2 * s.suite.entries.len() as u64,
            (None, None) => 100,
        };
        if games == 0 {
            return Err("--games must be at least 1".into());
        }
        tafl_lab::limits::at_most("--games", games, tafl_lab::limits::MAX_PLAYED_GAMES)?;
        if ply_limit > 0 && opening_plies >= ply_limit {
            return Err(format!(
                "--opening-plies {opening_plies} must be below --ply-limit {ply_limit}"
            ));
        }
        if !(0.0..=1.0).contains(&exploration) {
            return Err(format!(
                "--exploration: {exploration} is not a probability; allowed: 0 to 1"
            ));
        }
        let settings = Settings {
            games,
            seed,
            ply_limit: (ply_limit > 0).then_some(ply_limit),
            opening_plies,
            openings,
            exploration,
            limit: think.limit()?,
            search_threads: think.given_search_threads()?,
            parallel: think.parallel,
            records,
        };
        let rerun = command_line(&a_spec, &b_spec, &rules.text, &settings);
        run(&rs, &a, &b, &settings, threads, &rerun)
    }
}

/// An opening suite named on the command line: the path as written (for the report and the
/// `rerun:` line) and the suite it holds.
#[derive(Clone, Debug)]
pub struct SuiteArg {
    /// The path as given.
    pub path: String,
    /// The parsed suite (checked against the rules when the match starts).
    pub suite: OpeningSuite,
}

impl SuiteArg {
    /// Reads a suite file; the error names the file and the line.
    pub fn load(path: &str) -> Result<SuiteArg, String> {
        Ok(SuiteArg {
            path: path.to_string(),
            suite: OpeningSuite::load(std::path::Path::new(path))?,
        })
    }
}

/// How a match is played.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Games (rounded up to whole pairs).
    pub games: u64,
    /// Seed of the openings and of every game's players.
    pub seed: u64,
    /// Plies after which a game ends with no result.
    pub ply_limit: Option<u32>,
    /// Random plies opening each pair (not used with a suite).
    pub opening_plies: u32,
    /// The opening suite whose positions start the pairs, instead of random plies.
    pub openings: Option<SuiteArg>,
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
    pub parallel: Option<tafl_engine::search::Parallelism>,
    /// The folder that receives each game's record as it ends (`--records`).
    pub records: Option<PathBuf>,
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
    let start = match &s.openings {
        Some(suite) => format!("--openings {}", shell_word(&suite.path)),
        None => format!("--opening-plies {}", s.opening_plies),
    };
    // The networks' engine is a global flag; a rerun must ask for the same one (int8 does
    // not play exactly as float).
    let inference = match tafl_nn::Inference::process_default() {
        tafl_nn::Inference::Auto => String::new(),
        other => format!(" --inference {other}"),
    };
    let mut line = format!(
        "tafl{inference} arena {} {} --rules {} --games {} --seed {} --ply-limit {} {start} --exploration {}",
        shell_word(a),
        shell_word(b),
        shell_word(rules),
        s.games,
        s.seed,
        s.ply_limit.unwrap_or(0),
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

/// The file of game `game` (from 0) of a match of `games` in a records folder:
/// `game-0001.txt`, numbered from 1 and padded to the widest number, so that the files sort
/// in game order.
pub fn record_file(game: u64, games: u64) -> String {
    let width = games.max(1).to_string().len().max(4);
    format!("game-{:0width$}.txt", game + 1)
}

/// A finished game's record as `--records` writes it: who played which side, the game's
/// number and the match that played it (its rerun line), then the engine's tags (rules,
/// start position, ply limit, result, how it ended) and, for a game another program ended
/// outside the rules, what happened.
pub fn game_record(g: &FinishedGame, a: &str, b: &str, games: u64, rerun: &str) -> GameRecord {
    let (attackers, defenders) = match g.a_side {
        Side::Attackers => (a, b),
        Side::Defenders => (b, a),
    };
    let mut rec = GameRecord::default();
    rec.push_tag("Attackers", attackers);
    rec.push_tag("Defenders", defenders);
    rec.push_tag(
        "Game",
        &format!("{} of {games} (pair {})", g.game + 1, g.game / 2 + 1),
    );
    rec.push_tag("Match", rerun);
    for (k, v) in &g.record.tags {
        rec.push_tag(k, v);
    }
    if let Some(why) = &g.stopped {
        rec.push_tag("Stopped", why);
    }
    rec.moves = g.record.moves.clone();
    rec
}

/// Makes the records folder, or refuses one that already holds game records (a folder of
/// two matches' games would read as one match).
fn records_folder(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("--records `{}`: {e}", dir.display()))?;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("--records `{}`: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("game-") && name.ends_with(".txt") {
            return Err(format!(
                "--records `{}` already holds game records (`{name}`); give a new or empty folder",
                dir.display()
            ));
        }
    }
    Ok(())
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

/// How the games from each position of a suite went, as the report sums them up: a position
/// from which one side won every game (whoever played it) measures nothing, so their count is
/// the suite's health.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteSpread {
    /// Positions played.
    pub played: usize,
    /// Positions in the suite.
    pub positions: usize,
    /// Positions from which the attackers won every game.
    pub attackers_every_game: Vec<usize>,
    /// Positions from which the defenders won every game.
    pub defenders_every_game: Vec<usize>,
}

impl SuiteSpread {
    /// The spread of a match's games over `positions` suite positions (pair `p` from
    /// position `p % positions`; A attacks in even games).
    pub fn of(scores: &[f64], positions: usize) -> SuiteSpread {
        let mut out = SuiteSpread {
            positions,
            ..SuiteSpread::default()
        };
        for (i, t) in tafl_engine::search::suite_tallies(scores, positions)
            .iter()
            .enumerate()
        {
            let n = t.games();
            if n == 0 {
                continue;
            }
            out.played += 1;
            if t.attackers == n {
                out.attackers_every_game.push(i + 1);
            } else if t.defenders == n {
                out.defenders_every_game.push(i + 1);
            }
        }
        out
    }

    /// The report's lines.
    pub fn text(&self, path: &str) -> String {
        let list = |v: &[usize]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                let shown: Vec<String> = v.iter().take(20).map(|i| i.to_string()).collect();
                let more = if v.len() > 20 { ", ..." } else { "" };
                format!("{} ({}{more})", v.len(), shown.join(", "))
            }
        };
        let mut out = format!(
            "openings: suite {path}, {} of its {} positions played, each in colour-swapped pairs\n",
            self.played, self.positions
        );
        out.push_str(&format!(
            "positions one side won every game from: attackers {}; defenders {}\n",
            list(&self.attackers_every_game),
            list(&self.defenders_every_game)
        ));
        out
    }
}

/// Where and how `--records` writes the games of a match.
struct RecordsOut<'a> {
    dir: &'a Path,
    rerun: &'a str,
    /// The first write that failed: the match goes on, and the command reports it at the end.
    failed: Mutex<Option<String>>,
}

fn play<B: BitSet>(
    rules: &Rules<B>,
    a: &Resolved,
    b: &Resolved,
    settings: &MatchSettings,
    suite: Option<&OpeningSuite>,
    records: Option<&RecordsOut>,
    bar: &indicatif::ProgressBar,
) -> Result<MatchResult, String> {
    let games = settings.games.div_ceil(2) as u64 * 2;
    let positions = match suite {
        Some(s) => Some(s.positions(rules).map_err(|e| format!("--openings: {e}"))?),
        None => None,
    };
    let openings = match &positions {
        Some(p) => Openings::Suite(p),
        None => Openings::Random,
    };
    play_match_from(
        rules,
        &|s| build::<B>(a, s, rules),
        &|s| build::<B>(b, s, rules),
        settings,
        openings,
        &|g| {
            bar.suspend(|| eprintln!("{}", game_line(g, games)));
            if let Some(out) = records {
                let rec = game_record(g, &a.label, &b.label, games, out.rerun);
                let path = out.dir.join(record_file(g.game, games));
                if let Err(e) = tafl_lab::work::write_atomic(&path, rec.to_text().as_bytes()) {
                    bar.suspend(|| eprintln!("warning: --records: {e}"));
                    out.failed
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                }
            }
            bar.inc(1);
        },
    )
}

/// Runs the command; `rerun` is its command line, printed last and named by each written
/// record.
pub fn run(
    rs: &Ruleset,
    a: &Resolved,
    b: &Resolved,
    settings: &Settings,
    threads: Option<usize>,
    rerun: &str,
) -> Result<(), String> {
    let games = settings
        .games
        .div_ceil(2)
        .checked_mul(2)
        .and_then(|g| u32::try_from(g).ok())
        .ok_or_else(|| format!("--games: {} is too many", settings.games))?;
    if let Some(dir) = &settings.records {
        records_folder(dir)?;
    }
    let records = settings.records.as_deref().map(|dir| RecordsOut {
        dir,
        rerun,
        failed: Mutex::new(None),
    });
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
    let suite = settings.openings.as_ref().map(|s| &s.suite);
    let result = pool.install(
        || with_board!(rs, B, rules => play::<B>(&rules, a, b, &match_settings, suite, records.as_ref(), &bar)),
    )?;
    bar.finish_and_clear();
    print!("{}", report(&a.label, &b.label, &result));
    if let Some(s) = &settings.openings {
        let positions = s.suite.entries.len();
        print!("{}", SuiteSpread::of(&result.scores, positions).text(&s.path));
        if result.scores.len() > 2 * positions {
            println!(
                "note: {} games from {positions} positions: the suite cycled, and players that choose without chance (searches with no random moves) replay the same games, which the interval counts as new; for a claim, use a suite of at least half as many positions as games",
                result.scores.len()
            );
        }
    } else if settings.opening_plies > 0 {
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
    if let Some(line) = networks_line(a, b) {
        println!("{line}");
    }
    let failed = match records {
        Some(out) => {
            println!("records: one file a game in {}", out.dir.display());
            out.failed.into_inner().unwrap_or_else(|p| p.into_inner())
        }
        None => None,
    };
    // Before a records error: the match itself was played and reported.
    println!("rerun: {rerun}");
    match failed {
        Some(e) => Err(format!("--records: not every game was written: {e}")),
        None => Ok(()),
    }
}

/// Which engine runs each player's network (`networks: A: int8; B: none`), or `None` when
/// neither player has one.
fn networks_line(a: &Resolved, b: &Resolved) -> Option<String> {
    let engine = |p: &Resolved| match &p.spec {
        tafl_engine::search::PlayerSpec::Mcts { evaluator, .. } if evaluator.model_path().is_some() => {
            let chosen = p.inference.unwrap_or_else(tafl_nn::Inference::process_default);
            Some(chosen.resolve().map_or(chosen, |e| e).to_string())
        }
        _ => None,
    };
    let (ea, eb) = (engine(a), engine(b));
    if ea.is_none() && eb.is_none() {
        return None;
    }
    let text = |e: Option<String>| e.unwrap_or_else(|| "none".to_string());
    Some(format!("networks: A: {}; B: {}", text(ea), text(eb)))
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
            record: GameRecord::default(),
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
    fn a_written_record_names_each_sides_player_and_why_another_program_stopped() {
        assert_eq!(record_file(0, 2), "game-0001.txt");
        assert_eq!(record_file(11_999, 20_000), "game-12000.txt");
        assert_eq!(record_file(41, 100_000), "game-000042.txt");
        let engine_tags = GameRecord {
            tags: vec![
                ("Rules".into(), "brandubh".into()),
                ("Result".into(), "defenders".into()),
                ("Termination".into(), "forfeit".into()),
            ],
            moves: vec!["d1-b1".into(), "d3-b3".into(), "a4-a2".into()],
        };
        let g = FinishedGame {
            game: 5,
            a_side: Side::Defenders,
            score: 1.0,
            plies: 3,
            on_time: false,
            stopped: Some(
                "game 6 (A defenders), B: forfeit after 3 plies: it crashed:\npanicked at x".into(),
            ),
            record: engine_tags,
        };
        let rec = game_record(
            &g,
            "mcts:linear=shipped",
            "htp:their-engine --depth 3",
            8,
            "tafl arena ...",
        );
        let text = rec.to_text();
        let back = GameRecord::parse(&text).unwrap();
        assert_eq!(back, rec, "{text}");
        assert_eq!(
            back.tag("Attackers"),
            Some("htp:their-engine --depth 3"),
            "B attacks in game 6"
        );
        assert_eq!(back.tag("Defenders"), Some("mcts:linear=shipped"));
        assert_eq!(back.tag("Game"), Some("6 of 8 (pair 3)"));
        assert_eq!(back.tag("Match"), Some("tafl arena ..."));
        assert_eq!(back.tag("Result"), Some("defenders"));
        assert_eq!(
            back.tag("Stopped"),
            Some("game 6 (A defenders), B: forfeit after 3 plies: it crashed:\\npanicked at x"),
            "a line break in a program's message does not break the record"
        );
        assert_eq!(back.moves, ["d1-b1", "d3-b3", "a4-a2"]);
    }

    #[test]
    fn the_spread_names_the_positions_one_side_won_every_game_from() {
        // Four positions, three pairs played: position 1 (games 0, 1), 2 (2, 3), 3 (4, 5).
        // A attacks in even games; a score is A's.
        let scores = [
            1.0, 0.0, // position 1: A attacks and wins; B attacks and wins: attackers twice
            1.0, 1.0, // position 2: attackers, then defenders
            0.0, 1.0, // position 3: defenders twice
        ];
        let spread = SuiteSpread::of(&scores, 4);
        assert_eq!(spread.played, 3);
        assert_eq!(spread.positions, 4);
        assert_eq!(spread.attackers_every_game, vec![1]);
        assert_eq!(spread.defenders_every_game, vec![3]);
        let text = spread.text("s.txt");
        assert!(
            text.contains("suite s.txt, 3 of its 4 positions played"),
            "{text}"
        );
        assert!(text.contains("attackers 1 (1); defenders 1 (3)"), "{text}");
    }

    #[test]
    fn the_rerun_line_names_every_setting_and_quotes_odd_words() {
        let s = Settings {
            games: 200,
            seed: 1,
            ply_limit: Some(400),
            opening_plies: 4,
            openings: None,
            exploration: 0.1,
            limit: ThinkingLimit::Simulations,
            search_threads: None,
            parallel: None,
            records: None,
        };
        assert_eq!(
            command_line("mcts:model=shipped:100", "mcts:heuristic:100", "brandubh", &s),
            "tafl arena mcts:model=shipped:100 mcts:heuristic:100 --rules brandubh --games 200 --seed 1 --ply-limit 400 --opening-plies 4 --exploration 0.1"
        );
        let timed = Settings {
            limit: ThinkingLimit::parse_clock("10+0.1").unwrap(),
            search_threads: Some(2),
            ..s.clone()
        };
        assert!(command_line("a", "b", "brandubh", &timed).ends_with(" --clock 10+0.1 --search-threads 2"));
        let tree = Settings {
            parallel: Some(tafl_engine::search::Parallelism::Tree),
            ..timed.clone()
        };
        assert!(command_line("a", "b", "brandubh", &tree).ends_with(" --search-threads 2 --parallel tree"));
        let suite = Settings {
            openings: Some(SuiteArg {
                path: "checkpoints/openings/brandubh.txt".into(),
                suite: OpeningSuite::default(),
            }),
            ..s.clone()
        };
        assert_eq!(
            command_line("a", "b", "brandubh", &suite),
            "tafl arena a b --rules brandubh --games 200 --seed 1 --ply-limit 400 --openings checkpoints/openings/brandubh.txt --exploration 0.1"
        );
        let line = command_line("mcts:model=my run's/x:8", "random", "a b.toml", &s);
        assert!(
            line.starts_with("tafl arena 'mcts:model=my run'\\''s/x:8' random --rules 'a b.toml' "),
            "{line}"
        );
    }
}
