//! The Hnefatafl Text Protocol (HTP) of the hnefatafl.org family (the `hnefatafl-copenhagen`
//! engine, client and servers): GTP-style lines in, `= answer` or `? error` out. Text after
//! `#` is a comment; blank lines are ignored.
//!
//! Framing, as `hnefatafl-text-protocol` prints it: a success is `= answer` and one newline,
//! an error `? message` and a blank line after it. [`Framing::Gtp`] ends every answer with a
//! blank line instead, as GTP does.
//!
//! Commands: `board_size N`, `final_status`, `first_move ROLE`, `generate_move [ROLE]` (plays
//! the move it returns, for the side to move whatever the role says, as theirs does),
//! `known_command NAME`, `list_commands`, `name`, `play ROLE FROM TO` (answers every captured
//! square, the king's included), `play ROLE resigns`, `play_from`, `play_to ROLE FROM`,
//! `play_undo`, `protocol_version`, `quit`, `reset_board`, `show_board`,
//! `show_board_open_tafl`, `time_settings un-timed | fischer TIME ADD_SECONDS` (starts a new
//! game), `version`. Roles are `a`, `attacker`, `d`, `defender`, and the older relays'
//! `black` (attacker) and `white` (defender); squares are a letter and a number (`A1`, case
//! does not matter).
//!
//! Squares need the board size, so they stay text here; the session reads them.

/// How answers end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Framing {
    /// hnefatafl.org's: `= answer` and one newline; `? error` and a blank line.
    #[default]
    Htp,
    /// GTP's: every answer followed by a blank line.
    Gtp,
}

/// One HTP command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `board_size N`: a new game on an `N x N` board (the size of the rules in play).
    BoardSize(usize),
    /// `final_status`: `attacker_wins`, `defender_wins`, `draw` or `ongoing`.
    FinalStatus,
    /// `first_move ROLE`: a new game with ROLE to move first.
    FirstMove(Role),
    /// `generate_move [ROLE]`: choose, play and answer `play ROLE FROM TO` for the side to
    /// move; a role that is not to move is ignored.
    GenerateMove(Option<Role>),
    /// `known_command NAME`: `true` or `false`.
    KnownCommand(String),
    /// `list_commands`: the commands, one a line.
    ListCommands,
    /// `name`.
    Name,
    /// `play ROLE FROM TO`.
    Play {
        /// The side moving.
        role: Role,
        /// From square.
        from: String,
        /// To square.
        to: String,
    },
    /// `play ROLE resigns`.
    Resign(Role),
    /// `play_from`: the side to move and the squares it can move from.
    PlayFrom,
    /// `play_to ROLE FROM`: where the piece on FROM can go.
    PlayTo {
        /// The side to move.
        role: Role,
        /// The square of the piece.
        from: String,
    },
    /// `play_undo`: takes back the last play (a move or a resignation).
    PlayUndo,
    /// `protocol_version`.
    ProtocolVersion,
    /// `quit`.
    Quit,
    /// `reset_board`: the start position.
    ResetBoard,
    /// `show_board`: the board as a diagram.
    ShowBoard,
    /// `show_board_open_tafl`: the board as an OpenTafl position record.
    ShowBoardOpenTafl,
    /// `time_settings un-timed` (`None`) or `time_settings fischer MILLISECONDS ADD_SECONDS`:
    /// a new game, and the engine's clock for it (its moves are then timed by the clock).
    TimeSettings(Option<tafl_engine::search::Clock>),
    /// `version`.
    Version,
}

/// A side in HTP's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `attacker`.
    Attacker,
    /// `defender`.
    Defender,
}

impl Role {
    /// The engine's side.
    pub fn side(self) -> tafl_engine::Side {
        match self {
            Role::Attacker => tafl_engine::Side::Attackers,
            Role::Defender => tafl_engine::Side::Defenders,
        }
    }

    /// The role of an engine side.
    pub fn of(side: tafl_engine::Side) -> Role {
        match side {
            tafl_engine::Side::Attackers => Role::Attacker,
            tafl_engine::Side::Defenders => Role::Defender,
        }
    }

    /// HTP's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Attacker => "attacker",
            Role::Defender => "defender",
        }
    }
}

/// Every command, in the order `list_commands` prints them.
pub const COMMANDS: [&str; 18] = [
    "board_size",
    "final_status",
    "first_move",
    "generate_move",
    "known_command",
    "list_commands",
    "name",
    "play",
    "play_from",
    "play_to",
    "play_undo",
    "protocol_version",
    "quit",
    "reset_board",
    "show_board",
    "show_board_open_tafl",
    "time_settings",
    "version",
];

