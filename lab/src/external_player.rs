//! The host side of the engine protocols: another program as a player (`htp:COMMAND`,
//! `htp-host:COMMAND`, `otep:COMMAND`), told every move of the game and asked for its own,
//! through the same message types and parsers that our engine side uses ([`crate::htp`],
//! [`crate::otep`]).
//!
//! Every reply is parsed to a typed value and checked against the game's rules. A program
//! that answers with an illegal or malformed move, resigns, crashes or goes silent loses the
//! game (a forfeit, or on time when its clock has run out), with the reason in the match's
//! report. Its own rules may differ from ours (hnefatafl.org's draws at 140 plies, forbids
//! the defenders any repeated position, and gives the attackers a king that cannot escape):
//! when they end a game that ours go on with, its verdict stands as an adjudication, and the
//! report says so.
//!
//! Time: OTEP's `clock` and HTP's `time_settings fischer` carry a game clock. Neither
//! protocol has a time per move: under a movetime the program thinks by its own settings
//! (start it with them, as `tafl engine --movetime 1`), and the host waits for a reply at
//! most [`UNTIMED_REPLY`] (a game clock: the time left and [`CLOCK_GRACE`]).

use crate::engine_process::{EngineProcess, ReplyError};
use crate::htp::{parse_answer, parse_generated, Request, Role};
use crate::otep::{Message, Reply};
use std::io::{BufReader, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::time::{Duration, Instant};
use tafl_engine::{
    formats::{board_record, otn_move_text, parse_move},
    input::{read_line, Line, LINE_LIMIT},
    parse_square,
    search::{Clock, EngineProtocol, ExternalPlayer, Stop, ThinkingLimit},
    square_name, BitSet, Game, Move, Outcome, Position, Reason, Rules, Side,
};

/// The longest wait for a move when no game clock is kept.
pub const UNTIMED_REPLY: Duration = Duration::from_secs(600);
/// The longest wait for a reply that is not a move (setting up, being told a move).
pub const SETUP_REPLY: Duration = Duration::from_secs(60);
/// How long past its clock a program's move may come before it is lost on time (pipes and
/// process switches on a busy machine).
pub const CLOCK_GRACE: Duration = Duration::from_secs(2);
/// Lines a program may print before the answer it owes (hnefatafl.org's engine prints its
/// search's progress and a table of escape routes).
const MAX_OTHER_LINES: usize = 2000;

/// The port hnefatafl.org's engine connects to in its `--host ADDRESS` mode (its
/// `SERVER_PORT`, fixed: games side by side listen on different loopback addresses).
pub const HTP_HOST_PORT: u16 = 49152;

/// Starts the program of an `htp:`, `htp-host:` or `otep:` player for a game under `rules`.
pub fn start<B: BitSet>(
    protocol: EngineProtocol,
    command: &str,
    rules: &Rules<B>,
) -> Result<Box<dyn ExternalPlayer<B>>, String> {
    // The host mode starts its program itself: the command line gets the address it listens on.
    match protocol {
        EngineProtocol::Htp => Ok(Box::new(HtpPlayer::start(EngineProcess::start(command)?, rules)?)),
        EngineProtocol::HtpHost => Ok(Box::new(HtpHostPlayer::start(command)?)),
        EngineProtocol::Otep => Ok(Box::new(OtepPlayer::start(
            EngineProcess::start(command)?,
            rules,
        )?)),
    }
}

/// How long to wait for a move: the clock's time left and a grace, else [`UNTIMED_REPLY`].
fn move_wait(limit: ThinkingLimit, clock: Option<Clock>) -> (Duration, bool) {
    match (limit, clock) {
        (ThinkingLimit::Clock { .. }, Some(c)) => (c.remaining + CLOCK_GRACE, true),
        _ => (UNTIMED_REPLY, false),
    }
}

/// The side of the `i`-th move of `game` (sides alternate from the start position).
fn mover<B: BitSet>(game: &Game<B>, i: usize) -> Side {
    let first = game.start().to_move();
    if i.is_multiple_of(2) {
        first
    } else {
        first.opponent()
    }
}

/// `mv` when it is legal for the side to move in `game`.
fn legal<B: BitSet>(rules: &Rules<B>, game: &Game<B>, mv: Move) -> bool {
    game.moves(rules).contains(&mv)
}

/// HTP cannot set up a position: a game that starts elsewhere than the rules' start ends
/// without a result.
fn htp_start<B: BitSet>(rules: &Rules<B>, game: &Game<B>, name: &str) -> Result<(), Stop> {
    if *game.start() == Position::start(rules) {
        return Ok(());
    }
    Err(Stop {
        outcome: Outcome::no_result(),
        why: format!("engine `{name}`: HTP cannot set up a position; games start from the rules' start"),
    })
}

/// The HTP line that tells a program the `i`-th move of `game`, `mv`.
fn played<B: BitSet>(n: usize, game: &Game<B>, i: usize, mv: Move) -> Request {
    let vertex = |sq| square_name(n, sq).to_string().to_ascii_uppercase();
    Request::Play {
        role: Role::of(mover(game, i)),
        from: vertex(mv.from),
        to: vertex(mv.to),
    }
}

/// The move of a `generate_move` answer (`play ROLE FROM TO`), for the side to move in `game`
/// and legal under `rules`; else why not.
fn generated_move<B: BitSet>(rules: &Rules<B>, game: &Game<B>, text: &str) -> Result<Move, String> {
    let side = game.position().to_move();
    let mv = match parse_generated(text)? {
        Request::Resign(_) => return Err("it resigned".into()),
        Request::Play { role, from, to } => {
            if role != Role::of(side) {
                return Err(format!("a move for the {}, not the {side}", role.side()));
            }
            let square = |t: &str| parse_square(rules.n, &t.to_ascii_lowercase()).map_err(|e| e.to_string());
            Move::new(square(&from)?, square(&to)?)
        }
        _ => return Err("not a move".into()),
    };
    if !legal(rules, game, mv) {
        return Err("an illegal move".into());
    }
    Ok(mv)
}

/// What ends the game when a program fails while `side` is its side.
fn forfeit(side: Side, why: String) -> Stop {
    Stop {
        outcome: Outcome::win(side.opponent(), Reason::Forfeit),
        why,
    }
}

/// The stop for a reply that did not come: on time under a clock, else a forfeit.
fn no_reply(process: &EngineProcess, side: Side, asked: &str, e: &ReplyError, timed: bool) -> Stop {
    let why = format!(
        "engine `{}` ({side}): `{asked}`: {e}{}",
        process.name(),
        process.stderr_tail()
    );
    match e {
        ReplyError::Timeout(_) if timed => Stop {
            outcome: Outcome::win(side.opponent(), Reason::Time),
            why,
        },
        _ => forfeit(side, why),
    }
}

/// A program speaking the Hnefatafl Text Protocol.
struct HtpPlayer {
    process: EngineProcess,
    n: usize,
    /// Moves of the game the program has been told (or played itself).
    synced: usize,
    /// Whether the first move was asked for (the clock is set then).
    started: bool,
}

impl HtpPlayer {
    fn start<B: BitSet>(process: EngineProcess, rules: &Rules<B>) -> Result<HtpPlayer, String> {
        let mut p = HtpPlayer {
            process,
            n: rules.n,
            synced: 0,
            started: false,
        };
        // A new game on the rules' board; a program that cannot play it says so here.
        let asked = Request::BoardSize(rules.n);
        match p.ask(&asked, SETUP_REPLY) {
            Ok(Ok(_)) => Ok(p),
            Ok(Err(e)) => Err(format!("engine `{}`: `{asked}` refused: {e}", p.process.name())),
            Err(e) => Err(format!(
                "engine `{}`: `{asked}`: {e}{}",
                p.process.name(),
                p.process.stderr_tail()
            )),
        }
    }

    /// Sends `request` and reads its answer (`= text` or `? error`), skipping other lines.
    fn ask(&mut self, request: &Request, wait: Duration) -> Result<Result<String, String>, ReplyError> {
        let line = request.to_string();
        self.process.send(&line).map_err(ReplyError::Io)?;
        let deadline = Instant::now() + wait;
        for _ in 0..MAX_OTHER_LINES {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = self.process.receive(left)?;
            if let Some(answer) = parse_answer(&reply) {
                return Ok(answer);
            }
        }
        Err(ReplyError::Io(format!(
            "more than {MAX_OTHER_LINES} lines without an answer"
        )))
    }

    /// The program refused to go on: its own rules ended the game (its `final_status`), or
    /// `otherwise` when they did not.
    fn its_rules(&mut self, what: String, otherwise: Stop) -> Stop {
        let status = self.ask(&Request::FinalStatus, SETUP_REPLY);
        let name = self.process.name().to_string();
        let verdict = match status.as_ref().map(|s| s.as_ref().map(|t| t.trim())) {
            Ok(Ok("attacker_wins")) => Outcome::win(Side::Attackers, Reason::Adjudication),
            Ok(Ok("defender_wins")) => Outcome::win(Side::Defenders, Reason::Adjudication),
            Ok(Ok("draw")) => Outcome::draw(Reason::Adjudication),
            _ => return otherwise,
        };
        Stop {
            outcome: verdict,
            why: format!("engine `{name}`: its own rules ended the game ({verdict}): {what}"),
        }
    }
}

impl<B: BitSet> ExternalPlayer<B> for HtpPlayer {
    fn choose(
        &mut self,
        rules: &Rules<B>,
        game: &Game<B>,
        limit: ThinkingLimit,
        clock: Option<Clock>,
    ) -> Result<Move, Stop> {
        let side = game.position().to_move();
        let name = self.process.name().to_string();
        if !self.started {
            self.started = true;
            htp_start(rules, game, &name)?;
            if let (ThinkingLimit::Clock { .. }, Some(c)) = (limit, clock) {
                let asked = Request::TimeSettings(Some(c));
                match self.ask(&asked, SETUP_REPLY) {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => {
                        return Err(forfeit(side, format!("engine `{name}`: `{asked}` refused: {e}")))
                    }
                    Err(e) => return Err(no_reply(&self.process, side, &asked.to_string(), &e, false)),
                }
            }
        }
        // Tell it the moves since it last moved (the opening's, the opponent's).
        for (i, p) in game.history().iter().enumerate().skip(self.synced) {
            let asked = played(self.n, game, i, p.mv);
            match self.ask(&asked, SETUP_REPLY) {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    let what = format!("it refused `{asked}` ({e}), which the game's rules allow");
                    let otherwise = Stop {
                        outcome: Outcome::draw(Reason::Adjudication),
                        why: format!("engine `{name}`: {what}; the game stops without a result"),
                    };
                    return Err(self.its_rules(what, otherwise));
                }
                Err(e) => return Err(no_reply(&self.process, side, &asked.to_string(), &e, false)),
            }
        }
        self.synced = game.history().len();
        let asked = Request::GenerateMove(Some(Role::of(side)));
        let (wait, timed) = move_wait(limit, clock);
        let text = match self.ask(&asked, wait) {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => {
                let what = format!("`{asked}` answered `? {e}`");
                let otherwise = forfeit(side, format!("engine `{name}` ({side}): {what}"));
                return Err(self.its_rules(what, otherwise));
            }
            Err(e) => return Err(no_reply(&self.process, side, &asked.to_string(), &e, timed)),
        };
        let bad = |why: String| {
            forfeit(
                side,
                format!("engine `{name}` ({side}): `{asked}` answered `= {text}`: {why}"),
            )
        };
        let mv = generated_move(rules, game, &text).map_err(bad)?;
        // It has played the move in its own game.
        self.synced += 1;
        Ok(mv)
    }
}

