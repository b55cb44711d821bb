//! End-to-end tests of `tafl rebalance`: a small search from start to end, the rules file it
//! writes, resuming from a saved state to the same end, and the refusals.

mod cmd;

use std::path::{Path, PathBuf};

use cmd::tafl_text;

/// A fresh, empty folder for one test's outputs.
fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rebalance")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A small search of Brandubh: three levers, cheap players, a coarse precision.
fn small(dir: &Path, extra: &[&str]) -> (bool, String, String) {
    search(dir, "first,king_capture,escape", extra)
}

/// [`small`] with other levers.
fn search(dir: &Path, levers: &str, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec![
        "rebalance",
        "--rules",
        "brandubh",
        "--levers",
        levers,
        "--skilled",
        "mcts:heuristic:8",
        "--strengths",
        "mcts:heuristic:24",
        "--first-round",
        "8",
        "--precision",
        "0.1",
        // Coarser than the precision: the race ranks on fewer games, and the closest are then
        // played on and ranked again.
        "--race-precision",
        "0.12",
        "--max-games",
        "128",
        "--finalists",
        "2",
        "--random-games",
        "300",
        "--seed",
        "5",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    tafl_text(&args)
}

fn json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("rebalance.json")).unwrap()).unwrap()
}

#[test]
fn a_small_search_races_measures_the_finalists_and_writes_a_playable_rules_file() {
    let dir = out_dir("small");
    let (ok, stdout, stderr) = small(&dir, &["--threads", "2"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("# Rebalancing `brandubh`"), "{stdout}");
    let j = json(&dir);
    let variants = j["variants"].as_array().unwrap();
    // Base, 1 + 2 + 1 single changes, 2 + 1 + 2 pairs.
    assert_eq!(variants.len(), 10, "{j}");
    let best = j["best"].as_str().unwrap().to_string();
    // Weak king capture is the lever that moves Brandubh toward even; the best variant has it.
    assert!(best.contains("king_capture=weak"), "{best}");
    // The finalists and the base were measured with both players; the race dropped some.
    let measured_twice = variants
        .iter()
        .filter(|v| v["measurements"].as_array().unwrap().len() == 2)
        .count();
    assert!(measured_twice >= 2, "{j}");
    assert!(
        variants
            .iter()
            .any(|v| v["status"].as_str().unwrap().starts_with("dropped")),
        "{j}"
    );
    // The finalists were played on past the race precision; a survivor raced to the end was not.
    let most = |status: &str| {
        variants
            .iter()
            .filter(|v| v["status"].as_str().unwrap() == status)
            .flat_map(|v| v["measurements"].as_array().unwrap().iter())
            .map(|m| m["tally"]["games"].as_u64().unwrap())
            .max()
            .unwrap_or(0)
    };
    assert!(
        most("raced to the end") < most("finalist").max(most("best")),
        "{j}"
    );
    for v in variants {
        for m in v["measurements"].as_array().unwrap() {
            let games = m["tally"]["games"].as_u64().unwrap();
            assert!(games <= 128, "{m}");
        }
    }
    // The best variant loads as rules and plays: its panel names the change.
    let best_toml = dir.join("best.toml");
    let (ok, panel, e) = tafl_text(&["rules", best_toml.to_str().unwrap()]);
    assert!(ok, "{e}");
    assert!(panel.contains("brandubh-rebalanced"), "{panel}");
    assert!(std::fs::read_to_string(dir.join("best-rules.md"))
        .unwrap()
        .contains("rebalanced"));
    let (ok, _, e) = tafl_text(&["random", best_toml.to_str().unwrap(), "--games", "10"]);
    assert!(ok, "{e}");
    for f in ["rebalance.md", "rebalance.csv", "rebalance-vs-strength.png"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(dir.join("rebalance.md")).unwrap();
    assert!(
        md.contains("## Before and after")
            && md.contains("random")
            && md.contains("skilled (mcts:heuristic:24)")
    );
    // The CSV has a line per measurement, the header first.
    let csv = std::fs::read_to_string(dir.join("rebalance.csv")).unwrap();
    let lines = csv.lines().count() - 1;
    let measurements: usize = variants
        .iter()
        .map(|v| v["measurements"].as_array().unwrap().len())
        .sum();
    assert_eq!(lines, measurements);
}

#[test]
fn a_search_resumed_from_its_state_ends_as_an_uninterrupted_one() {
    let whole = out_dir("whole");
    let (ok, _, e) = small(&whole, &["--threads", "1"]);
    assert!(ok, "{e}");
    // Take the finished search back to the end of its first round, as if it had been killed
    // there: later rounds, drops, finalists and random games forgotten.
    let text = std::fs::read_to_string(whole.join("rebalance-state.json")).unwrap();
    let mut state: serde_json::Value = serde_json::from_str(&text).unwrap();
    state["stage"] = 0.into();
    state["rounds"] = 1.into();
    state["finalists"] = serde_json::Value::Null;
    for d in state["dropped"].as_array_mut().unwrap() {
        if d["round"].as_u64().is_some_and(|r| r > 0) {
            *d = serde_json::Value::Null;
        }
    }
    for r in state["random"].as_array_mut().unwrap() {
        *r = serde_json::Value::Null;
    }
    let first_round = |t: &mut serde_json::Value| {
        // Game counts are what a state holds; a tally of the first 8 games is not recoverable
        // from a larger one, so the rolled-back variants restart from nothing.
        if t["games"].as_u64().unwrap() > 8 {
            *t = serde_json::json!({"games": 0, "defender_wins": 0, "attacker_wins": 0, "draws": 0,
                "no_result": 0, "decided_plies": 0, "total_plies": 0, "by_reason": [0,0,0,0,0,0,0,0]});
        }
    };
    let mut prints = state["prints"].as_array().unwrap().clone();
    for (v, per_variant) in state["tallies"].as_array_mut().unwrap().iter_mut().enumerate() {
        let players = per_variant.as_array_mut().unwrap();
        first_round(&mut players[0]);
        players[1] = serde_json::json!({"games": 0, "defender_wins": 0, "attacker_wins": 0, "draws": 0,
            "no_result": 0, "decided_plies": 0, "total_plies": 0, "by_reason": [0,0,0,0,0,0,0,0]});
        // The games' fingerprints go with them.
        let kept = players[0]["games"].as_u64().unwrap() as usize;
        let mine = prints[v][0].as_array().unwrap()[..kept].to_vec();
        prints[v] = serde_json::json!([mine, []]);
    }
    state["prints"] = serde_json::Value::Array(prints);
    // A state whose fingerprints do not match its games is not resumed.
    let resumed = out_dir("resumed");
    std::fs::create_dir_all(&resumed).unwrap();
    let mut broken = state.clone();
    broken["prints"][0][0] = serde_json::json!([1, 2, 3]);
    std::fs::write(resumed.join("rebalance-state.json"), broken.to_string()).unwrap();
    let (ok, _, e) = small(&resumed, &[]);
    assert!(!ok && e.contains("not this search's"), "{e}");
    // Nor is one by a version of tafl that seeded its games otherwise.
    let mut old = state.clone();
    old["settings"].as_object_mut().unwrap().remove("version");
    std::fs::write(resumed.join("rebalance-state.json"), old.to_string()).unwrap();
    let (ok, _, e) = small(&resumed, &[]);
    assert!(!ok && e.contains("another version"), "{e}");
    std::fs::write(resumed.join("rebalance-state.json"), state.to_string()).unwrap();
    let (ok, _, e) = small(&resumed, &["--threads", "2"]);
    assert!(ok, "{e}");
    assert!(e.contains("resuming"), "{e}");
    // Every game is seeded by its player and index (and a random game by its variant): the
    // same figures and the same choice, whatever the threads and wherever it stopped.
    let (a, b) = (json(&whole), json(&resumed));
    assert_eq!(a["best"], b["best"]);
    assert_eq!(a["variants"], b["variants"]);
    assert_eq!(
        std::fs::read(whole.join("best.toml")).unwrap(),
        std::fs::read(resumed.join("best.toml")).unwrap()
    );
    // The same folder asked for another search is refused, naming what differs.
    let (ok, _, e) = small(&resumed, &["--exploration", "0.2"]);
    assert!(
        !ok && e.contains("other settings") && e.contains("exploration"),
        "{e}"
    );
}

#[test]
fn a_lever_that_changes_no_game_is_dropped_as_playing_like_the_simpler_variant() {
    // Edge forts on 7x7 with corner escape: the king's fort on the edge never forms in these
    // short games, so `exit_fort=yes` replays the base's games (every variant plays the same
    // seeds), and so does `exit_fort=yes` on top of weak king capture.
    let dir = out_dir("plays-like");
    let (ok, _, e) = search(&dir, "king_capture=weak,exit_fort", &["--same-games", "16"]);
    assert!(ok, "{e}");
    let j = json(&dir);
    let status = |label: &str| -> String {
        let v = j["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["variant"] == label)
            .unwrap_or_else(|| panic!("{label}: {j}"));
        v["status"].as_str().unwrap().to_string()
    };
    let s = status("exit_fort=yes");
    assert!(s.contains("plays like (base rules)"), "{s}");
    let s = status("exit_fort=yes, king_capture=weak");
    assert!(s.contains("plays like king_capture=weak"), "{s}");
    assert!(!status("king_capture=weak").contains("plays like"));
    // Turned off, the same search keeps them racing.
    let dir = out_dir("plays-like-off");
    let (ok, _, e) = search(&dir, "king_capture=weak,exit_fort", &["--same-games", "0"]);
    assert!(ok, "{e}");
    let text = std::fs::read_to_string(dir.join("rebalance.json")).unwrap();
    assert!(!text.contains("plays like"), "{text}");
}

#[test]
fn bad_requests_are_refused_before_any_game() {
    let dir = out_dir("bad");
    let d = dir.to_str().unwrap();
    for (extra, want) in [
        (vec!["--levers", "knights"], "not a knob"),
        (vec!["--levers", "escape=corners"], "changes nothing"),
        (vec!["--levers", "escape=moon"], "not a value"),
        (vec!["--max-changes", "0"], "--max-changes"),
        (vec!["--precision", "0"], "--precision"),
        (vec!["--race-precision", "0.9"], "--race-precision"),
        (vec!["--first-round", "2000"], "--first-round"),
        (vec!["--strengths", "mcts:heuristic:8"], "twice"),
        (vec!["--strengths", "nonsense"], "--strengths"),
        (vec!["--rules", "nowhere.toml"], "--rules"),
    ] {
        let mut args = vec!["rebalance", "--skilled", "mcts:heuristic:8", "--out", d];
        if !extra.contains(&"--rules") {
            args.extend(["--rules", "brandubh"]);
        }
        args.extend(extra.iter().copied());
        let (ok, _, e) = tafl_text(&args);
        assert!(!ok && e.contains(want), "{extra:?}: {e}");
        assert!(!dir.join("rebalance-state.json").exists(), "{extra:?}");
    }
}
