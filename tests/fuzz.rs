//! Fuzz targets for every parser of outside input: rules TOML, OpenTafl rules strings, `.otg`
//! records, move and position notation, diagrams, game records, CSV records, training configs,
//! levels files, `state.json`, replay shards, manifests, checkpoint weights, the lines of
//! both engine protocols (through the binary), and the JSON bodies of `tafl serve`'s API (over
//! HTTP). A small harness that builds on stable: each
//! target starts from a corpus seeded with the real inputs of the repository, mutates them
//! (bit flips, odd bytes, insertions, deletions, repeats, splices, truncations) with a seeded
//! generator, and fails with the input saved under `target/fuzz-failures/` when a parser
//! panics. Parsers may refuse anything; they must not panic or hang.
//!
//! Each target runs for `TAFL_FUZZ_SECONDS` seconds (1 by default, so `cargo test` stays
//! quick) or `TAFL_FUZZ_CASES` cases, whichever ends first; `TAFL_FUZZ_SEED` changes the
//! inputs. `.ci/run` runs them longer: `TAFL_FUZZ_SECONDS=10 cargo test --release --test fuzz`.

mod server;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tafl_engine::stats::Elo;
use tafl_engine::{
    formats::{
        parse_csv_games, parse_diagram, parse_move, parse_position_record, pieces_record, play_text,
        position_from_record, replay_csv, ruleset_from_opentafl, ruleset_to_opentafl, write_diagram,
        GameRecord, OpeningSuite, OtgRecord,
    },
    rules::{rules_panel, BUILTIN_IDS},
    search::{random_opening, Levels},
    with_board, BitSet, Game, Rules, Ruleset, Side,
};
use tafl_nn::{
    default_device, fnv1a64, load_checkpoint_bytes, weights_from_bytes, weights_to_bytes, Encoder, Manifest,
    NetConfig, Sample,
};
use tafl_trainer::run::{IterationSummary, Phase, RunState};
use tafl_trainer::shard::{parse_shard, write_shard};
use tafl_trainer::TrainConfig;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn env_number(name: &str) -> Option<f64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The budget of one target: (time, cases).
fn budget() -> (Duration, u64) {
    let seconds = env_number("TAFL_FUZZ_SECONDS").unwrap_or(1.0).max(0.0);
    let cases = env_number("TAFL_FUZZ_CASES").map_or(u64::MAX, |c| c as u64);
    (Duration::from_secs_f64(seconds), cases)
}

fn rng(name: &str) -> ChaCha8Rng {
    let seed = env_number("TAFL_FUZZ_SEED").map_or(0, |s| s as u64);
    ChaCha8Rng::seed_from_u64(seed ^ fnv1a64(name.as_bytes()))
}

/// Bytes that parsers of this project treat specially.
const SPECIAL: &[u8] = b"\0\n\r\t \"'[]{}=,.:;/-x#|0123456789KkTtAaDd\xff\xc3\x80\x7f\x1b";

/// One mutation of `input`, sometimes spliced with another corpus entry.
fn mutate(rng: &mut ChaCha8Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = b.len();
        let at = if len == 0 { 0 } else { rng.random_range(0..len) };
        match rng.random_range(0..8) {
            0 if len > 0 => b[at] ^= 1 << rng.random_range(0..8),
            1 if len > 0 => b[at] = SPECIAL[rng.random_range(0..SPECIAL.len())],
            2 => {
                let n = rng.random_range(1..=8);
                for _ in 0..n {
                    let byte = if rng.random_bool(0.5) {
                        SPECIAL[rng.random_range(0..SPECIAL.len())]
                    } else {
                        rng.random()
                    };
                    b.insert(at.min(b.len()), byte);
                }
            }
            3 if len > 0 => {
                let end = (at + rng.random_range(1..=16)).min(len);
                b.drain(at..end);
            }
            4 if len > 0 => {
                // Repeat a slice (long lines, long numbers, many tokens).
                let end = (at + rng.random_range(1..=16)).min(len);
                let piece = b[at..end].to_vec();
                for _ in 0..rng.random_range(1..=64) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            5 if !corpus.is_empty() => {
                let other = &corpus[rng.random_range(0..corpus.len())];
                if !other.is_empty() {
                    let from = rng.random_range(0..other.len());
                    let to = (from + rng.random_range(1..=64)).min(other.len());
                    b.splice(at..at, other[from..to].iter().copied());
                }
            }
            6 if len > 0 => b.truncate(at),
            _ => {
                // A number somewhere: the extremes of the integer types.
                let n: &[u8] = match rng.random_range(0..4) {
                    0 => b"18446744073709551615",
                    1 => b"4294967296",
                    2 => b"-1",
                    _ => b"99999999999999999999999",
                };
                b.splice(at..at, n.iter().copied());
            }
        }
    }
    b
}