impl Drop for HtpPlayer {
    fn drop(&mut self) {
        let _ = self.process.send(&Request::Quit.to_string());
    }
}

/// A program of hnefatafl.org's family as a bot that connects to us (`htp-host:COMMAND`):
/// started as COMMAND `--host 127.0.0.K`, it connects to that address at [`HTP_HOST_PORT`].
/// This is the mode in which `hnefatafl-text-protocol` plays the AI its flags choose (`--ai
/// monte-carlo --seconds S`, `--ai basic --depth D`); over stdin (`htp:`) it searches
/// alpha-beta at depth 4 whatever its flags say (hnefatafl-copenhagen 6.4.1). The host sends
/// bare lines: `play ROLE FROM TO`, not answered, and `generate_move ROLE`, answered `play
/// ROLE FROM TO`. The bot keeps the rules' start position (no setup) and exits when its game
/// ends; what it prints on stdout is read and dropped.
struct HtpHostPlayer {
    process: EngineProcess,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// Moves of the game the bot has been told (or played itself).
    synced: usize,
    /// Whether the start position was checked (at the first move asked for).
    started: bool,
}

impl HtpHostPlayer {
    fn start(command: &str) -> Result<HtpHostPlayer, String> {
        // The first free loopback address: 127.0.0.2 upwards (games side by side each get
        // their own), 127.0.0.1 last (the one systems without the whole 127/8 have).
        let listener = (2..=254u8)
            .chain([1])
            .find_map(|k| TcpListener::bind((Ipv4Addr::new(127, 0, 0, k), HTP_HOST_PORT)).ok())
            .ok_or_else(|| {
                format!("engine `{command}`: no loopback address is free at port {HTP_HOST_PORT} to host it")
            })?;
        let address = listener
            .local_addr()
            .map_err(|e| format!("engine `{command}`: {e}"))?
            .ip();
        let mut process = EngineProcess::start(&format!("{command} --host {address}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("engine `{command}`: {e}"))?;
        let deadline = Instant::now() + SETUP_REPLY;
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(format!("engine `{command}`: accepting its connection: {e}")),
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "engine `{command}`: it did not connect to {address}:{HTP_HOST_PORT} within {} s{}",
                    SETUP_REPLY.as_secs(),
                    process.stderr_tail()
                ));
            }
            // Waiting, read what it prints: a program that exited says so here.
            if let Err(ReplyError::Closed) = process.receive(Duration::from_millis(20)) {
                return Err(format!(
                    "engine `{command}`: it exited before connecting to {address}:{HTP_HOST_PORT}{}",
                    process.stderr_tail()
                ));
            }
        };
        let fail = |e: std::io::Error| format!("engine `{command}`: its connection: {e}");
        stream.set_nonblocking(false).map_err(fail)?;
        stream.set_nodelay(true).map_err(fail)?;
        let writer = stream.try_clone().map_err(fail)?;
        Ok(HtpHostPlayer {
            process,
            reader: BufReader::new(stream),
            writer,
            synced: 0,
            started: false,
        })
    }

    /// Sends one line over the connection.
    fn send(&mut self, line: &str) -> Result<(), ReplyError> {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|e| ReplyError::Io(format!("writing `{line}`: {e}")))
    }

    /// The next line over the connection that is not blank, within `wait`.
    fn receive(&mut self, wait: Duration) -> Result<String, ReplyError> {
        let deadline = Instant::now() + wait;
        for _ in 0..MAX_OTHER_LINES {
            // Drop what it printed meanwhile (its search's progress), so that it never fills.
            while self.process.receive(Duration::ZERO).is_ok() {}
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ReplyError::Timeout(wait));
            }
            let stream = self.reader.get_ref();
            stream
                .set_read_timeout(Some(left))
                .map_err(|e| ReplyError::Io(e.to_string()))?;
            match read_line(&mut self.reader, LINE_LIMIT) {
                Ok(Line::Bytes(b)) => {
                    let text = String::from_utf8_lossy(&b).trim().to_string();
                    if !text.is_empty() {
                        return Ok(text);
                    }
                }
                Ok(Line::TooLong(n)) => return Err(ReplyError::TooLong(n)),
                Ok(Line::End) => return Err(ReplyError::Closed),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(ReplyError::Timeout(wait))
                }
                Err(e) => return Err(ReplyError::Io(e.to_string())),
            }
        }
        Err(ReplyError::Io(format!(
            "more than {MAX_OTHER_LINES} blank lines without a move"
        )))
    }
}

