//! The Hnefatafl Text Protocol (HTP) of the hnefatafl.org family (the `hnefatafl-copenhagen`
//! engine, client and servers): GTP-style lines in, `= answer` or `? error` out, each answer
//! followed by a blank line. Text after `#` is a comment; blank lines are ignored.
//!
//! Commands: `final_status`, `generate_move [ROLE]` (plays the move it returns, as GTP's
//! `genmove` and HTP's AI clients do), `known_command NAME`, `list_commands`, `name`,
//! `play ROLE FROM TO` (answers the captured squares), `play ROLE resigns`, `play_from`,
//! `play_to ROLE FROM`, `protocol_version`, `quit`, `reset_board`, `show_board`,
//! `time_settings un-timed | fischer MILLISECONDS ADD_SECONDS`, `version`. Roles are `a`,
//! `attacker`, `d`, `defender`; squares are a letter and a number (`A1`, case does not matter).
//!
//! Squares need the board size, so they stay text here; the session reads them.

/// One HTP command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `final_status`: `attacker_wins`, `defender_wins`, `draw` or `ongoing`.
    FinalStatus,
    /// `generate_move [ROLE]`: choose, play and answer `play ROLE FROM TO`.
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
    /// `protocol_version`.
    ProtocolVersion,
    /// `quit`.
    Quit,
    /// `reset_board`: the start position.
    ResetBoard,
    /// `show_board`: the board as a diagram.
    ShowBoard,
    /// `time_settings ...`: accepted; moves get the player's fixed search budget.
    TimeSettings,
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
pub const COMMANDS: [&str; 14] = [
    "final_status",
    "generate_move",
    "known_command",
    "list_commands",
    "name",
    "play",
    "play_from",
    "play_to",
    "protocol_version",
    "quit",
    "reset_board",
    "show_board",
    "time_settings",
    "version",
];

fn role(text: &str) -> Result<Role, String> {
    match text.to_ascii_lowercase().as_str() {
        "a" | "attacker" => Ok(Role::Attacker),
        "d" | "defender" => Ok(Role::Defender),
        _ => Err(format!(
            "`{text}` is not a role; allowed values: a, attacker, d, defender"
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
            "final_status" => Request::FinalStatus,
            "generate_move" => match args[1..] {
                [] => Request::GenerateMove(None),
                [r] => Request::GenerateMove(Some(role(r)?)),
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
            "protocol_version" => Request::ProtocolVersion,
            "quit" => Request::Quit,
            "reset_board" => Request::ResetBoard,
            "show_board" => Request::ShowBoard,
            "time_settings" => match args[1..] {
                ["un-timed", ..] => Request::TimeSettings,
                ["fischer", ms, add] => {
                    number("MILLISECONDS", ms)?;
                    number("ADD_SECONDS", add)?;
                    Request::TimeSettings
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

/// An answer as HTP prints it: `= text` or `? error`, then a blank line.
pub fn answer(result: &Result<String, String>) -> String {
    match result {
        Ok(text) => format!("= {text}\n\n"),
        // One line, its control characters escaped (a quoted command may hold any).
        Err(e) => format!(
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
        assert_eq!(ok("time_settings fischer 300000 5"), Request::TimeSettings);
        assert_eq!(ok("time_settings un-timed"), Request::TimeSettings);
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
        ] {
            match Request::parse(line) {
                Err(e) => assert!(e.contains(needle), "`{line}`: {e}"),
                other => panic!("`{line}` gave {other:?}"),
            }
        }
    }

    #[test]
    fn answers_are_followed_by_a_blank_line() {
        assert_eq!(answer(&Ok("true".into())), "= true\n\n");
        assert_eq!(answer(&Err("bad\nthing".into())), "? bad thing\n\n");
    }
}
