//! `tafl engine --protocol htp`: our AI behind the Hnefatafl Text Protocol of the hnefatafl.org
//! family, over stdin and stdout, or (`--host`) as a networked engine of their server. HTP
//! plays Copenhagen; `--rules` picks another ruleset, with squares lettered and numbered to
//! its board size.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;
use tafl_engine::{
    formats::board_record,
    parse_square,
    search::{Clock, Player, ThinkingLimit},
    square_name, with_board, BitSet, Game, Move, Position, Rules, Ruleset, Side, Sq,
};
use tafl_lab::htp::{answer, Framing, Request, Role, COMMANDS};
use tafl_lab::players::{build, Resolved};

/// What `protocol_version` answers: the version of HTP this follows.
const PROTOCOL_VERSION: &str = "1-beta";

/// The port of hnefatafl.org's server, added to a `--host` given without one.
pub const SERVER_PORT: u16 = 49152;

/// Reads HTP commands from stdin until `quit` or the end of input.
pub fn run(rs: &Ruleset, player: &Resolved, seed: u64, framing: Framing, resign: bool) -> Result<(), String> {
    with_board!(rs, B, rules => serve::<B>(rules, player, seed, framing, resign))
}

fn serve<B: BitSet>(
    rules: Rules<B>,
    player: &Resolved,
    seed: u64,
    framing: Framing,
    resign: bool,
) -> Result<(), String> {
    let mut session = Session::new(rules, player, seed, framing, resign)?;
    let mut out = std::io::stdout().lock();
    crate::common::each_line(|line| {
        let (reply, quit) = session.handle(line);
        if let Some(r) = reply {
            out.write_all(r.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("writing stdout: {e}"))?;
        }
        Ok(quit)
    })
}

/// An HTP conversation: one game at a time under fixed rules.
pub struct Session<B: BitSet> {
    rules: Rules<B>,
    game: Game<B>,
    player: Player<B>,
    framing: Framing,
    /// The side that resigned, which ends the game whatever the board says.
    resigned: Option<Side>,
    /// The clock of `time_settings fischer`, as set for each game, and the engine's clock in
    /// the game in hand (HTP sends no times after it, so the engine keeps its own).
    time_control: Option<Clock>,
    clock: Option<Clock>,
    /// The player's own limit, for un-timed games.
    own_limit: ThinkingLimit,
    /// Whether the clock replaces that limit (levels) or only caps it (an explicit spec).
    follow_clock: bool,
    /// Whether `generate_move` resigns once the search proves every move lost.
    resign_when_lost: bool,
}

impl<B: BitSet> Session<B> {
    /// A session with `player` under `rules`, answering with `framing`; with
    /// `resign_when_lost`, `generate_move` answers `play ROLE resigns` once the search proves
    /// that every move loses (before that, a lost side plays the move that resists longest).
    pub fn new(
        rules: Rules<B>,
        player: &Resolved,
        seed: u64,
        framing: Framing,
        resign_when_lost: bool,
    ) -> Result<Session<B>, String> {
        let resolved_follows = player.follow_clock;
        // Which player plays these rules (a level's network, or its fallback) and what
        // evaluates for it.
        eprintln!(
            "htp: rules `{}`: {}; evaluation: {}",
            rules.ruleset.id(),
            player.for_rules(&rules.ruleset).label,
            player.evaluation(&rules.ruleset)
        );
        let player = build(player, seed, &rules).map_err(|e| format!("player {}: {e}", player.label))?;
        Ok(Session {
            game: Game::new(&rules),
            rules,
            own_limit: player.limit,
            follow_clock: resolved_follows,
            player,
            framing,
            resigned: None,
            time_control: None,
            clock: None,
            resign_when_lost,
        })
    }

    /// Handles one line: the answer to print (none for blank and comment lines) and whether
    /// to quit.
    pub fn handle(&mut self, line: &str) -> (Option<String>, bool) {
        match Request::parse(line) {
            Ok(None) => (None, false),
            Err(e) => (Some(answer(&Err(e), self.framing)), false),
            Ok(Some(cmd)) => {
                let quit = cmd == Request::Quit;
                (Some(answer(&self.apply(cmd), self.framing)), quit)
            }
        }
    }

    /// Sets the engine's clock in the game in hand to `remaining` (a host that keeps time
    /// says how much is left); nothing in an un-timed game.
    pub fn set_remaining(&mut self, remaining: Duration) {
        if let Some(c) = &mut self.clock {
            c.remaining = remaining;
        }
    }

