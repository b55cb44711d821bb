//! `tafl engine --protocol otep`: our AI as an OpenTafl external engine, over stdin and stdout.
//!
//! [`Session`] turns each line from OpenTafl into replies; [`run`] only moves lines between
//! the pipes. OpenTafl keeps its own game and sends the board after every move, so the session
//! follows the moves it is told and, whenever the board it is sent differs from its own, starts
//! again from that board (losing only the repetition history).

use std::io::Write;
use std::time::{Duration, Instant};
use tafl_engine::{
    formats::{board_record, otn_move_text, parse_move, parse_position_record, pieces_record},
    search::{Evaluator, EvaluatorSpec, Player, PlayerSpec, Search, SearchConfig, ThinkingLimit},
    with_board, BitSet, Game, Move, Piece, Position, Rules, Ruleset, Side, Sq,
};
use tafl_lab::otep::{AnalysisLine, LineError, Message, Reply};
use tafl_lab::players::{build, evaluator, Resolved};

/// Simulations of `analyze` when the playing spec does not search (`random`, `greedy`).
const ANALYSIS_SIMULATIONS: u32 = 800;
/// Simulations between checks of the `analyze` time limit.
const ANALYSIS_CHUNK: u32 = 100;

/// Reads OTEP commands from stdin until `goodbye` or the end of input, answering on stdout.
pub fn run(player: &Resolved, seed: u64) -> Result<(), String> {
    let mut session = Session::new(player.clone(), seed);
    let mut out = std::io::stdout().lock();
    send(&mut out, &[Reply::Hello])?;
    crate::common::each_line(|line| {
        let step = session.handle(line);
        send(&mut out, &step.replies)?;
        Ok(step.goodbye)
    })
}

fn send(out: &mut impl Write, replies: &[Reply]) -> Result<(), String> {
    for r in replies {
        writeln!(out, "{r}").map_err(|e| format!("writing stdout: {e}"))?;
    }
    // OpenTafl waits for each answer: nothing may sit in a buffer.
    out.flush().map_err(|e| format!("writing stdout: {e}"))
}

/// What one line from OpenTafl leads to.
#[derive(Debug, Default)]
pub struct Step {
    /// Lines to send back, in order.
    pub replies: Vec<Reply>,
    /// OpenTafl said `goodbye`: exit.
    pub goodbye: bool,
}

/// An OTEP conversation: the rules in force, the game as we know it and the player.
pub struct Session {
    player: Resolved,
    seed: u64,
    /// `None` until a `rules` command we can play.
    table: Option<Box<dyn Table>>,
    /// Games started so far, so that each game's player gets its own seed.
    games: u64,
    /// The last `clock` OpenTafl sent (it sends one before each `play`).
    clock: Option<tafl_lab::otep::Clock>,
}

impl Session {
    /// A session playing with `player`, seeded.
    pub fn new(player: Resolved, seed: u64) -> Session {
        Session {
            player,
            seed,
            table: None,
            games: 0,
            clock: None,
        }
    }

    /// Handles one line (a trailing newline is ignored). Malformed lines get an `error 0` that
    /// says what was wrong; the session goes on.
    pub fn handle(&mut self, line: &str) -> Step {
        let line = line.trim();
        let mut step = Step::default();
        if line.is_empty() {
            return step;
        }
        let message = match Message::parse(line) {
            Ok(m) => m,
            Err(LineError { critical, message }) => {
                if critical {
                    // Unplayable rules: forget the old ones so nothing is played under them.
                    self.table = None;
                }
                step.replies.push(Reply::Error { critical, message });
                return step;
            }
        };
        match self.apply(message, &mut step) {
            Ok(()) => {}
            Err(Failure { critical, message }) => step.replies.push(Reply::Error { critical, message }),
        }
        step
    }

    fn table(&mut self, command: &str) -> Result<&mut (dyn Table + 'static), Failure> {
        self.table.as_deref_mut().ok_or_else(|| Failure {
            // Without rules OpenTafl would wait for a move forever; a critical error ends it.
            critical: matches!(command, "play" | "analyze"),
            message: format!("{command}: no rules yet; send `rules <rules-string>` first"),
        })
    }

