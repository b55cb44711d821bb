//! `tafl tune` end to end: it fits a linear evaluation to the shipped network's values,
//! reproducibly whatever the threads, the fit beats the hand-written weights on held-out
//! games, and `mcts:linear=FILE` / `mcts:linear=shipped` play with it; a bad or foreign
//! weights file is refused naming it.

mod cmd;
use cmd::tafl_text;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tafl-tune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The two figures of a report line `NAME | hand | tuned`.
fn figures(stdout: &str, name: &str) -> (f64, f64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` in {stdout}"));
    let f: Vec<f64> = line
        .split('|')
        .skip(1)
        .map(|x| x.trim().parse().unwrap())
        .collect();
    (f[0], f[1])
}

#[test]
fn tune_fits_the_network_reproducibly_and_the_weights_play() {
    let dir = scratch("fit");
    let tune = |out: &std::path::Path, threads: &str| {
        let (ok, stdout, stderr) = tafl_text(&[
            "tune",
            "--rules",
            "brandubh",
            "--games",
            "60",
            "--player",
            "mcts:heuristic:8",
            "--epochs",
            "8",
            "--openings",
            "checkpoints/openings/brandubh.txt",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{stdout}\n{stderr}");
        stdout
    };
    let (a, b) = (dir.join("a.toml"), dir.join("b.toml"));
    let stdout = tune(&a, "2");
    tune(&b, "1");
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text, std::fs::read_to_string(&b).unwrap(), "not reproducible");
    assert!(text.contains("made_by = \"tafl tune --rules brandubh"), "{text}");
    assert!(
        text.contains("[priors.attackers]") && text.contains("[priors.defenders]"),
        "{text}"
    );
    // The fit moves toward the teacher on games it did not learn from.
    let (hand, tuned) = figures(&stdout, "mean squared difference");
    assert!(tuned < hand, "{stdout}");
    let (hand, tuned) = figures(&stdout, "priors: cross-entropy");
    assert!(tuned < hand, "{stdout}");

    // The weights play, from the file and as shipped; the report names the player.
    let spec = format!("mcts:linear={}:16", a.display());
    for player in [spec.as_str(), "mcts:linear=shipped:16"] {
        let (ok, stdout, stderr) = tafl_text(&[
            "arena",
            player,
            "mcts:heuristic:16",
            "--rules",
            "brandubh",
            "--games",
            "2",
            "--seed",
            "3",
        ]);
        assert!(ok, "{stdout}\n{stderr}");
        assert!(stdout.contains(player), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_or_foreign_weights_file_is_refused_naming_it() {
    let dir = scratch("bad");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "ruleset = \"brandubh\"\nboard = 7\n[value]\nmaterial = 1.0\n",
    )
    .unwrap();
    let spec = format!("mcts:linear={}", bad.display());
    let (ok, _, stderr) = tafl_text(&[
        "arena",
        &spec,
        "mcts:heuristic:8",
        "--rules",
        "brandubh",
        "--games",
        "2",
    ]);
    assert!(!ok);
    assert!(stderr.contains("bad.toml"), "{stderr}");

    // Shipped Brandubh weights written out and used under Tablut: refused.
    let brandubh = dir.join("brandubh.toml");
    std::fs::copy("checkpoints/linear/brandubh.toml", &brandubh).unwrap();
    let spec = format!("mcts:linear={}:8", brandubh.display());
    let (ok, _, stderr) = tafl_text(&[
        "arena",
        &spec,
        "mcts:heuristic:8",
        "--rules",
        "tablut",
        "--games",
        "2",
    ]);
    assert!(!ok);
    assert!(stderr.contains("not for tablut"), "{stderr}");

    // Rules with no shipped weights.
    let (ok, _, stderr) = tafl_text(&[
        "arena",
        "mcts:linear=shipped:8",
        "mcts:heuristic:8",
        "--rules",
        "alea-evangelii",
        "--games",
        "2",
    ]);
    assert!(!ok);
    assert!(stderr.contains("no shipped linear evaluation"), "{stderr}");

    // A teacher that is not a network.
    let (ok, _, stderr) = tafl_text(&[
        "tune",
        "--rules",
        "brandubh",
        "--teacher",
        dir.join("nothing").to_str().unwrap(),
        "--games",
        "10",
        "--out",
        dir.join("x.toml").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("nothing"), "{stderr}");
    assert!(!dir.join("x.toml").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