/// Runs `target` on every corpus entry, then on mutations of them until the budget is spent.
/// A panic fails the test, with the input saved.
fn fuzz(name: &str, corpus: Vec<Vec<u8>>, target: impl Fn(&[u8])) {
    assert!(!corpus.is_empty(), "{name}: empty corpus");
    let (time, max_cases) = budget();
    let mut rng = rng(name);
    let t0 = Instant::now();
    let mut cases = 0u64;
    let mut next: Option<Vec<u8>> = None;
    loop {
        let input = if (cases as usize) < corpus.len() {
            corpus[cases as usize].clone()
        } else {
            if t0.elapsed() >= time || cases >= max_cases {
                break;
            }
            let base = next
                .take()
                .unwrap_or_else(|| corpus[rng.random_range(0..corpus.len())].clone());
            let m = mutate(&mut rng, &base, &corpus);
            // Now and then keep mutating the mutant: deeper changes.
            if rng.random_bool(0.3) {
                next = Some(m.clone());
            }
            m
        };
        cases += 1;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target(&input)));
        if outcome.is_err() {
            let dir = root().join("target/fuzz-failures");
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("{name}-{:016x}.bin", fnv1a64(&input)));
            let _ = std::fs::write(&file, &input);
            let preview: String = String::from_utf8_lossy(&input).chars().take(300).collect();
            panic!(
                "fuzz target `{name}` panicked on case {cases}; input saved to {}: {preview:?}",
                file.display()
            );
        }
    }
    eprintln!(
        "fuzz {name}: {cases} cases in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    out.sort();
    out.into_iter().map(|(_, b)| b).collect()
}

fn bad_inputs(kind: &str) -> Vec<Vec<u8>> {
    include_str!("../engine/tests/data/bad-inputs.txt")
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(k, _)| *k == kind)
        .map(|(_, t)| t.replace("\\n", "\n").into_bytes())
        .collect()
}

fn csv_lines(n: usize) -> Vec<&'static str> {
    include_str!("data/copenhagen-games.csv")
        .lines()
        .skip(1)
        .take(n)
        .collect()
}

fn rules(id: &str) -> Ruleset {
    Ruleset::builtin(id)
}

/// A few games of each ruleset, from random openings.
fn games<B: BitSet>(r: &Rules<B>, plies: u32) -> Vec<Game<B>> {
    (0..3).map(|s| random_opening(r, plies, s, None)).collect()
}

#[test]
fn fuzz_rules_toml() {
    fuzz("rules-toml", files("configs/rules", "toml"), |b| {
        if let Ok(rs) = Ruleset::from_toml(&text(b), "fuzz.toml") {
            let _ = rules_panel(&rs);
            let again = Ruleset::from_toml(&rs.to_toml(), "round-trip");
            assert!(
                again.is_ok(),
                "a loaded ruleset writes a file that loads: {again:?}"
            );
            let _ = ruleset_from_opentafl(&ruleset_to_opentafl(&rs));
            with_board!(&rs, B, r => { let _ = games::<B>(&r, 4); });
        }
    });
}

