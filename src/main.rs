//! `tafl`: the command-line front end of the engine.

mod analyze_cmd;
mod arena_cmd;
mod bench;
mod cli;
mod common;
mod export_cmd;
mod fast_path;
mod htp_cmd;
mod ladder_cmd;
mod otep_cmd;
mod perft_cmd;
mod play_cmd;
mod random_cmd;
mod records_cmd;
mod replay_cmd;
mod serve;
mod server_bot;
mod thinking;
mod tune_cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever input an error quotes, it reaches the terminal escaped and cut short.
            eprintln!("error: {}", tafl_engine::input::printable(&e, true, 2000));
            ExitCode::FAILURE
        }
    }
}
