//! The OpenTafl Engine Protocol (OTEP) as typed messages, with no I/O: [`Message::parse`] reads
//! one line from OpenTafl, [`Reply`] prints one line to it.
//!
//! The protocol is OpenTafl's `opentafl-engine-protocol.txt`: newline-separated US-ASCII
//! commands, unacknowledged. OpenTafl sends `rules`, `position`, `side`, `clock`, `analyze`,
//! `play`, `move` (the position after the engine's accepted move), `error`, `opponent-move`,
//! `finish` and `goodbye`; the engine sends `hello`, `move`, `analysis`, `error` and `status`.
//! Moves are in simple algebraic notation (`a4-a1`) by default; full OpenTafl notation
//! (`Ke5-e1-`, `e5-e8xe9`) is read too. Position records are OpenTafl's (rank 1 first).
//!
//! Board-dependent payloads (moves, position records) stay text here: their meaning depends
//! on the rules in force, which only the session knows.

use std::fmt;
use tafl_engine::{formats::ruleset_from_opentafl, Ruleset, Side};

/// One command from OpenTafl.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `hello`: the spec lets either end say it; OpenTafl itself never does.
    Hello,
    /// `rules <rules-string>`: a new game under these rules, from their start position.
    Rules(Box<Ruleset>),
    /// `position <position-record>`: the board to consider (analysis and replays).
    Position(String),
    /// `side <attackers|defenders>`: the side to move in the position (analysis and replays).
    Side(Side),
    /// `clock ...`: the time left; `None` for a bare `clock`.
    Clock(Option<Clock>),
    /// `analyze <count> <seconds>`: list up to `count` moves with evaluations.
    Analyze {
        /// Moves wanted (at least one is always given).
        count: usize,
        /// Time limit in seconds.
        seconds: u32,
    },
    /// `play <side>`: choose a move for this side from the current position.
    Play(Side),
    /// `move <position-record>`: the engine's last move was accepted; the board after it.
    Move(String),
    /// `error <code>`: OpenTafl refused the engine's last move.
    Error(MoveRefusal),
    /// `opponent-move <move|move...> <position-record>`: the other side moved.
    OpponentMove {
        /// The moves, oldest first (more than one only in berserk tafl).
        moves: Vec<String>,
        /// The board after them.
        position: String,
    },
    /// `finish <code>`: the game is over.
    Finish(Finish),
    /// `goodbye`: the engine may exit.
    Goodbye,
}

/// Time left on both clocks, as OpenTafl sends it before each `play` and `analyze`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The attackers' time.
    pub attackers: ClockTime,
    /// The defenders' time.
    pub defenders: ClockTime,
    /// Length of one overtime period, seconds.
    pub overtime_seconds: u32,
    /// Overtime periods the attackers have left.
    pub attacker_overtimes: u32,
    /// Overtime periods the defenders have left.
    pub defender_overtimes: u32,
}

/// One side's clock: main time, or (`*` in the protocol) the current overtime period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockTime {
    /// Milliseconds left.
    pub millis: u64,
    /// True when main time has run out and this is overtime.
    pub overtime: bool,
}

/// Why OpenTafl refused the engine's move (`error <code>`, codes 1 to 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveRefusal {
    /// 1: not the engine's side to move.
    WrongSide,
    /// 2: blocked, or off the board.
    IllegalMove,
    /// 3: berserk tafl, the wrong side moved.
    BerserkWrongSide,
    /// 4: berserk tafl, a piece that is not berserking moved.
    BerserkIllegalMove,
}

/// How a game ended (`finish <code>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// 0: stopped before anyone won.
    Stopped,
    /// 1: draw.
    Draw,
    /// 2: the attackers won.
    AttackersWin,
    /// 3: the defenders won.
    DefendersWin,
}

impl fmt::Display for Finish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Finish::Stopped => "stopped before a result",
            Finish::Draw => "draw",
            Finish::AttackersWin => "the attackers win",
            Finish::DefendersWin => "the defenders win",
        })
    }
}

