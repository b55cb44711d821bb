//! The stages of a run as commands of their own (`tafl selfplay`, `tafl learn`, `tafl gate`):
//! a run taken through an iteration stage by stage, its self-play split into tasks whose shards
//! are moved in as a distributed driver does, then finished by `tafl train --resume`.

mod cmd;

use std::path::{Path, PathBuf};

use cmd::tafl_text;

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stages").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn state(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap()
}

fn ok(args: &[&str]) -> String {
    let (ok, out, err) = tafl_text(args);
    assert!(ok, "tafl {args:?}:\n{err}");
    format!("{out}{err}")
}

/// The shard files of a folder, sorted.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.file_name().unwrap().to_string_lossy().starts_with("shard-"));
    v.sort();
    v
}

#[test]
fn a_run_goes_stage_by_stage_with_split_self_play_then_on_with_train() {
    let root = temp_dir("split");
    let run = root.join("run");
    let tiny = format!("{}/configs/train/tiny.toml", env!("CARGO_MANIFEST_DIR"));
    let r = run.to_str().unwrap();
    // A run that has done nothing yet: its first stage is self-play.
    ok(&[
        "train",
        &tiny,
        "--out",
        r,
        "--stop-after",
        "0",
        "--quiet",
        "--no-install",
    ]);
    assert_eq!(state(&run)["phase"], "self_play");
    // Another stage than the one due is refused, naming the one that is.
    let (good, _, e) = tafl_text(&["learn", r]);
    assert!(!good && e.contains("tafl selfplay"), "{e}");
    let (good, _, e) = tafl_text(&["gate", r]);
    assert!(!good && e.contains("tafl selfplay"), "{e}");
    // Two tasks of the iteration's 8 games, each into a folder of its own; the run is untouched.
    let (t1, t2) = (root.join("task-1"), root.join("task-2"));
    ok(&[
        "selfplay",
        r,
        "--games",
        "0..4",
        "--out",
        t1.to_str().unwrap(),
        "--quiet",
    ]);
    ok(&[
        "selfplay",
        r,
        "--games",
        "4..8",
        "--out",
        t2.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(state(&run)["phase"], "self_play");
    let (good, _, e) = tafl_text(&[
        "selfplay",
        r,
        "--games",
        "6..9",
        "--out",
        root.join("t3").to_str().unwrap(),
    ]);
    assert!(!good && e.contains("0..8"), "{e}");
    let (good, _, e) = tafl_text(&[
        "selfplay",
        r,
        "--games",
        "4..2",
        "--out",
        root.join("t3").to_str().unwrap(),
    ]);
    assert!(!good && e.contains("A..B"), "{e}");
    // The driver's part: the shards, in game order, renumbered into the run.
    let dest = run.join("shards").join("iter-0001");
    std::fs::create_dir_all(&dest).unwrap();
    let mut k = 0;
    let mut games = 0;
    for task in [&t1, &t2] {
        let files = shards(task);
        assert_eq!(files.len(), 4, "2 shards of 2 games, .bin and .json: {files:?}");
        for json in files.iter().filter(|p| p.extension().unwrap() == "json") {
            let tally: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
            games += tally["games"].as_u64().unwrap();
            let name = format!("shard-{k:04}");
            std::fs::copy(json, dest.join(format!("{name}.json"))).unwrap();
            std::fs::copy(json.with_extension("bin"), dest.join(format!("{name}.bin"))).unwrap();
            k += 1;
        }
    }
    assert_eq!(games, 8);
    // The stage finds every game on disk and ends without playing one again.
    let said = ok(&["selfplay", r]);
    assert!(
        said.contains("resuming self-play with 8 of 8 games on disk"),
        "{said}"
    );
    assert_eq!(shards(&dest).len(), 8);
    assert_eq!(state(&run)["phase"], "train");
    ok(&["learn", r, "--quiet"]);
    assert_eq!(state(&run)["phase"], "arena");
    assert!(run
        .join("checkpoints")
        .join("iter-0001")
        .join("model.safetensors")
        .exists());
    ok(&["gate", r, "--quiet"]);
    let s = state(&run);
    assert_eq!(
        (s["iteration"].as_u64(), s["phase"].as_str()),
        (Some(2), Some("self_play"))
    );
    assert_eq!(s["history"][0]["selfplay"]["games"], 8);
    // A run started stage by stage goes on with `tafl train`, and to its end.
    ok(&["train", "--resume", r, "--quiet"]);
    let s = state(&run);
    assert_eq!(s["iteration"], 3);
    assert_eq!(s["history"].as_array().unwrap().len(), 2);
    // Past the end, a stage has nothing to do and says so.
    let said = ok(&["selfplay", r, "--quiet"]);
    assert!(said.contains("complete"), "{said}");
}

/// `--out` inside a run folder is refused (its shards would be taken for the run's own), and a
/// shard put in a run by hand is read for the games it says it holds: games another shard
/// holds are caught, and self-play plays exactly the games no shard holds.
#[test]
fn self_play_shards_say_their_games_and_out_stays_outside_runs() {
    let root = temp_dir("misplaced");
    let run = root.join("run");
    let tiny = format!("{}/configs/train/tiny.toml", env!("CARGO_MANIFEST_DIR"));
    let r = run.to_str().unwrap();
    ok(&[
        "train",
        &tiny,
        "--out",
        r,
        "--stop-after",
        "0",
        "--quiet",
        "--no-install",
    ]);
    let dest = run.join("shards").join("iter-0001");
    std::fs::create_dir_all(&dest).unwrap();
    let new = run.join("new");
    for out in [
        dest.clone(),
        run.clone(),
        new.clone(),
        dest.join("../../shards/x"),
    ] {
        let (good, _, e) = tafl_text(&["selfplay", r, "--games", "4..8", "--out", out.to_str().unwrap()]);
        assert!(
            !good && e.contains("inside the run folder"),
            "{}: {e}",
            out.display()
        );
    }
    assert!(shards(&dest).is_empty() && !new.exists());
    // Games 4..8 outside the run, then moved in as its first shards, one of them twice.
    let task = root.join("task");
    ok(&[
        "selfplay",
        r,
        "--games",
        "4..8",
        "--out",
        task.to_str().unwrap(),
        "--quiet",
    ]);
    let copy = |from: &str, to: &str| {
        for ext in ["bin", "json"] {
            std::fs::copy(
                task.join(format!("{from}.{ext}")),
                dest.join(format!("{to}.{ext}")),
            )
            .unwrap();
        }
    };
    copy("shard-0000", "shard-0000");
    copy("shard-0001", "shard-0001");
    copy("shard-0000", "shard-0002");
    let said = ok(&["selfplay", r]);
    assert!(
        said.contains("shard-0002.bin: holds game") && said.contains("which an earlier shard holds"),
        "{said}"
    );
    assert!(
        said.contains("resuming self-play with 4 of 8 games on disk (games 4..8)"),
        "{said}"
    );
    // Every game of the iteration once: none lost, none played twice.
    let mut games: Vec<u64> = Vec::new();
    for bin in shards(&dest).iter().filter(|p| p.extension().unwrap() == "bin") {
        let encoder = tafl_nn::Encoder::new(&tafl_engine::Ruleset::builtin("brandubh"));
        let shard =
            tafl_trainer::shard::read_shard_games(bin, encoder.input_len(), encoder.policy_size()).unwrap();
        let held = shard.games.unwrap();
        assert_eq!(held.iteration, 1);
        games.extend(held.games);
    }
    games.sort_unstable();
    assert_eq!(games, (0..8).collect::<Vec<u64>>());
    assert_eq!(state(&run)["phase"], "train");
}
