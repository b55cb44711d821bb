//! `tafl tune`: fits a linear evaluation to a network's values and writes its weights file,
//! which `mcts:linear=FILE` plays with (lab's [`tafl_lab::tune`] does the work).

use crate::common::RulesArg;
use tafl_engine::with_board;

/// The arguments of `tafl tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Ruleset id or rules file.
    #[arg(long, value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The weights file to write (TOML).
    #[arg(long)]
    out: std::path::PathBuf,
    /// The network whose values are learned: a checkpoint or run folder, or `shipped`.
    #[arg(long, default_value = "shipped")]
    teacher: String,
    /// Who plays the games the positions come from: a player spec or `level:N`.
    #[arg(long, default_value = "mcts:heuristic:50")]
    player: String,
    /// Games to play (one in ten is held out to judge the fit).
    #[arg(long, default_value_t = 2000)]
    games: u32,
    /// Probability that a move of those games is uniformly random: positions after mistakes
    /// are what a search visits most.
    #[arg(long, default_value_t = 0.15)]
    exploration: f32,
    /// Uniformly random plies at the start of each game from the start position.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// An opening suite: every other game starts from its positions in turn.
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Games stop with no result at this many plies.
    #[arg(long, default_value_t = 300)]
    ply_limit: u32,
    /// Passes of the fit over the training positions.
    #[arg(long, default_value_t = 30)]
    epochs: u32,
    /// Seed of the games and the fit.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores); the weights do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

impl TuneArgs {
    /// Plays, labels, fits, writes the file and prints the held-out comparison.
    pub fn run(self) -> Result<(), String> {
        let mut made_by = format!(
            "tafl tune --rules {} --teacher {} --player {} --games {} --exploration {} --opening-plies {} --ply-limit {} --epochs {} --seed {}",
            self.rules.text,
            self.teacher,
            self.player,
            self.games,
            self.exploration,
            self.opening_plies,
            self.ply_limit,
            self.epochs,
            self.seed
        );
        if let Some(o) = &self.openings {
            made_by.push_str(&format!(" --openings {}", o.display()));
        }
        let req = tafl_lab::tune::TuneRequest {
            teacher: self.teacher,
            player: self.player,
            games: self.games,
            opening_plies: self.opening_plies,
            openings: self.openings,
            epochs: self.epochs,
            inference: None,
            made_by,
            play: tafl_lab::study::StudyGames {
                seed: self.seed,
                ply_limit: self.ply_limit,
                exploration: self.exploration,
                threads: self.threads,
            },
        };
        let pool = req.play.pool()?;
        let report = with_board!(&self.rules.ruleset, B, rules => {
            pool.install(|| tafl_lab::tune::run(&req, &rules))?
        });
        tafl_lab::work::write_atomic(&self.out, report.weights.to_toml().as_bytes())?;
        println!(
            "{} training positions, {} held out (one game in {})",
            report.train_positions,
            report.validation_positions,
            tafl_lab::tune::VALIDATION_ONE_IN
        );
        println!("held-out positions, against the teacher's value | hand-written | tuned");
        println!(
            "mean squared difference | {:.4} | {:.4}",
            report.mse[0], report.mse[1]
        );
        println!(
            "same side ahead | {:.3} | {:.3}",
            report.same_sign[0], report.same_sign[1]
        );
        println!(
            "priors: cross-entropy against the teacher's | {:.3} | {:.3}",
            report.prior_cross_entropy[0], report.prior_cross_entropy[1]
        );
        println!(
            "priors: same likeliest move as the teacher | {:.3} | {:.3}",
            report.prior_top1[0], report.prior_top1[1]
        );
        println!("wrote {}", self.out.display());
        Ok(())
    }
}
