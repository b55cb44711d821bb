//! End-to-end tests of `tafl train`: a small run killed with SIGKILL in the middle of an
//! iteration resumes and finishes; damaged replay shards are skipped with a warning; bad
//! configs are refused naming the key.

mod cmd;

use cmd::tafl_command as tafl;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The tiny config with more games, so that self-play lasts long enough to be interrupted.
fn config(dir: &Path) -> PathBuf {
    let text = include_str!("../configs/train/tiny.toml")
        .replace("games_per_iteration = 8", "games_per_iteration = 120")
        .replace("games_per_shard = 2", "games_per_shard = 4");
    let p = dir.join("small.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// `tafl train CONFIG --out RUN --quiet`, to its end.
fn train(cfg: &Path, run: &Path) -> std::process::Output {
    tafl()
        .args([
            "train",
            cfg.to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap()
}

fn state(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap()
}

#[test]
fn a_run_killed_mid_iteration_resumes_and_finishes() {
    let dir = temp_dir("resume");
    let run = dir.join("run");
    let cfg = config(&dir);
    let mut child = tafl()
        .args([
            "train",
            cfg.to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for some self-play shards of the first iteration, then kill -9.
    let marker = run.join("shards/iter-0001/shard-0002.bin");
    let t0 = Instant::now();
    while !marker.exists() && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(marker.exists(), "no shard appeared");
    let before = state(&run);
    assert_eq!(before["iteration"], 1, "killed in the first iteration: {before}");
    assert_eq!(before["phase"], "self_play", "{before}");

    // Damage a shard of the iteration in progress: its games must not count as played, but
    // be played again (a damaged shard of a finished iteration is skipped by the learner with
    // a warning: tests/run_folder.rs).
    let damaged = run.join("shards/iter-0001/shard-0001.bin");
    let bytes = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();

    let out = tafl()
        .args(["train", "--resume", run.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let after = state(&run);
    assert_eq!(after["iteration"], 3, "both iterations done: {after}");
    assert_eq!(after["history"].as_array().unwrap().len(), 2);
    let games = after["history"][0]["selfplay"]["games"].as_u64().unwrap();
    assert_eq!(
        games, 120,
        "the resumed iteration counts the games of the shards written before the kill"
    );
    // Every game counted has its samples in a shard that reads back.
    let mut on_disk = 0u64;
    for e in std::fs::read_dir(run.join("shards/iter-0001")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "bin") {
            let b = std::fs::read(&p).unwrap();
            on_disk += u64::from(u32::from_le_bytes(b[20..24].try_into().unwrap()));
        }
    }
    assert_eq!(
        after["history"][0]["selfplay"]["samples"].as_u64().unwrap(),
        on_disk,
        "the samples counted are the samples kept"
    );
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(
        log.contains("resuming self-play with 4 of 120 games on disk"),
        "{log}"
    );
    assert!(
        log.contains("shard-0001.bin: checksum mismatch")
            && log.contains("self-play resumes with 4 games kept (shard-0001)"),
        "{log}"
    );
    assert!(!log.contains("skipping replay shard"), "{log}");
    assert!(log.contains("iter 2 |"), "{log}");
    for it in 0..=2 {
        assert!(run
            .join(format!("checkpoints/iter-{it:04}/manifest.json"))
            .exists());
    }
    assert!(run.join("checkpoints/iter-0002/optimizer.bin").exists());
    // TensorBoard files are complete records: length, its CRC, data, data CRC.
    let events: Vec<_> = std::fs::read_dir(run.join("events")).unwrap().flatten().collect();
    assert_eq!(events.len(), 2, "one event file per iteration");
    for e in events {
        let b = std::fs::read(e.path()).unwrap();
        assert!(e.file_name().to_string_lossy().contains("tfevents"));
        let mut at = 0;
        let mut records = 0;
        while at < b.len() {
            let len = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
            at += 8 + 4 + len + 4;
            records += 1;
        }
        assert_eq!(at, b.len(), "event file ends on a record boundary");
        assert!(records > 10, "{records} records");
    }
    // The ladder of iteration 2 (the tiny config's) says how it was played and draws the
    // learning curve into the run folder.
    assert!(
        log.contains("ladder, best iter-") && log.contains(", exploration 0: "),
        "{log}"
    );
    let png = std::fs::read(run.join("learning-curve.png")).expect("learning-curve.png");
    assert!(png.len() > 1000 && png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(!run.join(".learning-curve.tmp.png").exists());
    // The trained network plays: as a model player in an arena, refused under other rules.
    let spec = format!("mcts:model={}:4", run.display());
    let out = tafl()
        .args(["arena", &spec, "random", "--rules", "brandubh", "--games", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 games in colour-swapped pairs"));
    let out = tafl()
        .args(["arena", &spec, "random", "--rules", "tablut", "--games", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("trained for ruleset `brandubh`"));
    // A run folder is not started twice.
    let again = train(&cfg, &run);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_teacher_searches_the_first_iterations_and_the_network_the_rest() {
    let dir = temp_dir("teacher");
    let run = dir.join("run");
    let text = format!(
        "{}\n[teacher]\nevaluator = \"heuristic\"\niterations = 1\nsimulations = 16\ngames_per_iteration = 6\n",
        include_str!("../configs/train/tiny.toml")
    );
    let cfg = dir.join("teacher.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = train(&cfg, &run);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let st = state(&run);
    let h = &st["history"];
    assert_eq!(h[0]["teacher"], "heuristic", "{st}");
    assert_eq!(h[0]["selfplay"]["games"], 6, "the teacher's game count: {st}");
    assert!(h[1]["teacher"].is_null(), "iteration 2 is the network's: {st}");
    assert_eq!(h[1]["selfplay"]["games"], 8, "the network's game count: {st}");
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(
        log.contains("iteration 1: self-play searches with the teacher (heuristic, 16 simulations)"),
        "{log}"
    );
    assert!(
        log.contains("iter 1 | self-play 6 games searched by the teacher (heuristic)"),
        "{log}"
    );
    assert!(
        !log.contains("iteration 2: self-play searches with the teacher"),
        "{log}"
    );
    // Both iterations trained a network from those games.
    assert!(run.join("checkpoints/iter-0002/model.safetensors").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_configs_are_refused_naming_the_key() {
    let dir = temp_dir("bad");
    let cases = [
        ("[selfplay]\nsimulations = 0\n", "selfplay.simulations"),
        ("[selfplay]\nsimulatons = 8\n", "simulatons"),
        (
            "[training]\nlearning_rate = [[1, 0.1]]\n",
            "training.learning_rate",
        ),
        (
            "[arena]\nladder_anchors = [\"mcts:nope\"]\n",
            "arena.ladder_anchors",
        ),
        ("[teacher]\niterations = 50\n", "teacher.iterations"),
        ("[teacher]\nevaluator = \"oracle\"\n", "heuristic"),
        ("[teacher]\nsimulations = 0\n", "teacher.simulations"),
    ];
    for (i, (extra, key)) in cases.iter().enumerate() {
        let p = dir.join(format!("bad{i}.toml"));
        std::fs::write(&p, format!("rules = \"brandubh\"\n{extra}")).unwrap();
        let out = tafl()
            .args([
                "train",
                p.to_str().unwrap(),
                "--out",
                dir.join(format!("r{i}")).to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{key}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_diverging_run_stops_before_saving_its_network() {
    // A learning rate far too large makes the loss NaN: the run must stop with an error
    // that says so, save no checkpoint of that iteration and leave a state that resumes.
    let dir = temp_dir("diverge");
    let run = dir.join("run");
    let text = include_str!("../configs/train/tiny.toml")
        .replace("learning_rate = [[0, 0.002]]", "learning_rate = [[0, 1e30]]")
        .replace("steps_per_iteration = 3", "steps_per_iteration = 12");
    let cfg = dir.join("diverge.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = train(&cfg, &run);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a diverging run succeeded: {err}");
    assert!(err.contains("diverged") && err.contains("learning_rate"), "{err}");
    assert!(
        !run.join("checkpoints/iter-0001").exists(),
        "a diverged network was saved"
    );
    let s = state(&run);
    assert_eq!(s["iteration"], 1);
    assert_eq!(s["phase"], "train");
    assert_eq!(s["best"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_suite_start_config_reads_its_training_suite_from_the_repository_root() {
    // configs/train/brandubh-suite.toml names its suite relative to the repository's root,
    // where the README's commands run (and cargo runs this test); the suite must be shipped
    // and made for its rules.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for rules in ["brandubh", "tablut"] {
        let name = format!("{rules}-suite");
        let text = std::fs::read_to_string(root.join(format!("configs/train/{name}.toml"))).unwrap();
        let config = tafl_trainer::TrainConfig::parse(&text, &name).unwrap();
        let suite = format!("configs/train/openings/{rules}-train.txt");
        assert_eq!(config.selfplay.openings.as_deref(), Some(suite.as_str()));
        assert_eq!(config.selfplay.openings_share, 0.5);
        // The suite is there and holds legal positions of the config's rules.
        let loaded = tafl_engine::formats::OpeningSuite::load(&root.join(&suite)).unwrap();
        let r = tafl_engine::Rules::<u128>::new(&tafl_engine::Ruleset::builtin(rules)).unwrap();
        assert!(!loaded.positions(&r).unwrap().is_empty(), "{suite}");
    }
}

#[test]
fn the_first_train_on_a_fresh_machine_installs_the_fast_path() {
    // A fresh machine: the ONNX Runtime environment named is empty, and it is the only place
    // looked.
    let dir = temp_dir("fast-path");
    let venv = dir.join("venv");
    let tiny = format!("{}/configs/train/tiny.toml", env!("CARGO_MANIFEST_DIR"));
    let run = |name: &str, extra: &[&str]| {
        let out = tafl()
            .env("TAFL_ONNX_VENV", &venv)
            .env_remove("ORT_DYLIB_PATH")
            .args([
                "train",
                &tiny,
                "--out",
                dir.join(name).to_str().unwrap(),
                "--quiet",
            ])
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        err
    };
    let err = run("skip", &["--stop-after", "1", "--no-install"]);
    assert!(!err.contains("installing"), "{err}");
    assert!(
        err.contains("the slow path"),
        "burn evaluates, and says so: {err}"
    );
    assert!(!venv.exists());
    let err = run("first", &["--stop-after", "1"]);
    assert!(
        err.contains("installing ONNX Runtime") && err.contains("ONNX Runtime installed"),
        "{err}"
    );
    assert!(
        !err.contains("the slow path"),
        "self-play runs through ONNX Runtime: {err}"
    );
    let err = run("again", &["--stop-after", "0"]);
    assert!(!err.contains("installing"), "once installed, never again: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_shipped_config_parses() {
    // Every file of configs/train, not a list kept by hand (the self-play configs were missing
    // from the list this replaced), read from the repository's root as `tafl train` reads them
    // (their starts and suites are paths from there; integration tests run in it). Each names
    // the rules its file name starts with (`tiny` trains Brandubh).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/train");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let c = tafl_trainer::TrainConfig::parse(&text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let named = if name == "tiny" { "brandubh" } else { name.as_str() };
        assert!(named.starts_with(&c.rules), "{name} trains {}", c.rules);
        c.ruleset().unwrap_or_else(|e| panic!("{name}: {e}"));
        checked += 1;
    }
    assert!(checked >= 17, "only {checked} configs in {}", dir.display());
}
