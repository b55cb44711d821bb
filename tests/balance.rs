//! End-to-end tests of `tafl balance`: table arithmetic, reproducibility across thread counts,
//! the `--set` parser, before/after, the picture and `Ctrl-C`.

mod cmd;

use std::path::{Path, PathBuf};
use std::process::Command;
use tafl_engine::stats::{wilson, Z95};

use cmd::tafl_output as tafl;

/// A fresh, empty folder for one test's outputs.
fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("balance").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_ok(args: &[&str]) -> String {
    let out = tafl(args);
    assert!(
        out.status.success(),
        "tafl {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 table")
}

fn read_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("balance.json")).expect("balance.json");
    serde_json::from_str(&text).expect("valid JSON")
}

/// A small study: two rulesets, random and cheap skilled rows.
fn small(dir: &Path, threads: &str, extra: &[&str]) -> String {
    let d = dir.to_str().unwrap();
    let mut args = vec![
        "balance",
        "--rules",
        "brandubh,tablut",
        "--random-games",
        "200",
        "--skilled-games",
        "4",
        "--skilled",
        "mcts:heuristic:8",
        "--seed",
        "11",
        "--threads",
        threads,
        "--out",
        d,
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

#[test]
fn table_arithmetic_of_a_fixed_small_run() {
    let dir = out_dir("arithmetic");
    let table = small(&dir, "2", &[]);
    let json = read_json(&dir);
    assert_eq!(json["complete"], true);
    assert_eq!(json["settings"]["seed"], 11);
    assert_eq!(json["settings"]["skilled_player"], "mcts:heuristic:8");
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "brandubh and tablut, random and skilled");
    let csv = std::fs::read_to_string(dir.join("balance.csv")).unwrap();
    let csv_lines: Vec<&str> = csv.lines().collect();
    assert_eq!(csv_lines.len(), 5, "a header and one line per row");
    for (i, row) in rows.iter().enumerate() {
        let n = |k: &str| row[k].as_u64().unwrap();
        let games = n("games");
        assert_eq!(games, if row["play"] == "random" { 200 } else { 4 });
        assert_eq!(
            n("defender_wins") + n("attacker_wins") + n("draws") + n("no_result"),
            games
        );
        let endings: u64 = row["endings"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(endings, games);
        let share = &row["defenders_win"];
        let (lo, hi) = wilson(n("defender_wins"), games, Z95);
        assert_eq!(share["count"].as_u64(), Some(n("defender_wins")));
        assert!((share["share"].as_f64().unwrap() - n("defender_wins") as f64 / games as f64).abs() < 1e-12);
        assert!((share["low"].as_f64().unwrap() - lo).abs() < 1e-12);
        assert!((share["high"].as_f64().unwrap() - hi).abs() < 1e-12);
        let decided = n("defender_wins") + n("attacker_wins");
        let avg = if decided == 0 {
            0.0
        } else {
            n("decided_plies") as f64 / decided as f64
        };
        assert!((row["avg_length"].as_f64().unwrap() - avg).abs() < 1e-9);
        // The printed table shows the same figures.
        let variant = row["variant"].as_str().unwrap();
        let play = row["play"].as_str().unwrap();
        let cell = format!(
            "{:.2}% [{:.2}, {:.2}]",
            100.0 * n("defender_wins") as f64 / games as f64,
            100.0 * lo,
            100.0 * hi
        );
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("| {variant} ")) && l.contains(&format!("| {play} ")))
            .unwrap_or_else(|| panic!("no table line for {variant} {play}:\n{table}"));
        assert!(line.contains(&cell), "{line} lacks {cell}");
        assert!(line.contains(&format!("{avg:.1}")), "{line}");
        // And the CSV, in the same order.
        let fields: Vec<&str> = csv_lines[i + 1].split(',').collect();
        assert_eq!((fields[0], fields[2]), (variant, play));
        assert_eq!(fields[5].parse::<u64>().unwrap(), games);
        assert_eq!(fields[6].parse::<u64>().unwrap(), n("defender_wins"));
    }
    for col in [
        "Variant",
        "Play",
        "Defenders win",
        "Attackers win",
        "Decisive games",
        "No result",
        "Avg length",
    ] {
        assert!(table.contains(col), "{col} missing:\n{table}");
    }
    assert!(table.contains("mcts:heuristic:8"), "the skilled player is named");
    let md = std::fs::read_to_string(dir.join("balance.md")).unwrap();
    assert_eq!(md, table, "balance.md is the printed report");
}

#[test]
fn outputs_are_byte_identical_whatever_the_thread_count() {
    let (a, b) = (out_dir("threads1"), out_dir("threads2"));
    small(&a, "1", &[]);
    small(&b, "2", &[]);
    for f in ["balance.md", "balance.csv", "balance.json", "balance.png"] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(x == y, "{f} differs between 1 and 2 threads");
    }
    // Another seed gives other games.
    let c = out_dir("seed12");
    run_ok(&[
        "balance",
        "--rules",
        "brandubh,tablut",
        "--random-games",
        "200",
        "--skilled-games",
        "0",
        "--seed",
        "12",
        "--out",
        c.to_str().unwrap(),
    ]);
    let rows_a = read_json(&a)["rows"].clone();
    let rows_c = read_json(&c)["rows"].clone();
    assert_ne!(rows_a[0]["seed"], rows_c[0]["seed"]);
}

