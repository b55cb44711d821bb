//! `tafl selfplay`: the self-play stage of a run by itself, or (`--games A..B --out DIR`) one
//! task of a distributed run's self-play.

/// The arguments of `tafl selfplay`.
#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
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
    /// Runs `tafl selfplay`.
    pub fn run(self) -> Result<(), String> {
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