    fn apply(&mut self, message: Message, step: &mut Step) -> Result<(), Failure> {
        match message {
            // Either end may say hello; answering lets a tool check that the engine is alive.
            Message::Hello => step.replies.push(Reply::Hello),
            Message::Goodbye => step.goodbye = true,
            Message::Rules(rs) => {
                self.games += 1;
                let seed = self
                    .seed
                    .wrapping_add(self.games.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                self.table = None;
                self.table = Some(new_table(&rs, &self.player, seed).map_err(Failure::critical)?);
                // Which player plays these rules (a level's network, or its fallback) and what
                // evaluates for it.
                eprintln!(
                    "otep: rules `{}`: {}; evaluation: {}",
                    rs.id(),
                    self.player.for_rules(&rs).label,
                    self.player.evaluation(&rs)
                );
            }
            Message::Position(record) => self
                .table("position")?
                .set_position(&record)
                .map_err(Failure::minor)?,
            Message::Side(side) => self.table("side")?.set_to_move(side).map_err(Failure::minor)?,
            // The clock times the next move (`play`): the time manager spends a share of the
            // side's time left; a bare `clock` (or none) leaves the player's own budget.
            Message::Clock(c) => self.clock = c,
            Message::Play(side) => {
                let clock = self.clock.map(|c| side_clock(&c, side));
                let table = self.table("play")?;
                table.set_clock(clock);
                let (mv, status) = table.choose(side).map_err(Failure::critical)?;
                step.replies.push(Reply::Move(mv));
                if let Some(s) = status {
                    step.replies.push(Reply::Status(s));
                }
            }
            Message::Move(record) => self.table("move")?.accepted(&record).map_err(Failure::minor)?,
            Message::Error(refusal) => {
                eprintln!("otep: OpenTafl refused our move ({refusal:?})");
                self.table("error")?.refused();
            }
            Message::OpponentMove { moves, position } => self
                .table("opponent-move")?
                .opponent_moved(&moves, &position)
                .map_err(Failure::minor)?,
            Message::Analyze { count, seconds } => {
                let limit = Duration::from_secs(u64::from(seconds));
                let lines = self
                    .table("analyze")?
                    .analyze(count.max(1), limit)
                    .map_err(Failure::minor)?;
                step.replies.push(Reply::Analysis(lines));
            }
            Message::Finish(finish) => {
                eprintln!("otep: game over, {finish}");
                if let Some(t) = self.table.as_mut() {
                    t.refused();
                }
            }
        }
        Ok(())
    }
}

/// An error answer: critical ones end the game on OpenTafl's side.
struct Failure {
    critical: bool,
    message: String,
}

impl Failure {
    fn critical(message: String) -> Failure {
        Failure {
            critical: true,
            message,
        }
    }
    fn minor(message: String) -> Failure {
        Failure {
            critical: false,
            message,
        }
    }
}

/// The game under one ruleset, whatever the board's bitset type.
trait Table {
    /// `position`: the board, keeping the side to move.
    fn set_position(&mut self, record: &str) -> Result<(), String>;
    /// `side`: the side to move.
    fn set_to_move(&mut self, side: Side) -> Result<(), String>;
    /// `play`: our move for `side`, and a status line about the search.
    fn choose(&mut self, side: Side) -> Result<(String, Option<String>), String>;
    /// `move`: OpenTafl accepted our move; the board after it.
    fn accepted(&mut self, record: &str) -> Result<(), String>;
    /// `error` or `finish`: forget the move we proposed.
    fn refused(&mut self);
    /// `opponent-move`: the moves made and the board after them.
    fn opponent_moved(&mut self, moves: &[String], record: &str) -> Result<(), String>;
    /// `analyze`: up to `count` moves with their lines and values.
    fn analyze(&mut self, count: usize, limit: Duration) -> Result<Vec<AnalysisLine>, String>;
    /// `clock`: the time the next move may take from (`None`: the player's own budget).
    fn set_clock(&mut self, clock: Option<tafl_engine::search::Clock>);
}

/// `side`'s clock from OpenTafl's `clock` line: its main time left, or in overtime the time
/// left in the current period; no increment (overtime periods are a reserve the manager
/// leaves alone, so main time is spent as if it were all there is).
pub fn side_clock(c: &tafl_lab::otep::Clock, side: Side) -> tafl_engine::search::Clock {
    let t = match side {
        Side::Attackers => c.attackers,
        Side::Defenders => c.defenders,
    };
    tafl_engine::search::Clock {
        remaining: Duration::from_millis(t.millis.min(86_400_000)),
        increment: Duration::ZERO,
    }
}

fn new_table(rs: &Ruleset, player: &Resolved, seed: u64) -> Result<Box<dyn Table>, String> {
    // `with_board!` treats a refused ruleset as a bug; rules from OpenTafl are outside input,
    // so they are checked here first (the widest board type accepts every valid ruleset).
    tafl_engine::Rules::<tafl_engine::Wide>::new(rs).map_err(|e| format!("rules refused: {e}"))?;
    with_board!(rs, B, rules => Board::<B>::new(rules, player, seed).map(|b| Box::new(b) as Box<dyn Table>))
}

struct Board<B: BitSet> {
    rules: Rules<B>,
    game: Game<B>,
    player: Player<B>,
    /// Evaluator and simulations of `analyze`.
    analysis: (EvaluatorSpec, u32),
    evaluator: Option<std::sync::Arc<dyn Evaluator<B>>>,
    seed: u64,
    /// The move we sent and OpenTafl has not yet confirmed.
    pending: Option<Move>,
    /// The player's own limit, for moves with no clock.
    own_limit: ThinkingLimit,
    /// Whether the host's clock replaces that limit (levels) or only caps it.
    follow_clock: bool,
}

impl<B: BitSet> Board<B> {
    fn new(rules: Rules<B>, resolved: &Resolved, seed: u64) -> Result<Board<B>, String> {
        // Analysis searches with the player that plays: a level's fallback under rules with
        // no shipped model.
        let resolved = &resolved.for_rules(&rules.ruleset);
        let player = build(resolved, seed, &rules).map_err(|e| format!("player {}: {e}", resolved.label))?;
        let analysis = match &resolved.spec {
            PlayerSpec::Mcts {
                evaluator,
                simulations,
            } => (evaluator.clone(), *simulations),
            _ => (EvaluatorSpec::Heuristic, ANALYSIS_SIMULATIONS),
        };
        Ok(Board {
            game: Game::new(&rules),
            rules,
            own_limit: player.limit,
            follow_clock: resolved.follow_clock,
            player,
            analysis,
            evaluator: None,
            seed,
            pending: None,
        })
    }