impl<B: BitSet> ExternalPlayer<B> for HtpHostPlayer {
    fn choose(
        &mut self,
        rules: &Rules<B>,
        game: &Game<B>,
        limit: ThinkingLimit,
        clock: Option<Clock>,
    ) -> Result<Move, Stop> {
        let side = game.position().to_move();
        let name = self.process.name().to_string();
        if !self.started {
            self.started = true;
            htp_start(rules, game, &name)?;
        }
        // Tell it the moves since it last moved (the opening's, the opponent's). A move its
        // rules refuse ends its program, which the next read finds.
        for (i, p) in game.history().iter().enumerate().skip(self.synced) {
            let told = played(rules.n, game, i, p.mv);
            if let Err(e) = self.send(&told.to_string()) {
                return Err(no_reply(&self.process, side, &told.to_string(), &e, false));
            }
        }
        self.synced = game.history().len();
        let asked = Request::GenerateMove(Some(Role::of(side)));
        let (wait, timed) = move_wait(limit, clock);
        let text = match self.send(&asked.to_string()).and_then(|()| self.receive(wait)) {
            Ok(text) => text,
            Err(e) => return Err(no_reply(&self.process, side, &asked.to_string(), &e, timed)),
        };
        let bad = |why: String| {
            forfeit(
                side,
                format!("engine `{name}` ({side}): `{asked}` answered `{text}`: {why}"),
            )
        };
        let mv = generated_move(rules, game, &text).map_err(bad)?;
        // It has played the move in its own game.
        self.synced += 1;
        Ok(mv)
    }
}

