//! The shipped models at work: `checkpoints/<rules>/` built into the binary as
//! `mcts:model=shipped`, the network levels, analysis and hints from the network.

mod cmd;

use cmd::tafl_stdin as tafl;
use std::path::{Path, PathBuf};

#[test]
fn each_shipped_model_analyses_positions_of_its_rules() {
    for rules in ["brandubh", "tablut", "hnefatafl"] {
        let (ok, out, err) = tafl(
            &[
                "analyze",
                "--rules",
                rules,
                "--model",
                "shipped",
                "--simulations",
                "24",
                "--top",
                "3",
            ],
            "",
        );
        assert!(ok, "{rules}: {err}");
        assert!(
            out.contains("model shipped with 24 simulations"),
            "{rules}: {out}"
        );
        let ranked: Vec<&str> = out
            .lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.parse::<u32>().is_ok())
            })
            .filter(|l| l.contains('-') && l.contains('%'))
            .collect();
        assert_eq!(ranked.len(), 3, "{rules}: three ranked moves\n{out}");
    }
}

#[test]
fn no_model_is_offered_for_rules_it_was_not_trained_under() {
    // Fetlar is Hnefatafl's board with other rules: neither 11x11 model may pass.
    let (ok, _, err) = tafl(&["analyze", "--rules", "fetlar", "--model", "shipped"], "");
    assert!(!ok);
    assert!(err.contains("no shipped model for the rules `fetlar`"), "{err}");
    assert!(err.contains("brandubh, copenhagen, hnefatafl, tablut"), "{err}");
    let (ok, _, err) = tafl(
        &[
            "arena",
            "mcts:model=shipped:4",
            "random",
            "--rules",
            "fetlar",
            "--games",
            "2",
        ],
        "",
    );
    assert!(!ok && err.contains("no shipped model"), "{err}");
}