#[test]
fn fuzz_opentafl_rules_strings() {
    let corpus = BUILTIN_IDS
        .iter()
        .map(|id| ruleset_to_opentafl(&rules(id)).into_bytes())
        .collect();
    fuzz("opentafl-rules", corpus, |b| {
        if let Ok(rs) = ruleset_from_opentafl(&text(b)) {
            with_board!(&rs, B, r => { let _ = games::<B>(&r, 2); });
        }
    });
}

#[test]
fn fuzz_otg_records() {
    let mut corpus = Vec::new();
    for id in ["brandubh", "copenhagen"] {
        with_board!(&rules(id), B, r => {
            for g in games::<B>(&r, 30) {
                corpus.push(OtgRecord::from_game(&r, &g).to_text().into_bytes());
            }
        });
    }
    let brandubh = Rules::<u128>::new(&rules("brandubh")).unwrap();
    let copenhagen = Rules::<u128>::new(&rules("copenhagen")).unwrap();
    fuzz("otg", corpus, |b| {
        if let Ok(rec) = OtgRecord::parse(&text(b)) {
            let _ = rec.to_text();
            let _ = rec.replay(&brandubh);
            let _ = rec.replay(&copenhagen);
        }
    });
}

#[test]
fn fuzz_move_notation() {
    let mut corpus = bad_inputs("move");
    for line in csv_lines(20) {
        let moves = line.split(',').next().unwrap_or("");
        corpus.extend(moves.split_whitespace().take(20).map(|m| m.as_bytes().to_vec()));
    }
    let copenhagen = Rules::<u128>::new(&rules("copenhagen")).unwrap();
    let start = Game::new(&copenhagen);
    fuzz("moves", corpus, |b| {
        let t = text(b);
        for n in [7, 11, 19] {
            let _ = parse_move(n, &t);
        }
        let mut game = start.clone();
        let _ = play_text(&copenhagen, &mut game, &t);
    });
}

#[test]
fn fuzz_position_records_and_diagrams() {
    let mut corpus = bad_inputs("record");
    for id in BUILTIN_IDS {
        let rs = rules(id);
        corpus.push(pieces_record(rs.size(), &rs.start).into_bytes());
        corpus.push(write_diagram(&rs, &rs.start, &[]).into_bytes());
    }
    let brandubh = Rules::<u128>::new(&rules("brandubh")).unwrap();
    let hnefatafl = Rules::<u128>::new(&rules("hnefatafl")).unwrap();
    fuzz("positions", corpus, |b| {
        let t = text(b);
        for n in [7, 9, 11, 19] {
            let _ = parse_position_record(n, &t);
            let _ = parse_diagram(n, &t);
        }
        for side in [Side::Attackers, Side::Defenders] {
            let _ = position_from_record(&brandubh, &t, side);
            let _ = position_from_record(&hnefatafl, &t, side);
        }
    });
}

#[test]
fn fuzz_game_records() {
    let mut corpus = bad_inputs("game");
    with_board!(&rules("brandubh"), B, r => {
        for g in games::<B>(&r, 25) {
            corpus.push(GameRecord::from_game(&r, &g).to_text().into_bytes());
        }
    });
    let brandubh = Rules::<u128>::new(&rules("brandubh")).unwrap();
    fuzz("game-records", corpus, |b| {
        if let Ok(rec) = GameRecord::parse(&text(b)) {
            let _ = rec.replay(&brandubh);
            let _ = rec.to_text();
        }
    });
}

#[test]
fn fuzz_opening_suites() {
    // The shipped suites (of every ruleset, so each is foreign to the other rules) and a few
    // lines of each, against the parser and the positions check under two rules.
    let mut corpus = files("checkpoints/openings", "txt");
    let short: Vec<Vec<u8>> = corpus
        .iter()
        .map(|f| {
            text(f)
                .lines()
                .filter(|l| !l.starts_with('#'))
                .take(3)
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        })
        .collect();
    corpus.extend(short);
    let brandubh = Rules::<u128>::new(&rules("brandubh")).unwrap();
    let copenhagen = Rules::<u128>::new(&rules("copenhagen")).unwrap();
    fuzz("opening-suites", corpus, |b| {
        if let Ok(suite) = OpeningSuite::parse(&text(b)) {
            let _ = suite.positions(&brandubh);
            let _ = suite.positions(&copenhagen);
            let again = OpeningSuite::parse(&suite.to_text()).expect("a parsed suite reads back");
            assert_eq!(again.entries, suite.entries);
        }
    });
}