/// A program speaking the OpenTafl Engine Protocol.
struct OtepPlayer {
    process: EngineProcess,
    n: usize,
    /// Moves of the game the program has been told (or played itself).
    synced: usize,
}

impl OtepPlayer {
    fn start<B: BitSet>(process: EngineProcess, rules: &Rules<B>) -> Result<OtepPlayer, String> {
        let mut p = OtepPlayer {
            process,
            n: rules.n,
            synced: 0,
        };
        // It says hello when ready; other lines before it are ignored.
        let deadline = Instant::now() + SETUP_REPLY;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match p.process.receive(left).map(|l| Reply::parse(&l)) {
                Ok(Ok(Reply::Hello)) => break,
                Ok(_) => continue,
                Err(e) => {
                    return Err(format!(
                        "engine `{}`: waiting for `hello`: {e}{}",
                        p.process.name(),
                        p.process.stderr_tail()
                    ))
                }
            }
        }
        p.send(&Message::Rules(Box::new(rules.ruleset.clone())))?;
        Ok(p)
    }

    fn send(&mut self, m: &Message) -> Result<(), String> {
        let name = self.process.name().to_string();
        self.process
            .send(&m.to_string())
            .map_err(|e| format!("engine `{name}`: {e}"))
    }
}

impl<B: BitSet> ExternalPlayer<B> for OtepPlayer {
    fn choose(
        &mut self,
        rules: &Rules<B>,
        game: &Game<B>,
        limit: ThinkingLimit,
        clock: Option<Clock>,
    ) -> Result<Move, Stop> {
        let side = game.position().to_move();
        let name = self.process.name().to_string();
        let failed = |e: String| forfeit(side, format!("engine `{name}` ({side}): {e}"));
        let record = board_record(rules, game);
        let new = game.history().len() - self.synced.min(game.history().len());
        let from_start = self.synced == 0 && *game.start() == Position::start(rules);
        let mut told = Vec::new();
        if new == 1 && (self.synced > 0 || from_start) {
            // The opponent's move, as OpenTafl tells it.
            let mv = game.history()[game.history().len() - 1].mv;
            told.push(Message::OpponentMove {
                moves: vec![mv.text(self.n)],
                position: record.clone(),
            });
        } else if new > 0 || !from_start {
            // Several moves (an opening) or another start: the board and the side to move.
            told.push(Message::Position(record.clone()));
            told.push(Message::Side(side));
        }
        if let (ThinkingLimit::Clock { .. }, Some(c)) = (limit, clock) {
            // Its own time for both sides: the host keeps only the mover's clock here.
            let t = crate::otep::ClockTime {
                millis: c.remaining.as_millis().min(86_400_000) as u64,
                overtime: false,
            };
            told.push(Message::Clock(Some(crate::otep::Clock {
                attackers: t,
                defenders: t,
                overtime_seconds: 0,
                attacker_overtimes: 0,
                defender_overtimes: 0,
            })));
        }
        told.push(Message::Play(side));
        for m in &told {
            self.send(m).map_err(failed)?;
        }
        self.synced = game.history().len();
        let asked = Message::Play(side).to_string();
        let (wait, timed) = move_wait(limit, clock);
        let deadline = Instant::now() + wait;
        let text = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .process
                .receive(left)
                .map_err(|e| no_reply(&self.process, side, &asked, &e, timed))?;
            match Reply::parse(&line) {
                Ok(Reply::Move(m)) => break m,
                // Progress and non-critical errors: it goes on thinking.
                Ok(
                    Reply::Status(_)
                    | Reply::Analysis(_)
                    | Reply::Hello
                    | Reply::Error { critical: false, .. },
                ) => {}
                Ok(Reply::Error {
                    critical: true,
                    message,
                }) => {
                    return Err(failed(format!(
                        "`{asked}` answered with a critical error: {message}"
                    )))
                }
                Err(e) => return Err(failed(format!("`{asked}` answered `{line}`: {}", e.message))),
            }
        };
        let mv = otn_move_text(self.n, &text)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                parse_move(self.n, &plain)
                    .map(|(m, _)| m)
                    .map_err(|e| e.to_string())
            })
            .map_err(|e| failed(format!("`{asked}` answered `move {text}`: {e}")))?;
        if !legal(rules, game, mv) {
            return Err(failed(format!(
                "`{asked}` answered `move {text}`: an illegal move"
            )));
        }
        // OpenTafl confirms a move with the board after it.
        let mut after = game.clone();
        let _ = after.play(rules, mv);
        self.send(&Message::Move(board_record(rules, &after)))
            .map_err(failed)?;
        self.synced += 1;
        Ok(mv)
    }
}

