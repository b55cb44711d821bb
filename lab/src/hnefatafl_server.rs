//! hnefatafl.org's game server (`hnefatafl-server` of the crates.io package
//! `hnefatafl-copenhagen` 6.4.1) as a bot account sees it: the lines it sends and the lines a
//! client sends, as typed values, with no I/O (the bot that speaks them is `tafl engine
//! --protocol htp --server`).
//!
//! A session, as the 6.4.1 server runs it:
//!
//! ```text
//! -> 32d9a140 login NAME PASSWORD          (or `create_account NAME PASSWORD`)
//! <- = login                               (or `? login ...`, and the client may try again)
//! -> new_game {"role":"Attacker","rated":false,"time_settings":"UnTimed","board_size":11}
//! <- = new_game 7
//! <- = challenge_requested 7               (someone asked to play it)
//! -> join_game 7                           (accept)
//! <- = join_game NAME OTHER unrated un-timed _ _ 11     (attacker, defender, ...)
//! <- game 7 generate_move attacker         (our turn)
//! -> game 7 play attacker d1 d2
//! <- = game
//! <- game 7 play defender f4 d4            (the other side's move)
//! <- = game_over 7 defender_wins           (or `= draw accept`)
//! ```
//!
//! A client joins another's game with `join_game_pending ID`; the creator's `join_game ID`
//! starts it. Everything else the server sends (user and game lists, chat, timers as
//! `= game_time {...}`) is [`ServerLine::Other`] unless it matters to a bot.

use crate::htp::Role;

/// The client version the 6.4.1 server requires in the login line (its `VERSION_ID`).
pub const VERSION_ID: &str = "32d9a140";

/// Longest name and password the server accepts.
pub const MAX_NAME: usize = 16;
/// See [`MAX_NAME`].
pub const MAX_PASSWORD: usize = 32;

/// A game's id on the server.
pub type GameId = u64;

/// A game's time control: none, or Fischer (milliseconds to start with, seconds added a move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock.
    Untimed,
    /// A Fischer clock.
    Fischer {
        /// Milliseconds each side starts with.
        milliseconds: u64,
        /// Seconds added after each move.
        add_seconds: u64,
    },
}

impl TimeControl {
    /// The HTP `time_settings` command that sets this clock up in an engine.
    pub fn htp_command(self) -> String {
        match self {
            TimeControl::Untimed => "time_settings un-timed".into(),
            TimeControl::Fischer {
                milliseconds,
                add_seconds,
            } => format!("time_settings fischer {milliseconds} {add_seconds}"),
        }
    }
}

/// A line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerLine {
    /// `= login`: logged in (or the account was created and logged in).
    LoggedIn,
    /// `? login ...` or `? create_account ...`: refused (wrong password, a taken name, a
    /// client version it refuses).
    LoginRefused(String),
    /// `= new_game ID`: our game was created and waits for an opponent.
    GameCreated(GameId),
    /// `= challenge_requested ID`: someone asked to play our game.
    ChallengeRequested(GameId),
    /// `= join_game_pending ID`: our request to play another's game was taken.
    JoinRequested(GameId),
    /// `= join_game ATTACKER DEFENDER RATED TIME... SIZE`: a game starts.
    GameStarted {
        /// The attacker's account.
        attacker: String,
        /// The defender's account.
        defender: String,
        /// Whether it is rated.
        rated: bool,
        /// Its clock.
        time: TimeControl,
        /// Its board size.
        size: usize,
    },
    /// `game ID generate_move ROLE`: ROLE is to move.
    ToMove {
        /// The game.
        game: GameId,
        /// Who is to move.
        role: Role,
    },
    /// `game ID play ROLE FROM TO`: a move made in the game.
    Moved {
        /// The game.
        game: GameId,
        /// Who moved.
        role: Role,
        /// From square, as the server writes it (`d1`).
        from: String,
        /// To square.
        to: String,
    },
    /// `= game_over ID attacker_wins | defender_wins`.
    GameOver {
        /// The game.
        game: GameId,
        /// The winner.
        winner: Role,
    },
    /// `= draw accept`: the game in hand was drawn (by agreement or the turn limit).
    Drawn,
    /// `= game`: our move was taken.
    MoveTaken,
    /// `= game_time {"id":ID,"attacker_ms_left":MS,"defender_ms_left":MS}`: the clocks.
    Clocks {
        /// The game.
        game: GameId,
        /// The attacker's milliseconds left.
        attacker_ms: u64,
        /// The defender's.
        defender_ms: u64,
    },
    /// `? ...`: a command was refused; the server's words.
    Refused(String),
    /// Anything else.
    Other,
}

fn role(word: &str) -> Option<Role> {
    match word {
        "attacker" => Some(Role::Attacker),
        "defender" => Some(Role::Defender),
        _ => None,
    }
}