/// A line the engine could not use, and how bad that is for the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// True when the game cannot go on (OpenTafl then ends it): unsupported rules.
    pub critical: bool,
    /// What was wrong, naming the command and the bad part.
    pub message: String,
}

impl LineError {
    fn new(message: impl Into<String>) -> LineError {
        LineError {
            critical: false,
            message: message.into(),
        }
    }
}

const COMMANDS: &str =
    "hello, rules, position, side, clock, analyze, play, move, error, opponent-move, finish, goodbye";

fn side(command: &str, arg: &str) -> Result<Side, LineError> {
    match arg {
        "attackers" => Ok(Side::Attackers),
        "defenders" => Ok(Side::Defenders),
        other => Err(LineError::new(format!(
            "{command}: `{other}` is not a side; allowed values: attackers, defenders"
        ))),
    }
}

/// The single argument of a command, refusing none or more than one.
fn one_arg<'a>(command: &str, args: &[&'a str], what: &str) -> Result<&'a str, LineError> {
    match args {
        [a] => Ok(a),
        [] => Err(LineError::new(format!("{command}: the {what} is missing"))),
        _ => Err(LineError::new(format!(
            "{command}: expected only the {what}, got `{}`",
            args.join(" ")
        ))),
    }
}

fn number<T: std::str::FromStr>(command: &str, what: &str, text: &str) -> Result<T, LineError> {
    text.parse()
        .map_err(|_| LineError::new(format!("{command}: {what} `{text}` is not a number")))
}

fn clock_time(what: &str, text: &str) -> Result<ClockTime, LineError> {
    let (digits, overtime) = match text.strip_suffix('*') {
        Some(d) => (d, true),
        None => (text, false),
    };
    Ok(ClockTime {
        millis: number("clock", what, digits)?,
        overtime,
    })
}

fn clock(args: &[&str]) -> Result<Option<Clock>, LineError> {
    match args {
        [] => Ok(None),
        [a, d, ot, ao, dov] => Ok(Some(Clock {
            attackers: clock_time("attacker milliseconds", a)?,
            defenders: clock_time("defender milliseconds", d)?,
            overtime_seconds: number("clock", "overtime seconds", ot)?,
            attacker_overtimes: number("clock", "attacker overtimes", ao)?,
            defender_overtimes: number("clock", "defender overtimes", dov)?,
        })),
        _ => Err(LineError::new(format!(
            "clock: expected `<attacker-ms>[*] <defender-ms>[*] <overtime-s> <attacker-overtimes> \
             <defender-overtimes>`, got {} values",
            args.len()
        ))),
    }
}

fn position_arg(command: &str, text: &str) -> Result<String, LineError> {
    if text.len() >= 2 && text.starts_with('/') && text.ends_with('/') {
        Ok(text.to_string())
    } else {
        Err(LineError::new(format!(
            "{command}: `{text}` is not a position record (`/3t3/3t3/.../`)"
        )))
    }
}

