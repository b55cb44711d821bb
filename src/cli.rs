//! Command-line arguments and dispatch.

use crate::common::RulesArg;
use clap::{Parser, Subcommand, ValueEnum};
use tafl_engine::{rules_panel, ruleset_to_opentafl, Ruleset};

/// Train, play and measure AlphaZero-style players for the Tafl family of board games.
#[derive(Parser, Debug)]
#[command(name = "tafl", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Engine of the networks' forward passes (players, arena, analysis, engines; `tafl train`
    /// takes its config's `selfplay.inference`): auto (ONNX Runtime where
    /// scripts/install-onnxruntime.sh installed it, else burn), burn, onnxruntime, or int8
    /// (ONNX Runtime with 8-bit weights and activations, calibrated when a network loads:
    /// faster on CPUs with VNNI, a little less exact).
    #[arg(long, global = true, default_value = "auto", value_parser = parse_inference)]
    inference: tafl_nn::Inference,
}

fn parse_inference(s: &str) -> Result<tafl_nn::Inference, String> {
    s.parse()
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a player by self-play (the main job): `tafl train` runs the embedded Brandubh
    /// config; `--resume RUN` continues a run after an interruption.
    Train(TrainArgs),
    /// The self-play stage of a run by itself: plays the current iteration's games with the
    /// best network into replay shards (what `tafl train` does first in each iteration).
    ///
    /// With --games A..B --out DIR, plays only those games of the iteration into shards of
    /// DIR and leaves the run untouched: one task of a distributed run (ray/README.md), whose
    /// driver moves the shards into the run in game order; `tafl selfplay RUN` then finds them
    /// and ends the stage.
    Selfplay(SelfplayArgs),
    /// The learning stage of a run by itself: trains the next candidate on the replay window
    /// (or pretrains on records, before the first iteration).
    Learn(StageArgs),
    /// The gating stage of a run by itself: candidate against best, the ladder, promotion;
    /// ends the iteration.
    Gate(StageArgs),
    /// A run's learning curve after the fact: plays the ladder of the run's config (the best
    /// network of each finished iteration against its fixed anchors) for the iterations that
    /// have no result for it, writes the results into the run's state and draws
    /// `learning-curve.png` again.
    Ladder(crate::commands::ladder::LadderArgs),
    /// Print a ruleset's rules, generated from its data, and its start position.
    Rules(RulesArgs),
    /// Count leaf positions `depth` plies from the start (the last line is the count).
    Perft(PerftArgs),
    /// Play uniformly random games and print who won.
    Random(RandomArgs),
    /// Replay real games from a CSV file (`moves,attacker_captures,defender_captures,result`)
    /// and check every move and capture against the rules.
    Replay(ReplayArgs),
    /// A game archive as data: `eval` scores networks, the hand-written evaluation and
    /// players against the moves and results of recorded games (top-1/top-3 agreement,
    /// log-loss, Brier score, by stage); `export` writes the games as training samples, split
    /// by game into train and validation sets.
    Records(crate::commands::records::RecordsArgs),
    /// Play a game against the AI in the terminal (works with piped input too).
    Play(PlayArgs),
    /// Show the best moves of a position: visit share, value, prior and principal variation.
    Analyze(AnalyzeArgs),
    /// Play two players against each other in colour-swapped pairs and estimate the Elo difference.
    Arena(ArenaArgs),
    /// Build an opening suite: start positions from which equal skilled players score about
    /// even, judged by play, for `tafl arena --openings` (checkpoints/openings/ ships one per
    /// ruleset).
    ///
    /// Candidates are positions --plies plies before the end of source games in which the
    /// defenders erred (--source, --random-side) and the attackers won, mirror images and
    /// rotations removed. The judge plays each against itself, --games games with each side's
    /// simulations drawn within --spread of its own and no random moves after the opening
    /// (half first: a position that can no longer be kept is dropped), and a position is kept
    /// when the share of games the attackers win from it lies within --keep. The same seed
    /// makes the same file.
    Openings(OpeningsArgs),
    /// Fit a linear evaluation (the hand-written terms and the pieces' squares) to a network's
    /// values on positions of fast games; `mcts:linear=FILE` plays with the weights file it
    /// writes: a learned evaluation at the hand-written one's speed.
    Tune(crate::commands::tune::TuneArgs),
    /// The win-rate study of rulesets: random and skilled play, 95% intervals, before/after of
    /// rule changes. Prints the table and writes balance.md, .csv, .json and .png to --out.
    ///
    /// The default study plays 33,000 random and 500 skilled games (mcts:heuristic:1600) for
    /// each of brandubh, tablut and hnefatafl (its running time is in the README). The same
    /// seed gives byte-identical outputs whatever --threads is. Ctrl-C stops and keeps the
    /// outputs of the finished rows.
    ///
    /// With --strength-sweep RUN_DIR (or `levels`), plays instead one fixed-size self-play
    /// study per checkpoint of a training run (or per configured level) and writes
    /// balance-vs-strength.md, .csv, .json and .png: does the ruleset stay balanced as the
    /// players improve?
    Balance(BalanceArgs),
    /// Search the rules' levers for variants under which skilled play is even, and check that
    /// they stay even as the players get stronger.
    ///
    /// The variants are the base rules with at most --max-changes of the --levers moved. Each
    /// is played by the --skilled player against itself (the exploration rule of the balance
    /// study) in rounds that grow by half; after each round, variants surely farther from even
    /// than --finalists others, or mostly undecided, are dropped, and the rest are played until
    /// their 95% interval is within --race-precision. The survivors then race again with each of
    /// --strengths in turn, judged by their worst distance from even over the players so far;
    /// the finalists are played on to --precision at every strength, and the best is the one
    /// closest to even at its worse strength. Writes rebalance.md, .csv,
    /// .json, rebalance-vs-strength.png,
    /// the best variant as best.toml (ready for --rules) and its rules panel to --out.
    /// Interrupted (Ctrl-C), the same command resumes from the state in --out.
    Rebalance(RebalanceArgs),
    /// Play as an external engine for another program over stdin and stdout: `--protocol otep`
    /// speaks the OpenTafl Engine Protocol (OpenTafl sends the rules, the engine answers
    /// `play` with `move`, `analyze` with `analysis`); `--protocol htp` (alias `gtp`) the
    /// GTP-style Hnefatafl Text Protocol of hnefatafl.org (`generate_move`, `play`, ...).
    Engine(EngineArgs),
    /// Write the bundle a game client needs: `model.onnx` (ONNX opset 17), `model.safetensors`,
    /// `manifest.json` (encoding, policy index, rules, model config, Elo) and a `README.md` for
    /// the client's author.
    Export(ExportArgs),
    /// Serve the AI over HTTP for web games, with a page to play in a browser at `/`.
    ///
    /// JSON API (every request carries its whole game, so instances can sit behind a load
    /// balancer): GET /api/rulesets, GET /api/rulesets/ID (rules panel, knobs, OpenTafl string),
    /// POST /api/rules, GET /api/levels, POST /api/state (legal moves and status of a move
    /// list), POST /api/move (the AI's move for a level, with value and principal variation),
    /// POST /api/analyze (top moves), GET /health, GET /metrics (Prometheus). Bad input gets a
    /// 4xx with `{"error": ...}`; a full search queue gets 503 with Retry-After. The README's
    /// "Serving" section has the request shapes.
    Serve(crate::commands::serve::ServeArgs),
    /// Measure engine speed: move generation and random-game plies per second, one thread.
    Bench(BenchArgs),
}