#[test]
fn bad_settings_are_clear_errors_and_write_nothing() {
    let dir = out_dir("bad");
    let d = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--set", "knights=yes"], "unknown knob `knights`"),
        (&["--set", "repetition=sometimes"], "defenders_lose"),
        (&["--set", "repetition"], "KNOB=VALUE"),
        (&["--set", "=yes"], "KNOB=VALUE"),
        (
            &["--set", "encirclement=yes", "--set", "encirclement=no"],
            "set twice",
        ),
        (&["--compare"], "--compare needs"),
        (&["--rules", "chess"], "no such built-in ruleset"),
        (&["--rules", "brandubh,brandubh"], "listed twice"),
        (&["--skilled", "level:99"], "no level 99"),
        (&["--skilled", "grandmaster"], "not a player spec"),
        (&["--exploration", "1.5"], "--exploration"),
        (
            &["--skilled-games", "2", "--ply-limit", "0", "--exploration", "0"],
            "could go on forever",
        ),
        (
            &["--random-games", "0", "--skilled-games", "0"],
            "nothing to play",
        ),
        (&["--threads", "0"], "--threads"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["balance", "--out", d];
        for (flag, value) in [
            ("--rules", "brandubh"),
            ("--random-games", "10"),
            ("--skilled-games", "0"),
        ] {
            if !extra.contains(&flag) {
                args.extend([flag, value]);
            }
        }
        args.extend_from_slice(extra);
        let out = tafl(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} was accepted");
        assert!(err.contains(want), "{extra:?}: `{err}` lacks `{want}`");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.join("balance.json").exists(), "{extra:?} wrote outputs");
    }
}

#[test]
fn compare_puts_the_changed_rules_beside_the_baseline() {
    let plain = out_dir("plain");
    run_ok(&[
        "balance",
        "--rules",
        "brandubh",
        "--random-games",
        "300",
        "--skilled-games",
        "0",
        "--seed",
        "3",
        "--out",
        plain.to_str().unwrap(),
    ]);
    let cmp = out_dir("compare");
    let table = run_ok(&[
        "balance",
        "--rules",
        "brandubh",
        "--random-games",
        "300",
        "--skilled-games",
        "0",
        "--seed",
        "3",
        "--set",
        "king_capture=weak",
        "--set",
        "repetition=defenders_lose",
        "--compare",
        "--out",
        cmp.to_str().unwrap(),
    ]);
    let j = read_json(&cmp);
    let rows = j["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0]["changed"].clone(), rows[1]["changed"].clone()),
        (false.into(), true.into())
    );
    // The baseline row of a --compare run is the row of a plain run with the same seed.
    let base = &read_json(&plain)["rows"][0];
    for k in [
        "seed",
        "defender_wins",
        "attacker_wins",
        "no_result",
        "total_plies",
    ] {
        assert_eq!(rows[0][k], base[k], "{k}");
    }
    assert_ne!(rows[1]["seed"], rows[0]["seed"]);
    assert_eq!(
        j["settings"]["set"],
        serde_json::json!(["king_capture=weak", "repetition=defenders_lose"])
    );
    assert!(j["rulesets"][0]["changed_rules"]
        .as_str()
        .unwrap()
        .contains("king_capture = \"weak\""));
    let comp = &j["comparisons"][0];
    let d = &comp["changes"]["defenders_win"];
    let before = rows[0]["defenders_win"]["share"].as_f64().unwrap();
    let after = rows[1]["defenders_win"]["share"].as_f64().unwrap();
    assert!((d["delta"].as_f64().unwrap() - (after - before)).abs() < 1e-12);
    let (lo, hi) = (d["low"].as_f64().unwrap(), d["high"].as_f64().unwrap());
    assert!(lo <= after - before && after - before <= hi);
    assert_eq!(d["excludes_zero"], lo > 0.0 || hi < 0.0);
    assert!(
        table.contains("brandubh (changed)") && table.contains("Δ Defenders win"),
        "{table}"
    );
    // The defenders' change cell says what its interval says (the legend under the table
    // names "significant" in every table, so the cell is matched by its closing bracket).
    let verdict = if d["excludes_zero"] == true {
        "] significant"
    } else {
        "] n.s."
    };
    assert!(table.contains(verdict), "`{verdict}` not in: {table}");
}

#[test]
fn the_picture_is_a_png() {
    let dir = out_dir("png");
    run_ok(&[
        "balance",
        "--rules",
        "brandubh",
        "--random-games",
        "50",
        "--skilled-games",
        "0",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let png = std::fs::read(dir.join("balance.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 5_000, "suspiciously small: {} bytes", png.len());
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_leaves_the_outputs_of_finished_rows() {
    use std::time::{Duration, Instant};
    let dir = out_dir("ctrl_c");
    // The random rows end in a moment; the skilled rows would take hours.
    let child = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args([
            "balance",
            "--rules",
            "brandubh,hnefatafl",
            "--random-games",
            "100",
            "--skilled-games",
            "100000",
            "--skilled",
            "mcts:uniform:64",
            "--threads",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start tafl");
    let t0 = Instant::now();
    loop {
        let ready = std::fs::read_to_string(dir.join("balance.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|j| j["rows_finished"] == 2);
        if ready {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "random rows never finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait");
    assert!(!out.status.success(), "an interrupted study reports failure");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted: 2 of 4 rows finished"), "{err}");
    let j = read_json(&dir);
    assert_eq!(j["complete"], false);
    assert_eq!(j["rows_planned"], 4);
    assert_eq!(j["rows"].as_array().unwrap().len(), 2);
    let md = std::fs::read_to_string(dir.join("balance.md")).unwrap();
    assert!(md.contains("Incomplete") && md.contains("2 of 4 rows"), "{md}");
    assert!(dir.join("balance.png").exists() && dir.join("balance.csv").exists());
}
