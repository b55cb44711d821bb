//! The table of commands and the dispatch: each command's arguments and code are in its own
//! module of [`crate::commands`].

use clap::{Parser, Subcommand};

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
    Train(crate::commands::train::TrainArgs),
    /// The self-play stage of a run by itself: plays the current iteration's games with the
    /// best network into replay shards (what `tafl train` does first in each iteration).
    ///
    /// With --games A..B --out DIR, plays only those games of the iteration into shards of
    /// DIR and leaves the run untouched: one task of a distributed run (ray/README.md), whose
    /// driver moves the shards into the run in game order; `tafl selfplay RUN` then finds them
    /// and ends the stage.
    Selfplay(crate::commands::selfplay::SelfplayArgs),
    /// The learning stage of a run by itself: trains the next candidate on the replay window
    /// (or pretrains on records, before the first iteration).
    Learn(crate::commands::stages::StageArgs),
    /// The gating stage of a run by itself: candidate against best, the ladder, promotion;
    /// ends the iteration.
    Gate(crate::commands::stages::StageArgs),
    /// A run's learning curve after the fact: plays the ladder of the run's config (the best
    /// network of each finished iteration against its fixed anchors) for the iterations that
    /// have no result for it, writes the results into the run's state and draws
    /// `learning-curve.png` again.
    Ladder(crate::commands::ladder::LadderArgs),
    /// Print a ruleset's rules, generated from its data, and its start position.
    Rules(crate::commands::rules::RulesArgs),
    /// Count leaf positions `depth` plies from the start (the last line is the count).
    Perft(crate::commands::perft::PerftArgs),
    /// Play uniformly random games and print who won.
    Random(crate::commands::random::RandomArgs),
    /// Replay real games from a CSV file (`moves,attacker_captures,defender_captures,result`)
    /// and check every move and capture against the rules.
    Replay(crate::commands::replay::ReplayArgs),
    /// A game archive as data: `eval` scores networks, the hand-written evaluation and
    /// players against the moves and results of recorded games (top-1/top-3 agreement,
    /// log-loss, Brier score, by stage); `export` writes the games as training samples, split
    /// by game into train and validation sets.
    Records(crate::commands::records::RecordsArgs),
    /// Play a game against the AI in the terminal (works with piped input too).
    Play(crate::commands::play::PlayArgs),
    /// Show the best moves of a position: visit share, value, prior and principal variation.
    Analyze(crate::commands::analyze::AnalyzeArgs),
    /// Play two players against each other in colour-swapped pairs and estimate the Elo difference.
    Arena(crate::commands::arena::ArenaArgs),
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
    Openings(crate::commands::openings::OpeningsArgs),
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
    Balance(crate::commands::balance::BalanceArgs),
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
    Rebalance(crate::commands::rebalance::RebalanceArgs),
    /// Play as an external engine for another program over stdin and stdout: `--protocol otep`
    /// speaks the OpenTafl Engine Protocol (OpenTafl sends the rules, the engine answers
    /// `play` with `move`, `analyze` with `analysis`); `--protocol htp` (alias `gtp`) the
    /// GTP-style Hnefatafl Text Protocol of hnefatafl.org (`generate_move`, `play`, ...).
    Engine(crate::commands::engine::EngineArgs),
    /// Write the bundle a game client needs: `model.onnx` (ONNX opset 17), `model.safetensors`,
    /// `manifest.json` (encoding, policy index, rules, model config, Elo) and a `README.md` for
    /// the client's author.
    Export(crate::commands::export::ExportArgs),
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
    Bench(crate::commands::bench::BenchArgs),
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