    /// Plies played in the game in hand.
    pub fn ply(&self) -> u32 {
        self.game.ply()
    }

    /// Whether the game has ended (by the rules or a resignation).
    pub fn over(&self) -> bool {
        self.resigned.is_some() || self.game.outcome().is_some()
    }

    fn vertex(&self, sq: Sq) -> String {
        square_name(self.rules.n, sq).to_string().to_ascii_uppercase()
    }

    fn square(&self, text: &str) -> Result<Sq, String> {
        parse_square(self.rules.n, &text.to_ascii_lowercase()).map_err(|e| e.to_string())
    }

    fn ongoing(&self) -> Result<Side, String> {
        if let Some(side) = self.resigned {
            return Err(format!("the game is over: the {side} resigned"));
        }
        if let Some(o) = self.game.outcome() {
            return Err(format!("the game is over: {o}"));
        }
        Ok(self.game.position().to_move())
    }

    fn check_turn(&self, role: Role) -> Result<(), String> {
        let to_move = self.ongoing()?;
        if role.side() != to_move {
            return Err(format!(
                "it is the {}'s turn, not the {}'s",
                Role::of(to_move).name(),
                role.name()
            ));
        }
        Ok(())
    }

    /// A new game from the start position, with `first` to move.
    fn new_game(&mut self, first: Side) -> Result<(), String> {
        let start = Position::start(&self.rules);
        let start = if start.to_move() == first {
            start
        } else {
            Position::from_pieces(&self.rules, &start.pieces(), first)?
        };
        self.game = Game::from_position(&self.rules, start);
        self.resigned = None;
        self.clock = self.time_control;
        Ok(())
    }

    /// Plays `mv` for `role`; the squares it captured, the king's included when it ends the
    /// game by capturing him (he stays on the board in the engine's game).
    fn play(&mut self, role: Role, mv: Move) -> Result<Vec<Sq>, String> {
        self.check_turn(role)?;
        self.game.play(&self.rules, mv).map_err(|e| e.to_string())?;
        Ok(self
            .game
            .history()
            .last()
            .map(|p| p.captures())
            .unwrap_or_default())
    }

    /// Chooses and plays a move for the side to move: `play ROLE FROM TO`.
    fn generate(&mut self) -> Result<String, String> {
        let to_move = self.ongoing()?;
        // Under `time_settings fischer` the move is timed by the engine's clock in this game.
        self.player
            .host_clock(self.clock, self.own_limit, self.follow_clock);
        let t0 = std::time::Instant::now();
        let (mv, result) = self
            .player
            .choose(&self.rules, &self.game)
            .ok_or("no legal move")?;
        if let Some(c) = &mut self.clock {
            c.spend(t0.elapsed());
        }
        let proven_lost = result.is_some_and(|r| r.proven == Some(tafl_engine::search::Proven::Loss));
        if self.resign_when_lost && proven_lost {
            self.resigned = Some(to_move);
            return Ok(format!("play {} resigns", Role::of(to_move).name()));
        }
        self.game
            .play(&self.rules, mv)
            .map_err(|e| format!("the engine chose an illegal move: {e}"))?;
        Ok(format!(
            "play {} {} {}",
            Role::of(to_move).name(),
            self.vertex(mv.from),
            self.vertex(mv.to)
        ))
    }