impl Message {
    /// Parses one line (without its newline). The error names the command and what was wrong.
    pub fn parse(line: &str) -> Result<Message, LineError> {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return Err(LineError::new("empty line"));
        };
        let args: Vec<&str> = words.collect();
        match command {
            "hello" => Ok(Message::Hello),
            "goodbye" => Ok(Message::Goodbye),
            "rules" => {
                if args.is_empty() {
                    return Err(LineError::new("rules: the rules string is missing"));
                }
                // Entries are space separated, so the whole rest of the line is the string.
                let text = args.join(" ");
                ruleset_from_opentafl(&text)
                    .map(|rs| Message::Rules(Box::new(rs)))
                    .map_err(|e| LineError {
                        critical: true,
                        message: format!("rules refused: {e}"),
                    })
            }
            "position" => Ok(Message::Position(position_arg(
                command,
                one_arg(command, &args, "position record")?,
            )?)),
            "side" => Ok(Message::Side(side(command, one_arg(command, &args, "side")?)?)),
            "play" => Ok(Message::Play(side(command, one_arg(command, &args, "side")?)?)),
            "clock" => Ok(Message::Clock(clock(&args)?)),
            "analyze" => match args[..] {
                [count, seconds] => Ok(Message::Analyze {
                    count: number(command, "move count", count)?,
                    seconds: number(command, "seconds", seconds)?,
                }),
                _ => Err(LineError::new(format!(
                    "analyze: expected `analyze <count> <seconds>`, got {} values",
                    args.len()
                ))),
            },
            "move" => Ok(Message::Move(position_arg(
                command,
                one_arg(command, &args, "position record")?,
            )?)),
            "error" => {
                let code = one_arg(command, &args, "error code")?;
                match code {
                    "1" => Ok(Message::Error(MoveRefusal::WrongSide)),
                    "2" => Ok(Message::Error(MoveRefusal::IllegalMove)),
                    "3" => Ok(Message::Error(MoveRefusal::BerserkWrongSide)),
                    "4" => Ok(Message::Error(MoveRefusal::BerserkIllegalMove)),
                    other => Err(LineError::new(format!(
                        "error: `{other}` is not an error code OpenTafl sends; allowed values: 1, 2, 3, 4"
                    ))),
                }
            }
            "opponent-move" => match args[..] {
                [moves, position] => {
                    let moves: Vec<String> = moves.split('|').map(str::to_string).collect();
                    if moves.iter().any(String::is_empty) {
                        return Err(LineError::new(format!(
                            "opponent-move: `{}` holds an empty move",
                            args[0]
                        )));
                    }
                    Ok(Message::OpponentMove {
                        moves,
                        position: position_arg(command, position)?,
                    })
                }
                _ => Err(LineError::new(format!(
                    "opponent-move: expected `opponent-move <moves> <position-record>`, got {} values",
                    args.len()
                ))),
            },
            "finish" => match one_arg(command, &args, "finish code")? {
                "0" => Ok(Message::Finish(Finish::Stopped)),
                "1" => Ok(Message::Finish(Finish::Draw)),
                "2" => Ok(Message::Finish(Finish::AttackersWin)),
                "3" => Ok(Message::Finish(Finish::DefendersWin)),
                other => Err(LineError::new(format!(
                    "finish: `{other}` is not a finish code; allowed values: 0, 1, 2, 3"
                ))),
            },
            other => Err(LineError::new(format!(
                "unknown command `{other}`; commands: {COMMANDS}"
            ))),
        }
    }
}

impl fmt::Display for Message {
    /// The line as OpenTafl sends it (without its newline); [`Message::parse`] reads it back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |s: &Side| s.name();
        let time = |t: &ClockTime| format!("{}{}", t.millis, if t.overtime { "*" } else { "" });
        match self {
            Message::Hello => f.write_str("hello"),
            Message::Rules(rs) => write!(f, "rules {}", tafl_engine::formats::ruleset_to_opentafl(rs)),
            Message::Position(p) => write!(f, "position {p}"),
            Message::Side(s) => write!(f, "side {}", side(s)),
            Message::Clock(None) => f.write_str("clock"),
            Message::Clock(Some(c)) => write!(
                f,
                "clock {} {} {} {} {}",
                time(&c.attackers),
                time(&c.defenders),
                c.overtime_seconds,
                c.attacker_overtimes,
                c.defender_overtimes
            ),
            Message::Analyze { count, seconds } => write!(f, "analyze {count} {seconds}"),
            Message::Play(s) => write!(f, "play {}", side(s)),
            Message::Move(p) => write!(f, "move {p}"),
            Message::Error(r) => write!(
                f,
                "error {}",
                match r {
                    MoveRefusal::WrongSide => 1,
                    MoveRefusal::IllegalMove => 2,
                    MoveRefusal::BerserkWrongSide => 3,
                    MoveRefusal::BerserkIllegalMove => 4,
                }
            ),
            Message::OpponentMove { moves, position } => {
                write!(f, "opponent-move {} {position}", moves.join("|"))
            }
            Message::Finish(code) => write!(
                f,
                "finish {}",
                match code {
                    Finish::Stopped => 0,
                    Finish::Draw => 1,
                    Finish::AttackersWin => 2,
                    Finish::DefendersWin => 3,
                }
            ),
            Message::Goodbye => f.write_str("goodbye"),
        }
    }
}

