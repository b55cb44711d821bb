//! Command-line arguments and dispatch.

use clap::{Parser, Subcommand};
use tafl_engine::{rules_panel, ruleset_to_opentafl, Ruleset};

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
        /// Print the OpenTafl rules string instead of the summary.
        #[arg(long, conflicts_with = "toml")]
        opentafl: bool,
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
    /// Play a game against the AI in the terminal (works with piped input too).
    Play {
        /// Ruleset id or rules file.
        #[arg(long, default_value = "brandubh")]
        rules: String,
        /// The side you play: attackers or defenders.
        #[arg(long, default_value = "defenders")]
        side: String,
        /// AI level (see configs/levels.toml).
        #[arg(long, default_value_t = 3)]
        level: u32,
        /// Seed of the AI's choices.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Show the best moves of a position: visit share, value, prior and principal variation.
    Analyze {
        /// Ruleset id or rules file.
        #[arg(long)]
        rules: String,
        /// OpenTafl position record (first row = rank 1); the start position when absent.
        #[arg(long)]
        position: Option<String>,
        /// Side to move in --position: attackers or defenders (default: who moves first).
        #[arg(long)]
        to_move: Option<String>,
        /// Moves to play from the position first, space separated (`"d1-d3 d5-b5"`).
        #[arg(long, default_value = "")]
        moves: String,
        /// The searching player.
        #[arg(long, default_value = "mcts:heuristic:2000")]
        player: String,
        /// Moves to list.
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// Search seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Play two players against each other in colour-swapped pairs and estimate the Elo difference.
    Arena {
        /// Player A (`random`, `heuristic`, `mcts:rollout:800`, `level:3`, ...).
        a: String,
        /// Player B.
        b: String,
        /// Ruleset id or rules file.
        #[arg(long)]
        rules: String,
        /// Games (rounded up to whole pairs).
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Seed of every game's players.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Plies after which a game ends with no result (0: none).
        #[arg(long, default_value_t = 400)]
        ply_limit: u32,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Measure engine speed: move generation and random-game plies per second, one thread.
    Bench {
        /// Rulesets to measure (comma separated).
        #[arg(long, default_value = "brandubh,tablut,hnefatafl,copenhagen")]
        rules: String,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// Also measure search simulations per second (Uniform and Rollout evaluators) on
        /// this ruleset, one and two threads.
        #[arg(long)]
        search: Option<String>,
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

/// Parses `attackers` or `defenders`.
pub fn parse_side(text: &str, flag: &str) -> Result<tafl_engine::Side, String> {
    match text {
        "attackers" | "a" => Ok(tafl_engine::Side::Attackers),
        "defenders" | "d" => Ok(tafl_engine::Side::Defenders),
        other => Err(format!(
            "{flag}: `{other}` is not a side; allowed values: attackers, defenders"
        )),
    }
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Rules {
            rules,
            toml,
            opentafl,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            if opentafl {
                println!("{}", ruleset_to_opentafl(&rs));
            } else if toml {
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
        Command::Play {
            rules,
            side,
            level,
            seed,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            let side = parse_side(&side, "--side")?;
            let ai = crate::players::level(level)?;
            crate::play_cmd::run(&rs, side, &ai, seed)
        }
        Command::Analyze {
            rules,
            position,
            to_move,
            moves,
            player,
            top,
            seed,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            let to_move = to_move.map(|s| parse_side(&s, "--to-move")).transpose()?;
            let moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
            let req = crate::analyze_cmd::Request {
                position: position.as_deref(),
                to_move,
                moves: &moves,
                player: &player,
                top,
                seed,
            };
            crate::analyze_cmd::run(&rs, &req)
        }
        Command::Arena {
            a,
            b,
            rules,
            games,
            seed,
            ply_limit,
            threads,
        } => {
            let rs = Ruleset::load(&rules).map_err(|e| e.to_string())?;
            let (a, b) = (crate::players::resolve(&a)?, crate::players::resolve(&b)?);
            if games == 0 {
                return Err("--games must be at least 1".into());
            }
            crate::arena_cmd::run(
                &rs,
                &a,
                &b,
                games,
                seed,
                (ply_limit > 0).then_some(ply_limit),
                threads,
            )
        }
        Command::Bench {
            rules,
            seconds,
            search,
        } => {
            let mut sets = Vec::new();
            for id in rules.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                sets.push(Ruleset::load(id).map_err(|e| e.to_string())?);
            }
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err("--seconds must be a positive number".into());
            }
            crate::bench::run(&sets, seconds);
            if let Some(id) = search {
                let rs = Ruleset::load(&id).map_err(|e| e.to_string())?;
                crate::bench::search(&rs, seconds);
            }
            Ok(())
        }
    }
}