fn role(text: &str) -> Result<Role, String> {
    match text.to_ascii_lowercase().as_str() {
        "a" | "attacker" | "black" => Ok(Role::Attacker),
        "d" | "defender" | "white" => Ok(Role::Defender),
        _ => Err(format!(
            "`{text}` is not a role; allowed values: a, attacker, d, defender (black, white)"
        )),
    }
}

fn number(what: &str, text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("time_settings: {what} `{text}` is not a number"))
}

impl Request {
    /// Parses one line; `Ok(None)` for a line with only whitespace and comments.
    pub fn parse(line: &str) -> Result<Option<Request>, String> {
        let text = line.split('#').next().unwrap_or("");
        let args: Vec<&str> = text.split_whitespace().collect();
        let Some(&name) = args.first() else {
            return Ok(None);
        };
        let expect = |n: usize, usage: &str| -> Result<(), String> {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!("expected: `{usage}`"))
            }
        };
        let cmd = match name {
            "board_size" => {
                expect(2, "board_size N")?;
                Request::BoardSize(
                    args[1]
                        .parse()
                        .map_err(|_| format!("board_size: `{}` is not a number", args[1]))?,
                )
            }
            "final_status" => Request::FinalStatus,
            "first_move" => {
                expect(2, "first_move ROLE")?;
                Request::FirstMove(role(args[1])?)
            }
            "generate_move" => match args[1..] {
                [] => Request::GenerateMove(None),
                // A role the engine does not know is ignored, as any role is there.
                [r] => Request::GenerateMove(role(r).ok()),
                _ => return Err("expected: `generate_move [ROLE]`".into()),
            },
            "known_command" => {
                expect(2, "known_command COMMAND")?;
                Request::KnownCommand(args[1].to_string())
            }
            "list_commands" => Request::ListCommands,
            "name" => Request::Name,
            "play" => match args[1..] {
                [r, "resign" | "resigns", ..] => Request::Resign(role(r)?),
                [r, from, to] => Request::Play {
                    role: role(r)?,
                    from: from.to_string(),
                    to: to.to_string(),
                },
                _ => return Err("expected: `play ROLE FROM TO` or `play ROLE resigns`".into()),
            },
            "play_from" => Request::PlayFrom,
            "play_to" => {
                expect(3, "play_to ROLE FROM")?;
                Request::PlayTo {
                    role: role(args[1])?,
                    from: args[2].to_string(),
                }
            }
            "play_undo" => Request::PlayUndo,
            "protocol_version" => Request::ProtocolVersion,
            "quit" => Request::Quit,
            "reset_board" => Request::ResetBoard,
            "show_board" => Request::ShowBoard,
            "show_board_open_tafl" => Request::ShowBoardOpenTafl,
            "time_settings" => match args[1..] {
                ["un-timed", ..] => Request::TimeSettings(None),
                ["fischer", ms, add] => {
                    // Bounded: a clock of more than a day is a day.
                    let ms = number("MILLISECONDS", ms)?.min(86_400_000);
                    let add = number("ADD_SECONDS", add)?.min(86_400);
                    Request::TimeSettings(Some(tafl_engine::search::Clock {
                        remaining: std::time::Duration::from_millis(ms),
                        increment: std::time::Duration::from_secs(add),
                    }))
                }
                _ => return Err(
                    "expected: `time_settings un-timed` or `time_settings fischer MILLISECONDS ADD_SECONDS`"
                        .into(),
                ),
            },
            "version" => Request::Version,
            other => {
                return Err(format!(
                    "unrecognized command: {other}; `list_commands` lists them"
                ))
            }
        };
        Ok(Some(cmd))
    }
}

impl std::fmt::Display for Request {
    /// The line as a driver sends it (without its newline); [`Request::parse`] reads it back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Request::BoardSize(n) => write!(f, "board_size {n}"),
            Request::FinalStatus => f.write_str("final_status"),
            Request::FirstMove(r) => write!(f, "first_move {}", r.name()),
            Request::GenerateMove(None) => f.write_str("generate_move"),
            Request::GenerateMove(Some(r)) => write!(f, "generate_move {}", r.name()),
            Request::KnownCommand(c) => write!(f, "known_command {c}"),
            Request::ListCommands => f.write_str("list_commands"),
            Request::Name => f.write_str("name"),
            Request::Play { role, from, to } => write!(f, "play {} {from} {to}", role.name()),
            Request::Resign(r) => write!(f, "play {} resigns", r.name()),
            Request::PlayFrom => f.write_str("play_from"),
            Request::PlayTo { role, from } => write!(f, "play_to {} {from}", role.name()),
            Request::PlayUndo => f.write_str("play_undo"),
            Request::ProtocolVersion => f.write_str("protocol_version"),
            Request::Quit => f.write_str("quit"),
            Request::ResetBoard => f.write_str("reset_board"),
            Request::ShowBoard => f.write_str("show_board"),
            Request::ShowBoardOpenTafl => f.write_str("show_board_open_tafl"),
            Request::TimeSettings(None) => f.write_str("time_settings un-timed"),
            Request::TimeSettings(Some(c)) => write!(
                f,
                "time_settings fischer {} {}",
                c.remaining.as_millis(),
                c.increment.as_secs()
            ),
            Request::Version => f.write_str("version"),
        }
    }
}