/// One line from the engine to OpenTafl.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `hello`: the engine is ready (OpenTafl gives up after five seconds without it).
    Hello,
    /// `move <move>`: the engine's move, simple notation.
    Move(String),
    /// `analysis <count> <moves> <evaluation> ...`.
    Analysis(Vec<AnalysisLine>),
    /// `error <-1|0> <message>`: critical errors end the game (OpenTafl resigns for the engine).
    Error {
        /// True for code -1.
        critical: bool,
        /// Shown to the user.
        message: String,
    },
    /// `status <text>`: shown in OpenTafl's status line.
    Status(String),
}

/// One analysed move: the line it starts and its evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisLine {
    /// The moves from the current position, simple notation, the analysed move first.
    pub moves: Vec<String>,
    /// The value of the first move for the side to move, -1 (lost) to 1 (won).
    pub evaluation: f32,
}

/// Moves an `analysis` line may list, at most.
const MAX_ANALYSIS_LINES: usize = 256;

impl Reply {
    /// Parses one line an engine sent (without its newline), as a host reads it. The error
    /// names the command and what was wrong.
    pub fn parse(line: &str) -> Result<Reply, LineError> {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let args: Vec<&str> = rest.split_whitespace().collect();
        match command {
            "" => Err(LineError::new("empty line")),
            "hello" => Ok(Reply::Hello),
            "move" => Ok(Reply::Move(one_arg(command, &args, "move")?.to_string())),
            "status" => Ok(Reply::Status(rest.to_string())),
            "error" => {
                let (code, message) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let critical = match code {
                    "-1" => true,
                    "0" => false,
                    other => {
                        return Err(LineError::new(format!(
                            "error: `{other}` is not an engine's error code; allowed values: -1, 0"
                        )))
                    }
                };
                Ok(Reply::Error {
                    critical,
                    message: message.trim().to_string(),
                })
            }
            "analysis" => {
                let Some((count, pairs)) = args.split_first() else {
                    return Err(LineError::new("analysis: the move count is missing"));
                };
                let count: usize = number(command, "move count", count)?;
                if count > MAX_ANALYSIS_LINES || pairs.len() != 2 * count {
                    return Err(LineError::new(format!(
                        "analysis: expected {count} pairs of moves and evaluation (at most {MAX_ANALYSIS_LINES}), got {} values",
                        pairs.len()
                    )));
                }
                let lines = pairs
                    .chunks(2)
                    .map(|p| {
                        let evaluation: f32 = number(command, "evaluation", p[1])?;
                        if !evaluation.is_finite() {
                            return Err(LineError::new(format!(
                                "analysis: evaluation `{}` is not a finite number",
                                p[1]
                            )));
                        }
                        Ok(AnalysisLine {
                            moves: p[0].split('|').map(str::to_string).collect(),
                            evaluation,
                        })
                    })
                    .collect::<Result<Vec<_>, LineError>>()?;
                Ok(Reply::Analysis(lines))
            }
            other => Err(LineError::new(format!(
                "unknown reply `{other}`; engines send hello, move, analysis, error, status"
            ))),
        }
    }
}

