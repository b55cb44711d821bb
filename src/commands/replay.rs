//! `tafl replay`: replays real games from a CSV file and prints what the rules made of them.

use crate::common::RulesArg;
use tafl_engine::{formats::replay_csv, with_board, Ruleset};

/// The arguments of `tafl replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// Ruleset id or rules file.
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The CSV file of games.
    file: String,
}

impl ReplayArgs {
    /// Runs `tafl replay`.
    pub fn run(self) -> Result<(), String> {
        let ReplayArgs { rules, file } = self;
        let rs = rules.ruleset;
        run(&rs, &file)
    }
}

/// Replays every game of `file` under `rs` and prints the summary. Fails when a move is
/// illegal, a capture differs from the record, or a final result disagrees.
pub fn run(rs: &Ruleset, file: &str) -> Result<(), String> {
    // Game records are text: 16 MiB holds over a hundred thousand games.
    let text =
        tafl_engine::input::read_text(std::path::Path::new(file)).map_err(|e| format!("`{file}`: {e}"))?;
    let summary =
        with_board!(rs, B, rules => replay_csv::<B>(&rules, &text)).map_err(|e| format!("{file}: {e}"))?;
    print!("{summary}");
    if summary.mismatches.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} games disagree with the rules `{}`",
            summary.mismatches.len(),
            summary.games,
            rs.id()
        ))
    }
}
