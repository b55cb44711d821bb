//! `tafl engine --protocol otep` driven as OpenTafl drives an external engine: rules, clock,
//! play, move, opponent-move, analyze, finish and goodbye, over the process's pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;
use tafl_engine::{
    formats::{parse_move, position_record, ruleset_to_opentafl, OtgRecord},
    Game, Rules, Ruleset, Side,
};

/// How long any answer may take; the players here answer in milliseconds.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running engine: its stdin and the lines of its stdout.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Everything the engine wrote to stderr, once it has exited.
    diagnostics: std::thread::JoinHandle<String>,
}

impl Engine {
    fn start(player: &str) -> Engine {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tafl"));
        cmd.args(["engine", "--protocol", "otep", "--player", player, "--seed", "3"]);
        Engine::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> Engine {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run tafl engine");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let diagnostics = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
            text
        });
        // A reader thread, so that a silent engine fails the test instead of hanging it.
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine {
            child,
            stdin,
            lines,
            diagnostics,
        };
        assert_eq!(e.read(), "hello", "the engine greets first");
        e
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to the engine");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> String {
        self.lines
            .recv_timeout(PATIENCE)
            .expect("the engine answers in time")
    }

    /// The next line that is not a `status` line.
    fn answer(&mut self) -> String {
        loop {
            let line = self.read();
            if !line.starts_with("status ") {
                return line;
            }
        }
    }

    /// Sends `goodbye` and checks that the engine exits cleanly with nothing more to say;
    /// returns its diagnostics.
    fn goodbye(mut self) -> String {
        self.send("goodbye");
        let status = self.child.wait().expect("wait for the engine");
        assert!(
            status.success(),
            "the engine exits with 0 after goodbye: {status}"
        );
        let rest: Vec<String> = self.lines.try_iter().collect();
        assert!(rest.iter().all(|l| !l.starts_with("error")), "{rest:?}");
        self.diagnostics.join().expect("stderr reader")
    }
}

fn brandubh() -> (Rules<u128>, String) {
    let rs = Ruleset::builtin("brandubh");
    let text = ruleset_to_opentafl(&rs);
    (Rules::new(&rs).expect("brandubh compiles"), text)
}

/// A reproducible legal move for the side to move: the test's own opponent.
fn our_move(rules: &Rules<u128>, game: &Game<u128>, state: &mut u64) -> tafl_engine::Move {
    let moves = game.moves(rules);
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    moves[((*state >> 33) as usize) % moves.len()]
}

/// Plays one whole game with the engine on `engine_side`. With `full_notation`, our moves go
/// in full OpenTafl notation (`Kd4-d2`, captures `xc2/e2`). With `refuse_once`, OpenTafl's
/// refusal of an engine move is acted out once (`error 2`, the repeated opponent move, `play`).
/// Returns the plies played.
fn whole_game(engine_side: Side, full_notation: bool, refuse_once: bool) -> usize {
    let (_, text) = brandubh();
    whole_game_under(
        &text,
        Engine::start("mcts:uniform:16"),
        engine_side,
        full_notation,
        refuse_once,
    )
}

