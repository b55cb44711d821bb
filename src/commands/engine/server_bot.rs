//! `tafl engine --protocol htp --server HOST`: a bot account on hnefatafl.org's game server.
//! It logs in (creating the account if asked), creates a game and waits for an opponent (or
//! joins a given one), plays it through, and carries on with the next. The game itself is an
//! HTP [`Session`] under the server's rules (`copenhagen-hnefatafl-org` by default): the
//! server's lines become HTP commands, so that the moves, the clock and the rules are those
//! of `tafl engine --protocol htp`. The lines themselves are typed in
//! [`tafl_lab::hnefatafl_server`].

use crate::commands::engine::htp::{host_address, Session};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use tafl_engine::{with_board, BitSet, Rules, Ruleset};
use tafl_lab::hnefatafl_server::{check_account, ClientLine, GameId, ServerLine, TimeControl};
use tafl_lab::htp::{Framing, Role};
use tafl_lab::players::Resolved;

/// Which side the bot asks for in the games it creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideChoice {
    /// Always the attackers.
    Attacker,
    /// Always the defenders.
    Defender,
    /// Attackers, then defenders, and so on.
    Alternate,
}

/// What the bot does on the server.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// `HOST[:PORT]` (port 49152 unless given).
    pub server: String,
    /// Resign once the search proves every move lost.
    pub resign: bool,
    /// The account.
    pub name: String,
    /// Its password.
    pub password: String,
    /// Create the account first (logging in if it exists).
    pub create: bool,
    /// The side asked for in created games.
    pub side: SideChoice,
    /// The clock of created games.
    pub time: TimeControl,
    /// Whether created games are rated.
    pub rated: bool,
    /// Games to play before stopping; `None`: until stopped.
    pub games: Option<u32>,
    /// Join this pending game instead of creating games (and stop after it).
    pub join: Option<GameId>,
}

/// Parses `--time`: `untimed`, or `SECONDS+INCREMENT` (`900+10`: 15 minutes, 10 s a move).
pub fn parse_time(text: &str) -> Result<TimeControl, String> {
    if text == "untimed" || text == "un-timed" {
        return Ok(TimeControl::Untimed);
    }
    let bad = || {
        format!(
            "--time `{}`: give `untimed` or SECONDS+INCREMENT, such as `900+10`",
            tafl_engine::input::quote(text)
        )
    };
    let (base, inc) = text.split_once('+').ok_or_else(bad)?;
    let base: u64 = base.trim().parse().map_err(|_| bad())?;
    let inc: u64 = inc.trim().parse().map_err(|_| bad())?;
    if base == 0 || base > 86_400 || inc > 3_600 {
        return Err(format!(
            "{}: at most a day, and an increment of at most an hour",
            bad()
        ));
    }
    Ok(TimeControl::Fischer {
        milliseconds: base * 1000,
        add_seconds: inc,
    })
}

/// Runs the bot until its games are played (or, without `--games`, until the connection
/// is lost).
pub fn run(rs: &Ruleset, player: &Resolved, seed: u64, opts: &BotOptions) -> Result<(), String> {
    check_account(&opts.name, &opts.password)?;
    with_board!(rs, B, rules => play::<B>(rules, player, seed, opts))
}

/// The connection: typed lines in and out.
struct Connection {
    address: String,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    fn open(address: &str) -> Result<Connection, String> {
        let stream =
            TcpStream::connect(address).map_err(|e| format!("--server {address}: cannot connect: {e}"))?;
        let _ = stream.set_nodelay(true);
        let writer = stream.try_clone().map_err(|e| e.to_string())?;
        Ok(Connection {
            address: address.to_string(),
            reader: BufReader::new(stream),
            writer,
        })
    }

    fn send(&mut self, line: &ClientLine) -> Result<(), String> {
        let text = line.text();
        self.writer
            .write_all(format!("{text}\n").as_bytes())
            .map_err(|e| format!("{}: sending: {e}", self.address))
    }

