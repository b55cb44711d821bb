//! End-to-end tests of `tafl balance --strength-sweep` on a tiny training run (2 iterations of
//! `configs/train/tiny.toml`, about a second): one row per checkpoint, shares and intervals
//! that fit, a PNG, byte-identical outputs across thread counts, clear errors for bad input;
//! and skilled rows played by a trained network (`--skilled mcts:model=RUN:8`).

mod cmd;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cmd::tafl_output as tafl;

fn run_ok(args: &[&str]) -> String {
    let out = tafl(args);
    assert!(
        out.status.success(),
        "tafl {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 table")
}

fn fails_with(args: &[&str], want: &str) {
    let out = tafl(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} was accepted");
    assert!(err.contains(want), "{args:?}: `{err}` lacks `{want}`");
    assert!(!err.contains("panicked"), "{err}");
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("balance-sweep")
}

/// A fresh, empty folder for one test's outputs.
fn out_dir(name: &str) -> PathBuf {
    let dir = root().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The tiny run, trained once for all the tests of this file.
fn tiny_run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let run = out_dir("run");
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/train/tiny.toml");
        run_ok(&[
            "train",
            config.to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ]);
        run
    })
}

fn read_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("balance-vs-strength.json")).expect("json output");
    serde_json::from_str(&text).expect("valid JSON")
}