    fn apply(&mut self, cmd: Request) -> Result<String, String> {
        let n = self.rules.n;
        match cmd {
            Request::BoardSize(size) => {
                if size != n {
                    return Err(format!(
                        "board_size {size}: the rules in play are {n}x{n}; start the engine with \
                         --rules for another board"
                    ));
                }
                self.new_game(self.rules.ruleset.file.first)?;
                Ok(String::new())
            }
            Request::FinalStatus => Ok(match (self.resigned, self.game.outcome()) {
                (Some(Side::Attackers), _) => "defender_wins",
                (Some(Side::Defenders), _) => "attacker_wins",
                (None, None) => "ongoing",
                (None, Some(o)) => match o.winner {
                    Some(Side::Attackers) => "attacker_wins",
                    Some(Side::Defenders) => "defender_wins",
                    None => "draw",
                },
            }
            .to_string()),
            Request::FirstMove(role) => {
                self.new_game(role.side())?;
                Ok(String::new())
            }
            // The role is not checked: the move is for the side to move, as theirs is.
            Request::GenerateMove(_) => self.generate(),
            Request::KnownCommand(name) => Ok(COMMANDS.contains(&name.as_str()).to_string()),
            Request::ListCommands => Ok(COMMANDS.join("\n")),
            Request::Name => Ok("tafl".into()),
            Request::Play { role, from, to } => {
                let mv = Move::new(self.square(&from)?, self.square(&to)?);
                let captured = self.play(role, mv)?;
                Ok(captured
                    .into_iter()
                    .map(|s| self.vertex(s))
                    .collect::<Vec<_>>()
                    .join(" "))
            }
            Request::Resign(role) => {
                self.check_turn(role)?;
                self.resigned = Some(role.side());
                Ok(String::new())
            }
            Request::PlayFrom => {
                let to_move = self.ongoing()?;
                let mut froms: Vec<Sq> = self.game.moves(&self.rules).iter().map(|m| m.from).collect();
                froms.sort_unstable();
                froms.dedup();
                let list: Vec<String> = froms.into_iter().map(|s| self.vertex(s)).collect();
                Ok(format!("{} {}", Role::of(to_move).name(), list.join(" ")))
            }
            Request::PlayTo { role, from } => {
                self.check_turn(role)?;
                let from = self.square(&from)?;
                let tos: Vec<String> = self
                    .game
                    .moves(&self.rules)
                    .iter()
                    .filter(|m| m.from == from)
                    .map(|m| self.vertex(m.to))
                    .collect();
                if tos.is_empty() {
                    return Err(format!(
                        "no {} piece can move from {}",
                        role.name(),
                        self.vertex(from)
                    ));
                }
                Ok(tos.join(" "))
            }
            Request::PlayUndo => {
                // A resignation is the last play when there is one.
                if self.resigned.take().is_some() || self.game.undo(&self.rules) {
                    Ok(String::new())
                } else {
                    Err("play_undo: no play to take back".into())
                }
            }
            Request::ProtocolVersion => Ok(PROTOCOL_VERSION.into()),
            Request::Quit => Ok(String::new()),
            Request::ResetBoard => {
                self.new_game(self.rules.ruleset.file.first)?;
                Ok(String::new())
            }
            Request::ShowBoard => {
                let diagram = self.game.diagram(&self.rules, &[]);
                // A blank line would end the answer early.
                let lines: Vec<&str> = diagram.lines().filter(|l| !l.trim().is_empty()).collect();
                Ok(format!("{n}x{n}\n{}", lines.join("\n")))
            }
            Request::ShowBoardOpenTafl => Ok(board_record(&self.rules, &self.game)),
            // As theirs: new time settings start a new game.
            Request::TimeSettings(clock) => {
                self.time_control = clock;
                self.new_game(self.rules.ruleset.file.first)?;
                Ok(String::new())
            }
            Request::Version => Ok(env!("CARGO_PKG_VERSION").into()),
        }
    }

    /// One line from hnefatafl.org's server to a networked engine: the line to send back, if
    /// any. `generate_move` is answered with a bare `play ROLE FROM TO`; `play` is applied and
    /// answered with nothing; anything else is handled as on stdin, its answer kept local
    /// (returned second, for the log). A `play` that does not fit the game in hand but fits a
    /// new one (the server started another game) starts that game.
    pub fn relay(&mut self, line: &str) -> (Option<String>, Option<String>) {
        match Request::parse(line) {
            Ok(Some(Request::GenerateMove(_))) => match self.generate() {
                Ok(play) => (Some(play), None),
                Err(e) => (None, Some(answer(&Err(e), self.framing))),
            },
            Ok(Some(Request::Play { role, from, to })) => {
                let mv = match (self.square(&from), self.square(&to)) {
                    (Ok(f), Ok(t)) => Move::new(f, t),
                    (Err(e), _) | (_, Err(e)) => return (None, Some(answer(&Err(e), self.framing))),
                };
                let result = match self.play(role, mv) {
                    Err(e) if self.game.ply() > 0 || self.over() => {
                        let kept = (self.game.clone(), self.resigned);
                        let first = self.rules.ruleset.file.first;
                        match self.new_game(first).and_then(|()| self.play(role, mv)) {
                            Ok(c) => {
                                eprintln!("htp: a new game begins with {from} {to}");
                                Ok(c)
                            }
                            Err(_) => {
                                (self.game, self.resigned) = kept;
                                Err(e)
                            }
                        }
                    }
                    other => other,
                };
                let text = result.map(|c| {
                    c.into_iter()
                        .map(|s| self.vertex(s))
                        .collect::<Vec<_>>()
                        .join(" ")
                });
                (None, Some(answer(&text, self.framing)))
            }
            _ => (None, self.handle(line).0),
        }
    }
}