/// The arguments of `tafl train`.
#[derive(clap::Args, Debug)]
struct TrainArgs {
    /// Training config (TOML); the embedded `configs/train/brandubh.toml` when absent.
    config: Option<String>,
    /// Run folder for a new run (default: runs/<config>-<unix time>).
    #[arg(long)]
    out: Option<String>,
    /// Continue the run in this folder.
    #[arg(long, conflicts_with_all = ["config", "out"])]
    resume: Option<String>,
    /// Stop after this iteration (the run can be resumed later).
    #[arg(long)]
    stop_after: Option<u32>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Do not install ONNX Runtime where it is missing: self-play then evaluates through
    /// burn, about 3x slower (by default a first run installs it with
    /// scripts/install-onnxruntime.sh, PyPI's onnxruntime into target/onnx-venv).
    #[arg(long)]
    no_install: bool,
}

/// The arguments of `tafl learn` and `tafl gate`.
#[derive(clap::Args, Debug)]
struct StageArgs {
    /// The run folder.
    run: std::path::PathBuf,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

impl StageArgs {
    fn run(self, stage: tafl_trainer::Stage) -> Result<(), String> {
        let options = tafl_trainer::TrainOptions {
            stop_after: None,
            quiet: self.quiet,
        };
        tafl_trainer::run_stage(&self.run, stage, &options)
    }
}

/// The arguments of `tafl selfplay`.
#[derive(clap::Args, Debug)]
struct SelfplayArgs {
    /// The run folder (or a copy of its config.toml, state.json and checkpoints).
    run: std::path::PathBuf,
    /// Play only these games of the iteration, `A..B` (game indices, B excluded), into --out.
    #[arg(long, value_name = "A..B", value_parser = parse_game_range, requires = "out")]
    games: Option<std::ops::Range<u64>>,
    /// The folder for the shards of --games (empty or new).
    #[arg(long, requires = "games")]
    out: Option<std::path::PathBuf>,
    /// Print the current iteration and how many games its self-play plays (`ITERATION GAMES`),
    /// and stop: what a distributed driver cuts into tasks.
    #[arg(long, conflicts_with_all = ["games", "out"])]
    plan: bool,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// `A..B`, a range of game indices with A < B.
fn parse_game_range(text: &str) -> Result<std::ops::Range<u64>, String> {
    let bad = || format!("`{text}` is not a range of games; write A..B with A < B, for example 0..32");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let (a, b): (u64, u64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a >= b {
        return Err(bad());
    }
    Ok(a..b)
}

impl SelfplayArgs {
    fn run(self) -> Result<(), String> {
        let options = tafl_trainer::TrainOptions {
            stop_after: None,
            quiet: self.quiet,
        };
        if self.plan {
            let (iteration, games) = tafl_trainer::selfplay_plan(&self.run)?;
            println!("{iteration} {games}");
            return Ok(());
        }
        match (self.games, self.out) {
            (Some(games), Some(out)) => tafl_trainer::selfplay_games(&self.run, games, &out, &options),
            _ => tafl_trainer::run_stage(&self.run, tafl_trainer::Stage::SelfPlay, &options),
        }
    }
}

/// The arguments of `tafl rules`.
#[derive(clap::Args, Debug)]
struct RulesArgs {
    /// Built-in ruleset id (brandubh, tablut, hnefatafl, copenhagen, ...) or a rules file:
    /// TOML, an OpenTafl rules string, or an OpenTafl game record (.otg).
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Print the rules file (TOML) instead of the summary.
    #[arg(long)]
    toml: bool,
    /// Print the OpenTafl rules string instead of the summary.
    #[arg(long, conflicts_with = "toml")]
    opentafl: bool,
}

/// The arguments of `tafl perft`.
#[derive(clap::Args, Debug)]
struct PerftArgs {
    /// Ruleset id or rules file.
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Plies to search.
    depth: u32,
    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// The arguments of `tafl random`.
#[derive(clap::Args, Debug)]
struct RandomArgs {
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

/// The arguments of `tafl replay`.
#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// Ruleset id or rules file.
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The CSV file of games.
    file: String,
}

/// The arguments of `tafl play`.
#[derive(clap::Args, Debug)]
struct PlayArgs {
    /// Ruleset id or rules file.
    #[arg(long, default_value = "brandubh")]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The side you play: attackers or defenders.
    #[arg(long, default_value = "defenders")]
    side: String,
    /// AI level (see configs/levels.toml).
    #[arg(long, default_value_t = 3)]
    level: u32,
    /// Seed of the AI's choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

/// The arguments of `tafl analyze`.
#[derive(clap::Args, Debug)]
struct AnalyzeArgs {
    /// Ruleset id or rules file.
    #[arg(long)]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// OpenTafl position record (first row = rank 1); the start position when absent.
    #[arg(long)]
    position: Option<String>,
    /// Side to move in --position: attackers or defenders (default: who moves first).
    #[arg(long)]
    to_move: Option<String>,
    /// Moves to play from the position first, space separated (`"d1-d3 d5-b5"`).
    #[arg(long, default_value = "")]
    moves: String,
    /// A game record (`tafl arena --records` writes them): its start position, side to move
    /// and moves, instead of --position, --to-move and --moves; its rules must be --rules.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "to_move", "moves"])]
    record: Option<std::path::PathBuf>,
    /// With --record: the position after this many of its plies (default: all of them).
    #[arg(long, requires = "record")]
    ply: Option<usize>,
    /// The searching player.
    #[arg(long, default_value = "mcts:heuristic:2000")]
    player: String,
    /// Search with a trained network instead of `--player`: a checkpoint folder, a run
    /// folder (its best checkpoint), or `shipped` (the built-in model for the rules).
    #[arg(long, conflicts_with = "player")]
    model: Option<String>,
    /// Simulations of the `--model` search.
    #[arg(long, default_value_t = 800, requires = "model")]
    simulations: u32,
    /// Moves to list.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Search seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

/// The arguments of `tafl arena`.
#[derive(clap::Args, Debug)]
struct ArenaArgs {
    /// Player A (`random`, `greedy`, `mcts:rollout:800`, `level:3`, ...), or another
    /// program through its engine protocol: `htp:COMMAND` (hnefatafl.org's), `otep:COMMAND`
    /// (OpenTafl's), started for each game (an illegal or missing reply loses the game).
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

/// The arguments of `tafl openings`.
#[derive(clap::Args, Debug)]
struct OpeningsArgs {
    /// Ruleset id or rules file.
    #[arg(long)]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The file to write (the suite, one position a line).
    #[arg(long)]
    out: std::path::PathBuf,
    /// The player that judges each candidate against itself: a spec or `level:N`.
    #[arg(long, default_value = tafl_lab::openings::DEFAULT_JUDGE)]
    judge: String,
    /// Candidate positions to judge.
    #[arg(long, default_value_t = 300)]
    candidates: usize,
    /// Where candidates come from: `end:P` (default), the position --plies plies before the
    /// end of a decided source game from the start, in which each move of the --random-side
    /// is uniformly random with probability P and the other side plays the judge's moves; or
    /// `start`, --plies plies from the start with every move of the --random-side random.
    #[arg(long, default_value = "end:0.3", value_parser = tafl_lab::openings::Source::parse)]
    source: tafl_lab::openings::Source,
    /// Plies that make a candidate (from the start, or before a source game's end): `N` or
    /// `LEAST-MOST`.
    #[arg(long, default_value = "2-10", value_parser = parse_u32_range)]
    plies: (u32, u32),
    /// Whose opening moves are uniformly random: `attackers`, `defenders` or `both`; the other
    /// side plays the judge's moves. Under defender-favoured rules, random moves by both sides
    /// leave positions the defenders still win whoever plays them; a defence that erred in
    /// the opening gives the attackers their chances.
    #[arg(long, value_enum, default_value_t = RandomSide::Defenders)]
    random_side: RandomSide,
    /// How far each side's simulations stray from the judge's own in a judging game, as a
    /// factor (drawn log-uniformly from SIMS/SPREAD to SIMS*SPREAD for each side of each
    /// game): equal searches play one game again and again from a position, players of
    /// about equal strength vary. 1: every game at the judge's own simulations.
    #[arg(long, default_value_t = 4.0)]
    spread: f64,
    /// Games the judge plays from each candidate (even).
    #[arg(long, default_value_t = 8)]
    games: u32,
    /// The share of the games the attackers win from a kept position, `LEAST-MOST`; the
    /// defence wins or holds the rest.
    #[arg(long, default_value = "0.25-0.75", value_parser = parse_f64_range)]
    keep: (f64, f64),
    /// The most positions kept (the first found, in candidate order).
    #[arg(long, default_value_t = 100)]
    size: usize,
    /// Plies after which a judging game ends with no result.
    #[arg(long, default_value_t = 200)]
    ply_limit: u32,
    /// Seed of the candidates and the judge's games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores); the suite does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

/// Whose opening moves `tafl openings` makes random.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RandomSide {
    /// Both sides'.
    Both,
    /// The attackers'.
    Attackers,
    /// The defenders'.
    Defenders,
}

impl RandomSide {
    fn side(self) -> Option<tafl_engine::Side> {
        match self {
            RandomSide::Both => None,
            RandomSide::Attackers => Some(tafl_engine::Side::Attackers),
            RandomSide::Defenders => Some(tafl_engine::Side::Defenders),
        }
    }
}

/// `N` or `A-B` as an inclusive range.
fn parse_u32_range(s: &str) -> Result<(u32, u32), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{t}` is not a whole number"))
    };
    match s.split_once('-') {
        Some((a, b)) => Ok((num(a)?, num(b)?)),
        None => num(s).map(|n| (n, n)),
    }
}

/// `A-B` as an inclusive range of fractions.
fn parse_f64_range(s: &str) -> Result<(f64, f64), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("`{t}` is not a number"))
    };
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| format!("`{s}` is not a range LEAST-MOST"))?;
    Ok((num(a)?, num(b)?))
}

impl OpeningsArgs {
    fn run(self) -> Result<(), String> {
        let judge = tafl_lab::players::resolve(&self.judge).map_err(|e| format!("--judge: {e}"))?;
        // The suite is written at the end of a long search: a file that cannot be written
        // there is refused now.
        tafl_lab::work::check_writable("--out", &self.out)?;
        let pool = crate::common::pool(self.threads)?;
        let req = tafl_lab::openings::BuildRequest {
            rules_text: self.rules.text.clone(),
            ruleset: self.rules.ruleset,
            judge_text: self.judge,
            judge,
            candidates: self.candidates,
            plies: self.plies,
            source: self.source,
            random_side: self.random_side.side(),
            spread: self.spread,
            games: self.games,
            keep: self.keep,
            size: self.size,
            ply_limit: self.ply_limit,
            seed: self.seed,
            threads: pool.current_num_threads(),
        };
        req.validate()?;
        let bar = crate::common::progress_bar(0, "judging");
        // Inside the pool, so that network judges batch for as many callers as there are threads.
        let built = pool.install(|| tafl_lab::openings::build_suite(&req, &bar))?;
        bar.finish_and_clear();
        if built.suite.entries.is_empty() {
            return Err(format!(
                "no candidate of {} was balanced within --keep {}-{}: nothing written; try more --candidates, other --plies or a wider --keep",
                built.judged.len(),
                req.keep.0,
                req.keep.1
            ));
        }
        tafl_lab::work::write_atomic(&self.out, built.suite.to_text().as_bytes())?;
        for line in &built.suite.header {
            println!("{line}");
        }
        let first = req.first_round();
        let dropped = |wins: u32| {
            built
                .judged
                .iter()
                .filter(|j| j.tally.games() == first && j.tally.attackers == wins)
                .count()
        };
        println!(
            "candidates dropped after the first {first} games: the attackers won all {}, none {}",
            dropped(first),
            dropped(0)
        );
        println!(
            "wrote {} positions to {}",
            built.suite.entries.len(),
            self.out.display()
        );
        Ok(())
    }
}

/// The arguments of `tafl balance`.
#[derive(clap::Args, Debug)]
struct BalanceArgs {
    /// Rulesets (comma separated ids or rules files). Default: brandubh,tablut,hnefatafl;
    /// with --strength-sweep RUN_DIR, the run's ruleset; with `--strength-sweep levels`,
    /// exactly one ruleset is needed.
    #[arg(long)]
    rules: Option<String>,
    /// Uniformly random games per ruleset (0: no random rows).
    #[arg(long, default_value_t = 33000)]
    random_games: u64,
    /// Skilled games per ruleset (0: no skilled rows).
    #[arg(long, default_value_t = 500)]
    skilled_games: u64,
    /// End a game with no result after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Seed of the study: every game's seed derives from (seed, ruleset, row, game index).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Folder for balance.md, balance.csv, balance.json and balance.png.
    #[arg(long, default_value = "balance")]
    out: std::path::PathBuf,
    /// The player of both sides in skilled rows: `level:N` or a spec (`mcts:heuristic:200`,
    /// `mcts:model=RUN:SIMS`, `mcts:model=shipped:200`). Default: tree search with the
    /// hand-written evaluation at 1600 simulations, the same player under every ruleset.
    #[arg(long, default_value = tafl_lab::balance::DEFAULT_SKILLED)]
    skilled: String,
    /// Exploration rule of skilled rows: each ply, the side to move plays a uniformly random
    /// legal move with this probability (0 to 1); a level that makes more mistakes keeps its own.
    #[arg(long, default_value_t = tafl_lab::balance::DEFAULT_EXPLORATION)]
    exploration: f32,
    /// Change a rule for this run, `KNOB=VALUE` as in the rules files (repeatable), for
    /// example `--set repetition=defenders_lose --set encirclement=yes`.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    sets: Vec<String>,
    /// Play the rules as given and as changed by --set, side by side, with the change in each
    /// share and whether its 95% interval excludes zero.
    #[arg(long)]
    compare: bool,
    /// An opening suite for the skilled rows of the ruleset its file names (repeatable, one
    /// per ruleset; checkpoints/openings/ ships them): skilled game i starts from its
    /// position i % len instead of the start.
    #[arg(long, value_name = "FILE", conflicts_with = "strength_sweep")]
    openings: Vec<std::path::PathBuf>,
    /// Balance against strength: a training run folder (each of its checkpoints plays both
    /// sides, `mcts:model=CHECKPOINT:SIMS`) or `levels` (each level of configs/levels.toml).
    /// Each point is --games games under the run's rules, with the exploration rule of
    /// skilled rows. Writes balance-vs-strength.md, .csv, .json and .png to --out.
    #[arg(
        long,
        value_name = "RUN_DIR|levels",
        conflicts_with_all = ["random_games", "skilled_games", "skilled", "sets", "compare"]
    )]
    strength_sweep: Option<String>,
    /// Games per point of --strength-sweep.
    #[arg(long, default_value_t = tafl_lab::balance::sweep::DEFAULT_GAMES, requires = "strength_sweep")]
    games: u64,
    /// Simulations per move of the checkpoints in --strength-sweep (default: the run's
    /// arena simulations, the strength its Elo was measured at).
    #[arg(long, requires = "strength_sweep")]
    simulations: Option<u32>,
    /// Sweep every K-th checkpoint (or level): 0, K, 2K, ... and always the last.
    #[arg(long, default_value_t = 1, requires = "strength_sweep")]
    every: u32,
    /// The x axis of balance-vs-strength.png: Elo when every point has one, else the
    /// iteration (auto); or elo, iteration or step (training steps).
    #[arg(long = "x", value_enum, default_value_t = tafl_lab::balance::sweep::XChoice::Auto, requires = "strength_sweep")]
    x_axis: tafl_lab::balance::sweep::XChoice,
}

/// The arguments of `tafl engine`.
#[derive(clap::Args, Debug)]
struct EngineArgs {
    /// The protocol spoken on stdin and stdout.
    #[arg(long, value_enum, default_value_t = Protocol::Otep)]
    protocol: Protocol,
    /// Ruleset id or rules file for `htp` (OpenTafl sends its own rules to `otep`); by
    /// default the Copenhagen of hnefatafl.org's engine and server, with their house rules.
    #[arg(long, default_value = "copenhagen-hnefatafl-org")]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The player (`random`, `greedy`, `mcts:rollout:800`, `mcts:model=RUN:200`,
    /// `level:N`); default: level 5, the strongest level that follows the host's clock (no deliberate mistakes).
    #[arg(long)]
    player: Option<String>,
    /// AI level (see configs/levels.toml), instead of --player.
    #[arg(long, conflicts_with = "player")]
    level: Option<u32>,
    /// Seed of the AI's choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How `htp` answers end: `htp` as hnefatafl.org's engine (a success with one newline,
    /// an error with a blank line after it), or `gtp` (every answer with a blank line).
    #[arg(long, value_enum, default_value_t = Framing::Htp)]
    framing: Framing,
    /// `htp` only: play as a networked engine of hnefatafl.org's server at HOST[:PORT]
    /// (port 49152 unless given) instead of over stdin and stdout, connecting again when
    /// the connection drops.
    #[arg(long, conflicts_with = "server")]
    host: Option<String>,
    /// `htp` only: play as a bot account on hnefatafl.org's game server at HOST[:PORT]
    /// (port 49152 unless given): log in as `--user`, create games (or `--join` one) and
    /// play them through, one after another.
    #[arg(long, value_name = "HOST", requires = "user")]
    server: Option<String>,
    /// `--server`: the account name.
    #[arg(long, value_name = "NAME", requires = "server")]
    user: Option<String>,
    /// `--server`: the account's password (default: the TAFL_SERVER_PASSWORD environment
    /// variable, else none).
    #[arg(long, value_name = "PASSWORD", requires = "server")]
    password: Option<String>,
    /// `--server`: create the account first (logging in if it exists).
    #[arg(long, requires = "server")]
    create_account: bool,
    /// `--server`: the side asked for in created games: attacker, defender or alternate.
    #[arg(long, value_name = "SIDE", default_value = "alternate", requires = "server")]
    side: String,
    /// `--server`: the clock of created games, `SECONDS+INCREMENT` or `untimed`.
    #[arg(long, value_name = "CLOCK", default_value = "900+10", requires = "server")]
    time: String,
    /// `--server`: create rated games.
    #[arg(long, requires = "server")]
    rated: bool,
    /// `--server`: games to play before stopping (default: until stopped).
    #[arg(long, value_name = "N", requires = "server")]
    games: Option<u32>,
    /// `--server`: join this pending game instead of creating games, and stop after it.
    #[arg(long, value_name = "ID", requires = "server")]
    join: Option<u64>,
    /// `htp`: play on to the end instead of resigning once the search proves every move
    /// lost (a lost side plays the move that resists longest either way).
    #[arg(long)]
    no_resign: bool,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

/// The arguments of `tafl export`.
#[derive(clap::Args, Debug)]
struct ExportArgs {
    /// A checkpoint folder, or a training run folder (its best checkpoint).
    checkpoint: String,
    /// Folder to write the bundle into (created if needed).
    #[arg(long)]
    out: String,
    /// Also write `model.int8.onnx`: the network with 8-bit weights and activations, calibrated
    /// on sample positions of its rules (needs ONNX Runtime: scripts/install-onnxruntime.sh).
    /// About a third of the size, and faster where the client's runtime has integer kernels.
    #[arg(long)]
    int8: bool,
}

/// The arguments of `tafl bench`.
#[derive(clap::Args, Debug)]
struct BenchArgs {
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

/// Protocols of `tafl engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Protocol {
    /// The OpenTafl Engine Protocol (`opentafl-engine-protocol.txt`).
    Otep,
    /// The Hnefatafl Text Protocol of hnefatafl.org, modelled on GTP.
    #[value(alias = "gtp")]
    Htp,
}

/// Answer framings of `tafl engine --protocol htp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Framing {
    /// hnefatafl.org's: `= answer` and one newline; `? error` and a blank line.
    Htp,
    /// GTP's: every answer followed by a blank line.
    Gtp,
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), String> {
    if let Command::Train(args) = &cli.command {
        if cli.inference == tafl_nn::Inference::Auto && !args.no_install {
            crate::fast_path::install_if_missing();
        }
    }
    cli.inference.resolve().map_err(|e| format!("--inference: {e}"))?;
    tafl_nn::Inference::set_process_default(cli.inference);
    match cli.command {
        Command::Train(args) => args.run(),
        Command::Selfplay(args) => args.run(),
        Command::Learn(args) => args.run(tafl_trainer::Stage::Learn),
        Command::Gate(args) => args.run(tafl_trainer::Stage::Gate),
        Command::Ladder(args) => args.run(),
        Command::Rules(args) => args.run(),
        Command::Perft(args) => args.run(),
        Command::Random(args) => args.run(),
        Command::Replay(args) => args.run(),
        Command::Records(args) => args.run(),
        Command::Play(args) => args.run(),
        Command::Analyze(args) => args.run(),
        Command::Arena(args) => args.run(),
        Command::Openings(args) => args.run(),
        Command::Tune(args) => args.run(),
        Command::Balance(args) => args.run(),
        Command::Rebalance(args) => args.run(),
        Command::Engine(args) => args.run(),
        Command::Export(args) => args.run(),
        Command::Bench(args) => args.run(),
        Command::Serve(args) => crate::commands::serve::run(args),
    }
}

impl TrainArgs {
    fn run(self) -> Result<(), String> {
        let TrainArgs {
            config,
            out,
            resume,
            stop_after,
            quiet,
            no_install: _,
        } = self;
        let options = tafl_trainer::TrainOptions { stop_after, quiet };
        if let Some(dir) = resume {
            return tafl_trainer::resume(std::path::Path::new(&dir), &options);
        }
        let (text, name) = match &config {
            Some(path) => (
                tafl_engine::input::read_text(std::path::Path::new(path))
                    .map_err(|e| format!("config `{path}`: {e}"))?,
                path.clone(),
            ),
            None => (
                tafl_trainer::DEFAULT_CONFIG.to_string(),
                "configs/train/brandubh.toml (embedded)".to_string(),
            ),
        };
        let out = out.unwrap_or_else(|| {
            let stem = config
                .as_deref()
                .and_then(|p| std::path::Path::new(p).file_stem())
                .map_or("brandubh".to_string(), |s| s.to_string_lossy().into_owned());
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("runs/{stem}-{secs}")
        });
        tafl_trainer::start(&text, &name, std::path::Path::new(&out), &options)
    }
}

impl RulesArgs {
    fn run(self) -> Result<(), String> {
        let RulesArgs {
            rules,
            toml,
            opentafl,
        } = self;
        let rs = rules.ruleset;
        let text = if opentafl {
            format!("{}\n", ruleset_to_opentafl(&rs))
        } else if toml {
            rs.to_toml()
        } else {
            rules_panel(&rs)
        };
        // A name from a file may hold terminal escapes: they are shown, not obeyed.
        print!("{}", tafl_engine::input::printable(&text, true, 4096));
        Ok(())
    }
}

impl PerftArgs {
    fn run(self) -> Result<(), String> {
        let PerftArgs {
            rules,
            depth,
            divide,
            threads,
        } = self;
        let rs = rules.ruleset;
        let max = tafl_lab::limits::MAX_PERFT_DEPTH;
        if depth > max {
            return Err(format!(
                "depth {depth} is too deep; at most {max} (no perft that deep ends, and its count would pass a 64-bit integer)"
            ));
        }
        crate::commands::perft::run(&rs, depth, divide, threads)
    }
}

impl RandomArgs {
    fn run(self) -> Result<(), String> {
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
        crate::commands::random::run(&rs, games, seed, limit, threads)
    }
}

impl ReplayArgs {
    fn run(self) -> Result<(), String> {
        let ReplayArgs { rules, file } = self;
        let rs = rules.ruleset;
        crate::commands::replay::run(&rs, &file)
    }
}

impl PlayArgs {
    fn run(self) -> Result<(), String> {
        let PlayArgs {
            rules,
            side,
            level,
            seed,
            think,
        } = self;
        let rs = rules.ruleset;
        let side = crate::common::parse_side(&side, "--side")?;
        let ai = think.apply(tafl_lab::players::level(level)?, tafl_lab::players::cores())?;
        crate::commands::play::run(&rs, side, &ai, seed)
    }
}

impl AnalyzeArgs {
    fn run(self) -> Result<(), String> {
        let AnalyzeArgs {
            rules,
            position,
            to_move,
            moves,
            record,
            ply,
            player,
            model,
            simulations,
            top,
            seed,
            think,
        } = self;
        let rs = rules.ruleset;
        let player = match model {
            Some(path) => format!("mcts:model={path}:{simulations}"),
            None => player,
        };
        let (position, to_move, moves, fields) = match &record {
            None => (
                position,
                to_move,
                moves.split_whitespace().map(String::from).collect(),
                (
                    "--position".to_string(),
                    "--to-move".to_string(),
                    "--moves".to_string(),
                ),
            ),
            Some(path) => {
                let at = format!("--record `{}`", path.display());
                let text = tafl_engine::input::read_text(path).map_err(|e| format!("{at}: {e}"))?;
                let rec = tafl_engine::GameRecord::parse(&text).map_err(|e| format!("{at}: {e}"))?;
                rec.check_rules(&rs).map_err(|e| format!("{at}: {e} (--rules)"))?;
                let plies = ply.unwrap_or(rec.moves.len());
                if plies > rec.moves.len() {
                    return Err(format!("--ply {plies}: {at} has {} plies", rec.moves.len()));
                }
                (
                    rec.tag("Position").map(String::from),
                    rec.tag("ToMove").map(String::from),
                    rec.moves[..plies].to_vec(),
                    (
                        format!("{at}, tag Position"),
                        format!("{at}, tag ToMove"),
                        at.clone(),
                    ),
                )
            }
        };
        let to_move = to_move
            .map(|s| crate::common::parse_side(&s, &fields.1))
            .transpose()?;
        let req = crate::commands::analyze::Request {
            position: position.as_deref(),
            to_move,
            moves: &moves,
            fields: (&fields.0, &fields.1, &fields.2),
            player: &player,
            top,
            seed,
            limit: think.limit()?,
        };
        crate::commands::analyze::run(&rs, &req)
    }
}

impl ArenaArgs {
    fn run(self) -> Result<(), String> {
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
            Some(path) => {
                Some(crate::commands::arena::SuiteArg::load(&path).map_err(|e| format!("--openings: {e}"))?)
            }
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
        let settings = crate::commands::arena::Settings {
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
        let rerun = crate::commands::arena::command_line(&a_spec, &b_spec, &rules.text, &settings);
        crate::commands::arena::run(&rs, &a, &b, &settings, threads, &rerun)
    }
}

/// The arguments of `tafl rebalance`.
#[derive(clap::Args, Debug)]
struct RebalanceArgs {
    /// The base rules: a ruleset id or a rules file.
    #[arg(long)]
    rules: String,
    /// The levers: comma-separated knobs, each alone (every value but the base's) or with the
    /// values to try, `knob=a|b`. Default: first, king_armed, king_capture, escape,
    /// corner_hostile, empty_throne_hostile, shieldwall, exit_fort, encirclement, repetition.
    #[arg(long, value_name = "KNOB[=A|B],...")]
    levers: Option<String>,
    /// At most this many levers moved at once in a variant.
    #[arg(long, default_value_t = 2)]
    max_changes: u32,
    /// The racing player, both sides: `level:N` or a spec. Default: the hand-written search
    /// at 100 simulations (the same player under every variant).
    #[arg(long, default_value = tafl_lab::balance::rebalance::DEFAULT_SKILLED)]
    skilled: String,
    /// The stronger players the survivors of the race race again with, in turn (comma
    /// separated).
    #[arg(long, value_delimiter = ',', default_value = tafl_lab::balance::rebalance::DEFAULT_STRENGTHS)]
    strengths: Vec<String>,
    /// Each ply, the side to move plays a uniformly random legal move with this probability.
    #[arg(long, default_value_t = tafl_lab::balance::DEFAULT_EXPLORATION)]
    exploration: f32,
    /// End a game with no result after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Even means a defenders' share of decided games within 50% ± this.
    #[arg(long, default_value_t = 0.05)]
    band: f64,
    /// Play each finalist's measurements until their 95% interval lies within ± this of the
    /// share.
    #[arg(long, default_value_t = 0.05)]
    precision: f64,
    /// Play the race's survivors until their 95% interval lies within ± this (at least
    /// --precision): enough to rank them; only the closest are played on to --precision,
    /// ranked again until the --finalists closest all are.
    #[arg(long, default_value_t = tafl_lab::balance::rebalance::DEFAULT_RACE_PRECISION)]
    race_precision: f64,
    /// Variants that survive the race and are measured at every strength: the closest to
    /// even at the racing player; the best is the one that stays closest at every strength.
    #[arg(long, default_value_t = 5)]
    finalists: usize,
    /// Games per variant in the race's first round; the rounds then grow by about half, in
    /// whole first rounds (16, 32, 48, 80, 128, ...).
    #[arg(long, default_value_t = 16)]
    first_round: u64,
    /// At most this many games per variant and player.
    #[arg(long, default_value_t = 1024)]
    max_games: u64,
    /// Drop a variant whose share of undecided games (draws, no result) is surely above this.
    #[arg(long, default_value_t = 0.25)]
    max_undecided: f64,
    /// Uniformly random games for the random rows of the base and the best variant.
    #[arg(long, default_value_t = 10000)]
    random_games: u64,
    /// Drop nothing: play every variant to --precision (the baseline the race saves games on).
    #[arg(long)]
    exhaustive: bool,
    /// Drop a variant as playing like a simpler one (some of its changes) once this many of
    /// its games are move for move the simpler one's: the levers it adds changed none of them
    /// (0: never).
    #[arg(long, default_value_t = 64)]
    same_games: u64,
    /// Seed: every skilled game's seed derives from (seed, rules, player, game index), the same
    /// for every variant, so that a lever that changes nothing leaves the games as they were.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Folder for the outputs and the state a resumed search continues from.
    #[arg(long, default_value = "rebalance")]
    out: std::path::PathBuf,
}

impl RebalanceArgs {
    fn run(self) -> Result<(), String> {
        let req = tafl_lab::balance::rebalance::Request {
            rules: self.rules,
            levers: self.levers,
            max_changes: self.max_changes,
            skilled: self.skilled,
            strengths: self
                .strengths
                .into_iter()
                .filter(|s| !s.trim().is_empty())
                .collect(),
            exploration: self.exploration,
            ply_limit: self.ply_limit,
            band: self.band,
            precision: self.precision,
            race_precision: self.race_precision,
            finalists: self.finalists,
            first_round: self.first_round,
            max_games: self.max_games,
            max_undecided: self.max_undecided,
            random_games: self.random_games,
            exhaustive: self.exhaustive,
            same_games: self.same_games,
            seed: self.seed,
            threads: self.threads,
            out: self.out,
        };
        tafl_lab::balance::rebalance::run(&req, tafl_lab::balance::stop_on_ctrl_c())
    }
}

impl BalanceArgs {
    fn run(self) -> Result<(), String> {
        let BalanceArgs {
            rules,
            random_games,
            skilled_games,
            ply_limit,
            seed,
            threads,
            out,
            skilled,
            exploration,
            sets,
            compare,
            openings,
            strength_sweep,
            games,
            simulations,
            every,
            x_axis,
        } = self;
        let stop = tafl_lab::balance::stop_on_ctrl_c();
        match strength_sweep {
            Some(source) => {
                let req = tafl_lab::balance::sweep::SweepRequest {
                    source,
                    rules,
                    games,
                    simulations,
                    every,
                    ply_limit,
                    seed,
                    threads,
                    out,
                    exploration,
                    x: x_axis,
                };
                tafl_lab::balance::sweep::run(&req, stop)
            }
            None => {
                let req = tafl_lab::balance::Request {
                    rules: rules.unwrap_or_else(|| tafl_lab::balance::DEFAULT_RULES.to_string()),
                    random_games,
                    skilled_games,
                    ply_limit,
                    seed,
                    threads,
                    out,
                    skilled,
                    exploration,
                    sets,
                    compare,
                    openings,
                };
                tafl_lab::balance::run(&req, stop)
            }
        }
    }
}

impl EngineArgs {
    fn run(self) -> Result<(), String> {
        let EngineArgs {
            protocol,
            rules,
            player,
            level,
            seed,
            framing,
            host,
            server,
            user,
            password,
            create_account,
            side,
            time,
            rated,
            games,
            join,
            no_resign,
            think,
        } = self;
        let player = match (player, level) {
            (Some(spec), _) => tafl_lab::players::resolve(&spec)?,
            (None, Some(n)) => tafl_lab::players::level(n)?,
            (None, None) => tafl_lab::players::level(5)?,
        };
        // One game at a time: its searches can use every core. A clock the host sends
        // (OTEP's `clock`, HTP's `time_settings`) replaces the player's own limit.
        let mut player = think.apply(player, tafl_lab::players::cores())?;
        if think.search_threads.is_none() {
            // Hosts time their engines: every core, whatever the level's own limit.
            player.threads = tafl_lab::players::cores();
        }
        let framing = match framing {
            Framing::Htp => tafl_lab::htp::Framing::Htp,
            Framing::Gtp => tafl_lab::htp::Framing::Gtp,
        };
        match (protocol, host) {
            (Protocol::Otep, Some(_)) => Err("--host is for --protocol htp".into()),
            (Protocol::Otep, None) if server.is_some() => Err("--server is for --protocol htp".into()),
            (Protocol::Otep, None) => crate::commands::engine::otep::run(&player, seed),
            (Protocol::Htp, host) => {
                let rs = rules.ruleset;
                if let Some(server) = server {
                    let side = match side.as_str() {
                        "attacker" => crate::commands::engine::server_bot::SideChoice::Attacker,
                        "defender" => crate::commands::engine::server_bot::SideChoice::Defender,
                        "alternate" => crate::commands::engine::server_bot::SideChoice::Alternate,
                        other => {
                            return Err(format!(
                                "--side `{}`: give attacker, defender or alternate",
                                tafl_engine::input::quote(other)
                            ))
                        }
                    };
                    let opts = crate::commands::engine::server_bot::BotOptions {
                        server,
                        resign: !no_resign,
                        name: user.unwrap_or_default(),
                        password: password
                            .or_else(|| std::env::var("TAFL_SERVER_PASSWORD").ok())
                            .unwrap_or_default(),
                        create: create_account,
                        side,
                        time: crate::commands::engine::server_bot::parse_time(&time)?,
                        rated,
                        games,
                        join,
                    };
                    return crate::commands::engine::server_bot::run(&rs, &player, seed, &opts);
                }
                match host {
                    Some(h) => {
                        crate::commands::engine::htp::run_tcp(&rs, &player, seed, framing, &h, !no_resign)
                    }
                    None => crate::commands::engine::htp::run(&rs, &player, seed, framing, !no_resign),
                }
            }
        }
    }
}

impl ExportArgs {
    fn run(self) -> Result<(), String> {
        let ExportArgs {
            checkpoint,
            out,
            int8,
        } = self;
        crate::commands::export::run(
            std::path::Path::new(&checkpoint),
            std::path::Path::new(&out),
            int8,
        )
    }
}

impl BenchArgs {
    fn run(self) -> Result<(), String> {
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
        crate::commands::bench::run(&sets, seconds);
        if let Some(rules) = search {
            crate::commands::bench::search(&rules.ruleset, seconds, &players)?;
        }
        if let Some(rules) = network {
            crate::commands::bench::network(&rules.ruleset, seconds)?;
        }
        if let Some(file) = selfplay {
            let config = if file == "default" {
                tafl_trainer::TrainConfig::parse(tafl_trainer::DEFAULT_CONFIG, "default")?
            } else {
                let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
                tafl_trainer::TrainConfig::parse(&text, &file)?
            };
            crate::commands::bench::selfplay(&config, games)?;
        }
        Ok(())
    }
}
