//! TensorBoard event files and the run log, behind small types of ours.
//!
//! tensorboard-rs completes an event file only when its writer is dropped, and several of its
//! methods are `unimplemented!()`: [`Events`] only ever calls `add_scalar` and `flush`, and
//! writes each batch of scalars through a fresh writer that it drops at once, so every file on
//! disk is complete even if the run is killed. TensorBoard reads all files of the folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use tensorboard_rs::summary_writer::SummaryWriter;

static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Scalars for TensorBoard in `RUN/events`.
pub struct Events {
    dir: PathBuf,
}

impl Events {
    /// Events under `dir` (created when first written).
    pub fn new(dir: &Path) -> Events {
        Events {
            dir: dir.to_path_buf(),
        }
    }

    /// Writes `(tag, value)` pairs at `step` into a new, complete event file.
    pub fn write(&self, step: u64, scalars: &[(&str, f64)]) -> Result<(), String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let finite: Vec<_> = scalars.iter().filter(|(_, v)| v.is_finite()).collect();
        if finite.is_empty() {
            return Ok(());
        }
        // tensorboard-rs names its file by second, host and process, so two writers in one
        // second would share a name: each batch is written in a private folder, completed by
        // dropping the writer, then renamed to a unique name in the events folder.
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self.dir.join(format!(".tmp-{}-{seq}", std::process::id()));
        let owned: Vec<(String, f32)> = finite.iter().map(|(t, v)| (t.to_string(), *v as f32)).collect();
        let tmp_w = tmp.clone();
        std::panic::catch_unwind(move || {
            let mut w = SummaryWriter::new(&tmp_w);
            for (tag, v) in &owned {
                w.add_scalar(tag, *v, step as usize);
            }
            w.flush();
        })
        .map_err(|_| "the TensorBoard writer failed".to_string())?;
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        for entry in std::fs::read_dir(&tmp).map_err(|e| e.to_string())?.flatten() {
            let name = format!("events.out.tfevents.{secs:010}.tafl.{}.{seq}", std::process::id());
            std::fs::rename(entry.path(), self.dir.join(name)).map_err(|e| e.to_string())?;
        }
        std::fs::remove_dir_all(&tmp).map_err(|e| e.to_string())
    }
}

/// The run's text log, `RUN/train.log`, appended line by line.
pub struct RunLog {
    path: PathBuf,
}

impl RunLog {
    /// The log at `path`.
    pub fn new(path: &Path) -> RunLog {
        RunLog {
            path: path.to_path_buf(),
        }
    }
    /// Appends a line (and prints it on standard error when `echo`).
    pub fn line(&self, text: &str, echo: bool) {
        if echo {
            eprintln!("{text}");
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
        {
            let _ = writeln!(f, "{text}");
        }
    }
}
