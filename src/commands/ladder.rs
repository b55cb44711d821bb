//! `tafl ladder RUN`: a run's learning curve measured after the fact, or again: the ladder its
//! config describes, played for finished iterations (see [`tafl_trainer::ladder`]).

/// The arguments of `tafl ladder`.
#[derive(clap::Args, Debug)]
pub struct LadderArgs {
    /// The run folder.
    run: std::path::PathBuf,
    /// Measure these finished iterations (comma-separated), instead of every --every-th.
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    at: Vec<u32>,
    /// Measure every this-many iterations (default: the config's `arena.ladder_every`).
    #[arg(long, conflicts_with = "at", value_parser = clap::value_parser!(u32).range(1..))]
    every: Option<u32>,
    /// Play series that already have a result again, replacing it (default: only the
    /// missing ones, so that an interrupted `tafl ladder` goes on where it stopped).
    #[arg(long)]
    again: bool,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

impl LadderArgs {
    /// Plays the ladder.
    pub fn run(self) -> Result<(), String> {
        let request = tafl_trainer::LadderRequest {
            at: self.at,
            every: self.every,
            again: self.again,
        };
        let options = tafl_trainer::TrainOptions {
            stop_after: None,
            quiet: self.quiet,
        };
        tafl_trainer::ladder(&self.run, &request, &options)
    }
}