/// `--host`: the address to connect to, with hnefatafl.org's port when none is given.
pub fn host_address(host: &str) -> String {
    let has_port = match host.rsplit_once(':') {
        // `[::1]:49152`, `example.org:49152`; a bare IPv6 address has colons but no port.
        Some((h, p)) => p.parse::<u16>().is_ok() && (h.ends_with(']') || !h.contains(':')),
        None => false,
    };
    if has_port {
        host.to_string()
    } else if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{SERVER_PORT}")
    } else {
        format!("{host}:{SERVER_PORT}")
    }
}

/// Connection attempts in a row that may fail before the engine gives up: a connection that
/// cannot be made, or one that ends before a complete exchange.
const CONNECT_ATTEMPTS: u32 = 10;

/// The pause before the next connection after `failures` failed attempts in a row: 0.5 s,
/// doubling up to 32 s.
fn backoff(failures: u32) -> Duration {
    Duration::from_millis(250 << failures.clamp(1, 7))
}

/// Plays as a networked engine of hnefatafl.org's server: connects to `host`, answers the
/// server's `generate_move` lines with bare `play` lines and follows its `play` lines, until
/// the game is over. A dropped connection is made again (with growing pauses, up to
/// [`CONNECT_ATTEMPTS`] failures in a row), keeping the game in hand. A connection counts as
/// a success only once it has carried a complete exchange (a whole line from the server,
/// handled and answered): one that is accepted and then closed, or that sends only part of a
/// line, is a failure like a refused one, so a server that does that is not called forever.
pub fn run_tcp(
    rs: &Ruleset,
    player: &Resolved,
    seed: u64,
    framing: Framing,
    host: &str,
    resign: bool,
) -> Result<(), String> {
    let address = host_address(host);
    with_board!(rs, B, rules => relay::<B>(rules, player, seed, framing, &address, resign))
}

fn relay<B: BitSet>(
    rules: Rules<B>,
    player: &Resolved,
    seed: u64,
    framing: Framing,
    address: &str,
    resign: bool,
) -> Result<(), String> {
    let mut session = Session::new(rules, player, seed, framing, resign)?;
    let mut failures = 0u32;
    loop {
        let why = match TcpStream::connect(address) {
            Ok(stream) => {
                eprintln!("htp: connected to {address}");
                let mut exchanged = false;
                let ended = converse(&mut session, stream, &mut exchanged);
                if exchanged {
                    failures = 0;
                }
                match ended {
                    Ok(true) => return Ok(()),
                    Ok(false) if exchanged => format!("{address} closed the connection"),
                    Ok(false) => format!("{address} closed the connection before a complete exchange"),
                    Err(e) => format!("connection to {address} lost ({e})"),
                }
            }
            Err(e) => format!("cannot connect to {address}: {e}"),
        };
        failures += 1;
        if failures >= CONNECT_ATTEMPTS {
            return Err(format!(
                "--host {address}: {failures} connection attempts in a row failed (refused, or ended before a complete exchange); the last: {why}"
            ));
        }
        let pause = backoff(failures);
        eprintln!("htp: {why}; connecting again in {pause:?}");
        std::thread::sleep(pause);
    }
}