impl Drop for OtepPlayer {
    fn drop(&mut self) {
        let _ = self.process.send(&Message::Goodbye.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::{
        search::{classic_evaluator, play_game_from, Player, PlayerSpec, SearchConfig},
        Ruleset,
    };

    fn brandubh() -> Rules<u128> {
        Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap()
    }

    /// An HTP engine in `sh` that answers `generate_move` with `generate` (shell commands),
    /// `final_status` with `status`, and everything else with success.
    fn htp_fake(generate: &str, status: &str) -> String {
        format!(
            "sh -c 'while read -r l; do case \"$l\" in generate_move*) {generate};; final_status*) echo \"= {status}\";; quit) exit 0;; *) echo \"= \";; esac; done'"
        )
    }

    /// An OTEP engine in `sh` that says hello and answers `play` with `reply`.
    fn otep_fake(reply: &str) -> String {
        format!("sh -c 'echo hello; while read -r l; do case \"$l\" in play*) {reply};; esac; done'")
    }

    /// A game of the program (the side that moves first) against random moves, and how the
    /// program's part ended.
    fn play(protocol: EngineProtocol, command: &str, limit: ThinkingLimit) -> (Game<u128>, Side, Stop) {
        let rules = brandubh();
        let program = start(protocol, command, &rules).unwrap();
        let spec = PlayerSpec::External {
            protocol,
            command: command.into(),
        };
        let mut p = Player::external(&spec, program);
        p.limit = limit;
        let mut other = Player::new(
            &PlayerSpec::Random,
            1,
            &SearchConfig::default(),
            &classic_evaluator,
        )
        .unwrap();
        other.limit = limit;
        let first = Game::new(&rules).position().to_move();
        let game = match first {
            Side::Attackers => play_game_from(&rules, Game::new(&rules), &mut p, &mut other),
            Side::Defenders => play_game_from(&rules, Game::new(&rules), &mut other, &mut p),
        };
        let stop = p
            .stopped
            .clone()
            .expect("the program's part ended outside the rules");
        assert_eq!(game.outcome(), Some(stop.outcome), "{}", stop.why);
        (game, first, stop)
    }

    fn forfeited(protocol: EngineProtocol, command: &str, needles: &[&str]) {
        let (game, side, stop) = play(protocol, command, ThinkingLimit::Simulations);
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(side.opponent(), Reason::Forfeit)),
            "{}",
            stop.why
        );
        assert_eq!(game.ply(), 0, "no move was played");
        assert!(
            stop.why.contains("engine `sh -c"),
            "names the engine: {}",
            stop.why
        );
        for n in needles {
            assert!(stop.why.contains(n), "`{n}` in: {}", stop.why);
        }
    }

