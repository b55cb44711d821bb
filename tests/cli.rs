//! End-to-end tests of the `tafl` binary.

use std::process::Command;

fn tafl(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(args)
        .output()
        .expect("run tafl");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_prints_the_leaf_count_on_the_last_line() {
    let (ok, out, _) = tafl(&["perft", "hnefatafl", "3"]);
    assert!(ok);
    assert_eq!(out.lines().last(), Some("806344"));
    let (ok, out, _) = tafl(&["perft", "brandubh", "2", "--divide"]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 41, "40 first moves and the total");
    assert_eq!(lines[40], "960");
    assert!(lines[0].contains('-'), "{}", lines[0]);
}

#[test]
fn random_games_reproduce_whatever_the_thread_count() {
    let args = [
        "random",
        "brandubh",
        "--games",
        "600",
        "--seed",
        "42",
        "--ply-limit",
        "300",
    ];
    let (ok1, one, _) = tafl(&[&args[..], &["--threads", "1"]].concat());
    let (ok2, two, _) = tafl(&[&args[..], &["--threads", "2"]].concat());
    assert!(ok1 && ok2);
    assert_eq!(one, two);
    let (_, other_seed, _) = tafl(&[
        "random",
        "brandubh",
        "--games",
        "600",
        "--seed",
        "43",
        "--ply-limit",
        "300",
    ]);
    assert_ne!(one, other_seed, "a different seed should give different figures");
    // The tallies add up.
    let num = |key: &str| -> u64 {
        let line = one
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("{key} in {one}"));
        line[key.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (d, a, dec, draws, none) = (
        num("defender wins:"),
        num("attacker wins:"),
        num("decisive games:"),
        num("draws:"),
        num("no result:"),
    );
    assert_eq!(d + a, dec);
    assert_eq!(dec + draws + none, 600);
}

#[test]
fn rules_panel_is_generated_from_the_data() {
    let (ok, out, _) = tafl(&["rules", "copenhagen"]);
    assert!(ok);
    assert!(out.contains("Shieldwall"), "{out}");
    assert!(out.contains("Exit fort"));
    assert!(out.contains("Encirclement"));
    assert!(out.contains("the defenders lose"));
    assert!(out.contains("24 attackers against 12 defenders"));
    assert!(out.contains("11 # . . A A A A A . . #"), "{out}");
    let (_, brandubh, _) = tafl(&["rules", "brandubh"]);
    assert!(!brandubh.contains("Shieldwall"));
    assert!(brandubh.contains("corner square"));
    let (_, tt, _) = tafl(&["rules", "tablut-traditional"]);
    assert!(
        tt.contains("any edge square") && tt.contains("elsewhere like a soldier"),
        "{tt}"
    );
}

#[test]
fn user_rules_files_load_and_bad_ones_are_refused_clearly() {
    let dir = std::env::temp_dir().join(format!("tafl-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_, toml, _) = tafl(&["rules", "brandubh", "--toml"]);
    let good = dir.join("mine.toml");
    std::fs::write(&good, toml.replace("id = \"brandubh\"", "id = \"mine\"")).unwrap();
    let (ok, out, err) = tafl(&["perft", good.to_str().unwrap(), "2"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().last(), Some("960"));

    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        toml.replace("escape = \"corners\"", "escape = \"sideways\""),
    )
    .unwrap();
    let (ok, _, err) = tafl(&["rules", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("bad.toml") && err.contains("field `escape`") && err.contains("`corners` or `edge`"),
        "{err}"
    );

    let (ok, _, err) = tafl(&["rules", "no-such-rules"]);
    assert!(!ok);
    assert!(err.contains("brandubh"), "should list the built-in ids: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_builtin_works_from_any_directory() {
    for id in [
        "brandubh",
        "tablut",
        "hnefatafl",
        "copenhagen",
        "fetlar",
        "brandubh-traditional",
        "tablut-traditional",
        "tawlbwrdd",
        "alea-evangelii",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["random", id, "--games", "20", "--ply-limit", "200"])
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