    /// The next line, typed; an error when the server closed the connection.
    fn next(&mut self) -> Result<ServerLine, String> {
        use tafl_engine::input::{read_line, Line, LINE_LIMIT};
        loop {
            match read_line(&mut self.reader, LINE_LIMIT).map_err(|e| format!("{}: {e}", self.address))? {
                Line::End => return Err(format!("{} closed the connection", self.address)),
                // The server's long lines (lists of games and users) are nothing a bot needs.
                Line::TooLong(_) => continue,
                Line::Bytes(bytes) => return Ok(ServerLine::parse(&String::from_utf8_lossy(&bytes))),
            }
        }
    }

    /// Reads until `want` picks a line out; lines it does not pick are passed over, except
    /// refusals, which end the wait with the server's words.
    fn wait<T>(&mut self, what: &str, mut want: impl FnMut(&ServerLine) -> Option<T>) -> Result<T, String> {
        loop {
            let line = self.next()?;
            if let Some(t) = want(&line) {
                return Ok(t);
            }
            if let ServerLine::Refused(why) = line {
                return Err(format!(
                    "{}: waiting for {what}, the server said: {why}",
                    self.address
                ));
            }
        }
    }
}

fn login(conn: &mut Connection, opts: &BotOptions) -> Result<(), String> {
    let line = |create| ClientLine::Login {
        name: opts.name.clone(),
        password: opts.password.clone(),
        create,
    };
    let attempt = |conn: &mut Connection, create: bool| -> Result<Option<String>, String> {
        conn.send(&line(create))?;
        // A server that says nothing must not hold the bot forever.
        let _ = conn
            .writer
            .set_read_timeout(Some(std::time::Duration::from_secs(60)));
        let answer = loop {
            match conn.next() {
                Ok(ServerLine::LoggedIn) => break Ok(None),
                Ok(ServerLine::LoginRefused(why) | ServerLine::Refused(why)) => break Ok(Some(why)),
                Ok(_) => {}
                Err(e) => {
                    break Err(format!(
                        "logging in: {e} (no answer within 60 s, or the connection closed)"
                    ))
                }
            }
        };
        let _ = conn.writer.set_read_timeout(None);
        answer
    };
    if opts.create {
        match attempt(conn, true)? {
            None => return Ok(()),
            // Taken: the account is ours from an earlier run, or someone else's (then the
            // login below fails and says so). The 6.4.1 server reads the next line of the
            // same connection after a refused `create_account` appended to the refused one,
            // so the login goes over a new connection.
            Some(why) => {
                eprintln!(
                    "server: creating account `{}` refused ({why}); logging in",
                    opts.name
                );
                *conn = Connection::open(&conn.address.clone())?;
            }
        }
    }
    match attempt(conn, false)? {
        None => Ok(()),
        Some(why) => Err(format!(
            "{}: login as `{}` refused: {}",
            conn.address,
            opts.name,
            if why.is_empty() { "no reason given" } else { &why }
        )),
    }
}