fn sweep(out: &Path, threads: &str, extra: &[&str]) -> String {
    let run = tiny_run();
    let mut args = vec![
        "balance",
        "--strength-sweep",
        run.to_str().unwrap(),
        "--games",
        "6",
        "--simulations",
        "4",
        "--seed",
        "5",
        "--threads",
        threads,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

const OUTPUTS: [&str; 4] = [
    "balance-vs-strength.md",
    "balance-vs-strength.csv",
    "balance-vs-strength.json",
    "balance-vs-strength.png",
];

#[test]
fn one_row_per_checkpoint_with_shares_inside_their_intervals() {
    let dir = out_dir("rows");
    let table = sweep(&dir, "2", &[]);
    let j = read_json(&dir);
    assert_eq!(j["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(j["complete"], true);
    assert_eq!(j["settings"]["source"], "checkpoints");
    assert_eq!(j["settings"]["rules"], "brandubh");
    assert_eq!(j["settings"]["games"], 6);
    assert_eq!(j["settings"]["simulations"], 4);
    assert_eq!(j["settings"]["seed"], 5);
    assert!(j["command"].as_str().unwrap().contains("--strength-sweep"));
    let points = j["points"].as_array().unwrap();
    let its: Vec<u64> = points.iter().map(|p| p["iteration"].as_u64().unwrap()).collect();
    assert_eq!(its, [0, 1, 2], "one point per checkpoint, in order");
    let steps: Vec<u64> = points
        .iter()
        .map(|p| p["training_step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [0, 3, 6], "tiny.toml trains 3 steps per iteration");
    assert_eq!(points[0]["elo"], 0.0);
    assert_eq!(points[0]["elo_source"], "origin");
    let csv = std::fs::read_to_string(dir.join("balance-vs-strength.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "a header and one line per checkpoint");
    for (i, p) in points.iter().enumerate() {
        let n = |k: &str| p[k].as_u64().unwrap();
        assert_eq!(n("games"), 6);
        assert_eq!(
            n("defender_wins") + n("attacker_wins") + n("draws") + n("no_result"),
            6
        );
        for key in ["defenders_win", "no_result_share"] {
            let s = &p[key];
            let (share, lo, hi) = (
                s["share"].as_f64().unwrap(),
                s["low"].as_f64().unwrap(),
                s["high"].as_f64().unwrap(),
            );
            assert!((0.0..=1.0).contains(&share), "{key} {share}");
            assert!(
                0.0 <= lo && lo <= share && share <= hi && hi <= 1.0,
                "{key}: {lo} {share} {hi}"
            );
        }
        assert_eq!(p["defenders_win"]["count"].as_u64(), Some(n("defender_wins")));
        assert!(p["player"].as_str().unwrap().ends_with(&format!("iter-{i:04}:4")));
        let key = p["point"].as_str().unwrap();
        assert!(
            table.lines().any(|l| l.starts_with(&format!("| {key} "))),
            "{key} missing:\n{table}"
        );
        let fields: Vec<&str> = csv.lines().nth(i + 1).unwrap().split(',').collect();
        assert_eq!((fields[0], fields[1]), (key, i.to_string().as_str()));
    }
    for col in ["Point", "Step", "Elo", "Defenders win", "No result"] {
        assert!(table.contains(col), "{col} missing:\n{table}");
    }
    let md = std::fs::read_to_string(dir.join("balance-vs-strength.md")).unwrap();
    assert_eq!(md, table, "the .md is the printed report");
    let png = std::fs::read(dir.join("balance-vs-strength.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 5_000, "suspiciously small: {} bytes", png.len());
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn outputs_are_byte_identical_whatever_the_thread_count() {
    let (a, b) = (out_dir("threads1"), out_dir("threads2"));
    sweep(&a, "1", &[]);
    sweep(&b, "2", &[]);
    for f in OUTPUTS {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(x == y, "{f} differs between 1 and 2 threads");
    }
}

#[test]
fn every_thins_the_checkpoints_and_keeps_the_last_with_the_same_games() {
    let (all, thin) = (out_dir("all"), out_dir("every"));
    sweep(&all, "2", &[]);
    sweep(&thin, "2", &["--every", "2", "--x", "step"]);
    let j = read_json(&thin);
    assert_eq!(j["settings"]["x_axis"], "step");
    let points = j["points"].as_array().unwrap();
    let its: Vec<u64> = points.iter().map(|p| p["iteration"].as_u64().unwrap()).collect();
    assert_eq!(its, [0, 2]);
    // A point's games depend on the point, not on which others are played.
    let full = read_json(&all);
    for (p, q) in points.iter().zip([&full["points"][0], &full["points"][2]]) {
        for k in [
            "seed",
            "defender_wins",
            "attacker_wins",
            "no_result",
            "total_plies",
        ] {
            assert_eq!(p[k], q[k], "{k}");
        }
        assert_eq!(p["x"].as_f64(), p["training_step"].as_f64());
    }
}

#[test]
fn bad_input_is_a_clear_error_that_writes_nothing() {
    let dir = out_dir("bad");
    let d = dir.to_str().unwrap();
    let run = tiny_run().to_str().unwrap();
    let missing = root().join("no-such-run");
    let missing = missing.to_str().unwrap();
    fails_with(&["balance", "--strength-sweep", missing, "--out", d], missing);
    // A folder that is not a run: the error names it and says what is missing.
    let plain = root().join("plain-folder");
    std::fs::create_dir_all(&plain).unwrap();
    let plain = plain.to_str().unwrap();
    for want in [plain, "not a training run folder", "state.json"] {
        fails_with(&["balance", "--strength-sweep", plain, "--out", d], want);
    }
    let cases: &[(&[&str], &str)] = &[
        (&["--games", "0"], "--games"),
        (&["--every", "0"], "--every"),
        (&["--simulations", "0"], "--simulations"),
        (&["--rules", "tablut"], "trained under `brandubh`"),
        (&["--exploration", "2"], "--exploration"),
        (&["--threads", "0"], "--threads"),
        (&["--skilled", "level:3"], "cannot be used with"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["balance", "--strength-sweep", run, "--out", d];
        args.extend_from_slice(extra);
        fails_with(&args, want);
    }
    fails_with(&["balance", "--strength-sweep", "levels", "--out", d], "--rules");
    fails_with(
        &[
            "balance",
            "--strength-sweep",
            "levels",
            "--rules",
            "brandubh,tablut",
            "--out",
            d,
        ],
        "one ruleset",
    );
    fails_with(
        &[
            "balance",
            "--strength-sweep",
            "levels",
            "--rules",
            "brandubh",
            "--x",
            "elo",
            "--out",
            d,
        ],
        "--x elo",
    );
    fails_with(&["balance", "--games", "3", "--out", d], "--strength-sweep");
    assert!(!dir.exists(), "a refused sweep wrote outputs");
}

#[test]
fn elo_axis_needs_an_elo_for_every_checkpoint() {
    // A copy of the run whose state lost its history: only checkpoint 0 has an Elo.
    let copy = out_dir("no-history");
    copy_dir(tiny_run(), &copy);
    let state_file = copy.join("state.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
    state["history"] = serde_json::json!([]);
    std::fs::write(&state_file, state.to_string()).unwrap();
    let out = out_dir("no-history-out");
    let (c, o) = (copy.to_str().unwrap(), out.to_str().unwrap());
    fails_with(
        &["balance", "--strength-sweep", c, "--x", "elo", "--out", o],
        "iter-0001, iter-0002",
    );
    run_ok(&[
        "balance",
        "--strength-sweep",
        c,
        "--games",
        "2",
        "--every",
        "2",
        "--out",
        o,
    ]);
    let j = read_json(&out);
    assert_eq!(j["settings"]["x_axis"], "iteration", "auto falls back");
    assert_eq!(j["points"][1]["elo"], serde_json::Value::Null);
}

#[test]
fn levels_are_a_sweep_too() {
    let dir = out_dir("levels");
    let table = run_ok(&[
        "balance",
        "--strength-sweep",
        "levels",
        "--rules",
        "brandubh",
        "--games",
        "2",
        "--every",
        "3",
        // The network levels search up to 800 simulations a move: a short game keeps this quick.
        "--ply-limit",
        "12",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let j = read_json(&dir);
    assert_eq!(j["settings"]["x_axis"], "level");
    let levels: Vec<u64> = j["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["level"].as_u64().unwrap())
        .collect();
    // The last is level 6, which thinks a second a move: 12 plies keep it quick too.
    assert_eq!(levels, [1, 4, 6], "one level in 3 from level 1, and the last");
    assert!(
        table.contains("level 4 (mcts:model=shipped:100, 20% random moves)"),
        "{table}"
    );
}

#[test]
fn skilled_rows_can_be_played_by_a_trained_network() {
    let spec = format!("mcts:model={}:8", tiny_run().display());
    let (a, b) = (out_dir("skilled-model-1"), out_dir("skilled-model-2"));
    for (dir, threads) in [(&a, "1"), (&b, "2")] {
        run_ok(&[
            "balance",
            "--rules",
            "brandubh",
            "--random-games",
            "0",
            "--skilled-games",
            "6",
            "--skilled",
            &spec,
            "--threads",
            threads,
            "--out",
            dir.to_str().unwrap(),
        ]);
    }
    let text = std::fs::read_to_string(a.join("balance.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(j["settings"]["skilled_spec"], spec.as_str());
    assert_eq!(j["rows"][0]["play"], "skilled");
    assert_eq!(j["rows"][0]["games"], 6);
    for f in ["balance.md", "balance.csv", "balance.json", "balance.png"] {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
            "{f} differs between 1 and 2 threads"
        );
    }
    // A network is refused under rules it was not trained for, before any game.
    fails_with(
        &[
            "balance",
            "--rules",
            "tablut",
            "--random-games",
            "0",
            "--skilled-games",
            "2",
            "--skilled",
            &spec,
            "--out",
            out_dir("skilled-model-bad").to_str().unwrap(),
        ],
        "trained for ruleset `brandubh`",
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
