//! `tafl`: the command-line front end of the engine.

mod bench;
mod cli;
mod perft_cmd;
mod random_cmd;
mod replay_cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
