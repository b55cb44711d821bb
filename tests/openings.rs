//! Opening suites end to end: `tafl openings` builds one reproducibly, `tafl arena --openings`
//! starts every pair from its positions, and a bad or foreign suite is refused with the line.

mod cmd;
use cmd::tafl_text;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tafl-openings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_suite_is_built_reproducibly_whatever_the_threads_and_plays_in_the_arena() {
    let dir = scratch("build");
    let build = |out: &std::path::Path, threads: &str| {
        let out = out.to_str().unwrap();
        let (ok, stdout, stderr) = tafl_text(&[
            "openings",
            "--rules",
            "brandubh",
            "--judge",
            "mcts:heuristic:16",
            "--candidates",
            "5",
            "--plies",
            "1-3",
            "--games",
            "2",
            "--keep",
            "0-1",
            "--ply-limit",
            "40",
            "--seed",
            "3",
            "--threads",
            threads,
            "--out",
            out,
        ]);
        assert!(ok, "{stderr}");
        assert!(stdout.contains("wrote 5 positions to"), "{stdout}");
        std::fs::read_to_string(out).unwrap()
    };
    let one = build(&dir.join("one.txt"), "1");
    let two = build(&dir.join("two.txt"), "2");
    assert_eq!(one, two, "the same seed makes the same suite on 1 and 2 threads");
    assert!(
        one.starts_with("# Opening suite for brandubh, made by `tafl openings` (seed 3)."),
        "{one}"
    );
    assert!(one.contains("\nrules brandubh\n"), "{one}");
    assert!(
        one.contains("# Remake: tafl openings --rules brandubh --judge mcts:heuristic:16 --candidates 5"),
        "{one}"
    );
    let positions: Vec<&str> = one.lines().filter(|l| l.starts_with('/')).collect();
    assert_eq!(positions.len(), 5);
    for p in &positions {
        assert!(
            p.contains(" ; attackers won "),
            "each position says how its games went: {p}"
        );
    }

    let suite = dir.join("one.txt");
    let (ok, stdout, stderr) = tafl_text(&[
        "arena",
        "mcts:heuristic:16",
        "random",
        "--rules",
        "brandubh",
        "--openings",
        suite.to_str().unwrap(),
        "--ply-limit",
        "60",
        "--threads",
        "2",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains(": 10 games in colour-swapped pairs"),
        "two games a position by default: {stdout}"
    );
    assert!(stdout.contains("5 of its 5 positions played"), "{stdout}");
    assert!(
        stdout.contains(&format!("--openings {}", suite.display())),
        "the rerun line names the suite: {stdout}"
    );
    assert!(
        !stdout.contains("random plies"),
        "no random opening plies with a suite: {stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_pair_starts_from_the_suite_position() {
    let dir = scratch("escape");
    // The defenders to move with the king beside the a1 corner: every game is their escape in
    // one ply, whoever plays them, and the report says the defenders won every game from it.
    let suite = dir.join("escape.txt");
    std::fs::write(
        &suite,
        "rules brandubh\n/7/K6/7/t6/7/7/3t3/ defenders ; the king escapes\n",
    )
    .unwrap();
    let (ok, stdout, stderr) = tafl_text(&[
        "arena",
        "mcts:heuristic:50",
        "mcts:heuristic:50",
        "--rules",
        "brandubh",
        "--openings",
        suite.to_str().unwrap(),
        "--games",
        "6",
        "--threads",
        "1",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("average length: 1.0 plies"), "{stdout}");
    assert!(
        stdout.contains("1 of its 1 positions played"),
        "the suite cycles: {stdout}"
    );
    assert!(stdout.contains("attackers none; defenders 1 (1)"), "{stdout}");
    assert!(
        stderr.contains("game 6 of 6 (pair 3, A defenders): A wins after 1 plies"),
        "{stderr}"
    );

    // The balance study's skilled rows start from the suite too.
    let out = dir.join("balance");
    let (ok, stdout, stderr) = tafl_text(&[
        "balance",
        "--rules",
        "brandubh",
        "--random-games",
        "0",
        "--skilled-games",
        "4",
        "--skilled",
        "mcts:heuristic:50",
        "--threads",
        "1",
        "--openings",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("brandubh skilled: 4 games, 4 plies"),
        "one ply a game: {stderr}"
    );
    assert!(
        stdout.contains(&format!("--openings {}", suite.display())),
        "the rerun names the suite: {stdout}"
    );
    let (ok, _, stderr) = tafl_text(&[
        "balance",
        "--rules",
        "tablut",
        "--random-games",
        "0",
        "--skilled-games",
        "2",
        "--openings",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        !ok && stderr.contains("a suite for `brandubh`, which the study does not play"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_and_foreign_suites_are_refused_naming_why() {
    let dir = scratch("bad");
    let start = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
    let cases = [
        (
            "foreign",
            format!("rules tablut\n{start} attackers\n"),
            "made for rules `tablut`, not `brandubh`",
        ),
        (
            "side",
            format!("rules brandubh\n{start} kings\n"),
            "line 2: `kings` is not a side to move",
        ),
        ("norules", format!("{start} attackers\n"), "no `rules ID` line"),
        (
            "over",
            "rules brandubh\n/K6/3t3/7/7/7/7/7/ attackers\n".to_string(),
            "position 1: the game is already over there",
        ),
        (
            "board",
            "rules brandubh\n/3t3/3t3/ attackers\n".to_string(),
            "position 1: position record has 2 rows",
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.join(format!("{name}.txt"));
        std::fs::write(&path, text).unwrap();
        let (ok, _, stderr) = tafl_text(&[
            "arena",
            "random",
            "random",
            "--rules",
            "brandubh",
            "--openings",
            path.to_str().unwrap(),
        ]);
        assert!(!ok, "{name}");
        assert!(
            stderr.contains("--openings") && stderr.contains(want),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    let missing = dir.join("missing.txt");
    let (ok, _, stderr) = tafl_text(&[
        "arena",
        "random",
        "random",
        "--rules",
        "brandubh",
        "--openings",
        missing.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("missing.txt"), "{stderr}");
    let (ok, _, stderr) = tafl_text(&[
        "arena",
        "random",
        "random",
        "--rules",
        "brandubh",
        "--openings",
        missing.to_str().unwrap(),
        "--opening-plies",
        "4",
    ]);
    assert!(!ok && stderr.contains("cannot be used with"), "{stderr}");
    let (ok, _, stderr) = tafl_text(&[
        "openings",
        "--rules",
        "brandubh",
        "--games",
        "3",
        "--out",
        dir.join("x.txt").to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("--games: 3 must be even"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `--out` that cannot be written is refused before the search, not after it.
#[test]
fn an_out_that_cannot_be_written_is_refused_at_the_start() {
    let dir = scratch("out");
    let no_folder = dir.join("nonexistent").join("f.txt");
    for (out, why) in [(&no_folder, "does not exist"), (&dir, "is a folder")] {
        let (ok, stdout, stderr) = tafl_text(&[
            "openings",
            "--rules",
            "brandubh",
            "--judge",
            "mcts:heuristic:16",
            "--candidates",
            "20",
            "--games",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            !ok && stderr.contains("--out") && stderr.contains(why),
            "{stderr}"
        );
        assert!(!stdout.contains("candidates dropped"), "the search ran: {stdout}");
    }
    // Nothing was left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