    fn n(&self) -> usize {
        self.rules.n
    }

    fn record(&self) -> String {
        board_record(&self.rules, &self.game)
    }

    /// Starts again from `pieces` with `to_move` to play (no history before it).
    fn restart(&mut self, pieces: &[(Sq, Piece)], to_move: Side) -> Result<(), String> {
        let pos = Position::from_pieces(&self.rules, pieces, to_move)
            .map_err(|e| format!("position refused: {e}"))?;
        self.game = Game::from_position(&self.rules, pos);
        Ok(())
    }

    fn pieces(&self, command: &str, record: &str) -> Result<Vec<(Sq, Piece)>, String> {
        parse_position_record(self.n(), record).map_err(|e| format!("{command}: {e}"))
    }

    /// A move in simple or full OpenTafl notation.
    fn parse_move(&self, text: &str) -> Result<Move, String> {
        let n = self.n();
        let plain = otn_move_text(n, text).map_err(|e| e.to_string())?;
        parse_move(n, &plain).map(|(m, _)| m).map_err(|e| e.to_string())
    }

    /// The side that moves after the piece now on `to` has moved there.
    fn side_after(pieces: &[(Sq, Piece)], to: Sq, otherwise: Side) -> Side {
        match pieces.iter().find(|(s, _)| *s == to) {
            Some((_, Piece::Attacker)) => Side::Defenders,
            Some(_) => Side::Attackers,
            None => otherwise,
        }
    }

