//! `tafl engine --protocol htp` driven like a hnefatafl.org server drives an AI: the engine
//! generates the attackers' moves, the test plays the defenders' with `play`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use tafl_engine::{parse_move, Game, Rules, Ruleset, Side};

#[test]
fn a_whole_game_through_generate_move_and_play() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args([
            "engine",
            "--protocol",
            "gtp",
            "--rules",
            "brandubh",
            "--player",
            "mcts:uniform:16",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tafl engine");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    // Each answer is one line (these commands answer on one line) and a blank line.
    let mut ask = |command: &str| -> String {
        writeln!(stdin, "{command}").expect("write");
        stdin.flush().expect("flush");
        let answer = lines.next().expect("an answer").expect("text");
        let blank = lines.next().expect("a blank line").expect("text");
        assert_eq!(blank, "", "after `{answer}`");
        answer
    };
    assert_eq!(ask("protocol_version"), "= 1-beta");
    assert_eq!(ask("known_command generate_move"), "= true");
    assert_eq!(ask("known_command genmove"), "= false");
    assert!(ask("fly").starts_with("? unrecognized command"));

    let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).expect("rules");
    let mut game = Game::new(&rules);
    let mut pick = 0usize;
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
            let moves = game.position().moves(&rules);
            pick = (pick * 31 + 7) % moves.len();
            let mv = moves[pick];
            game.play(&rules, mv).expect("legal");
            let (from, to) = mv
                .text(rules.n)
                .split_once('-')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .expect("a-b");
            let answer = ask(&format!("play defender {} {}", from.to_uppercase(), to));
            assert!(answer.starts_with('='), "{answer}");
        }
        assert!(game.ply() < 1000, "the game should end");
    }
    let status = ask("final_status");
    let outcome = game.outcome().expect("over");
    let want = match outcome.winner {
        Some(Side::Attackers) => "= attacker_wins",
        Some(Side::Defenders) => "= defender_wins",
        None => "= draw",
    };
    assert_eq!(status, want, "{outcome}");
    assert!(ask("generate_move").starts_with("? the game is over"));
    assert_eq!(ask("quit"), "= ");
    assert!(child.wait().expect("wait").success());
}