/// One connection: `Ok(true)` when the game is over, `Ok(false)` when the server closed it.
/// `exchanged` is set once a whole, non-blank line from the server has been handled and its
/// answer, if any, sent. A last line cut short by the end of the connection is not acted on.
fn converse<B: BitSet>(
    session: &mut Session<B>,
    stream: TcpStream,
    exchanged: &mut bool,
) -> Result<bool, String> {
    use tafl_engine::input::{printable, read_line_ended, Line, LINE_LIMIT};
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    loop {
        // Lines from the server are bounded as stdin's are (common::each_line).
        let (line, ended) = read_line_ended(&mut reader, LINE_LIMIT).map_err(|e| e.to_string())?;
        if !ended {
            if let Line::Bytes(bytes) = &line {
                let cut = String::from_utf8_lossy(bytes);
                eprintln!(
                    "htp: the connection ended mid-line (`{}`); the part is ignored",
                    printable(&cut, false, 200)
                );
            }
            return Ok(false);
        }
        let line = match line {
            Line::End => return Ok(false),
            Line::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Line::TooLong(bytes) => {
                eprintln!(
                    "htp: a line of {bytes} bytes from the server, more than the {LINE_LIMIT} read of a line; answered as the unknown command `line-too-long`"
                );
                "line-too-long".to_string()
            }
        };
        let (reply, log) = session.relay(&line);
        if let Some(log) = log {
            eprint!("htp: {} -> {log}", printable(line.trim_end(), false, 200));
        }
        if let Some(r) = reply {
            writer
                .write_all(format!("{r}\n").as_bytes())
                .and_then(|()| writer.flush())
                .map_err(|e| e.to_string())?;
        }
        // A blank line is no exchange: a server that sends only those and closes is not
        // called again at once forever.
        *exchanged |= !line.trim().is_empty();
        if session.over() {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(framing: Framing) -> Session<u128> {
        let rules = Rules::new(&Ruleset::builtin("brandubh")).unwrap_or_else(|e| panic!("{e}"));
        let player = tafl_lab::players::resolve("random").unwrap_or_else(|e| panic!("{e}"));
        Session::new(rules, &player, 1, framing, true).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Attackers to move with the king on a4 and both a-file corners open: they can close
    /// only one, so every move loses in two plies.
    fn lost_for_the_attackers(resign: bool) -> Session<u128> {
        let rules = Rules::new(&Ruleset::builtin("brandubh")).unwrap_or_else(|e| panic!("{e}"));
        let player = tafl_lab::players::resolve("mcts:heuristic:400").unwrap_or_else(|e| panic!("{e}"));
        let pos = tafl_engine::Position::from_diagram(
            &rules,
            "
            7 # . . . . . #
            6 . . . . . . .
            5 . . . . . . .
            4 K . . . . . .
            3 . . . . . . .
            2 . . . . . . A
            1 # . . . D . #
              a b c d e f g",
            Side::Attackers,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut s = Session::new(rules, &player, 1, Framing::Htp, resign).unwrap_or_else(|e| panic!("{e}"));
        s.game = Game::from_position(&s.rules, pos);
        s
    }

    #[test]
    fn a_proven_loss_is_resigned_unless_told_to_play_on() {
        let mut s = lost_for_the_attackers(true);
        assert_eq!(say(&mut s, "generate_move attacker"), "= play attacker resigns\n");
        assert_eq!(say(&mut s, "final_status"), "= defender_wins\n");
        let mut s = lost_for_the_attackers(false);
        let answer = say(&mut s, "generate_move attacker");
        assert!(
            answer.starts_with("= play attacker ") && !answer.contains("resigns"),
            "{answer}"
        );
    }

    fn say(s: &mut Session<u128>, line: &str) -> String {
        s.handle(line)
            .0
            .unwrap_or_else(|| panic!("no answer to `{line}`"))
    }

    #[test]
    fn time_settings_fischer_times_the_engines_moves_by_its_own_clock() {
        let rules = Rules::new(&Ruleset::builtin("brandubh")).unwrap_or_else(|e| panic!("{e}"));
        let mut player =
            tafl_lab::players::resolve("mcts:heuristic:3000000").unwrap_or_else(|e| panic!("{e}"));
        // As a level: the clock replaces its budget.
        player.follow_clock = true;
        let mut s = Session::new(rules, &player, 1, Framing::Htp, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(say(&mut s, "time_settings fischer 4000 1"), "= \n");
        // Three million simulations by the spec would take minutes; the clock's share is a
        // small part of 4 s.
        let t0 = std::time::Instant::now();
        assert!(say(&mut s, "generate_move attacker").starts_with("= play attacker "));
        assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
        let c = s.clock.unwrap_or_else(|| panic!("no clock"));
        assert!(
            c.remaining < Duration::from_secs(5) && c.remaining > Duration::from_secs(1),
            "{c:?}"
        );
        assert!(matches!(s.player.limit, ThinkingLimit::Clock { .. }));
        // A new game starts the clock again; un-timed gives the player its own budget back.
        assert_eq!(say(&mut s, "reset_board"), "= \n");
        assert_eq!(s.clock.map(|c| c.remaining), Some(Duration::from_secs(4)));
        assert_eq!(say(&mut s, "time_settings un-timed"), "= \n");
        assert_eq!(s.clock, None);
    }

    #[test]
    fn moves_turns_and_resignation() {
        let mut s = session(Framing::Gtp);
        assert_eq!(
            say(&mut s, "play defender D3 B3"),
            "? it is the attacker's turn, not the defender's\n\n"
        );
        assert_eq!(say(&mut s, "play attacker D1 B1"), "= \n\n");
        assert!(say(&mut s, "play_from").starts_with("= defender "));
        assert!(say(&mut s, "generate_move defender").starts_with("= play defender "));
        assert_eq!(say(&mut s, "final_status"), "= ongoing\n\n");
        assert_eq!(say(&mut s, "play attacker resigns"), "= \n\n");
        assert_eq!(say(&mut s, "final_status"), "= defender_wins\n\n");
        assert!(say(&mut s, "generate_move").starts_with("? the game is over"));
        assert_eq!(say(&mut s, "reset_board"), "= \n\n");
        assert_eq!(say(&mut s, "final_status"), "= ongoing\n\n");
        assert!(say(&mut s, "play attacker Z1 B1").starts_with("? "));
        assert!(s.handle("# nothing").0.is_none());
        assert!(s.handle("quit").1);
    }

    #[test]
    fn generate_move_plays_for_the_side_to_move_whatever_the_role() {
        let mut s = session(Framing::Htp);
        assert!(say(&mut s, "generate_move defender").starts_with("= play attacker "));
        assert!(say(&mut s, "generate_move black").starts_with("= play defender "));
    }

    #[test]
    fn play_undo_first_move_time_settings_and_board_size() {
        let mut s = session(Framing::Htp);
        let start = say(&mut s, "show_board_open_tafl");
        assert_eq!(start, "= /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/\n");
        assert_eq!(say(&mut s, "play_undo"), "? play_undo: no play to take back\n\n");
        assert_eq!(say(&mut s, "play black d1 b1"), "= \n");
        assert_eq!(
            say(&mut s, "show_board_open_tafl"),
            "= /1t5/3t3/3T3/ttTKTtt/3T3/3t3/3t3/\n"
        );
        assert_eq!(say(&mut s, "play_undo"), "= \n");
        assert_eq!(say(&mut s, "show_board_open_tafl"), start);
        assert_eq!(
            say(&mut s, "play white resigns"),
            "? it is the attacker's turn, not the defender's\n\n"
        );
        assert_eq!(say(&mut s, "play attacker resigns"), "= \n");
        assert_eq!(say(&mut s, "play_undo"), "= \n");
        assert_eq!(say(&mut s, "final_status"), "= ongoing\n");
        assert_eq!(say(&mut s, "first_move defender"), "= \n");
        assert!(say(&mut s, "generate_move").starts_with("= play defender "));
        assert_eq!(say(&mut s, "time_settings fischer 15 10"), "= \n");
        assert_eq!(say(&mut s, "show_board_open_tafl"), start);
        assert!(say(&mut s, "generate_move").starts_with("= play attacker "));
        assert!(say(&mut s, "board_size 11").starts_with("? board_size 11: the rules in play are 7x7"));
        assert_eq!(say(&mut s, "board_size 7"), "= \n");
        assert_eq!(say(&mut s, "show_board_open_tafl"), start);
    }

    /// After the king's capture neither board (the diagram, the OpenTafl record) shows him.
    #[test]
    fn a_captured_king_is_off_both_boards() {
        let mut s = session(Framing::Htp);
        let pos =
            tafl_engine::formats::position_from_record(&s.rules, "/4T2/7/7/7/t6/1tKt3/2t4/", Side::Attackers)
                .unwrap_or_else(|e| panic!("{e}"));
        s.game = Game::from_position(&s.rules, pos);
        assert_eq!(say(&mut s, "play attacker a5 c5"), "= C6\n");
        assert_eq!(say(&mut s, "final_status"), "= attacker_wins\n");
        assert_eq!(
            say(&mut s, "show_board_open_tafl"),
            "= /4T2/7/7/7/2t4/1t1t3/2t4/\n"
        );
        let board = say(&mut s, "show_board");
        assert!(!board.contains('K'), "{board}");
    }

    #[test]
    fn host_addresses_get_the_servers_port() {
        assert_eq!(host_address("hnefatafl.org"), "hnefatafl.org:49152");
        assert_eq!(host_address("127.0.0.1:4000"), "127.0.0.1:4000");
        assert_eq!(host_address("::1"), "[::1]:49152");
        assert_eq!(host_address("[::1]:4000"), "[::1]:4000");
    }
}