    /// `game` with `moves` played, if they are all legal.
    fn after(&self, game: &Game<B>, moves: &[Move]) -> Option<Game<B>> {
        let mut g = game.clone();
        for &m in moves {
            g.play(&self.rules, m).ok()?;
        }
        Some(g)
    }
}

impl<B: BitSet> Table for Board<B> {
    fn set_clock(&mut self, clock: Option<tafl_engine::search::Clock>) {
        self.player.host_clock(clock, self.own_limit, self.follow_clock);
    }

    fn set_position(&mut self, record: &str) -> Result<(), String> {
        let pieces = self.pieces("position", record)?;
        self.pending = None;
        let to_move = self.game.position().to_move();
        self.restart(&pieces, to_move)
    }

    fn set_to_move(&mut self, side: Side) -> Result<(), String> {
        if self.game.position().to_move() != side {
            // The board as the game shows it: a captured king does not come back.
            let pieces = self.game.board();
            self.restart(&pieces, side)?;
        }
        Ok(())
    }

    fn choose(&mut self, side: Side) -> Result<(String, Option<String>), String> {
        self.pending = None;
        self.set_to_move(side)?;
        // OpenTafl may judge a repetition differently; if it asks for a move in a game we
        // think is over, play on from the board alone.
        let game = if self.game.outcome().is_some() {
            Game::from_position(&self.rules, *self.game.position())
        } else {
            self.game.clone()
        };
        let (mv, result) = self
            .player
            .choose(&self.rules, &game)
            .ok_or_else(|| format!("play {side}: no legal move"))?;
        self.pending = Some(mv);
        let n = self.n();
        let status = result.map(|r| {
            format!(
                "tafl: {} for the {side}, value {:+.2}, {} simulations",
                mv.text(n),
                r.value,
                r.simulations
            )
        });
        Ok((mv.text(n), status))
    }

    fn accepted(&mut self, record: &str) -> Result<(), String> {
        let pieces = self.pieces("move", record)?;
        let want = pieces_record(self.n(), &pieces);
        let mover = self.game.position().to_move();
        if let Some(mv) = self.pending.take() {
            if let Some(g) = self.after(&self.game, &[mv]) {
                if board_record(&self.rules, &g) == want || g.outcome().is_some() {
                    self.game = g;
                    return Ok(());
                }
            }
            eprintln!("otep: the board after our move is not ours; following OpenTafl's");
            let to_move = Self::side_after(&pieces, mv.to, mover.opponent());
            return self.restart(&pieces, to_move);
        }
        if self.record() != want {
            eprintln!("otep: `move` without a move of ours; following OpenTafl's board");
            return self.restart(&pieces, mover.opponent());
        }
        Ok(())
    }

    fn refused(&mut self) {
        self.pending = None;
    }

    fn opponent_moved(&mut self, moves: &[String], record: &str) -> Result<(), String> {
        let mvs = moves
            .iter()
            .map(|t| self.parse_move(t))
            .collect::<Result<Vec<Move>, String>>()
            .map_err(|e| format!("opponent-move: {e}"))?;
        let pieces = self.pieces("opponent-move", record)?;
        let want = pieces_record(self.n(), &pieces);
        // OpenTafl may not have confirmed our move before the answer to it arrives.
        let mut bases = Vec::new();
        if let Some(mine) = self.pending.take() {
            if let Some(g) = self.after(&self.game, &[mine]) {
                bases.push(g);
            }
        }
        bases.push(self.game.clone());
        let followed: Vec<Game<B>> = bases.iter().filter_map(|g| self.after(g, &mvs)).collect();
        if let Some(g) = followed.iter().find(|g| board_record(&self.rules, g) == want) {
            self.game = g.clone();
            return Ok(());
        }
        // After refusing our move OpenTafl repeats its last move with the board as it stands.
        if let Some(g) = bases.into_iter().find(|g| board_record(&self.rules, g) == want) {
            self.game = g;
            return Ok(());
        }
        // A final move: OpenTafl may show the end (a captured king) differently.
        if let Some(g) = followed.into_iter().find(|g| g.outcome().is_some()) {
            self.game = g;
            return Ok(());
        }
        eprintln!("otep: opponent-move does not lead to the board sent; following OpenTafl's");
        let fallback = self.game.position().to_move();
        let to_move = match mvs.last() {
            Some(m) => Self::side_after(&pieces, m.to, fallback),
            None => fallback,
        };
        self.restart(&pieces, to_move)
    }

