//! `tafl engine --protocol htp` driven as hnefatafl.org's programs drive an AI: whole games
//! over the pipes (the engine generates the attackers' moves, the test plays the defenders'
//! with `play`), in their framing and in GTP's, and over TCP as a networked engine of their
//! server, through a dropped connection.

mod cmd;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;
use tafl_engine::{formats::parse_move, Game, Move, Rules, Ruleset, Side};

use cmd::tafl_with as tafl;

/// `from-to` of a move as HTP writes it: `D1 B1`.
fn vertices(rules: &Rules<u128>, mv: Move) -> String {
    mv.text(rules.n).to_uppercase().replace('-', " ")
}

/// The defenders' next move: a reproducible legal one (a linear congruential generator).
fn defenders_move(rules: &Rules<u128>, game: &Game<u128>, state: &mut u64) -> Move {
    let moves = game.moves(rules);
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    moves[((*state >> 33) as usize) % moves.len()]
}

/// Plies after which a game that has not ended is left unfinished (Brandubh ignores
/// repetitions, so two players can go round in circles).
const PLY_LIMIT: u32 = 600;

fn whole_game(gtp: bool) {
    let mut args = vec![
        "engine",
        "--protocol",
        "htp",
        "--rules",
        "brandubh",
        "--player",
        "mcts:uniform:16",
    ];
    if gtp {
        args.extend(["--framing", "gtp"]);
    }
    let mut child = tafl(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tafl engine");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    // These commands answer on one line: then nothing in hnefatafl.org's framing after a
    // success and a blank line after an error; a blank line after every answer in GTP's.
    let mut ask = |command: &str| -> String {
        writeln!(stdin, "{command}").expect("write");
        stdin.flush().expect("flush");
        let answer = lines.next().expect("an answer").expect("text");
        if gtp || answer.starts_with('?') {
            let blank = lines.next().expect("a blank line").expect("text");
            assert_eq!(blank, "", "after `{answer}`");
        }
        answer
    };
    assert_eq!(ask("protocol_version"), "= 1-beta");
    assert_eq!(ask("known_command generate_move"), "= true");
    assert_eq!(ask("known_command genmove"), "= false");
    assert!(ask("fly").starts_with("? unrecognized command"));

    let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).expect("rules");
    let mut game = Game::new(&rules);
    let mut pick = 0x5EED_u64;
    while game.outcome().is_none() {
        if game.position().to_move() == Side::Attackers {
            let answer = ask("generate_move attacker");
            let words: Vec<&str> = answer.split(' ').collect();
            assert_eq!(words[..3], ["=", "play", "attacker"], "{answer}");
            let text = format!("{}-{}", words[3], words[4]).to_ascii_lowercase();
            let (mv, _) = parse_move(rules.n, &text).expect("a move");
            game.play(&rules, mv)
                .unwrap_or_else(|e| panic!("the engine played an illegal move {text}: {e}"));
        } else {
            let mv = defenders_move(&rules, &game, &mut pick);
            game.play(&rules, mv).expect("legal");
            let answer = ask(&format!("play defender {}", vertices(&rules, mv)));
            assert!(answer.starts_with('='), "{answer}");
        }
        if game.ply() >= PLY_LIMIT {
            break;
        }
    }
    let status = ask("final_status");
    let want = match game.outcome().map(|o| o.winner) {
        Some(Some(Side::Attackers)) => "= attacker_wins",
        Some(Some(Side::Defenders)) => "= defender_wins",
        Some(None) => "= draw",
        None => "= ongoing",
    };
    assert_eq!(status, want);
    if game.outcome().is_some() {
        assert!(ask("generate_move").starts_with("? the game is over"));
    }
    assert_eq!(ask("quit"), "= ");
    assert!(child.wait().expect("wait").success());
}

#[test]
fn a_whole_game_through_generate_move_and_play() {
    whole_game(false);
}

#[test]
fn a_whole_game_in_gtp_framing() {
    whole_game(true);
}

/// One connection from the engine, as the server sees it.
struct Conn {
    reader: BufReader<std::net::TcpStream>,
    writer: std::net::TcpStream,
}