/// [`whole_game`] under the rules of an OpenTafl rules string, with `engine` as started.
fn whole_game_under(
    text: &str,
    mut engine: Engine,
    engine_side: Side,
    full_notation: bool,
    refuse_once: bool,
) -> usize {
    let rs = tafl_engine::formats::ruleset_from_opentafl(text).expect("rules the engine plays");
    let rules = Rules::<u128>::new(&rs).expect("rules compile");
    engine.send(&format!("rules {text}"));
    let mut game = Game::new(&rules).with_ply_limit(Some(400));
    let mut rng = 0x5EED_u64 + engine_side as u64;
    let mut last_opponent_move: Option<String> = None;
    let mut refused = !refuse_once;
    while game.outcome().is_none() {
        let to_move = game.position().to_move();
        if to_move == engine_side {
            engine.send("clock 300000 300000 30 3 3 ");
            engine.send(&format!("play {to_move}"));
            let line = engine.answer();
            let mv_text = line
                .strip_prefix("move ")
                .unwrap_or_else(|| panic!("expected a move, got `{line}`"));
            let (mv, _) = parse_move(rules.n, mv_text)
                .unwrap_or_else(|e| panic!("the engine's move `{mv_text}` does not parse: {e}"));
            if !refused {
                if let Some(prev) = &last_opponent_move {
                    // OpenTafl's order after a refused move: error, the opponent's move again
                    // with the board as it stands, then play.
                    refused = true;
                    engine.send("error 2");
                    let record = position_record(&rules, game.position());
                    engine.send(&format!("opponent-move {prev} {record}"));
                    continue;
                }
            }
            game.play(&rules, mv)
                .unwrap_or_else(|e| panic!("the engine played an illegal move `{mv_text}`: {e}"));
            engine.send(&format!("move {}", position_record(&rules, game.position())));
        } else {
            let mv = our_move(&rules, &game, &mut rng);
            game.play(&rules, mv).expect("our move is legal");
            let text = if full_notation {
                OtgRecord::from_game(&rules, &game)
                    .moves
                    .pop()
                    .expect("a move was played")
            } else {
                mv.text(rules.n)
            };
            let record = position_record(&rules, game.position());
            engine.send(&format!("opponent-move {text} {record}"));
            last_opponent_move = Some(text);
        }
    }
    let outcome = game.outcome().expect("the game ended");
    let code = match outcome.winner {
        Some(Side::Attackers) => 2,
        Some(Side::Defenders) => 3,
        None if outcome.is_draw() => 1,
        None => 0,
    };
    engine.send(&format!("finish {code}"));
    // The engine is still there after the game: it answers a hello.
    engine.send("hello");
    assert_eq!(engine.answer(), "hello");
    let diagnostics = engine.goodbye();
    // The engine followed every move itself: it never had to start again from a board.
    assert!(!diagnostics.contains("following OpenTafl"), "{diagnostics}");
    eprintln!("{engine_side}: {outcome} after {} plies", game.ply());
    game.ply() as usize
}

#[test]
fn a_whole_game_as_the_attackers() {
    assert!(whole_game(Side::Attackers, false, false) >= 2);
}

#[test]
fn a_whole_game_as_the_defenders_in_full_notation_with_a_refused_move() {
    assert!(whole_game(Side::Defenders, true, true) >= 2);
}

#[test]
fn whole_games_under_opentafls_variants_and_our_exported_tablut() {
    // OpenTafl's Fetlar and Sea Battle, as it sends them (with `nj:n cj:n`), against a search
    // player; our Tablut exported and sent back, against level 3 and its network.
    let fetlar = "dim:11 name:Fetlar atkf:y nj:n cj:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";
    let sea = "dim:9 name:Sea_Battle esc:e atkf:y ka:n nj:n cj:n cor: cen: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
    assert!(
        whole_game_under(
            fetlar,
            Engine::start("mcts:uniform:16"),
            Side::Attackers,
            false,
            false
        ) >= 2
    );
    assert!(
        whole_game_under(
            sea,
            Engine::start("mcts:uniform:16"),
            Side::Defenders,
            true,
            false
        ) >= 2
    );
    let tablut = ruleset_to_opentafl(&Ruleset::builtin("tablut"));
    assert!(whole_game_under(&tablut, Engine::at_level(3, None), Side::Attackers, false, false) >= 2);
}