    fn analyze(&mut self, count: usize, limit: Duration) -> Result<Vec<AnalysisLine>, String> {
        let started = Instant::now();
        if let Some(o) = self.game.outcome() {
            return Err(format!("analyze: the game is over ({o})"));
        }
        let n = self.n();
        let (spec, simulations) = self.analysis.clone();
        let eval = match &self.evaluator {
            Some(e) => e.clone(),
            None => {
                let e = evaluator::<B>(&spec, &self.rules)?;
                self.evaluator = Some(e.clone());
                e
            }
        };
        // Search in chunks so that the time limit is kept whatever the simulation budget.
        let chunk = SearchConfig {
            simulations: ANALYSIS_CHUNK.min(simulations),
            ..SearchConfig::default()
        };
        let mut search = Search::new(chunk, &self.game, self.seed ^ u64::from(self.game.ply()));
        let mut result = None;
        while let Some(r) = search.run(&self.rules, eval.as_ref(), 0.0) {
            result = Some(r);
            if search.root_visits() >= simulations || started.elapsed() >= limit {
                break;
            }
        }
        let res = result.ok_or("analyze: no legal move")?;
        let order = res.ranked();
        Ok(order
            .into_iter()
            .take(count)
            .map(|i| {
                let m = &res.moves[i];
                let evaluation = match m.proven {
                    Some(p) => p.value(),
                    None => m.q,
                };
                AnalysisLine {
                    moves: search.line(m.mv).iter().map(|mv| mv.text(n)).collect(),
                    evaluation,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BRANDUBH: &str = "rules dim:7 name:Brandubh atkf:y start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

    fn session() -> Session {
        let player = tafl_lab::players::resolve("mcts:uniform:32").unwrap_or_else(|e| panic!("{e}"));
        Session::new(player, 7)
    }

    fn replies(s: &mut Session, line: &str) -> Vec<String> {
        s.handle(line).replies.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn play_before_rules_is_a_critical_error_naming_the_missing_rules() {
        let mut s = session();
        let r = replies(&mut s, "play attackers");
        assert_eq!(r.len(), 1);
        assert!(r[0].starts_with("error -1 play: no rules yet"), "{r:?}");
        assert!(replies(&mut s, "side attackers")[0].starts_with("error 0 "));
    }

    #[test]
    fn a_clock_times_the_next_move_and_a_bare_clock_gives_the_budget_back() {
        // Three million simulations a move by the spec: minutes a move. With 4 s on the
        // clock, the time manager's share is a small part of it, so the move comes back at
        // once; the bound below is far above that, and far below the spec's budget.
        let mut player =
            tafl_lab::players::resolve("mcts:heuristic:3000000").unwrap_or_else(|e| panic!("{e}"));
        // An explicit spec only has its budget capped by the clock; so does this one, whose
        // budget is far beyond what 4 s allow.
        player.follow_clock = false;
        let mut s = Session::new(player, 7);
        assert!(replies(&mut s, BRANDUBH).is_empty());
        assert!(replies(&mut s, "clock 4000 4000 0 0 0").is_empty());
        let t0 = std::time::Instant::now();
        let r = replies(&mut s, "play attackers");
        assert!(r[0].starts_with("move "), "{r:?}");
        assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
        let c = tafl_lab::otep::Clock {
            attackers: tafl_lab::otep::ClockTime {
                millis: 1500,
                overtime: false,
            },
            defenders: tafl_lab::otep::ClockTime {
                millis: 30_000,
                overtime: true,
            },
            overtime_seconds: 30,
            attacker_overtimes: 0,
            defender_overtimes: 2,
        };
        assert_eq!(
            side_clock(&c, Side::Attackers).remaining,
            Duration::from_millis(1500)
        );
        assert_eq!(side_clock(&c, Side::Defenders).remaining, Duration::from_secs(30));
    }

    #[test]
    fn hello_is_answered_and_goodbye_ends() {
        let mut s = session();
        assert_eq!(replies(&mut s, "hello"), ["hello"]);
        assert!(s.handle("goodbye\n").goodbye);
        assert!(replies(&mut s, "   ").is_empty());
    }

    #[test]
    fn our_move_then_theirs_keeps_the_board_in_step() {
        let mut s = session();
        assert!(replies(&mut s, BRANDUBH).is_empty());
        let r = replies(&mut s, "play attackers");
        let mv = r[0]
            .strip_prefix("move ")
            .unwrap_or_else(|| panic!("{r:?}"))
            .to_string();
        // Play the same move on our own board to know the record OpenTafl would send.
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap_or_else(|e| panic!("{e}"));
        let mut g = Game::new(&rules);
        let (m, _) = parse_move(7, &mv).unwrap_or_else(|e| panic!("{e}"));
        g.play(&rules, m).unwrap_or_else(|e| panic!("{e}"));
        let after = board_record(&rules, &g);
        assert!(replies(&mut s, &format!("move {after}")).is_empty());
        // Now a defender move, then a board that does not follow from it: the engine follows
        // the board it is sent.
        let reply = g.position().moves(&rules)[0];
        g.play(&rules, reply).unwrap_or_else(|e| panic!("{e}"));
        let after = board_record(&rules, &g);
        let line = format!("opponent-move {} {after}", reply.text(7));
        assert!(replies(&mut s, &line).is_empty(), "{line}");
        let r = replies(&mut s, "opponent-move a4-a1 /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/");
        assert!(r.is_empty(), "{r:?}");
        let r = replies(&mut s, "analyze 3 5");
        assert!(r[0].starts_with("analysis 3 "), "{r:?}");
    }

    /// After the king's capture the engine's board has no king: a change of the side to
    /// move does not bring him back to play on, and a board without a king is refused.
    #[test]
    fn a_captured_king_stays_captured() {
        let mut s = session();
        assert!(replies(&mut s, BRANDUBH).is_empty());
        assert!(replies(&mut s, "position /4T2/7/7/7/t6/1tKt3/2t4/").is_empty());
        assert!(replies(&mut s, "side attackers").is_empty());
        let r = replies(&mut s, "opponent-move a5-c5 /4T2/7/7/7/2t4/1t1t3/2t4/");
        assert!(r.is_empty(), "{r:?}");
        assert!(replies(&mut s, "analyze 1 1")[0].contains("the game is over"));
        let r = replies(&mut s, "play attackers");
        assert!(
            r[0].starts_with("error -1 ") && r[0].contains("found none"),
            "{r:?}"
        );
        let r = replies(&mut s, "position /4T2/7/7/7/2t4/1t1t3/2t4/");
        assert!(
            r[0].starts_with("error 0 position refused") && r[0].contains("found none"),
            "{r:?}"
        );
    }

    #[test]
    fn refused_rules_forget_the_old_ones() {
        let mut s = session();
        assert!(replies(&mut s, BRANDUBH).is_empty());
        let r = replies(&mut s, "rules dim:7 ks:m start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/");
        assert!(r[0].starts_with("error -1 rules refused: `ks:m`"), "{r:?}");
        assert!(replies(&mut s, "play attackers")[0].contains("no rules yet"));
    }
}
