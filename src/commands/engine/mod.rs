//! `tafl engine`: our AI as an external engine of another program, one module per protocol.

pub mod htp;
pub mod otep;
pub mod server_bot;

use crate::common::RulesArg;
use clap::ValueEnum;

/// The arguments of `tafl engine`.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// The protocol spoken on stdin and stdout.
    #[arg(long, value_enum, default_value_t = Protocol::Otep)]
    protocol: Protocol,
    /// Ruleset id or rules file for `htp` (OpenTafl sends its own rules to `otep`); by
    /// default the Copenhagen of hnefatafl.org's engine and server, with their house rules.
    #[arg(long, default_value = "copenhagen-hnefatafl-org")]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The player (`random`, `greedy`, `mcts:rollout:800`, `mcts:model=RUN:200`,
    /// `level:N`); default: level 5, the strongest level that follows the host's clock (no deliberate mistakes).
    #[arg(long)]
    player: Option<String>,
    /// AI level (see configs/levels.toml), instead of --player.
    #[arg(long, conflicts_with = "player")]
    level: Option<u32>,
    /// Seed of the AI's choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How `htp` answers end: `htp` as hnefatafl.org's engine (a success with one newline,
    /// an error with a blank line after it), or `gtp` (every answer with a blank line).
    #[arg(long, value_enum, default_value_t = Framing::Htp)]
    framing: Framing,
    /// `htp` only: play as a networked engine of hnefatafl.org's server at HOST[:PORT]
    /// (port 49152 unless given) instead of over stdin and stdout, connecting again when
    /// the connection drops.
    #[arg(long, conflicts_with = "server")]
    host: Option<String>,
    /// `htp` only: play as a bot account on hnefatafl.org's game server at HOST[:PORT]
    /// (port 49152 unless given): log in as `--user`, create games (or `--join` one) and
    /// play them through, one after another.
    #[arg(long, value_name = "HOST", requires = "user")]
    server: Option<String>,
    /// `--server`: the account name.
    #[arg(long, value_name = "NAME", requires = "server")]
    user: Option<String>,
    /// `--server`: the account's password (default: the TAFL_SERVER_PASSWORD environment
    /// variable, else none).
    #[arg(long, value_name = "PASSWORD", requires = "server")]
    password: Option<String>,
    /// `--server`: create the account first (logging in if it exists).
    #[arg(long, requires = "server")]
    create_account: bool,
    /// `--server`: the side asked for in created games: attacker, defender or alternate.
    #[arg(long, value_name = "SIDE", default_value = "alternate", requires = "server")]
    side: String,
    /// `--server`: the clock of created games, `SECONDS+INCREMENT` or `untimed`.
    #[arg(long, value_name = "CLOCK", default_value = "900+10", requires = "server")]
    time: String,
    /// `--server`: create rated games.
    #[arg(long, requires = "server")]
    rated: bool,
    /// `--server`: games to play before stopping (default: until stopped).
    #[arg(long, value_name = "N", requires = "server")]
    games: Option<u32>,
    /// `--server`: join this pending game instead of creating games, and stop after it.
    #[arg(long, value_name = "ID", requires = "server")]
    join: Option<u64>,
    /// `htp`: play on to the end instead of resigning once the search proves every move
    /// lost (a lost side plays the move that resists longest either way).
    #[arg(long)]
    no_resign: bool,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

/// Protocols of `tafl engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Protocol {
    /// The OpenTafl Engine Protocol (`opentafl-engine-protocol.txt`).
    Otep,
    /// The Hnefatafl Text Protocol of hnefatafl.org, modelled on GTP.
    #[value(alias = "gtp")]
    Htp,
}

/// Answer framings of `tafl engine --protocol htp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Framing {
    /// hnefatafl.org's: `= answer` and one newline; `? error` and a blank line.
    Htp,
    /// GTP's: every answer followed by a blank line.
    Gtp,
}

impl EngineArgs {
    /// Runs `tafl engine`.
    pub fn run(self) -> Result<(), String> {
        let EngineArgs {
            protocol,
            rules,
            player,
            level,
            seed,
            framing,
            host,
            server,
            user,
            password,
            create_account,
            side,
            time,
            rated,
            games,
            join,
            no_resign,
            think,
        } = self;
        let player = match (player, level) {
            (Some(spec), _) => tafl_lab::players::resolve(&spec)?,
            (None, Some(n)) => tafl_lab::players::level(n)?,
            (None, None) => tafl_lab::players::level(5)?,
        };
        // One game at a time: its searches can use every core. A clock the host sends
        // (OTEP's `clock`, HTP's `time_settings`) replaces the player's own limit.
        let mut player = think.apply(player, tafl_lab::players::cores())?;
        if think.search_threads.is_none() {
            // Hosts time their engines: every core, whatever the level's own limit.
            player.threads = tafl_lab::players::cores();
        }
        let framing = match framing {
            Framing::Htp => tafl_lab::htp::Framing::Htp,
            Framing::Gtp => tafl_lab::htp::Framing::Gtp,
        };
        match (protocol, host) {
            (Protocol::Otep, Some(_)) => Err("--host is for --protocol htp".into()),
            (Protocol::Otep, None) if server.is_some() => Err("--server is for --protocol htp".into()),
            (Protocol::Otep, None) => otep::run(&player, seed),
            (Protocol::Htp, host) => {
                let rs = rules.ruleset;
                if let Some(server) = server {
                    let side = match side.as_str() {
                        "attacker" => server_bot::SideChoice::Attacker,
                        "defender" => server_bot::SideChoice::Defender,
                        "alternate" => server_bot::SideChoice::Alternate,
                        other => {
                            return Err(format!(
                                "--side `{}`: give attacker, defender or alternate",
                                tafl_engine::input::quote(other)
                            ))
                        }
                    };
                    let opts = server_bot::BotOptions {
                        server,
                        resign: !no_resign,
                        name: user.unwrap_or_default(),
                        password: password
                            .or_else(|| std::env::var("TAFL_SERVER_PASSWORD").ok())
                            .unwrap_or_default(),
                        create: create_account,
                        side,
                        time: server_bot::parse_time(&time)?,
                        rated,
                        games,
                        join,
                    };
                    return server_bot::run(&rs, &player, seed, &opts);
                }
                match host {
                    Some(h) => htp::run_tcp(&rs, &player, seed, framing, &h, !no_resign),
                    None => htp::run(&rs, &player, seed, framing, !no_resign),
                }
            }
        }
    }
}