impl ServerLine {
    /// Reads one line (without its newline). Lines a bot does not act on are
    /// [`ServerLine::Other`]; a line that names a game or a move but does not parse is too,
    /// so that a server that sends more than this knows does not stop the bot.
    pub fn parse(line: &str) -> ServerLine {
        let line = line.trim();
        let w: Vec<&str> = line.split_ascii_whitespace().collect();
        let id = |s: &str| s.parse::<GameId>().ok();
        match w.as_slice() {
            ["=", "login", ..] => ServerLine::LoggedIn,
            ["?", "login" | "create_account", rest @ ..] => ServerLine::LoginRefused(rest.join(" ")),
            ["=", "new_game", n] => id(n).map_or(ServerLine::Other, ServerLine::GameCreated),
            ["=", "challenge_requested", n] => {
                id(n).map_or(ServerLine::Other, ServerLine::ChallengeRequested)
            }
            ["=", "join_game_pending", n, ..] => id(n).map_or(ServerLine::Other, ServerLine::JoinRequested),
            ["=", "join_game", attacker, defender, rated, time @ .., size] if time.len() == 3 => {
                let time = match time {
                    ["fischer", ms, add] => match (ms.parse(), add.parse()) {
                        (Ok(milliseconds), Ok(add_seconds)) => TimeControl::Fischer {
                            milliseconds,
                            add_seconds,
                        },
                        _ => return ServerLine::Other,
                    },
                    ["un-timed", ..] => TimeControl::Untimed,
                    _ => return ServerLine::Other,
                };
                let Ok(size) = size.parse() else {
                    return ServerLine::Other;
                };
                ServerLine::GameStarted {
                    attacker: attacker.to_string(),
                    defender: defender.to_string(),
                    rated: *rated == "rated",
                    time,
                    size,
                }
            }
            ["game", n, "generate_move", r] => match (id(n), role(r)) {
                (Some(game), Some(role)) => ServerLine::ToMove { game, role },
                _ => ServerLine::Other,
            },
            ["game", n, "play", r, from, to] => match (id(n), role(r)) {
                (Some(game), Some(role)) => ServerLine::Moved {
                    game,
                    role,
                    from: from.to_string(),
                    to: to.to_string(),
                },
                _ => ServerLine::Other,
            },
            ["=", "game_over", n, result] => match (id(n), *result) {
                (Some(game), "attacker_wins") => ServerLine::GameOver {
                    game,
                    winner: Role::Attacker,
                },
                (Some(game), "defender_wins") => ServerLine::GameOver {
                    game,
                    winner: Role::Defender,
                },
                _ => ServerLine::Other,
            },
            ["=", "draw", "accept"] => ServerLine::Drawn,
            ["=", "game"] => ServerLine::MoveTaken,
            ["=", "game_time", json @ ..] => {
                let v: serde_json::Value = match serde_json::from_str(&json.join(" ")) {
                    Ok(v) => v,
                    Err(_) => return ServerLine::Other,
                };
                match (
                    v["id"].as_u64(),
                    v["attacker_ms_left"].as_u64(),
                    v["defender_ms_left"].as_u64(),
                ) {
                    (Some(game), Some(attacker_ms), Some(defender_ms)) => ServerLine::Clocks {
                        game,
                        attacker_ms,
                        defender_ms,
                    },
                    _ => ServerLine::Other,
                }
            }
            ["?", ..] => ServerLine::Refused(line.trim_start_matches('?').trim().to_string()),
            _ => ServerLine::Other,
        }
    }
}

/// A line a bot sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientLine {
    /// Logs in, or creates the account and logs in.
    Login {
        /// The account.
        name: String,
        /// Its password (may be empty).
        password: String,
        /// `create_account` instead of `login`.
        create: bool,
    },
    /// Creates a game and waits for an opponent.
    NewGame {
        /// The side the bot plays.
        role: Role,
        /// Rated or not.
        rated: bool,
        /// The clock.
        time: TimeControl,
        /// The board size (11 for Copenhagen).
        size: usize,
    },
    /// Asks to play another's game.
    JoinPending(GameId),
    /// Accepts the challenge to our game, which starts it.
    Accept(GameId),
    /// A move.
    Play {
        /// The game.
        game: GameId,
        /// The side moving.
        role: Role,
        /// From square (`d1`).
        from: String,
        /// To square.
        to: String,
    },
    /// Resigns the game.
    Resign {
        /// The game.
        game: GameId,
        /// The side resigning.
        role: Role,
    },
}

impl ClientLine {
    /// The line to send, without its newline.
    pub fn text(&self) -> String {
        match self {
            ClientLine::Login {
                name,
                password,
                create,
            } => format!(
                "{VERSION_ID} {} {name} {password}",
                if *create { "create_account" } else { "login" }
            )
            .trim_end()
            .to_string(),
            ClientLine::NewGame {
                role,
                rated,
                time,
                size,
            } => {
                let role = match role {
                    Role::Attacker => "Attacker",
                    Role::Defender => "Defender",
                };
                let time = match time {
                    TimeControl::Untimed => serde_json::json!("UnTimed"),
                    TimeControl::Fischer {
                        milliseconds,
                        add_seconds,
                    } => {
                        serde_json::json!({"Timed": {"add_seconds": add_seconds, "milliseconds_left": milliseconds}})
                    }
                };
                let body = serde_json::json!({"role": role, "rated": rated, "time_settings": time, "board_size": size});
                format!("new_game {body}")
            }
            ClientLine::JoinPending(id) => format!("join_game_pending {id}"),
            ClientLine::Accept(id) => format!("join_game {id}"),
            ClientLine::Play { game, role, from, to } => {
                format!("game {game} play {} {from} {to}", role.name())
            }
            ClientLine::Resign { game, role } => format!("game {game} play {} resigns _", role.name()),
        }
    }
}