#[test]
fn fuzz_csv_records() {
    let lines = csv_lines(40);
    let corpus = lines.chunks(4).map(|c| c.join("\n").into_bytes()).collect();
    let copenhagen = Rules::<u128>::new(&rules("copenhagen")).unwrap();
    fuzz("csv", corpus, |b| {
        let t = text(b);
        let _ = parse_csv_games(11, &t);
        let _ = replay_csv(&copenhagen, &t);
    });
}

#[test]
fn fuzz_training_configs_and_levels() {
    let mut corpus = files("configs/train", "toml");
    corpus.push(std::fs::read(root().join("configs/levels.toml")).unwrap());
    fuzz("configs", corpus, |b| {
        let t = text(b);
        if let Ok(c) = TrainConfig::parse(&t, "fuzz.toml") {
            for it in 0..3 {
                let _ = c.selfplay_at(it);
                let _ = c.learning_rate(it);
            }
        }
        if let Ok(levels) = Levels::parse(&t, "fuzz-levels.toml") {
            for n in 0..8 {
                if let Ok(l) = levels.get(n) {
                    let _ = l.spec();
                    let _ = l.fallback_spec();
                }
            }
        }
    });
}

#[test]
fn fuzz_run_state() {
    let mut history = Vec::new();
    for i in 1..=3 {
        history.push(IterationSummary {
            iteration: i,
            promoted: i != 2,
            arena_elo: Some(Elo {
                elo: 12.0,
                low: -40.0,
                high: 60.0,
            }),
            ladder: vec![("heuristic".to_string(), -10.0, -80.0, 50.0).into()],
            ..Default::default()
        });
    }
    let state = RunState {
        iteration: 4,
        phase: Phase::Train,
        best: 3,
        latest: 3,
        history,
        current: IterationSummary {
            iteration: 4,
            ..Default::default()
        },
        pretrain: None,
    };
    let corpus = vec![
        serde_json::to_string_pretty(&state).unwrap().into_bytes(),
        serde_json::to_string(&state).unwrap().into_bytes(),
    ];
    fuzz("state-json", corpus, |b| {
        if let Ok(s) = serde_json::from_slice::<RunState>(b) {
            let _ = tafl_trainer::integrity::check_state(Path::new("fuzz-run"), &s);
            for it in 0..5 {
                let _ = s.elo_of(it);
            }
        }
    });
}

