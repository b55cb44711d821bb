//! The layout of a training run's folder, in one place: every path of a run is made here.
//!
//! ```text
//! RUN/config.toml                  the config, copied at the start
//! RUN/state.json                   iteration, phase, best and latest checkpoints, history
//! RUN/checkpoints/iter-NNNN/       model.safetensors + manifest.json (+ optimizer.bin, kept for the last two)
//! RUN/shards/iter-NNNN/shard-KKKK.bin (+ .json with the games' tallies)
//! RUN/events/                      TensorBoard event files
//! RUN/train.log                    one summary line per iteration and warnings
//! RUN/learning-curve.png           Elo against each ladder anchor by iteration, after every ladder
//! RUN/lock                         the process that holds the run (while it runs)
//! ```

use std::path::{Path, PathBuf};

/// The state file's name.
pub const STATE_FILE: &str = "state.json";
/// The learning curve's file name in a run folder (drawn by the trainer's `curve`).
pub const LEARNING_CURVE_FILE: &str = "learning-curve.png";
/// The config's name in a run folder.
pub const CONFIG_FILE: &str = "config.toml";
/// The text log's name.
pub const LOG_FILE: &str = "train.log";
/// The folder of checkpoints.
pub const CHECKPOINTS_DIR: &str = "checkpoints";
/// The folder of replay shards.
pub const SHARDS_DIR: &str = "shards";
/// The folder of TensorBoard event files.
pub const EVENTS_DIR: &str = "events";
/// The lock file's name: the process that holds the run writes its id there.
pub const LOCK_FILE: &str = "lock";

/// A training run's folder. It only names paths: nothing is read or created by making one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run folder at `root`.
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The run folder that holds the checkpoint folder `dir`, and the checkpoint's iteration:
    /// `Some` when `dir` is `RUN/checkpoints/iter-NNNN` (the run's state file is not checked).
    pub fn of_checkpoint(dir: &Path) -> Option<(RunDir, u32)> {
        let iteration = dir.file_name().and_then(|n| n.to_str()).and_then(iteration_of)?;
        let run = dir
            .parent()
            .filter(|p| p.file_name().is_some_and(|n| n == CHECKPOINTS_DIR))
            .and_then(Path::parent)?;
        Some((RunDir::new(run), iteration))
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Whether the folder holds a run's state file (the mark of a run folder).
    pub fn is_run(&self) -> bool {
        self.state_file().is_file()
    }

    /// `RUN/state.json`.
    pub fn state_file(&self) -> PathBuf {
        self.root.join(STATE_FILE)
    }

    /// `RUN/config.toml`.
    pub fn config_file(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// `RUN/train.log`.
    pub fn log_file(&self) -> PathBuf {
        self.root.join(LOG_FILE)
    }

    /// `RUN/lock`.
    pub fn lock_file(&self) -> PathBuf {
        self.root.join(LOCK_FILE)
    }

    /// `RUN/events/`.
    pub fn events_dir(&self) -> PathBuf {
        self.root.join(EVENTS_DIR)
    }

    /// `RUN/learning-curve.png`.
    pub fn learning_curve_file(&self) -> PathBuf {
        self.root.join(LEARNING_CURVE_FILE)
    }

    /// `RUN/checkpoints/`.
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.root.join(CHECKPOINTS_DIR)
    }

    /// `RUN/checkpoints/iter-NNNN/`: the checkpoint folder of an iteration.
    pub fn checkpoint(&self, iteration: u32) -> PathBuf {
        self.checkpoints_dir().join(iteration_name(iteration))
    }

    /// `RUN/shards/`.
    pub fn shards_dir(&self) -> PathBuf {
        self.root.join(SHARDS_DIR)
    }

    /// `RUN/shards/iter-NNNN/`: the self-play shards of an iteration.
    pub fn shards(&self, iteration: u32) -> PathBuf {
        self.shards_dir().join(iteration_name(iteration))
    }

    /// `RUN/shards/iter-NNNN/shard-KKKK`: a shard's path without its extension (`.bin` holds
    /// the samples, `.json` the games' tallies).
    pub fn shard(&self, iteration: u32, shard: u64) -> PathBuf {
        self.shards(iteration).join(shard_name(shard))
    }

    /// The iterations whose checkpoint folder holds a model manifest, in order. A checkpoint
    /// being written has no manifest yet, and is left out.
    pub fn checkpoint_iterations(&self) -> std::io::Result<Vec<u32>> {
        let mut its: Vec<u32> = std::fs::read_dir(self.checkpoints_dir())?
            .flatten()
            .filter_map(|e| {
                let it = iteration_of(e.file_name().to_str()?)?;
                e.path().join(tafl_nn::MANIFEST_FILE).is_file().then_some(it)
            })
            .collect();
        its.sort_unstable();
        Ok(its)
    }
}

/// `path` as it will be once made: the deepest part of it that exists, with links and `..`
/// resolved, and the rest appended as given.
pub fn resolved_path(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut resolved = existing.canonicalize().unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.iter().rev() {
        resolved.push(name);
    }
    Ok(resolved)
}

/// The run folder that `path` is or lies inside (the nearest folder at or above it that holds
/// a run's state file), judged on [`resolved_path`]; `None` when no run holds it. Commands
/// that write where they are told ask it first, so that their files never land among a run's
/// own.
pub fn run_holding(path: &Path) -> Option<PathBuf> {
    resolved_path(path)
        .ok()?
        .ancestors()
        .find(|a| RunDir::new(*a).is_run())
        .map(Path::to_path_buf)
}

/// `iter-NNNN`: the name of an iteration's checkpoint and shard folders.
pub fn iteration_name(iteration: u32) -> String {
    format!("iter-{iteration:04}")
}

/// The iteration an `iter-NNNN` folder name stands for.
pub fn iteration_of(name: &str) -> Option<u32> {
    name.strip_prefix("iter-")?.parse().ok()
}

/// `shard-KKKK`: a shard's name without its extension.
pub fn shard_name(shard: u64) -> String {
    format!("shard-{shard:04}")
}