/// Checks an account name and password as the server would, so that a bad one is refused
/// before connecting: at most [`MAX_NAME`] and [`MAX_PASSWORD`] characters, no spaces or
/// control characters in the name, no control characters in the password.
pub fn check_account(name: &str, password: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "account name `{}`: give 1 to {MAX_NAME} characters without spaces",
            tafl_engine::input::quote(name)
        ));
    }
    if password.len() > MAX_PASSWORD || password.chars().any(char::is_control) {
        return Err(format!(
            "password: at most {MAX_PASSWORD} characters, no control characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as the 6.4.1 server sent them in a session on loopback.
    #[test]
    fn the_servers_lines_parse() {
        use ServerLine::*;
        assert_eq!(ServerLine::parse("= login"), LoggedIn);
        assert_eq!(ServerLine::parse("= new_game 1"), GameCreated(1));
        assert_eq!(
            ServerLine::parse("= challenge_requested 1"),
            ChallengeRequested(1)
        );
        assert_eq!(ServerLine::parse("= join_game_pending 1"), JoinRequested(1));
        assert_eq!(
            ServerLine::parse("= join_game bot-c bot-d unrated fischer 900000 10 11"),
            GameStarted {
                attacker: "bot-c".into(),
                defender: "bot-d".into(),
                rated: false,
                time: TimeControl::Fischer {
                    milliseconds: 900_000,
                    add_seconds: 10
                },
                size: 11
            }
        );
        assert_eq!(
            ServerLine::parse("= join_game a b rated un-timed _ _ 11"),
            GameStarted {
                attacker: "a".into(),
                defender: "b".into(),
                rated: true,
                time: TimeControl::Untimed,
                size: 11
            }
        );
        assert_eq!(
            ServerLine::parse("game 1 generate_move attacker"),
            ToMove {
                game: 1,
                role: Role::Attacker
            }
        );
        assert_eq!(
            ServerLine::parse("game 1 play defender f4 d4"),
            Moved {
                game: 1,
                role: Role::Defender,
                from: "f4".into(),
                to: "d4".into()
            }
        );
        assert_eq!(
            ServerLine::parse("= game_over 1 defender_wins"),
            GameOver {
                game: 1,
                winner: Role::Defender
            }
        );
        assert_eq!(ServerLine::parse("= draw accept"), Drawn);
        assert_eq!(ServerLine::parse("= game"), MoveTaken);
        assert_eq!(
            ServerLine::parse("? game play: you already reached that position"),
            Refused("game play: you already reached that position".into())
        );
        assert_eq!(
            ServerLine::parse("? login wrong_version"),
            LoginRefused("wrong_version".into())
        );
        assert_eq!(
            ServerLine::parse("? create_account already_exists"),
            LoginRefused("already_exists".into())
        );
        assert_eq!(
            ServerLine::parse(
                "= game_time {\"id\":1,\"attacker_ms_left\":909198,\"defender_ms_left\":900000}"
            ),
            Clocks {
                game: 1,
                attacker_ms: 909_198,
                defender_ms: 900_000
            }
        );
        for other in [
            "= game_time {\"id\":1}",
            "initialize_display ([], ...)",
            "game x play attacker d1 d2",
            "= join_game a b rated fischer many 10 11",
            "",
        ] {
            assert_eq!(ServerLine::parse(other), Other, "{other}");
        }
    }

    #[test]
    fn the_clients_lines_are_the_servers_format() {
        let login = ClientLine::Login {
            name: "bot".into(),
            password: "pw".into(),
            create: false,
        };
        assert_eq!(login.text(), "32d9a140 login bot pw");
        let game = ClientLine::NewGame {
            role: Role::Attacker,
            rated: false,
            time: TimeControl::Fischer {
                milliseconds: 900_000,
                add_seconds: 10,
            },
            size: 11,
        };
        let text = game.text();
        let json: serde_json::Value = serde_json::from_str(text.strip_prefix("new_game ").unwrap()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"role": "Attacker", "rated": false, "board_size": 11,
                "time_settings": {"Timed": {"add_seconds": 10, "milliseconds_left": 900000}}})
        );
        assert_eq!(
            ClientLine::Play {
                game: 3,
                role: Role::Defender,
                from: "f4".into(),
                to: "d4".into()
            }
            .text(),
            "game 3 play defender f4 d4"
        );
        assert!(check_account("tafl-bot", "pw").is_ok());
        assert!(check_account("a name", "").is_err());
        assert!(check_account(&"x".repeat(17), "").is_err());
    }
}
