//! End-to-end tests of `tafl records` and of `[pretrain]`: the Copenhagen archive scored,
//! exported as shards that read back, bad records refused naming where, and a run that
//! learns recorded games before its first iteration and measures the gain.

mod cmd;

use cmd::tafl_text;
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-records-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn corpus() -> String {
    format!("{}/tests/data/copenhagen-games.csv", env!("CARGO_MANIFEST_DIR"))
}

/// The first `n` games of the archive, as a file of their own.
fn first_games(dir: &Path, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(corpus()).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    let p = dir.join("games.csv");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// The figures of a table row: (top-1, top-3, log-loss).
fn row(table: &str, what: &str, stage: &str) -> (f64, f64, f64) {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("| {what} | {stage} |")))
        .unwrap_or_else(|| panic!("no row `{what}` `{stage}` in\n{table}"));
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    let f = |i: usize| cells[i].parse::<f64>().unwrap();
    (f(4), f(5), f(7))
}

#[test]
fn eval_scores_the_prior_and_a_search_against_the_moves_played() {
    let (ok, out, err) = tafl_text(&[
        "records",
        "eval",
        &corpus(),
        "--games",
        "20",
        "--player",
        "mcts:heuristic:100",
        "--linear",
        "shipped",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("1752 games read; scored: 20 games (validation split"),
        "{out}"
    );
    let (top1, top3, loss) = row(&out, "prior: heuristic (hand-written)", "all");
    assert!(top1 <= top3 && top3 <= 1.0 && loss > 0.0, "{out}");
    // The shipped linear evaluation is scored beside it: other priors, another value.
    let (l1, l3, l_loss) = row(&out, "prior: linear shipped", "all");
    assert!(l1 <= l3 && l3 <= 1.0 && l_loss > 0.0, "{out}");
    assert!((l1, l3, l_loss) != (top1, top3, loss), "{out}");
    let (s1, s3, _) = row(&out, "search: mcts:heuristic:100", "all");
    assert!(
        s1 > 0.0 && s1 <= s3,
        "a search agrees with people now and then: {out}"
    );
    for stage in ["opening", "middle", "late"] {
        row(&out, "search: mcts:heuristic:100", stage);
    }
}

#[test]
fn export_writes_shards_split_by_game_that_read_back() {
    let dir = temp_dir("export");
    let games = first_games(&dir, 60);
    let out = dir.join("out");
    let (ok, stdout, err) = tafl_text(&[
        "records",
        "export",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--games-per-shard",
        "25",
    ]);
    assert!(ok, "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("records.json")).unwrap()).unwrap();
    let train = summary["train"]["games"].as_u64().unwrap();
    let validation = summary["validation"]["games"].as_u64().unwrap();
    assert_eq!(train + validation, 60, "{stdout}");
    assert!(
        (1..20).contains(&validation),
        "about one game in ten: {validation}"
    );
    let rs = tafl_engine::Ruleset::builtin("copenhagen");
    let encoder = tafl_nn::Encoder::new(&rs);
    let mut samples = 0;
    for split in ["train", "validation"] {
        for e in std::fs::read_dir(out.join(split)).unwrap() {
            let s = tafl_trainer::shard::read_shard(
                &e.unwrap().path(),
                encoder.input_len(),
                encoder.policy_size(),
            )
            .unwrap();
            for x in &s {
                assert_eq!(x.policy.len(), 1, "the move played is the policy target");
                assert!(x.legal.contains(&x.policy[0].0));
            }
            samples += s.len();
        }
    }
    let expected =
        summary["train"]["samples"].as_u64().unwrap() + summary["validation"]["samples"].as_u64().unwrap();
    assert_eq!(samples as u64, expected);
    // The same games in another order: the same split.
    let text = std::fs::read_to_string(&games).unwrap();
    let reversed: Vec<&str> = text.lines().rev().collect();
    std::fs::write(&games, reversed.join("\n") + "\n").unwrap();
    let out2 = dir.join("out2");
    let (ok, _, err) = tafl_text(&[
        "records",
        "export",
        games.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out2.join("records.json")).unwrap()).unwrap();
    assert_eq!(again["validation"], summary["validation"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_records_are_refused_naming_the_game_and_move() {
    let dir = temp_dir("bad");
    let p = dir.join("bad.csv");
    std::fs::write(&p, "h1-h3 f8-i8,0,0,Ongoing\nh1-h3 a1-a2,0,0,Ongoing\n").unwrap();
    let (ok, _, err) = tafl_text(&["records", "eval", p.to_str().unwrap(), "--split", "all"]);
    assert!(!ok);
    assert!(err.contains("bad.csv line 2") && err.contains("move 2"), "{err}");
    // Records of another game are refused as such.
    let otg = dir.join("game.otg");
    std::fs::write(
        &otg,
        "[rules:dim:7 name:Brandubh surf:n atkf:y ks:w nj:n cj:n efe:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n1. d2-b2\n",
    )
    .unwrap();
    let (ok, _, err) = tafl_text(&["records", "eval", otg.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("game.otg") && err.contains("other rules"), "{err}");
    // So is a linear evaluation that is missing or fitted to other rules, naming the option.
    let brandubh = dir.join("brandubh.toml");
    std::fs::copy("checkpoints/linear/brandubh.toml", &brandubh).unwrap();
    for (linear, why) in [
        ("/nonexistent/w.toml", "No such file"),
        (brandubh.to_str().unwrap(), "not for copenhagen"),
    ] {
        let (ok, _, err) = tafl_text(&["records", "eval", &corpus(), "--games", "1", "--linear", linear]);
        assert!(
            !ok && err.contains(&format!("--linear {linear}")) && err.contains(why),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pretraining_learns_recorded_moves_before_the_first_iteration() {
    let dir = temp_dir("pretrain");
    let games = first_games(&dir, 400);
    let config = include_str!("../configs/train/tiny.toml")
        .replace("rules = \"brandubh\"", "rules = \"copenhagen\"")
        + &format!(
            "\n[pretrain]\nrecords = \"{}\"\nepochs = 0.5\nbatch_size = 64\n",
            games.display()
        );
    let cfg = dir.join("pretrain.toml");
    std::fs::write(&cfg, config).unwrap();
    let run = dir.join("run");
    let (ok, out, err) = tafl_text(&[
        "train",
        cfg.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--quiet",
        "--stop-after",
        "0",
    ]);
    assert!(ok, "{out}{err}");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["phase"], "self_play", "pretraining is done once");
    let p = &state["pretrain"];
    let before = p["before"]["top1"].as_f64().unwrap();
    let after = p["after"]["top1"].as_f64().unwrap();
    assert!(p["validation_games"].as_u64().unwrap() >= 20, "{p}");
    assert!(
        after > before + 0.02,
        "the prior learns people's moves: {before} -> {after}"
    );
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.join("checkpoints/iter-0000/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["training_step"].as_u64(), p["steps"].as_u64());
    // A missing records file is named before the run starts.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        include_str!("../configs/train/tiny.toml").to_string()
            + "\n[pretrain]\nrecords = \"/nonexistent/games.csv\"\n",
    )
    .unwrap();
    let (ok, _, err) = tafl_text(&[
        "train",
        bad.to_str().unwrap(),
        "--out",
        dir.join("r2").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("pretrain.records") && err.contains("/nonexistent/games.csv"),
        "{err}"
    );
    assert!(!dir.join("r2").exists(), "no run folder for a refused config");
    std::fs::remove_dir_all(&dir).unwrap();
}
