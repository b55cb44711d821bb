//! Command-line arguments and dispatch.

use clap::{Parser, Subcommand};
use tafl_engine::{rules_panel, Ruleset};

/// Train, play and measure AlphaZero-style players for the Tafl family of board games.
#[derive(Parser, Debug)]
#[command(name = "tafl", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a ruleset's rules, generated from its data, and its start position.
    Rules {
        /// Built-in ruleset id (brandubh, tablut, hnefatafl, copenhagen, ...) or a rules file.
        rules: String,
        /// Print the rules file (TOML) instead of the summary.
        #[arg(long)]
        toml: bool,
    },
    /// Count leaf positions `depth` plies from the start (the last line is the count).
    Perft {
        /// Ruleset id or rules file.
        rules: String,
        /// Plies to search.
        depth: u32,
        /// Print the count below each first move.
        #[arg(long)]
        divide: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Play uniformly random games and print who won.
    Random {
        /// Ruleset id or rules file.
        rules: String,
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
    },
    /// Replay real games from a CSV file (`moves,attacker_captures,defender_captures,result`)
    /// and check every move and capture against the rules.
    Replay {
        /// Ruleset id or rules file.
        rules: String,
        /// The CSV file of games.
        file: String,
    },
    /// Measure engine speed: move generation and random-game plies per second, one thread.
    Bench {
        /// Rulesets to measure (comma separated).
        #[arg(long, default_value = "brandubh,tablut,hnefatafl,copenhagen")]
        rules: String,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
}

/// Builds a rayon pool of `threads` workers (all cores when `None`).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    if threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Rules { rules, toml } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            if toml {
                print!("{}", rs.to_toml());
            } else {
                print!("{}", rules_panel(&rs));
            }
            Ok(())
        }
        Command::Perft {
            rules,
            depth,
            divide,
            threads,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            crate::perft_cmd::run(&rs, depth, divide, threads)
        }
        Command::Random {
            rules,
            games,
            seed,
            ply_limit,
            threads,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            let limit = (ply_limit > 0).then_some(ply_limit);
            crate::random_cmd::run(&rs, games, seed, limit, threads)
        }
        Command::Replay { rules, file } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            crate::replay_cmd::run(&rs, &file)
        }
        Command::Bench { rules, seconds } => {
            let mut sets = Vec::new();
            for id in rules.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                sets.push(Ruleset::load(id).map_err(|e| e.to_string())?);
            }
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err("--seconds must be a positive number".into());
            }
            crate::bench::run(&sets, seconds);
            Ok(())
        }
    }
}