/// One line an engine printed, as its driver reads it: `Some(Ok(text))` for a success
/// (`= text`), `Some(Err(message))` for an error (`? message`), `None` for any other line
/// (the blank lines that end answers, and what engines print besides: hnefatafl.org's
/// prints its search's progress and a table after `generate_move`'s answer).
pub fn parse_answer(line: &str) -> Option<Result<String, String>> {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix('=') {
        Some(Ok(rest.trim_start().to_string()))
    } else {
        line.strip_prefix('?')
            .map(|rest| Err(rest.trim_start().to_string()))
    }
}

/// What `generate_move` answered: the move, or a resignation. The answer is `play ROLE FROM
/// TO` (hnefatafl.org's engine adds `, score: ...` after it, which is dropped).
pub fn parse_generated(text: &str) -> Result<Request, String> {
    let play = text.split(',').next().unwrap_or("");
    match Request::parse(play) {
        Ok(Some(r @ (Request::Play { .. } | Request::Resign(_)))) => Ok(r),
        Ok(_) => Err("expected `play ROLE FROM TO` or `play ROLE resigns`".into()),
        Err(e) => Err(format!(
            "expected `play ROLE FROM TO` or `play ROLE resigns` ({e})"
        )),
    }
}

/// An answer as printed with `framing`: `= text` or `? error` (an error on one line), and
/// the newlines that end it.
pub fn answer(result: &Result<String, String>, framing: Framing) -> String {
    match (result, framing) {
        (Ok(text), Framing::Htp) => format!("= {text}\n"),
        (Ok(text), Framing::Gtp) => format!("= {text}\n\n"),
        // One line, its control characters escaped (a quoted command may hold any).
        (Err(e), _) => format!(
            "? {}\n\n",
            tafl_engine::input::printable(&e.replace('\n', " "), false, 4096)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Request {
        match Request::parse(line) {
            Ok(Some(c)) => c,
            other => panic!("`{line}`: {other:?}"),
        }
    }

    #[test]
    fn every_command_parses() {
        assert_eq!(ok("final_status"), Request::FinalStatus);
        assert_eq!(ok("generate_move"), Request::GenerateMove(None));
        assert_eq!(ok("generate_move D"), Request::GenerateMove(Some(Role::Defender)));
        assert_eq!(ok("known_command play"), Request::KnownCommand("play".into()));
        assert_eq!(
            ok("play attacker A4 A1  # a comment"),
            Request::Play {
                role: Role::Attacker,
                from: "A4".into(),
                to: "A1".into()
            }
        );
        assert_eq!(ok("play d resigns"), Request::Resign(Role::Defender));
        assert_eq!(ok("play defender resign"), Request::Resign(Role::Defender));
        assert_eq!(
            ok("play_to a D1"),
            Request::PlayTo {
                role: Role::Attacker,
                from: "D1".into()
            }
        );
        assert_eq!(
            ok("time_settings fischer 300000 5"),
            Request::TimeSettings(Some(tafl_engine::search::Clock {
                remaining: std::time::Duration::from_secs(300),
                increment: std::time::Duration::from_secs(5),
            }))
        );
        assert_eq!(ok("time_settings un-timed"), Request::TimeSettings(None));
        for (line, c) in [
            ("list_commands", Request::ListCommands),
            ("name", Request::Name),
            ("play_from", Request::PlayFrom),
            ("protocol_version", Request::ProtocolVersion),
            ("quit", Request::Quit),
            ("reset_board", Request::ResetBoard),
            ("show_board", Request::ShowBoard),
            ("version", Request::Version),
        ] {
            assert_eq!(ok(line), c);
        }
        assert_eq!(Request::parse("   # only a comment"), Ok(None));
    }

    #[test]
    fn bad_lines_say_what_is_expected() {
        for (line, needle) in [
            ("fly", "unrecognized command: fly"),
            ("play attacker A4", "expected: `play ROLE FROM TO`"),
            ("play king A4 A1", "`king` is not a role"),
            ("play_to a", "expected: `play_to ROLE FROM`"),
            ("known_command", "known_command COMMAND"),
            ("time_settings fischer soon 5", "`soon` is not a number"),
            ("time_settings", "time_settings un-timed"),
            ("generate_move a d", "generate_move [ROLE]"),
            ("board_size", "board_size N"),
            ("board_size big", "`big` is not a number"),
            ("first_move", "first_move ROLE"),
        ] {
            match Request::parse(line) {
                Err(e) => assert!(e.contains(needle), "`{line}`: {e}"),
                other => panic!("`{line}` gave {other:?}"),
            }
        }
    }

    #[test]
    fn every_request_prints_as_a_line_that_parses_back() {
        let requests = [
            Request::BoardSize(11),
            Request::FinalStatus,
            Request::FirstMove(Role::Defender),
            Request::GenerateMove(None),
            Request::GenerateMove(Some(Role::Attacker)),
            Request::KnownCommand("play".into()),
            Request::ListCommands,
            Request::Name,
            Request::Play {
                role: Role::Attacker,
                from: "A4".into(),
                to: "A1".into(),
            },
            Request::Resign(Role::Defender),
            Request::PlayFrom,
            Request::PlayTo {
                role: Role::Defender,
                from: "F6".into(),
            },
            Request::PlayUndo,
            Request::ProtocolVersion,
            Request::Quit,
            Request::ResetBoard,
            Request::ShowBoard,
            Request::ShowBoardOpenTafl,
            Request::TimeSettings(None),
            Request::TimeSettings(Some(tafl_engine::search::Clock {
                remaining: std::time::Duration::from_millis(1500),
                increment: std::time::Duration::from_secs(2),
            })),
            Request::Version,
        ];
        for r in requests {
            assert_eq!(ok(&r.to_string()), r);
        }
    }

    #[test]
    fn answers_and_generated_moves_parse_and_other_lines_are_not_answers() {
        assert_eq!(
            parse_answer("= play attacker a4 a1"),
            Some(Ok("play attacker a4 a1".into()))
        );
        assert_eq!(parse_answer("="), Some(Ok(String::new())));
        assert_eq!(parse_answer("? illegal move"), Some(Err("illegal move".into())));
        assert_eq!(parse_answer("1 turn: attacker play: play attacker a4 a1"), None);
        assert_eq!(parse_answer(""), None);
        assert_eq!(
            parse_generated("play attacker d1 d3, score: 12.5, delay milliseconds: 3, loops: 9"),
            Ok(Request::Play {
                role: Role::Attacker,
                from: "d1".into(),
                to: "d3".into()
            })
        );
        assert_eq!(
            parse_generated("play defender resigns _"),
            Ok(Request::Resign(Role::Defender))
        );
        for bad in ["", "name", "play attacker d1", "play king d1 d3", "hello there"] {
            assert!(parse_generated(bad).is_err(), "`{bad}`");
        }
    }

    #[test]
    fn successes_end_with_one_newline_and_errors_with_a_blank_line() {
        assert_eq!(answer(&Ok("true".into()), Framing::Htp), "= true\n");
        assert_eq!(answer(&Ok(String::new()), Framing::Htp), "= \n");
        assert_eq!(answer(&Err("bad\nthing".into()), Framing::Htp), "? bad thing\n\n");
    }

    #[test]
    fn gtp_framing_ends_every_answer_with_a_blank_line() {
        assert_eq!(answer(&Ok("true".into()), Framing::Gtp), "= true\n\n");
        assert_eq!(answer(&Err("bad\nthing".into()), Framing::Gtp), "? bad thing\n\n");
    }

    #[test]
    fn their_other_commands_and_the_older_relays_roles_parse() {
        assert_eq!(ok("board_size 11"), Request::BoardSize(11));
        assert_eq!(ok("first_move defender"), Request::FirstMove(Role::Defender));
        assert_eq!(ok("play_undo"), Request::PlayUndo);
        assert_eq!(ok("show_board_open_tafl"), Request::ShowBoardOpenTafl);
        assert_eq!(
            ok("play black a4 a1"),
            Request::Play {
                role: Role::Attacker,
                from: "a4".into(),
                to: "a1".into()
            }
        );
        assert_eq!(ok("play White resigns"), Request::Resign(Role::Defender));
        assert_eq!(
            ok("generate_move white"),
            Request::GenerateMove(Some(Role::Defender))
        );
        // A role it does not know is ignored, as every role is by theirs.
        assert_eq!(ok("generate_move king"), Request::GenerateMove(None));
        for c in COMMANDS {
            assert!(Request::parse(c).map_or(true, |r| r.is_some()), "{c}");
        }
    }
}
