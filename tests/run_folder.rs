//! Run folders under interruption, damage and a second process: one process at a time, model
//! ladder anchors that play (or are refused when the config is read), and a resume that says
//! what it found: a complete run, an edited or inconsistent state, swapped, missing or damaged
//! checkpoints and shards, temporary files of killed processes. Never silence.

mod cmd;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use cmd::tafl_command as tafl;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-runfolder-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const TINY: &str = include_str!("../configs/train/tiny.toml");

/// The tiny config with other ladder anchors.
fn config(dir: &Path, name: &str, anchors: &str) -> PathBuf {
    let text = TINY.replace(
        "ladder_anchors = [\"random\", \"checkpoint:0\"]",
        &format!("ladder_anchors = {anchors}"),
    );
    assert_ne!(text, TINY, "the tiny config's anchors moved");
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(&p, text).unwrap();
    p
}

fn train(cfg: &Path, run: &Path, extra: &[&str]) -> Output {
    tafl()
        .args([
            "train",
            cfg.to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn resume(run: &Path, extra: &[&str]) -> Output {
    tafl()
        .args(["train", "--resume", run.to_str().unwrap(), "--quiet"])
        .args(extra)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn edit_state(run: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let p = run.join("state.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&p, v.to_string()).unwrap();
}

fn set_iterations(run: &Path, n: u32) {
    let p = run.join("config.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace("iterations = 2\n", &format!("iterations = {n}\n")),
    )
    .unwrap();
}

/// A finished tiny run (2 iterations) whose ladder also plays the shipped Brandubh model.
fn finished_run(dir: &Path) -> PathBuf {
    let cfg = config(
        dir,
        "shipped-anchor",
        "[\"random\", \"checkpoint:0\", \"mcts:model=shipped:4\"]",
    );
    let run = dir.join("base");
    let o = train(&cfg, &run, &[]);
    assert!(o.status.success(), "{}", text(&o));
    run
}

#[test]
fn model_anchors_play_in_the_ladder_or_are_refused_when_the_config_is_read() {
    let dir = temp_dir("anchors");
    let run = finished_run(&dir);
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(
        log.contains("ladder, best iter-2 vs mcts:model=shipped:4"),
        "the shipped model plays as a ladder anchor:\n{log}"
    );
    // A run or checkpoint folder plays too: the finished run as the anchor of another.
    let spec = format!("[\"mcts:model={}:4\"]", run.display());
    let cfg = config(&dir, "run-anchor", &spec);
    let o = train(&cfg, &dir.join("second"), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let log = std::fs::read_to_string(dir.join("second/train.log")).unwrap();
    assert!(
        log.contains(&format!("vs mcts:model={}:4", run.display())),
        "{log}"
    );

    // A model that cannot play is refused before anything is written, naming the key.
    for (name, anchors, why) in [
        (
            "nowhere",
            "[\"mcts:model=/nonexistent/run:4\"]",
            "neither a checkpoint",
        ),
        ("tablut-model", "[\"mcts:model=checkpoints/tablut:4\"]", "tablut"),
        ("unreachable", "[\"checkpoint:99\"]", "never played"),
    ] {
        let cfg = config(&dir, name, anchors);
        let out = dir.join(format!("run-{name}"));
        let o = train(&cfg, &out, &[]);
        let err = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("arena.ladder_anchors") && err.contains(why),
            "{name}: {err}"
        );
        assert!(!out.exists(), "{name}: the run folder was made");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resuming_a_finished_run_says_so_and_cleans_up_what_a_kill_left() {
    let dir = temp_dir("finished");
    let run = finished_run(&dir);
    // Temporary files of writes that a kill -9 interrupted.
    let leftovers = [
        run.join(".state.json.tmp4242-0"),
        run.join("shards/iter-0001/.shard-0002.json.tmp4242-3"),
        run.join("checkpoints/iter-0001/.model.safetensors.tmp4242-1"),
    ];
    for p in &leftovers {
        std::fs::write(p, b"half").unwrap();
    }
    std::fs::create_dir_all(run.join("events/.tmp-4242-7")).unwrap();
    let o = resume(&run, &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("is complete: all 2 iterations are done") && out.contains("nothing to resume"),
        "{out}"
    );
    assert!(out.contains("removed 4 temporary file(s)"), "{out}");
    for p in &leftovers {
        assert!(!p.exists(), "{} is still there", p.display());
    }
    assert!(!run.join("events/.tmp-4242-7").exists());

    // The config edited to fewer iterations than the run has done.
    let shorter = dir.join("shorter");
    copy_dir(&run, &shorter);
    set_iterations(&shorter, 1);
    let o = resume(&shorter, &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("has done 2 iterations, more than `iterations = 1`"),
        "{out}"
    );

    // --stop-after below the run's iteration does nothing, and says so.
    let more = dir.join("more");
    copy_dir(&run, &more);
    set_iterations(&more, 3);
    let o = resume(&more, &["--stop-after", "1"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("past --stop-after 1"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_edited_state_or_swapped_or_missing_checkpoints_stop_the_resume_naming_them() {
    let dir = temp_dir("broken");
    let run = finished_run(&dir);
    let case = |name: &str, damage: &dyn Fn(&Path)| -> String {
        let copy = dir.join(name);
        copy_dir(&run, &copy);
        set_iterations(&copy, 3);
        damage(&copy);
        let o = resume(&copy, &[]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}");
        out
    };
    let out = case("past", &|r| edit_state(r, |s| s["iteration"] = 999.into()));
    assert!(out.contains("state.json") && out.contains("999"), "{out}");
    let out = case("latest-back", &|r| edit_state(r, |s| s["latest"] = 1.into()));
    assert!(
        out.contains("state.json") && out.contains("`latest` is 1"),
        "{out}"
    );
    let out = case("swapped", &|r| {
        let c = r.join("checkpoints");
        std::fs::rename(c.join("iter-0001"), c.join("x")).unwrap();
        std::fs::rename(c.join("iter-0002"), c.join("iter-0001")).unwrap();
        std::fs::rename(c.join("x"), c.join("iter-0002")).unwrap();
    });
    assert!(out.contains("out of order") && out.contains("iter-0002"), "{out}");
    let out = case("no-best", &|r| {
        std::fs::remove_dir_all(r.join("checkpoints/iter-0002")).unwrap();
    });
    assert!(
        out.contains("iter-0002 is missing") && out.contains("best"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_checkpoints_and_shards_are_named_as_the_run_goes_on() {
    let dir = temp_dir("missing");
    let base = finished_run(&dir);
    let run = dir.join("run");
    copy_dir(&base, &run);
    set_iterations(&run, 4);
    std::fs::remove_dir_all(run.join("checkpoints/iter-0000")).unwrap();
    std::fs::remove_dir_all(run.join("shards/iter-0001")).unwrap();
    std::fs::remove_file(run.join("shards/iter-0002/shard-0001.bin")).unwrap();
    let damaged = run.join("shards/iter-0002/shard-0000.bin");
    let bytes = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    let o = resume(&run, &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    for needle in [
        "checkpoint folders missing",
        "iter-0000",
        "shards/iter-0001 (the whole folder)",
        "shards/iter-0002/shard-0001.bin",
        "skipping replay shard",
        "checksum",
        // The ladder of iteration 4 cannot play `checkpoint:0`.
        "ladder anchor `checkpoint:0` skipped",
        "is complete: all 4 iterations are done",
    ] {
        assert!(log.contains(needle), "`{needle}` not in the log:\n{log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_process_on_a_run_folder_is_refused_naming_the_first() {
    let dir = temp_dir("lock");
    // Enough games that the first process is still playing when the second starts.
    let text_cfg = TINY.replace("games_per_iteration = 8", "games_per_iteration = 4000");
    let cfg = dir.join("long.toml");
    std::fs::write(&cfg, text_cfg).unwrap();
    let run = dir.join("run");
    let mut first = tafl()
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
    let t0 = Instant::now();
    while !run.join("shards/iter-0001/shard-0000.bin").exists() && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first process ended early"
    );
    let pid = first.id().to_string();
    for second in [resume(&run, &[]), train(&cfg, &run, &[])] {
        let out = text(&second);
        assert_eq!(second.status.code(), Some(1), "{out}");
        assert!(
            out.contains("is in use by process") && out.contains(&pid) && out.contains(run.to_str().unwrap()),
            "{out}"
        );
    }
    // kill -9 leaves no stale lock: the folder resumes at once.
    first.kill().unwrap();
    first.wait().unwrap();
    let o = resume(&run, &["--stop-after", "0"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("past --stop-after 0"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_shard_of_the_iteration_being_trained_is_played_again() {
    let dir = temp_dir("train-phase");
    let base = finished_run(&dir);
    let run = dir.join("run");
    copy_dir(&base, &run);
    // Back to the training phase of iteration 2, as a kill during its training leaves it.
    edit_state(&run, |s| {
        let h = s["history"].as_array().unwrap().clone();
        let mut current = h[1].clone();
        current["arena_elo"] = serde_json::Value::Null;
        current["promoted"] = false.into();
        current["ladder"] = serde_json::json!([]);
        s["iteration"] = 2.into();
        s["phase"] = "train".into();
        s["latest"] = 1.into();
        s["best"] = if h[0]["promoted"] == true { 1 } else { 0 }.into();
        s["history"] = serde_json::json!([h[0]]);
        s["current"] = current;
    });
    let damaged = run.join("shards/iter-0002/shard-0001.bin");
    let bytes = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, &bytes[..bytes.len() - 5]).unwrap();
    let o = resume(&run, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(
        log.contains("shard-0001.bin: checksum mismatch")
            && log.contains("self-play resumes with 2 games kept (shard-0001)"),
        "{log}"
    );
    assert!(!log.contains("skipping replay shard"), "{log}");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    let sp = &state["history"][1]["selfplay"];
    assert_eq!(sp["games"], 8, "{state}");
    let mut on_disk = 0u64;
    for e in std::fs::read_dir(run.join("shards/iter-0002")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "bin") {
            let b = std::fs::read(e.path()).unwrap();
            on_disk += u64::from(u32::from_le_bytes(b[20..24].try_into().unwrap()));
        }
    }
    assert_eq!(sp["samples"].as_u64().unwrap(), on_disk, "{state}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The ladder results of finished iteration `it` in a run's state: (series, games played, per
/// side when kept).
fn ladder_of(run: &Path, it: usize) -> Vec<(String, serde_json::Value)> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    v["history"][it - 1]["ladder"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match r {
            serde_json::Value::Array(a) => (a[0].as_str().unwrap().to_string(), r.clone()),
            _ => (r["anchor"].as_str().unwrap().to_string(), r.clone()),
        })
        .collect()
}

#[test]
fn tafl_ladder_measures_finished_iterations_by_the_configs_ladder_and_goes_on_where_it_stopped() {
    let dir = temp_dir("ladder");
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, TINY).unwrap();
    let run = dir.join("run");
    let o = train(&cfg, &run, &[]);
    assert!(o.status.success(), "{}", text(&o));
    // The run's own ladder (iteration 2, random openings) kept its games per side.
    let before = ladder_of(&run, 2);
    assert_eq!(
        before.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>(),
        ["random", "checkpoint:0"]
    );
    let games = |r: &serde_json::Value| -> u64 {
        ["as_attackers", "as_defenders"]
            .iter()
            .flat_map(|k| r[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()))
            .sum()
    };
    assert!(before.iter().all(|(_, r)| games(r) == 2), "{before:?}");
    // The ladder the project measures with: the built-in suite, the exploration rule in
    // addition, and an anchor at equal time.
    let p = run.join("config.toml");
    let edited = std::fs::read_to_string(&p).unwrap().replace(
        "ladder_games = 2\n",
        "ladder_games = 2\nladder_openings = \"suite\"\nladder_also_exploration = 0.1\nladder_time_anchors = [\"random\"]\nladder_movetime = 0.01\nladder_time_games = 2\n",
    );
    std::fs::write(&p, edited).unwrap();
    let o = tafl()
        .args(["ladder", run.to_str().unwrap(), "--at", "1,2", "--quiet"])
        .output()
        .unwrap();
    let said = text(&o);
    assert!(o.status.success(), "{said}");
    assert!(said.contains("learning curve, latest point: vs random"), "{said}");
    assert!(said.contains("2 iteration(s)"), "{said}");
    // Iteration 1 had no ladder: it gets every series (checkpoint 0 is earlier than it).
    let one: Vec<String> = ladder_of(&run, 1).into_iter().map(|(a, _)| a).collect();
    assert_eq!(
        one,
        [
            "random",
            "checkpoint:0",
            "random, exploration 0.1",
            "checkpoint:0, exploration 0.1",
            "random, 0.01 s a move"
        ]
    );
    // Iteration 2 keeps the results it had and gains the new series only.
    let two = ladder_of(&run, 2);
    assert_eq!(two[..2], before[..], "results already there are not played again");
    assert_eq!(two.len(), 5);
    assert!(two.iter().all(|(_, r)| games(r) == 2), "{two:?}");
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(
        log.contains("iteration 1: ladder, best iter-1 vs random, 4 simulations, from the opening suite, exploration 0: as attackers"),
        "{log}"
    );
    assert!(
        log.contains("vs random, 0.01 s a move, from the opening suite: "),
        "{log}"
    );
    assert!(
        log.contains("vs checkpoint:0, 4 simulations, from random openings, exploration 0.1: "),
        "{log}"
    );
    // Nothing is left to measure: a second call plays nothing; --again replays.
    let o = tafl()
        .args(["ladder", run.to_str().unwrap(), "--every", "1", "--quiet"])
        .output()
        .unwrap();
    assert!(
        o.status.success() && text(&o).contains("0 iteration(s)"),
        "{}",
        text(&o)
    );
    let o = tafl()
        .args(["ladder", run.to_str().unwrap(), "--at", "2", "--again", "--quiet"])
        .output()
        .unwrap();
    assert!(
        o.status.success() && text(&o).contains("1 iteration(s)"),
        "{}",
        text(&o)
    );
    assert_eq!(ladder_of(&run, 2).len(), 5, "replaced, not added");
    let png = std::fs::read(run.join("learning-curve.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    // Iterations not finished, and a ladder that plays nothing, are refused.
    for (args, why) in [
        (vec!["--at", "3"], "iteration 3"),
        (vec!["--at", "x"], "invalid value"),
    ] {
        let o = tafl()
            .args(["ladder", run.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        assert!(
            !o.status.success() && text(&o).contains(why),
            "{args:?}: {}",
            text(&o)
        );
    }
    let o = tafl()
        .args(["ladder", dir.join("nothing").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        !o.status.success() && text(&o).contains("holds no run"),
        "{}",
        text(&o)
    );
}

/// The tiny config starting from `start` (`[model] start`), with another seed than the run that
/// made the start, so that its own first network would differ.
fn config_from(dir: &Path, name: &str, start: &str) -> PathBuf {
    let text = TINY
        .replace(
            "moves_left = true\n",
            &format!("moves_left = true\nstart = {start:?}\n"),
        )
        .replace("seed = 3\n", "seed = 4\n");
    assert_ne!(
        text.matches("start =").count(),
        0,
        "the tiny config's [model] moved"
    );
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(&p, text).unwrap();
    p
}

/// A checkpoint's tensors by name, from its safetensors file (an 8-byte header length, a JSON
/// header of names and byte ranges, the data): the same weights may be written in another
/// order, so two checkpoints are compared tensor by tensor, not byte by byte.
fn tensors(checkpoint: &Path) -> std::collections::BTreeMap<String, (serde_json::Value, Vec<u8>)> {
    let bytes = std::fs::read(checkpoint.join("model.safetensors")).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let data = &bytes[8 + n..];
    header
        .into_iter()
        .filter(|(name, _)| name != "__metadata__")
        .map(|(name, t)| {
            let range = &t["data_offsets"];
            let (a, b) = (
                range[0].as_u64().unwrap() as usize,
                range[1].as_u64().unwrap() as usize,
            );
            (name, (t["shape"].clone(), data[a..b].to_vec()))
        })
        .collect()
}

fn manifest(checkpoint: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(checkpoint.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_run_starts_from_a_trained_model_of_its_shape_and_refuses_any_other() {
    let dir = temp_dir("start");
    // A run whose first network is the start: stopped before its first iteration.
    let first = dir.join("first");
    let o = train(
        &config(&dir, "first", "[\"random\"]"),
        &first,
        &["--stop-after", "0"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let start = first.join("checkpoints").join("iter-0000");

    let run = dir.join("from");
    let o = train(
        &config_from(&dir, "from", start.to_str().unwrap()),
        &run,
        &["--stop-after", "0"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let ours = manifest(&run.join("checkpoints").join("iter-0000"));
    let theirs = manifest(&start);
    let ours_t = tensors(&run.join("checkpoints").join("iter-0000"));
    assert!(ours_t.len() > 10, "{:?}", ours_t.keys());
    assert!(
        ours_t == tensors(&start),
        "checkpoint:0 holds the start's weights"
    );
    assert_eq!(ours["training_step"], theirs["training_step"]);
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert!(log.contains("starting from"), "{log}");
    // The same config without a start makes other weights (the seed differs).
    let plain = dir.join("plain");
    let cfg = dir.join("plain.toml");
    std::fs::write(
        &cfg,
        std::fs::read_to_string(dir.join("from.toml"))
            .unwrap()
            .replace(&format!("start = {:?}\n", start.to_str().unwrap()), ""),
    )
    .unwrap();
    let o = train(&cfg, &plain, &["--stop-after", "0"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(tensors(&plain.join("checkpoints").join("iter-0000")) != tensors(&start));

    // The shipped Brandubh network has another shape than the tiny config's, and a start that
    // is no model is no start: refused when the config is read, naming why, with no folder made.
    for (name, start, why) in [
        ("shipped", "shipped", "4 blocks x 48 channels"),
        ("none", "no/such/model", "no/such/model"),
    ] {
        let run = dir.join(format!("{name}-run"));
        let o = train(&config_from(&dir, name, start), &run, &["--stop-after", "0"]);
        assert!(!o.status.success());
        let t = text(&o);
        assert!(t.contains("model.start") && t.contains(why), "{t}");
        assert!(!run.exists(), "{name}: a refused start made {}", run.display());
    }
}