fn play<B: BitSet>(rules: Rules<B>, player: &Resolved, seed: u64, opts: &BotOptions) -> Result<(), String> {
    let mut conn = Connection::open(&host_address(&opts.server))?;
    login(&mut conn, opts)?;
    eprintln!("server: logged in to {} as {}", conn.address, opts.name);
    let n = rules.n;
    let mut played = 0u32;
    let (mut won, mut lost, mut drawn) = (0u32, 0u32, 0u32);
    loop {
        if opts.games.is_some_and(|g| played >= g) {
            break;
        }
        let ask = match opts.side {
            SideChoice::Attacker => Role::Attacker,
            SideChoice::Defender => Role::Defender,
            SideChoice::Alternate if played.is_multiple_of(2) => Role::Attacker,
            SideChoice::Alternate => Role::Defender,
        };
        let id = match opts.join {
            Some(id) => {
                conn.send(&ClientLine::JoinPending(id))?;
                conn.wait("the join to be taken", |l| {
                    matches!(l, ServerLine::JoinRequested(g) if *g == id).then_some(())
                })?;
                eprintln!("server: asked to play game {id}; waiting for its creator");
                id
            }
            None => {
                conn.send(&ClientLine::NewGame {
                    role: ask,
                    rated: opts.rated,
                    time: opts.time,
                    size: n,
                })?;
                let id = conn.wait("the new game", |l| match l {
                    ServerLine::GameCreated(g) => Some(*g),
                    _ => None,
                })?;
                eprintln!(
                    "server: created game {id} ({} for us); waiting for an opponent",
                    ask.name()
                );
                conn.wait("an opponent", |l| {
                    matches!(l, ServerLine::ChallengeRequested(g) if *g == id).then_some(())
                })?;
                conn.send(&ClientLine::Accept(id))?;
                id
            }
        };
        let (attacker, defender, time, size) = conn.wait("the game to start", |l| match l {
            ServerLine::GameStarted {
                attacker,
                defender,
                time,
                size,
                ..
            } => Some((attacker.clone(), defender.clone(), *time, *size)),
            _ => None,
        })?;
        if size != n {
            return Err(format!(
                "game {id} is {size}x{size}; the rules in play ({}) are {n}x{n}",
                rules.ruleset.id()
            ));
        }
        let ours = if attacker == opts.name {
            Role::Attacker
        } else if defender == opts.name {
            Role::Defender
        } else {
            return Err(format!(
                "game {id} started between {attacker} and {defender}, not us"
            ));
        };
        let opponent = if ours == Role::Attacker {
            &defender
        } else {
            &attacker
        };
        eprintln!(
            "server: game {id} starts: {} as {} against {opponent}",
            opts.name,
            ours.name()
        );
        let result = play_game(&mut conn, &rules, player, seed ^ id, id, ours, time, opts.resign)?;
        played += 1;
        let said = match result {
            Some(w) if w == ours => {
                won += 1;
                "won"
            }
            Some(_) => {
                lost += 1;
                "lost"
            }
            None => {
                drawn += 1;
                "drawn"
            }
        };
        eprintln!("server: game {id} {said} ({won} won, {drawn} drawn, {lost} lost of {played})");
        if opts.join.is_some() {
            break;
        }
    }
    Ok(())
}

