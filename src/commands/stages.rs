//! `tafl learn` and `tafl gate`: the learning and gating stages of a run by themselves. One
//! file for both, as the table of commands gives both the same arguments (the run folder)
//! and only the stage differs; `tafl selfplay`, with arguments of its own, is `selfplay.rs`.

/// The arguments of `tafl learn` and `tafl gate`.
#[derive(clap::Args, Debug)]
pub struct StageArgs {
    /// The run folder.
    run: std::path::PathBuf,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

impl StageArgs {
    /// Runs `stage` of the run's current iteration (`tafl learn`, `tafl gate`).
    pub fn run(self, stage: tafl_trainer::Stage) -> Result<(), String> {
        let options = tafl_trainer::TrainOptions {
            stop_after: None,
            quiet: self.quiet,
        };
        tafl_trainer::run_stage(&self.run, stage, &options)
    }
}
