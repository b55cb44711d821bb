//! The trainer's resume through its library API (the binary's tests kill a run mid-iteration:
//! `tests/train.rs`): a run stopped after an iteration continues from its files to the end,
//! keeping the record of what it had done; a folder without a run, and a second start in a
//! folder that holds one, are refused.

use std::path::{Path, PathBuf};
use tafl_trainer::{resume, start, TrainOptions};

const CONFIG: &str = include_str!("../../configs/train/tiny.toml");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-trainer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn state(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap()
}

fn options(stop_after: Option<u32>) -> TrainOptions {
    TrainOptions {
        stop_after,
        quiet: true,
    }
}

fn history(s: &serde_json::Value) -> &Vec<serde_json::Value> {
    s["history"].as_array().expect("history")
}

#[test]
fn a_stopped_run_resumes_from_its_files_to_the_end() {
    let run = temp_dir("stopped");
    start(CONFIG, "tiny.toml", &run, &options(Some(1))).unwrap();
    let stopped = state(&run);
    assert_eq!(history(&stopped).len(), 1, "{stopped}");
    assert_eq!(
        stopped["iteration"], 2,
        "the next iteration is the second: {stopped}"
    );
    assert!(run.join("checkpoints/iter-0001/manifest.json").exists());
    assert!(!run.join("checkpoints/iter-0002").exists());

    resume(&run, &options(None)).unwrap();
    let done = state(&run);
    assert_eq!(done["iteration"], 3, "both iterations done: {done}");
    assert_eq!(history(&done).len(), 2, "{done}");
    assert_eq!(
        history(&done)[0],
        history(&stopped)[0],
        "the first iteration's record is kept as it was, not replayed"
    );
    assert_eq!(history(&done)[1]["selfplay"]["games"], 8, "{done}");
    assert!(run.join("checkpoints/iter-0002/manifest.json").exists());
    let log = std::fs::read_to_string(run.join("train.log")).unwrap();
    assert_eq!(log.matches("iter 1 |").count(), 1, "{log}");
    assert_eq!(log.matches("iter 2 |").count(), 1, "{log}");

    // A finished run resumes to nothing more; a second start in its folder is refused.
    resume(&run, &options(None)).unwrap();
    assert_eq!(history(&state(&run)).len(), 2);
    let err = start(CONFIG, "tiny.toml", &run, &options(None)).unwrap_err();
    assert!(err.contains("--resume"), "{err}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn a_folder_without_a_run_is_refused() {
    let dir = temp_dir("empty");
    std::fs::create_dir_all(&dir).unwrap();
    let err = resume(&dir, &options(None)).unwrap_err();
    assert!(err.contains("holds no run"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