#[test]
fn malformed_lines_get_an_error_and_the_engine_keeps_running() {
    let (_, text) = brandubh();
    let mut engine = Engine::start("random");
    for (line, needle) in [
        ("fly to-the-moon", "unknown command `fly`"),
        ("play", "the side is missing"),
        ("play kings", "`kings` is not a side"),
        ("analyze many 3", "`many` is not a number"),
        ("opponent-move d1-b1", "opponent-move"),
        ("position 3t3", "not a position record"),
        ("play attackers", "no rules yet"),
    ] {
        engine.send(line);
        let answer = engine.answer();
        assert!(answer.starts_with("error "), "`{line}` gave `{answer}`");
        assert!(answer.contains(needle), "`{line}` gave `{answer}`");
    }
    engine.send(&format!("rules {text}"));
    // Bad moves and boards under rules in force are named too.
    for (line, needle) in [
        ("opponent-move z9-b1 /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "z9"),
        ("opponent-move d1-b1 /3t3/3t3/3T3/ttTKTtt/3T3/3t3/", "rows"),
        ("position /3t3/3t3/3T3/ttTTTtt/3T3/3t3/3t3/", "king"),
        ("position /3t3/", "rows"),
    ] {
        engine.send(line);
        let answer = engine.answer();
        assert!(answer.starts_with("error 0 "), "`{line}` gave `{answer}`");
        assert!(answer.contains(needle), "`{line}` gave `{answer}`");
    }
    // Bytes that are not text are an error, not the end.
    engine.stdin.write_all(b"pl\xffay attackers\n").expect("write");
    assert!(engine.answer().starts_with("error 0 unknown command"));
    engine.send("play attackers");
    let answer = engine.answer();
    assert!(answer.starts_with("move "), "{answer}");
    engine.goodbye();
}

#[test]
fn unsupported_rules_are_refused_by_name() {
    let mut engine = Engine::start("random");
    for (entry, why) in [
        ("ber:c", "berserk"),
        ("kj:r", "jumps"),
        ("ks:m", "middleweight"),
        ("spd:2", "speed limits"),
    ] {
        engine.send(&format!(
            "rules dim:7 {entry} start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
        ));
        let answer = engine.answer();
        assert!(answer.starts_with("error -1 rules refused"), "{answer}");
        assert!(
            answer.contains(entry) && answer.contains(why),
            "{entry}: {answer}"
        );
    }
    // Knights in the start position are named as well.
    engine.send("rules dim:7 start:/3t3/3t3/3T3/ttNKTtt/3T3/3t3/3t3/");
    let answer = engine.answer();
    assert!(answer.contains("knights"), "{answer}");
    // No game is played under refused rules.
    engine.send("play attackers");
    assert!(engine.answer().contains("no rules yet"));
    engine.goodbye();
}

#[test]
fn analysis_lists_legal_lines_with_evaluations() {
    let (rules, text) = brandubh();
    let mut engine = Engine::start("mcts:uniform:64");
    engine.send(&format!("rules {text}"));
    // As for an analysis engine: a position, the side to move, a clock, then analyze.
    let mut game = Game::new(&rules);
    let first = game.moves(&rules)[0];
    game.play(&rules, first).expect("legal");
    engine.send(&format!("position {}", position_record(&rules, game.position())));
    engine.send("side defenders");
    engine.send("clock 60000 60000 0 0 0 ");
    engine.send("analyze 3 10");
    let answer = engine.answer();
    let parts: Vec<&str> = answer.split(' ').collect();
    assert_eq!(parts[0], "analysis", "{answer}");
    let count: usize = parts[1].parse().expect("a count");
    assert!((1..=3).contains(&count), "{answer}");
    assert_eq!(parts.len(), 2 + 2 * count, "{answer}");
    for pair in parts[2..].chunks(2) {
        let mut g = game.clone();
        for m in pair[0].split('|') {
            let (mv, _) = parse_move(rules.n, m).expect("a move");
            g.play(&rules, mv)
                .unwrap_or_else(|e| panic!("line {}: {e}", pair[0]));
        }
        let value: f32 = pair[1].parse().expect("an evaluation");
        assert!((-1.0..=1.0).contains(&value), "{answer}");
    }
    engine.goodbye();
}

impl Engine {
    /// An engine at AI level `level`, with a levels file of the site's own when given.
    fn at_level(level: u32, levels_file: Option<&std::path::Path>) -> Engine {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tafl"));
        cmd.args([
            "engine",
            "--protocol",
            "otep",
            "--level",
            &level.to_string(),
            "--seed",
            "5",
        ]);
        if let Some(f) = levels_file {
            cmd.env("TAFL_LEVELS", f);
        }
        Engine::spawn(cmd)
    }

    /// Sends `rules` and asks for a move for the side that moves first; the answer must be a
    /// move (a `status` line may come before the next command's answer).
    fn plays(&mut self, rules: &str, first: Side) {
        self.send(&format!("rules {rules}"));
        self.send(&format!("play {first}"));
        let answer = self.answer();
        assert!(answer.starts_with("move "), "{rules}: {answer}");
        self.send("finish 0");
    }
}

/// OpenTafl's own Tablut and Brandub: their names are those of shipped networks, their games
/// are not (edge escape, a weak king, ...).
const OPENTAFL_TABLUT: &str = "dim:9 name:Tablut esc:e atkf:y ks:c nj:n cor: cens: cenh: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
const OPENTAFL_BRANDUB: &str =
    "dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

#[test]
fn a_network_plays_the_game_it_was_trained_for_however_the_rules_spell_it() {
    for level in 3..=5 {
        let mut engine = Engine::at_level(level, None);
        for id in ["brandubh", "tablut", "hnefatafl"] {
            let ours = ruleset_to_opentafl(&Ruleset::builtin(id));
            // Our export; as OpenTafl keeps it (without our `tafl-*` entries); renamed.
            let kept = ours.replace(&format!(" tafl-id:{id}"), "");
            let renamed = kept.replacen("name:", "name:My_", 1);
            for text in [&ours, &kept, &renamed] {
                engine.plays(text, Side::Attackers);
            }
        }
        let diagnostics = engine.goodbye();
        let games: Vec<&str> = diagnostics
            .lines()
            .filter(|l| l.starts_with("otep: rules"))
            .collect();
        assert_eq!(games.len(), 9, "{diagnostics}");
        for g in games {
            assert!(g.contains(&format!("level {level} (mcts:model=shipped")), "{g}");
            assert!(!g.contains("no shipped model"), "{g}");
        }
    }
}

#[test]
fn rules_no_network_fits_play_the_levels_fallback() {
    let fetlar = ruleset_to_opentafl(&Ruleset::builtin("fetlar"));
    for level in 3..=5 {
        let mut engine = Engine::at_level(level, None);
        for text in [OPENTAFL_TABLUT, fetlar.as_str()] {
            engine.plays(text, Side::Attackers);
        }
        let diagnostics = engine.goodbye();
        let games: Vec<&str> = diagnostics
            .lines()
            .filter(|l| l.starts_with("otep: rules"))
            .collect();
        assert_eq!(games.len(), 2, "{diagnostics}");
        for g in games {
            assert!(
                g.contains("no shipped model") && g.contains("mcts:heuristic"),
                "{g}"
            );
        }
        // OpenTafl's own Brandub is another game, but the Brandubh network was measured on it
        // and is offered for it (models/src/shipped.rs, OTHER_GAMES).
        let mut engine = Engine::at_level(level, None);
        engine.plays(OPENTAFL_BRANDUB, Side::Attackers);
        let diagnostics = engine.goodbye();
        let game = diagnostics
            .lines()
            .find(|l| l.starts_with("otep: rules"))
            .unwrap_or_else(|| panic!("{diagnostics}"));
        assert!(
            game.contains("mcts:model=shipped") && !game.contains("no shipped model"),
            "{game}"
        );
    }
    // A site's levels file whose network level names no fallback still plays: the
    // hand-written search with the level's simulations.
    let dir = std::env::temp_dir().join(format!("tafl-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    let levels = dir.join("levels.toml");
    std::fs::write(
        &levels,
        "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 20\n",
    )
    .expect("write");
    let mut engine = Engine::at_level(1, Some(&levels));
    engine.plays(&fetlar, Side::Attackers);
    let diagnostics = engine.goodbye();
    assert!(diagnostics.contains("mcts:heuristic:20"), "{diagnostics}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// OpenTafl sends a game's start position inside its rules: a game of Copenhagen from another
/// start (here four plies in) is still Copenhagen to the networks and the linear evaluations,
/// and OpenTafl's Brandub from another start still gets the Brandubh ones; the log says which
/// evaluation plays.
#[test]
fn a_hosts_own_start_keeps_the_learned_players() {
    let copenhagen_later = "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t3t1/6T4/2t2T4t/t3TT4t/tt2TKTT2t/t3TTT3t/t2T1T4t/11/5t5/3ttttt3/";
    let brandub_later = OPENTAFL_BRANDUB.replace("start:/3t3/", "start:/2t4/");
    for (level, learned) in [(6, "the shipped linear evaluation"), (4, "the shipped network")] {
        let mut engine = Engine::at_level(level, None);
        engine.plays(copenhagen_later, Side::Attackers);
        engine.plays(&brandub_later, Side::Attackers);
        let diagnostics = engine.goodbye();
        let games: Vec<&str> = diagnostics
            .lines()
            .filter(|l| l.starts_with("otep: rules"))
            .collect();
        assert_eq!(games.len(), 2, "{diagnostics}");
        for (g, name) in games.iter().zip(["copenhagen", "brandubh"]) {
            assert!(!g.contains("no shipped model"), "{g}");
            assert!(g.contains(&format!("evaluation: {learned} `{name}`")), "{g}");
        }
        assert!(
            games[0].contains("but for what a repetition does"),
            "{}",
            games[0]
        );
        assert!(games[1].contains("measured to play this one"), "{}", games[1]);
    }
}

#[test]
fn analysis_searches_with_the_player_that_plays_at_every_level() {
    let copenhagen = ruleset_to_opentafl(&Ruleset::builtin("copenhagen"));
    let tablut = ruleset_to_opentafl(&Ruleset::builtin("tablut"));
    for level in 1..=5 {
        let mut engine = Engine::at_level(level, None);
        for text in [copenhagen.as_str(), OPENTAFL_TABLUT, tablut.as_str()] {
            engine.send(&format!("rules {text}"));
            engine.send("analyze 2 5");
            let answer = engine.answer();
            assert!(answer.starts_with("analysis "), "level {level}, {text}: {answer}");
        }
        engine.goodbye();
    }
}