#[test]
fn fuzz_replay_shards() {
    let rs = rules("brandubh");
    let encoder = Encoder::new(&rs);
    let (input_len, policy_size) = (encoder.input_len(), encoder.policy_size());
    let sample = |k: f32| Sample {
        planes: vec![k; input_len],
        policy: vec![(1, 0.25), (7, 0.75)],
        legal: vec![1, 3, 7],
        wdl: [0.0, 1.0, 0.0],
        moves_left: k,
    };
    let dir = std::env::temp_dir().join(format!("tafl-fuzz-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut corpus = Vec::new();
    for n in [0, 1, 3] {
        let p = dir.join(format!("s{n}.bin"));
        let samples: Vec<Sample> = (0..n).map(|i| sample(i as f32)).collect();
        write_shard(&p, input_len, &samples, None).unwrap();
        corpus.push(std::fs::read(&p).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
    fuzz("shards", corpus, |b| {
        let _ = parse_shard(b, input_len, policy_size);
        // With its checksum made right again, the damage reaches the fields behind it.
        if b.len() >= 8 {
            let mut fixed = b.to_vec();
            let body = fixed.len() - 8;
            let sum = fnv1a64(&fixed[..body]).to_le_bytes();
            fixed[body..].copy_from_slice(&sum);
            let _ = parse_shard(&fixed, input_len, policy_size);
        }
    });
}

#[test]
fn fuzz_manifests_and_checkpoints() {
    let rs = rules("brandubh");
    let config = NetConfig::tiny(rs.size());
    let device = default_device();
    let model = config.init(&device);
    let weights = weights_to_bytes(&model).unwrap();
    let mut manifest = Manifest::new(&rs, &config, 5);
    manifest.weights.bytes = weights.len() as u64;
    manifest.weights.fnv1a64 = format!("{:016x}", fnv1a64(&weights));
    let json = serde_json::to_string_pretty(&manifest).unwrap();
    let origin = Path::new("fuzz-checkpoint");
    fuzz("manifests", vec![json.clone().into_bytes()], |b| {
        if let Ok(m) = serde_json::from_slice::<Manifest>(b) {
            let _ = m.check(&rs);
            let _ = Ruleset::from_file(m.ruleset.clone());
        }
        let _ = load_checkpoint_bytes(&text(b), weights.clone(), &rs, &device, origin);
    });
    // Weights: mostly caught by the size and checksum of the manifest, so also loaded
    // directly into the model, where a parser of safetensors sees them.
    fuzz("checkpoint-weights", vec![weights.clone()], |b| {
        let _ = weights_from_bytes(&config, b.to_vec(), &device, origin);
        let _ = load_checkpoint_bytes(&json, b.to_vec(), &rs, &device, origin);
    });
}

/// Streams mutated protocol lines through `tafl engine` processes (2,000 lines each, as many
/// processes as the budget allows, at least one): each must answer, end cleanly when its input
/// ends, and never panic.
fn fuzz_protocol(name: &str, args: &[&str], corpus: Vec<Vec<u8>>, first: &str) {
    let (time, max_cases) = budget();
    let mut rng = rng(name);
    let t0 = Instant::now();
    let mut lines = 0u64;
    loop {
        let mut input = format!("{first}\n").into_bytes();
        let mut batch = 0;
        while batch < 2000 && lines < max_cases {
            let base = &corpus[lines as usize % corpus.len()];
            let mut line = if (lines as usize) < corpus.len() {
                base.clone()
            } else {
                mutate(&mut rng, base, &corpus)
            };
            // One line per line: a newline inside would only split it.
            line.retain(|&c| c != b'\n');
            lines += 1;
            if line.starts_with(b"quit") || line.starts_with(b"goodbye") {
                continue;
            }
            input.extend_from_slice(&line);
            input.push(b'\n');
            batch += 1;
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !err.contains("panicked"),
            "{name}: {} after {lines} lines (TAFL_FUZZ_SEED to replay): {err}",
            out.status
        );
        assert!(!out.stdout.is_empty(), "{name}: no answer");
        if t0.elapsed() >= time || lines >= max_cases {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {lines} lines in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

#[test]
fn fuzz_otep_lines() {
    let rs = rules("brandubh");
    let rules_line = format!("rules {}", ruleset_to_opentafl(&rs));
    let start = pieces_record(rs.size(), &rs.start);
    let corpus: Vec<Vec<u8>> = [
        "hello".to_string(),
        rules_line.clone(),
        format!("position {start}"),
        "side attackers".into(),
        "play attackers".into(),
        "play defenders".into(),
        format!("move {start}"),
        format!("opponent-move d2-d3 {start}"),
        "error 2".into(),
        "analyze 3 0.05".into(),
        "clock 60 60 0 0 0".into(),
        "finish 0".into(),
        format!("rules {}", ruleset_to_opentafl(&rules("copenhagen"))),
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect();
    fuzz_protocol(
        "otep",
        &["engine", "--protocol", "otep", "--player", "random"],
        corpus,
        &rules_line,
    );
}

#[test]
fn fuzz_htp_lines() {
    let corpus: Vec<Vec<u8>> = [
        "protocol_version",
        "name",
        "version",
        "list_commands",
        "known_command play",
        "play a d2 d3",
        "play attacker D1 D3",
        "play d d3 b3",
        "play_from",
        "play_to a d2",
        "generate_move",
        "generate_move d",
        "show_board",
        "final_status",
        "reset_board",
        "time_settings fischer 60000 1",
        "time_settings un-timed",
        "play d resigns # a comment",
    ]
    .into_iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    fuzz_protocol(
        "htp",
        &[
            "engine",
            "--protocol",
            "htp",
            "--rules",
            "brandubh",
            "--player",
            "random",
        ],
        corpus,
        "protocol_version",
    );
}

/// Mutated JSON bodies posted to every endpoint of `tafl serve` that takes one: each gets an
/// answer (a 2xx, a 4xx with a JSON error, or a 503 with Retry-After), never a 500 or a dropped
/// connection, and the server is still up at the end. Cheap levels keep searches short.
#[test]
fn fuzz_http_api_bodies() {
    let levels = root().join("target/fuzz-serve-levels.toml");
    std::fs::create_dir_all(levels.parent().unwrap()).unwrap();
    std::fs::write(
        &levels,
        "[[level]]\nlevel = 1\nplayer = \"random\"\n\n[[level]]\nlevel = 2\nplayer = \"mcts:heuristic\"\nsimulations = 8\nexploration = 0.5\n",
    )
    .unwrap();
    let mut s = server::Server::start_with_env(
        &[
            "--searches",
            "1",
            "--max-simulations",
            "64",
            "--max-movetime",
            "0.05",
            "--request-timeout",
            "5",
            "--max-moves",
            "400",
        ],
        &[("TAFL_LEVELS", levels.to_str().unwrap())],
    );
    let ot = ruleset_to_opentafl(&rules("brandubh"));
    let start = pieces_record(7, &rules("brandubh").start);
    let corpus: Vec<Vec<u8>> = [
        r#"{"rules":"brandubh","moves":["d1-b1","d3-b3"]}"#.to_string(),
        r#"{"rules":"brandubh","moves":["d1-b1","d3-b3"],"level":2}"#.into(),
        r#"{"rules":"copenhagen","moves":[],"level":1,"seed":18446744073709551615}"#.into(),
        r#"{"rules":"tablut","moves":["e1-e2"],"level":2,"simulations":16,"top":2}"#.into(),
        r#"{"rules":"brandubh","moves":["d2-f2","c4-c6","d7-b7","e4-e2"],"level":2,"movetime":0.01}"#.into(),
        r#"{"rules":"brandubh","position":"/7/7/K6/6t/3T3/7/7/","to_move":"defenders","moves":["a3-a1"]}"#
            .into(),
        format!(r#"{{"rules":"brandubh","position":"{start}","to_move":"attackers","level":2}}"#),
        serde_json::json!({ "rules": ot, "moves": ["d1-b1"], "level": 2 }).to_string(),
        r#"{"rules":"alea-evangelii","level":1}"#.into(),
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect();
    let paths = ["/api/state", "/api/move", "/api/analyze", "/api/rules"];
    let addr = s.addr.clone();
    let case = std::cell::Cell::new(0usize);
    fuzz("http", corpus, |body| {
        let path = paths[case.get() % paths.len()];
        case.set(case.get() + 1);
        let r = server::request(&addr, "POST", path, Some(&text(body)), &[]);
        let ok = r.status < 300 || (400..500).contains(&r.status) || r.status == 503;
        assert!(ok, "{path}: status {} for {}: {}", r.status, text(body), r.body);
        if r.status >= 400 {
            let v: serde_json::Value = serde_json::from_str(&r.body)
                .unwrap_or_else(|e| panic!("{path}: a {} that is not JSON ({e}): {}", r.status, r.body));
            assert!(v["error"].is_string(), "{path}: {}", r.body);
        }
    });
    assert!(s.alive(), "tafl serve stopped during the fuzzing");
    assert_eq!(s.get("/health").status, 200);
}