#[test]
fn a_network_level_falls_back_to_its_classic_player_under_rules_with_no_model() {
    // configs/levels.toml: every network level names a fallback, so the levels play any rules.
    let (ok, out, err) = tafl(
        &["arena", "level:3", "random", "--rules", "fetlar", "--games", "2"],
        "",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("no shipped model for `fetlar`: mcts:heuristic:"),
        "the report names what played: {out}"
    );
    // Under rules with a model, the same level is the network.
    let (ok, out, err) = tafl(
        &[
            "arena", "level:3", "random", "--rules", "brandubh", "--games", "2",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("level 3 (mcts:model=shipped:") && !out.contains("no shipped model"),
        "{out}"
    );
}

#[test]
fn the_timed_top_level_searches_with_the_shipped_linear_evaluation_or_falls_back() {
    // Level 6 thinks by time with `mcts:linear=shipped`; a command line's --movetime replaces
    // its second, so that this test stays quick. Under rules with no linear weights shipped it
    // is the hand-written search.
    let play = |rules: &str| {
        let (ok, out, err) = tafl(
            &[
                "arena",
                "level:6",
                "random",
                "--rules",
                rules,
                "--games",
                "2",
                "--movetime",
                "0.02",
                "--ply-limit",
                "30",
            ],
            "",
        );
        assert!(ok, "{rules}: {err}");
        out
    };
    // hnefatafl.org's Copenhagen (what `tafl engine --protocol htp` plays) differs from ours
    // only in what a repetition does: it gets Copenhagen's weights, not the fallback.
    for rules in ["copenhagen", "copenhagen-hnefatafl-org"] {
        let out = play(rules);
        assert!(
            out.contains("level 6 (mcts:linear=shipped") && !out.contains("no shipped model"),
            "{rules}: {out}"
        );
    }
    let out = play("fetlar");
    assert!(
        out.contains("no shipped model for `fetlar`: mcts:heuristic"),
        "{out}"
    );
}

#[test]
fn a_network_level_plays_and_gives_hints() {
    // The AI (level 4: the brandubh network, 200 simulations) opens as the attackers; the
    // human asks the network for a hint, plays it, and quits.
    let (ok, out, err) = tafl(
        &[
            "play",
            "--rules",
            "brandubh",
            "--side",
            "defenders",
            "--level",
            "4",
        ],
        "hint\nquit\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("AI plays"), "{out}");
    assert!(out.contains("hint: "), "{out}");
    let hint = out
        .split("hint: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or("");
    assert!(hint.contains('-'), "a move: {out}");
}

#[test]
fn a_shipped_checkpoint_exports_for_clients() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("checkpoints")
        .join("brandubh");
    let out = std::env::temp_dir().join(format!("tafl-models-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let (ok, _, err) = tafl(
        &["export", dir.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "",
    );
    assert!(ok, "{err}");
    for f in ["model.onnx", "model.safetensors", "manifest.json", "README.md"] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let shipped = std::fs::read(dir.join("model.safetensors")).unwrap();
    assert_eq!(std::fs::read(out.join("model.safetensors")).unwrap(), shipped);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_strength_script_prints_the_table_per_side_with_elo() {
    // checkpoints/measure-strength.sh with the binary under test, 2 games at 8 simulations
    // (the standard table is 200 games at 100), under each rule.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (rule, start) in [
        (
            "suite",
            "--openings checkpoints/openings/brandubh.txt --exploration 0",
        ),
        ("exploration", "--opening-plies 4 --exploration 0.1"),
    ] {
        let out = std::process::Command::new("bash")
            .arg(root.join("checkpoints/measure-strength.sh"))
            .args(["2", "brandubh"])
            .env("TAFL", env!("CARGO_BIN_EXE_tafl"))
            .env("SIMULATIONS", "8")
            .env("RULE", rule)
            .output()
            .expect("run bash");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(
            lines[0].starts_with(
                "| rules | rule | games | A as attackers W-D-L | A as defenders W-D-L | score | Elo"
            ),
            "{stdout}"
        );
        // | brandubh | rule | 2 | w-d-l | w-d-l | score | elo (low .. high) | n / m |
        let cells: Vec<&str> = lines[2].split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 10, "{stdout}");
        assert_eq!(&cells[1..4], &["brandubh", rule, "2"]);
        let wdl = |c: &str| -> Vec<u32> { c.split('-').map(|x| x.parse().unwrap()).collect() };
        let (att, def) = (wdl(cells[4]), wdl(cells[5]));
        assert_eq!(att.iter().sum::<u32>() + def.iter().sum::<u32>(), 2, "{stdout}");
        let score: f64 = cells[6].parse().unwrap();
        assert!((0.0..=1.0).contains(&score), "{stdout}");
        assert!(cells[7].contains("..") && cells[7].contains('('), "{stdout}");
        assert_eq!(cells[8], format!("{} / {}", att[0], def[2]), "{stdout}");
        assert!(
            stdout.contains(
                "tafl arena mcts:model=shipped:8 mcts:heuristic:8 --rules brandubh --games 2 --seed 1"
            ) && stdout.contains(start),
            "the commands: {stdout}"
        );
    }
}

#[test]
fn the_equal_time_script_keeps_finished_pairs_and_totals_them_per_side() {
    // checkpoints/measure-equal-time.sh with the binary under test: 2 pairs at 0.01 s a move
    // from Brandubh's suite, then again over 3 pairs: the first two are kept, not replayed,
    // and the totals cover all three. (Its real use is 50 pairs at 1 s, over several sittings.)
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("equal-time-script");
    let _ = std::fs::remove_dir_all(&out_dir);
    let run = |pairs: &str| {
        let out = std::process::Command::new("bash")
            .arg(root.join("checkpoints/measure-equal-time.sh"))
            .args([pairs, "mcts:heuristic", "greedy", "brandubh"])
            .env("TAFL", env!("CARGO_BIN_EXE_tafl"))
            .env("MOVETIME", "0.01")
            .env("PLY_LIMIT", "60")
            .env("INFERENCE", "burn")
            .env("OUT", &out_dir)
            .output()
            .expect("run bash");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert!(out.status.success(), "{stderr}");
        (stdout, stderr)
    };
    let (stdout, stderr) = run("2");
    assert!(
        stderr.contains("pair 1:") && stderr.contains("pair 2:"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("mcts:heuristic: 4 games; as attackers "),
        "{stdout}"
    );
    assert!(out_dir.join("pair-1.txt").is_file() && out_dir.join("pair-2.txt").is_file());
    // Pair k plays suite position k alone.
    let first = std::fs::read_to_string(out_dir.join("position-1.txt")).unwrap();
    let suite = std::fs::read_to_string(root.join("checkpoints/openings/brandubh.txt")).unwrap();
    let position = first.lines().nth(1).unwrap();
    assert!(suite.lines().any(|l| l == position), "{position}");
    // Each pair's two games are kept as game records, starting from the pair's position.
    for g in ["game-0001.txt", "game-0002.txt"] {
        let text = std::fs::read_to_string(out_dir.join("games-1").join(g)).unwrap();
        assert!(text.contains("[Rules \"brandubh\"]"), "{text}");
        assert!(text.contains("[Position \""), "{text}");
        assert!(text.contains("[Result \""), "{text}");
    }
    let (stdout, stderr) = run("3");
    assert!(
        !stderr.contains("pair 1:") && !stderr.contains("pair 2:"),
        "{stderr}"
    );
    assert!(stderr.contains("pair 3:"), "{stderr}");
    assert!(
        stdout.starts_with("mcts:heuristic: 6 games; as attackers "),
        "{stdout}"
    );
    assert!(stdout.contains("score ") && stdout.contains("(95%: "), "{stdout}");
    let _ = std::fs::remove_dir_all(&out_dir);
}