/// Text as one US-ASCII line: OpenTafl reads ASCII and splits commands at newlines.
fn one_ascii_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_ascii() && !c.is_ascii_control() => c,
            _ => '?',
        })
        .collect()
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Hello => f.write_str("hello"),
            Reply::Move(m) => write!(f, "move {m}"),
            Reply::Analysis(lines) => {
                write!(f, "analysis {}", lines.len())?;
                for l in lines {
                    write!(f, " {} {:.3}", l.moves.join("|"), l.evaluation)?;
                }
                Ok(())
            }
            Reply::Error { critical, message } => write!(
                f,
                "error {} {}",
                if *critical { -1 } else { 0 },
                one_ascii_line(message)
            ),
            Reply::Status(text) => write!(f, "status {}", one_ascii_line(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BRANDUBH: &str = "dim:7 name:Brandubh atkf:y start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

    fn ok(line: &str) -> Message {
        Message::parse(line).unwrap_or_else(|e| panic!("`{line}` refused: {}", e.message))
    }

    fn err(line: &str) -> LineError {
        match Message::parse(line) {
            Ok(m) => panic!("`{line}` accepted as {m:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn every_command_of_opentafl_parses() {
        assert_eq!(ok("hello"), Message::Hello);
        assert_eq!(ok("goodbye"), Message::Goodbye);
        match ok(&format!("rules {BRANDUBH}")) {
            Message::Rules(rs) => assert_eq!(rs.size(), 7),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            ok("position /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"),
            Message::Position("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into())
        );
        assert_eq!(ok("side defenders"), Message::Side(Side::Defenders));
        assert_eq!(ok("play attackers"), Message::Play(Side::Attackers));
        assert_eq!(
            ok("analyze 5 30"),
            Message::Analyze {
                count: 5,
                seconds: 30
            }
        );
        assert_eq!(
            ok("move /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"),
            Message::Move("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into())
        );
        assert_eq!(ok("error 2"), Message::Error(MoveRefusal::IllegalMove));
        assert_eq!(
            ok("opponent-move d1-b1 /1t1t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"),
            Message::OpponentMove {
                moves: vec!["d1-b1".into()],
                position: "/1t1t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into()
            }
        );
        assert_eq!(ok("finish 3"), Message::Finish(Finish::DefendersWin));
        assert_eq!(ok("finish 0"), Message::Finish(Finish::Stopped));
    }

    #[test]
    fn clocks_read_main_time_overtime_and_the_trailing_space_opentafl_sends() {
        // OpenTafl ends its clock line with a space.
        let Message::Clock(Some(c)) = ok("clock 300000 1500* 30 3 2 ") else {
            panic!("not a clock");
        };
        assert_eq!(
            c.attackers,
            ClockTime {
                millis: 300000,
                overtime: false
            }
        );
        assert_eq!(
            c.defenders,
            ClockTime {
                millis: 1500,
                overtime: true
            }
        );
        assert_eq!(
            (c.overtime_seconds, c.attacker_overtimes, c.defender_overtimes),
            (30, 3, 2)
        );
        assert_eq!(ok("clock"), Message::Clock(None));
    }

    #[test]
    fn berserk_move_lists_split_at_pipes() {
        let Message::OpponentMove { moves, .. } = ok("opponent-move Ne8=e4xe3|e4-e5 /7/7/7/3K3/7/7/7/")
        else {
            panic!("not an opponent move");
        };
        assert_eq!(moves, ["Ne8=e4xe3", "e4-e5"]);
    }

    #[test]
    fn malformed_lines_name_what_is_wrong() {
        for (line, needle) in [
            ("", "empty line"),
            ("fly away", "unknown command `fly`"),
            ("play", "side is missing"),
            ("play kings", "`kings` is not a side"),
            ("side attackers defenders", "expected only the side"),
            ("analyze five 30", "move count `five` is not a number"),
            ("analyze 5", "analyze <count> <seconds>"),
            ("clock 1 2 3", "got 3 values"),
            ("clock x 2 3 4 5", "attacker milliseconds `x`"),
            ("position 3t3/3t3", "not a position record"),
            ("move", "position record is missing"),
            ("error 9", "`9` is not an error code"),
            ("finish 7", "`7` is not a finish code"),
            ("opponent-move d1-b1", "got 1 values"),
            ("opponent-move d1-b1||b1-b2 /7/", "empty move"),
            ("rules", "rules string is missing"),
        ] {
            let e = err(line);
            assert!(!e.critical, "`{line}`: {}", e.message);
            assert!(e.message.contains(needle), "`{line}`: {}", e.message);
        }
    }

    #[test]
    fn unsupported_rules_are_critical_and_named() {
        let e = err("rules dim:7 ber:c start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/");
        assert!(e.critical);
        assert!(
            e.message.contains("ber:c") && e.message.contains("berserk"),
            "{}",
            e.message
        );
        let e = err("rules dim:8 start:/8/8/8/8/8/8/8/8/");
        assert!(e.critical && e.message.contains("dim:8"), "{}", e.message);
    }

    #[test]
    fn every_message_prints_as_a_line_that_parses_back() {
        let messages = [
            Message::Hello,
            Message::Position("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into()),
            Message::Side(Side::Defenders),
            Message::Clock(None),
            Message::Clock(Some(Clock {
                attackers: ClockTime {
                    millis: 1000,
                    overtime: false,
                },
                defenders: ClockTime {
                    millis: 20,
                    overtime: true,
                },
                overtime_seconds: 3,
                attacker_overtimes: 1,
                defender_overtimes: 0,
            })),
            Message::Analyze {
                count: 3,
                seconds: 10,
            },
            Message::Play(Side::Attackers),
            Message::Move("/7/7/7/3K3/7/7/7/".into()),
            Message::Error(MoveRefusal::IllegalMove),
            Message::OpponentMove {
                moves: vec!["d1-b1".into(), "b1-b2".into()],
                position: "/7/7/7/3K3/7/7/7/".into(),
            },
            Message::Finish(Finish::AttackersWin),
            Message::Goodbye,
        ];
        for m in messages {
            assert_eq!(ok(&m.to_string()), m);
        }
        let rules = Message::Rules(Box::new(Ruleset::builtin("copenhagen")));
        match ok(&rules.to_string()) {
            Message::Rules(rs) => assert_eq!(rs.size(), 11),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_reply_prints_as_a_line_that_parses_back_and_bad_ones_are_named() {
        let replies = [
            Reply::Hello,
            Reply::Move("d1-b1".into()),
            Reply::Analysis(vec![AnalysisLine {
                moves: vec!["d1-b1".into(), "d3-b3".into()],
                evaluation: 0.25,
            }]),
            Reply::Error {
                critical: true,
                message: "out of memory".into(),
            },
            Reply::Status("thinking".into()),
        ];
        for r in replies {
            assert_eq!(Reply::parse(&r.to_string()), Ok(r));
        }
        for (line, needle) in [
            ("", "empty line"),
            ("move", "move is missing"),
            ("move a1-a2 a3-a4", "expected only the move"),
            ("error 5 bad", "`5` is not an engine's error code"),
            ("analysis 2 a1-a2 0.5", "expected 2 pairs"),
            ("analysis 1 a1-a2 much", "evaluation `much`"),
            ("analysis 1 a1-a2 NaN", "not a finite number"),
            ("resign", "unknown reply `resign`"),
        ] {
            match Reply::parse(line) {
                Err(e) => assert!(e.message.contains(needle), "`{line}`: {}", e.message),
                Ok(r) => panic!("`{line}` accepted as {r:?}"),
            }
        }
    }

    #[test]
    fn replies_print_as_the_protocol_spells_them() {
        assert_eq!(Reply::Hello.to_string(), "hello");
        assert_eq!(Reply::Move("d1-b1".into()).to_string(), "move d1-b1");
        let a = Reply::Analysis(vec![
            AnalysisLine {
                moves: vec!["d1-b1".into(), "d3-b3".into()],
                evaluation: 0.25,
            },
            AnalysisLine {
                moves: vec!["a4-a2".into()],
                evaluation: -1.0,
            },
        ]);
        assert_eq!(a.to_string(), "analysis 2 d1-b1|d3-b3 0.250 a4-a2 -1.000");
        let e = Reply::Error {
            critical: true,
            message: "bad — very\nbad".into(),
        };
        assert_eq!(e.to_string(), "error -1 bad ? very bad");
        assert_eq!(
            Reply::Error {
                critical: false,
                message: "x".into()
            }
            .to_string(),
            "error 0 x"
        );
        assert_eq!(Reply::Status("ok".into()).to_string(), "status ok");
    }
}