impl Conn {
    fn accept(listener: &TcpListener) -> Conn {
        let (stream, _) = listener.accept().expect("the engine connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .expect("timeout");
        Conn {
            writer: stream.try_clone().expect("clone"),
            reader: BufReader::new(stream),
        }
    }

    fn send(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .expect("send to the engine");
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .expect("the engine answers in time");
        assert!(n > 0, "the engine closed the connection");
        line.trim_end_matches('\n').to_string()
    }
}

#[test]
fn a_networked_engine_plays_through_the_servers_relay_and_reconnects() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("address").port();
    let host = format!("127.0.0.1:{port}");
    let mut child = tafl(&[
        "engine",
        "--protocol",
        "htp",
        "--player",
        "mcts:uniform:16",
        "--host",
        &host,
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("run tafl engine");
    // HTP's own game, hnefatafl.org's Copenhagen (the engine's default for HTP): defenders
    // may not repeat a board, and a game undecided after 141 plies is drawn.
    let rules = Rules::<u128>::new(&Ruleset::builtin("copenhagen-hnefatafl-org")).expect("rules");
    let mut game = Game::new(&rules);
    let mut pick = 0x5EED_u64;
    let mut conn = Conn::accept(&listener);
    let mut dropped = false;
    while game.outcome().is_none() {
        if game.ply() == 6 && !dropped {
            // The connection drops mid-game; the engine connects again and plays on from the
            // game it has.
            dropped = true;
            drop(conn);
            conn = Conn::accept(&listener);
        }
        if game.position().to_move() == Side::Attackers {
            // The relay's bare lines; older relays name the side `black`.
            conn.send(if game.ply().is_multiple_of(4) {
                "generate_move"
            } else {
                "generate_move black"
            });
            // Nothing came after our `play`: the next line is this answer, a bare `play`.
            let answer = conn.read();
            let words: Vec<&str> = answer.split(' ').collect();
            assert_eq!(words.len(), 4, "{answer}");
            assert_eq!(words[..2], ["play", "attacker"], "{answer}");
            let text = format!("{}-{}", words[2], words[3]).to_ascii_lowercase();
            let (mv, _) = parse_move(rules.n, &text).expect("a move");
            game.play(&rules, mv)
                .unwrap_or_else(|e| panic!("the engine played an illegal move {text}: {e}"));
        } else {
            let mv = defenders_move(&rules, &game, &mut pick);
            game.play(&rules, mv).expect("legal");
            conn.send(&format!("play defender {}", vertices(&rules, mv)));
        }
        assert!(game.ply() < 2000, "the game should end");
    }
    assert!(dropped, "the game lasted past the dropped connection");
    // The game is over: the engine leaves.
    let status = child.wait().expect("wait");
    let mut diagnostics = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut diagnostics)
        .expect("stderr");
    assert!(status.success(), "{status}\n{diagnostics}");
    assert_eq!(diagnostics.matches("connected to").count(), 2, "{diagnostics}");
    assert!(!diagnostics.contains("a new game begins"), "{diagnostics}");
}

/// A listener that accepts, sends part of a line and closes: each such connection is a
/// failure, the engine backs off between them and gives up after ten in a row (it made dozens
/// a second, for ever).
#[test]
fn connections_ended_before_a_complete_exchange_are_failures_with_back_off() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let host = format!("127.0.0.1:{}", listener.local_addr().expect("address").port());
    let mut child = tafl(&["engine", "--protocol", "htp", "--level", "1", "--host", &host])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tafl engine");
    listener.set_nonblocking(true).expect("non-blocking");
    let t0 = std::time::Instant::now();
    let mut connections = 0;
    while t0.elapsed() < Duration::from_secs(6) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                connections += 1;
                let _ = stream.write_all(b"generate_mo");
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut log).expect("stderr");
    // Pauses of 0.5, 1, 2 and 4 s: at most 4 connections in 6 s (10 or more without them).
    assert!((2..=4).contains(&connections), "{connections} connections\n{log}");
    assert!(log.contains("before a complete exchange"), "{log}");
    assert!(
        !log.contains("unknown command"),
        "the cut line was acted on: {log}"
    );
}

#[test]
fn host_is_for_htp_only() {
    let out = tafl(&["engine", "--protocol", "otep", "--host", "127.0.0.1:1"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--host is for --protocol htp"));
}