    #[test]
    fn htp_bad_replies_lose_the_game_with_the_line_named() {
        let htp = EngineProtocol::Htp;
        // a1 is a corner: nothing stands there.
        forfeited(
            htp,
            &htp_fake("echo \"= play attacker a1 a2\"", "ongoing"),
            &["a1 a2"],
        );
        forfeited(
            htp,
            &htp_fake("echo \"= banana\"", "ongoing"),
            &["banana", "expected"],
        );
        forfeited(
            htp,
            &htp_fake("echo \"= play attacker z9 a1\"", "ongoing"),
            &["z9"],
        );
        forfeited(
            htp,
            &htp_fake("echo \"= play attacker resigns\"", "ongoing"),
            &["resigned"],
        );
        forfeited(
            htp,
            &htp_fake("echo \"? out of ideas\"", "ongoing"),
            &["out of ideas"],
        );
        forfeited(
            htp,
            &htp_fake("echo boom >&2; exit 3", "ongoing"),
            &["closed", "boom"],
        );
    }

    #[test]
    fn htp_a_game_its_own_rules_ended_keeps_its_verdict() {
        let (game, _, stop) = play(
            EngineProtocol::Htp,
            &htp_fake("echo \"? the game is over\"", "attacker_wins"),
            ThinkingLimit::Simulations,
        );
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Side::Attackers, Reason::Adjudication))
        );
        assert!(stop.why.contains("its own rules ended the game"), "{}", stop.why);
    }

    #[test]
    fn a_program_past_its_clock_loses_on_time() {
        let clock = ThinkingLimit::Clock {
            base: Duration::from_millis(200),
            increment: Duration::ZERO,
        };
        let (game, side, stop) = play(EngineProtocol::Htp, &htp_fake("sleep 20", "ongoing"), clock);
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(side.opponent(), Reason::Time)),
            "{}",
            stop.why
        );
        assert!(stop.why.contains("no reply within"), "{}", stop.why);
    }

    #[test]
    fn otep_bad_replies_lose_the_game_with_the_line_named() {
        let otep = EngineProtocol::Otep;
        forfeited(otep, &otep_fake("echo \"move z9-a1\""), &["z9-a1"]);
        forfeited(otep, &otep_fake("echo \"move a1-a2\""), &["a1-a2", "illegal"]);
        forfeited(otep, &otep_fake("echo banana"), &["banana", "unknown reply"]);
        forfeited(
            otep,
            &otep_fake("echo \"error -1 out of memory\""),
            &["critical", "out of memory"],
        );
        // Status lines and minor errors are not answers; a crash after them is.
        forfeited(
            otep,
            &otep_fake("echo \"status thinking\"; echo \"error 0 hmm\"; exit 1"),
            &["closed"],
        );
    }

    #[test]
    fn a_program_that_does_not_start_or_greet_is_refused_with_its_name() {
        let rules = brandubh();
        let e = start(EngineProtocol::Otep, "true", &rules).err().unwrap();
        assert!(e.contains("engine `true`") && e.contains("hello"), "{e}");
        let e = start(EngineProtocol::Htp, "sh -c 'echo \"? no such board\"'", &rules)
            .err()
            .unwrap();
        assert!(e.contains("board_size 7") && e.contains("no such board"), "{e}");
        let e = start(EngineProtocol::Htp, "/nonexistent/engine", &rules)
            .err()
            .unwrap();
        assert!(e.contains("/nonexistent/engine"), "{e}");
    }

    /// A bot in bash for `htp-host:` that connects to the address after its `--host` and
    /// answers `generate_move` with `generate` (shell commands, their output sent back).
    fn host_fake(generate: &str) -> String {
        format!(
            "bash -c 'exec 3<>/dev/tcp/$2/{HTP_HOST_PORT}; while read -r w r <&3; do case $w in generate_move) {{ {generate}; }} >&3;; esac; done' bot"
        )
    }

    #[test]
    fn htp_host_bad_replies_lose_the_game_with_the_line_named() {
        let host = EngineProtocol::HtpHost;
        for (generate, needles) in [
            // The side not asked for (the role asked is in $r).
            (
                "[ $r = attacker ] && echo play defender a1 a2 || echo play attacker a1 a2",
                &["a move for the", "answered `play "][..],
            ),
            (
                "echo play attacker resigns; echo play defender resigns",
                &["it resigned"],
            ),
            (
                "echo hello",
                &["expected `play ROLE FROM TO`", "answered `hello`"],
            ),
            // Its connection closes: it exited.
            ("exit 0", &["generate_move", "closed"]),
        ] {
            let command = host_fake(generate);
            let (game, side, stop) = play(host, &command, ThinkingLimit::Simulations);
            let why = &stop.why;
            assert_eq!(
                game.outcome(),
                Some(Outcome::win(side.opponent(), Reason::Forfeit)),
                "{why}"
            );
            assert_eq!(game.ply(), 0, "no move was played: {why}");
            assert!(why.contains("engine `bash -c"), "names the engine: {why}");
            for n in needles {
                assert!(why.contains(n), "`{n}` in: {why}");
            }
        }
    }

    #[test]
    fn an_htp_host_bot_is_told_the_moves_and_its_move_is_played() {
        // The bot writes what it is told to a file and answers the first legal attackers'
        // move our engine lists, written into it here.
        let rules = brandubh();
        let game = Game::new(&rules);
        let side = game.position().to_move();
        let mv = game.moves(&rules)[0];
        let told = std::env::temp_dir().join(format!("tafl-htp-host-{}.txt", std::process::id()));
        let answer = played(rules.n, &game, 0, mv).to_string();
        let command = format!(
            "bash -c 'exec 3<>/dev/tcp/$2/{HTP_HOST_PORT}; while read -r l <&3; do echo $l >> {}; case $l in generate_move*) echo {answer} >&3;; esac; done' bot",
            told.display()
        );
        let mut program = start(EngineProtocol::HtpHost, &command, &rules).unwrap();
        let got = program
            .choose(&rules, &game, ThinkingLimit::Simulations, None)
            .unwrap_or_else(|s| panic!("{}", s.why));
        assert_eq!(got, mv);
        // Told our reply and asked again: it hears the move it did not play, then the question.
        let mut next = game.clone();
        next.play(&rules, mv).unwrap();
        let reply = next.moves(&rules)[0];
        next.play(&rules, reply).unwrap();
        let e = program
            .choose(&rules, &next, ThinkingLimit::Simulations, None)
            .expect_err("its answer is the attackers' first move again, now illegal");
        assert!(
            e.why.contains("an illegal move") || e.why.contains("a move for the"),
            "{}",
            e.why
        );
        let lines = std::fs::read_to_string(&told).unwrap();
        std::fs::remove_file(&told).ok();
        let role = Role::of(side);
        let other = Role::of(side.opponent());
        let reply_line = played(rules.n, &next, 1, reply).to_string();
        assert_eq!(
            lines.lines().collect::<Vec<_>>(),
            [
                format!("generate_move {}", role.name()),
                reply_line,
                format!("generate_move {}", role.name()),
            ],
            "the {} move was told, not the bot's own",
            other.name()
        );
    }

    #[test]
    fn an_htp_host_bot_that_never_connects_is_refused_with_its_name() {
        let rules = brandubh();
        let e = start(EngineProtocol::HtpHost, "sh -c 'exit 3'", &rules)
            .err()
            .unwrap();
        assert!(
            e.contains("engine `sh -c") && e.contains("exited before connecting"),
            "{e}"
        );
    }
}
