//! `tafl`: the command-line front end of the engine.

mod cli;
mod commands;
mod common;
mod fast_path;
mod thinking;

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