/// One game, from its start to its end as the server says it: the winner, or `None` for a
/// draw.
#[allow(clippy::too_many_arguments)]
fn play_game<B: BitSet>(
    conn: &mut Connection,
    rules: &Rules<B>,
    player: &Resolved,
    seed: u64,
    id: GameId,
    ours: Role,
    time: TimeControl,
    resign: bool,
) -> Result<Option<Role>, String> {
    let mut session = Session::new(rules.clone(), player, seed, Framing::Htp, resign)?;
    let htp = |session: &mut Session<B>, command: &str| -> Result<String, String> {
        let (answer, _) = session.handle(command);
        let answer = answer.unwrap_or_default();
        match answer.trim().strip_prefix('=') {
            Some(ok) => Ok(ok.trim().to_string()),
            None => Err(answer.trim().trim_start_matches('?').trim().to_string()),
        }
    };
    // A new game with the game's clock (HTP's time_settings starts one).
    htp(&mut session, &time.htp_command())?;
    let mut our_move: Option<String> = None;
    loop {
        match conn.next()? {
            ServerLine::Clocks {
                game,
                attacker_ms,
                defender_ms,
            } if game == id => {
                let ms = if ours == Role::Attacker {
                    attacker_ms
                } else {
                    defender_ms
                };
                session.set_remaining(std::time::Duration::from_millis(ms));
            }
            ServerLine::ToMove { game, role } if game == id && role == ours => {
                let answer = match htp(&mut session, "generate_move") {
                    Ok(a) => a,
                    Err(e) => {
                        // Our rules ended the game (or parted from the server's) where the
                        // server plays on: resign it and carry on with the next.
                        eprintln!("server: game {id}: rules differ: the server asks for a move, ours say {e}; resigning");
                        conn.send(&ClientLine::Resign { game: id, role: ours })?;
                        continue;
                    }
                };
                // `play ROLE FROM TO`, squares in upper case; or `play ROLE resigns` once our
                // search proves the game lost.
                let w: Vec<&str> = answer.split_whitespace().collect();
                if w.get(2) == Some(&"resigns") {
                    eprintln!("server: game {id}: every move loses: resigning");
                    conn.send(&ClientLine::Resign { game: id, role: ours })?;
                    continue;
                }
                let [_, _, from, to] = w.as_slice() else {
                    return Err(format!("game {id}: the engine answered `{answer}`"));
                };
                let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
                our_move = Some(format!("{from}-{to}"));
                conn.send(&ClientLine::Play {
                    game: id,
                    role: ours,
                    from,
                    to,
                })?;
            }
            ServerLine::Moved { game, role, from, to } if game == id && role != ours => {
                if let Err(e) = htp(&mut session, &format!("play {} {from} {to}", role.name())) {
                    // The server's rules allowed a move ours do not: the games would part.
                    eprintln!(
                        "server: game {id}: the {}'s {from}-{to} is illegal under {} ({e}); resigning",
                        role.name(),
                        rules.ruleset.id()
                    );
                    conn.send(&ClientLine::Resign { game: id, role: ours })?;
                }
            }
            ServerLine::MoveTaken => our_move = None,
            ServerLine::GameOver { game, winner } if game == id => {
                judge(&mut session, id, Some(winner));
                return Ok(Some(winner));
            }
            ServerLine::Drawn => {
                judge(&mut session, id, None);
                return Ok(None);
            }
            ServerLine::Refused(why) if our_move.is_some() => {
                // Our move refused: the server's rules and ours differ here. Resigning ends
                // the game instead of leaving the opponent waiting.
                eprintln!(
                    "server: game {id}: our {} was refused ({why}); resigning",
                    our_move.take().unwrap_or_default()
                );
                conn.send(&ClientLine::Resign { game: id, role: ours })?;
            }
            _ => {}
        }
    }
}

/// Compares the server's verdict with our rules' (HTP `final_status`) and says where they
/// differ: `rules agree` or `rules differ` on stderr, for the operator and the differential
/// test. A resignation, a flag fall and the server's own judgement that the king cannot
/// escape end games our rules would go on with; those are named as such.
fn judge<B: BitSet>(session: &mut Session<B>, id: GameId, server: Option<Role>) {
    let (ours, _) = session.handle("final_status");
    let ours = ours.unwrap_or_default();
    let ours = ours.trim().trim_start_matches('=').trim();
    let theirs = match server {
        Some(Role::Attacker) => "attacker_wins",
        Some(Role::Defender) => "defender_wins",
        None => "draw",
    };
    let ply = session.ply();
    if ours == theirs {
        eprintln!("server: game {id}: rules agree ({theirs} after {ply} plies)");
    } else {
        let (board, _) = session.handle("show_board_open_tafl");
        let board = board.unwrap_or_default();
        eprintln!(
            "server: game {id}: rules differ: the server says {theirs}, ours {ours} after {ply} plies (position {})",
            board.trim().trim_start_matches('=').trim()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_or_say_what_to_give() {
        assert_eq!(parse_time("untimed").unwrap(), TimeControl::Untimed);
        assert_eq!(
            parse_time("900+10").unwrap(),
            TimeControl::Fischer {
                milliseconds: 900_000,
                add_seconds: 10
            }
        );
        for bad in ["", "900", "x+1", "0+5", "90000000+1", "60+99999"] {
            assert!(parse_time(bad).unwrap_err().contains("--time"), "{bad}");
        }
    }
}
