//! AI levels: the built-in table of `configs/levels.toml`, a site's own file through
//! `TAFL_LEVELS`, and a level's deliberate mistakes (`exploration`) reaching its play.

mod cmd;

use std::path::PathBuf;

fn tafl(args: &[&str], levels: Option<&PathBuf>) -> (bool, String, String) {
    let env: Vec<(&str, &std::ffi::OsStr)> = levels.iter().map(|p| ("TAFL_LEVELS", p.as_os_str())).collect();
    cmd::tafl_text_env(args, &env)
}

fn levels_file(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("tafl-levels-{name}-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

/// The score of A from an arena report (`A: ... score 0.725 over 40 games`).
fn score(out: &str) -> f64 {
    out.split("score ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no score in {out}"))
}

#[test]
fn a_level_makes_its_deliberate_mistakes() {
    // Two levels with the same greedy player; level 2 plays every move at random. Were its
    // mistakes dropped, the two would be the same player and every pair would split 1-1 (the
    // defenders win between equals); as it is, level 1 beats it from both sides.
    let file = levels_file(
        "mistakes",
        "[[level]]\nlevel = 1\nplayer = \"heuristic\"\n\n[[level]]\nlevel = 2\nplayer = \"heuristic\"\nexploration = 1.0\n",
    );
    let (ok, out, err) = tafl(
        &[
            "arena", "level:1", "level:2", "--rules", "brandubh", "--games", "20", "--seed", "1",
        ],
        Some(&file),
    );
    assert!(ok, "{err}");
    // The file names the greedy player by its older name, `heuristic`: read, and shown as
    // `greedy`.
    assert!(out.contains("level 2 (greedy, 100% random moves)"), "{out}");
    // Margin: level 1 scored 1.000 with each of seeds 1 to 8 (20 games each, 2 December
    // 2026); dropped mistakes would give 0.5. Were its true score as low as 0.95, 20 games
    // would fall below 0.75 with probability about 0.03%, so one seed is enough.
    assert!(score(&out) >= 0.75, "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_sites_own_levels_file_replaces_the_built_in_one() {
    let file = levels_file(
        "site",
        "[[level]]\nlevel = 1\nplayer = \"mcts:heuristic\"\nsimulations = 8\n",
    );
    let (ok, out, err) = tafl(
        &[
            "arena", "level:1", "random", "--rules", "brandubh", "--games", "2",
        ],
        Some(&file),
    );
    assert!(ok, "{err}");
    assert!(out.contains("level 1 (mcts:heuristic:8)"), "{out}");
    // Its level 2 does not exist; the built-in table has five.
    let (ok, _, err) = tafl(
        &[
            "arena", "level:2", "random", "--rules", "brandubh", "--games", "2",
        ],
        Some(&file),
    );
    assert!(!ok && err.contains("no level 2; levels are 1..=1"), "{err}");
    let (ok, out, err) = tafl(
        &[
            "arena",
            "level:5",
            "random",
            "--rules",
            "brandubh",
            "--games",
            "2",
            "--ply-limit",
            "8",
            "--opening-plies",
            "2",
        ],
        None,
    );
    assert!(ok, "{err}");
    assert!(out.contains("level 5 (mcts:model=shipped:400)"), "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_bad_levels_file_is_refused_naming_the_variable_the_file_and_the_level() {
    let missing = std::env::temp_dir().join("tafl-levels-none/nope.toml");
    let (ok, _, err) = tafl(
        &["arena", "level:1", "random", "--rules", "brandubh"],
        Some(&missing),
    );
    assert!(!ok);
    assert!(err.contains("TAFL_LEVELS") && err.contains("nope.toml"), "{err}");
    for (name, text, why) in [
        (
            "explore",
            "[[level]]\nlevel = 1\nplayer = \"random\"\nexploration = 1.5\n",
            "level 1: exploration must be within 0..=1",
        ),
        (
            "order",
            "[[level]]\nlevel = 2\nplayer = \"random\"\n",
            "level 2 is listed in place 1",
        ),
        (
            "fallback",
            "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 5\nfallback = \"mcts:model=x\"\n",
            "level 1 fallback",
        ),
        (
            "inference",
            "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 5\ninference = \"fp16\"\n",
            "level 1: inference engine `fp16`: expected one of auto, burn, onnxruntime, int8",
        ),
        (
            "search",
            "[[level]]\nlevel = 1\nplayer = \"mcts:heuristic\"\nsimulations = 5\nsearch = { batch_size = 0 }\n",
            "level 1: search field `batch_size`: must be at least 1",
        ),
    ] {
        let file = levels_file(name, text);
        let (ok, _, err) = tafl(&["arena", "level:1", "random", "--rules", "brandubh"], Some(&file));
        assert!(!ok, "{name}");
        assert!(err.contains("TAFL_LEVELS") && err.contains(why), "{name}: {err}");
        let _ = std::fs::remove_file(&file);
    }
}

#[test]
fn a_level_searches_with_its_own_settings_and_reports_name_them() {
    // Level 2 gathers 4 leaves an evaluator call with a wider exploration constant; level 1
    // keeps the defaults. The arena's report names the settings of the level that has them
    // (lab's unit tests check that the player built from it searches with them).
    let file = levels_file(
        "search",
        "[[level]]\nlevel = 1\nplayer = \"mcts:heuristic\"\nsimulations = 20\n\n\
         [[level]]\nlevel = 2\nplayer = \"mcts:heuristic\"\nsimulations = 20\nsearch = { batch_size = 4, c_puct = 3.0 }\n",
    );
    let (ok, out, err) = tafl(
        &[
            "arena", "level:2", "level:1", "--rules", "brandubh", "--games", "2", "--seed", "1",
        ],
        Some(&file),
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("level 2 (mcts:heuristic:20, batch_size=4, c_puct=3.0)"),
        "{out}"
    );
    assert!(out.contains("level 1 (mcts:heuristic:20)"), "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_level_can_run_its_network_in_int8() {
    // The level's `inference` reaches its label; the other level's network stays on the
    // process's default (lab's unit tests check the evaluator itself).
    let file = levels_file(
        "int8",
        "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 16\ninference = \"int8\"\n\n[[level]]\nlevel = 2\nplayer = \"mcts:model=shipped\"\nsimulations = 16\n",
    );
    let (ok, out, err) = tafl(
        &[
            "arena",
            "level:1",
            "level:2",
            "--rules",
            "brandubh",
            "--games",
            "2",
            "--ply-limit",
            "20",
        ],
        Some(&file),
    );
    assert!(ok, "{err}");
    assert!(out.contains("level 1 (mcts:model=shipped:16, int8)"), "{out}");
    assert!(out.contains("level 2 (mcts:model=shipped:16)"), "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_level_may_refine_the_linear_evaluation_with_the_network_and_falls_back_without_them() {
    // `mcts:hybrid=shipped,linear=shipped`: the shipped linear evaluation at every leaf, the
    // shipped network where the search keeps coming back; the level's fallback under rules
    // that ship neither.
    let file = levels_file(
        "layered",
        "[[level]]\nlevel = 1\nplayer = \"mcts:hybrid=shipped,linear=shipped\"\nsimulations = 60\nfallback = \"mcts:heuristic\"\n",
    );
    let play = |rules: &str| {
        let (ok, out, err) = tafl(
            &[
                "arena",
                "level:1",
                "random",
                "--rules",
                rules,
                "--games",
                "2",
                "--ply-limit",
                "30",
            ],
            Some(&file),
        );
        assert!(ok, "{rules}: {err}");
        out
    };
    let out = play("brandubh");
    assert!(
        out.contains("level 1 (mcts:hybrid=shipped,linear=shipped") && !out.contains("no shipped model"),
        "{out}"
    );
    let out = play("fetlar");
    assert!(
        out.contains("no shipped model for `fetlar`: mcts:heuristic"),
        "{out}"
    );
    let _ = std::fs::remove_file(&file);
}
