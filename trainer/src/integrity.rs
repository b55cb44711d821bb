//! What keeps a run folder whole: one process at a time (an exclusive lock held for the
//! process's life), temporary files of killed processes cleaned up, and a state, checkpoints
//! and shards checked against each other before a run continues, so that a damaged or edited
//! folder stops with an error or a warning that names what is missing, never in silence.

use crate::arena::Contender;
use crate::config::TrainConfig;
use crate::state::{IterationSummary, Phase, RunState};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tafl_engine::{
    search::{Evaluator, EvaluatorSpec, PlayerSpec},
    BitSet, Ruleset,
};
use tafl_models::run_dir::RunDir;
use tafl_nn::{read_manifest, MANIFEST_FILE};

/// An exclusive lock on a run folder, held until dropped. The operating system releases it
/// when the process ends, however it ends, so `kill -9` leaves no stale lock.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Takes the run folder's lock, or says which process holds it. `dir` must exist.
pub fn lock(dir: &Path) -> Result<RunLock, String> {
    let path = RunDir::new(dir).lock_file();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("cannot lock the run folder: {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {
            // The pid is for people and for the error of a second process; the lock is the flock.
            let _ = file
                .set_len(0)
                .and_then(|()| file.seek(SeekFrom::Start(0)))
                .and_then(|_| writeln!(file, "{}", std::process::id()))
                .and_then(|()| file.flush());
            Ok(RunLock { _file: file })
        }
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = (&file).take(64).read_to_string(&mut text);
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!("process {pid}"),
                Err(_) => "another process".to_string(),
            };
            Err(format!(
                "the run folder `{}` is in use by {holder} (it holds {}): two processes on one run would train every iteration twice and mix their checkpoints; wait for it to end, or stop it",
                dir.display(),
                path.display()
            ))
        }
        Err(TryLockError::Error(e)) => Err(format!("cannot lock the run folder: {}: {e}", path.display())),
    }
}

/// Whether a file name is one of the temporary names a write uses before its rename:
/// `.NAME.tmpPID-N` (atomic writes), `.tmp-PID-N` (TensorBoard events), `.NAME.tmp.png`.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp") || name.starts_with(".tmp-")
}

/// Removes the temporary files and folders that processes killed in the middle of a write
/// left in the run folder (the run's lock must be held). Returns what was removed.
pub fn remove_temporaries(dir: &Path) -> Vec<PathBuf> {
    let run = RunDir::new(dir);
    let mut folders = vec![dir.to_path_buf(), run.events_dir()];
    for sub in [run.checkpoints_dir(), run.shards_dir()] {
        if let Ok(entries) = std::fs::read_dir(sub) {
            folders.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    let mut removed = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            if !e.file_name().to_str().is_some_and(is_temporary) {
                continue;
            }
            let p = e.path();
            let done = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            if done.is_ok() {
                removed.push(p);
            }
        }
    }
    removed.sort();
    removed
}

/// The best network as the history says it is: the last promoted iteration, else 0.
fn best_by_history(history: &[IterationSummary]) -> u32 {
    history
        .iter()
        .rev()
        .find(|s| s.promoted)
        .map_or(0, |s| s.iteration)
}

/// Checks that the state file is one a run writes: its iteration, history, best and latest
/// checkpoints agree with each other. The error names the state file and what disagrees.
pub fn check_state(dir: &Path, state: &RunState) -> Result<(), String> {
    let file = RunDir::new(dir).state_file();
    let bad = |why: String| {
        Err(format!(
            "{}: {why}; the state file was edited or belongs to another run",
            file.display()
        ))
    };
    let it = state.iteration;
    if it == 0 {
        return bad("`iteration` is 0; iterations count from 1".into());
    }
    let done = it - 1;
    if state.history.len() as u64 != done as u64 {
        return bad(format!(
            "`iteration` is {it}, so {done} iterations are done, but `history` holds {}",
            state.history.len()
        ));
    }
    if let Some((i, s)) = state
        .history
        .iter()
        .enumerate()
        .find(|(i, s)| s.iteration as usize != i + 1)
    {
        return bad(format!(
            "`history` entry {} is for iteration {}",
            i + 1,
            s.iteration
        ));
    }
    if state.current.iteration != it {
        return bad(format!(
            "`current` is for iteration {}, `iteration` is {it}",
            state.current.iteration
        ));
    }
    // Training writes checkpoint `iteration` and then moves to the arena: before that, the
    // latest checkpoint is the previous iteration's.
    let latest = if state.phase == Phase::Arena { it } else { done };
    if state.latest != latest {
        return bad(format!(
            "`latest` is {}, but in the {} phase of iteration {it} the latest checkpoint is iter-{latest:04}",
            state.latest,
            phase_name(state.phase)
        ));
    }
    let best = best_by_history(&state.history);
    if state.best != best {
        return bad(format!(
            "`best` is {}, but the history promoted iter-{best:04} last",
            state.best
        ));
    }
    Ok(())
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Pretrain => "pretraining",
        Phase::SelfPlay => "self-play",
        Phase::Train => "training",
        Phase::Arena => "arena",
    }
}

/// What a resumed run is told before it goes on: warnings to log.
#[derive(Debug, Default)]
pub struct Findings {
    /// Lines for the log, each naming what is missing or odd.
    pub warnings: Vec<String>,
}

/// Checks the checkpoints a run needs and has made: those of the best and latest networks must
/// be there (an error names the folder); any other missing one is a warning (a ladder anchor
/// `checkpoint:N` on it cannot be played); checkpoints whose training steps do not grow with
/// the iteration (swapped or replaced folders) are an error.
pub fn check_checkpoints(dir: &Path, state: &RunState, findings: &mut Findings) -> Result<(), String> {
    let mut missing = Vec::new();
    let mut previous: Option<(u32, u64)> = None;
    for k in 0..=state.latest {
        let folder = RunDir::new(dir).checkpoint(k);
        if !folder.join(MANIFEST_FILE).is_file() {
            if k == state.best || k == state.latest {
                let role = if k == state.best && k == state.latest {
                    "the best and latest network"
                } else if k == state.best {
                    "the best network, which plays self-play and the arena"
                } else {
                    "the latest network, which training continues from"
                };
                return Err(format!(
                    "{} is missing (or has no {MANIFEST_FILE}): it holds {role}; restore it to resume",
                    folder.display()
                ));
            }
            missing.push(format!("iter-{k:04}"));
            continue;
        }
        let manifest = read_manifest(&folder).map_err(|e| e.to_string())?;
        if let Some((j, step)) = previous {
            if manifest.training_step <= step {
                return Err(format!(
                    "checkpoints out of order: {} was trained for {} steps, but iter-{j:04} before it for {step}; were checkpoint folders swapped or replaced? restore them to resume",
                    folder.display(),
                    manifest.training_step
                ));
            }
        }
        previous = Some((k, manifest.training_step));
    }
    if !missing.is_empty() {
        findings.warnings.push(format!(
            "warning: checkpoint folders missing in {}: {} (ladder anchors on them are skipped)",
            RunDir::new(dir).checkpoints_dir().display(),
            missing.join(", ")
        ));
    }
    Ok(())
}

/// A shard folder's shards: `(index, has .bin, has .json)`, sorted.
pub fn shard_files(folder: &Path) -> Vec<(u32, bool, bool)> {
    let mut found: std::collections::BTreeMap<u32, (bool, bool)> = Default::default();
    if let Ok(entries) = std::fs::read_dir(folder) {
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix("shard-") else {
                continue;
            };
            let (num, bin) = match (rest.strip_suffix(".bin"), rest.strip_suffix(".json")) {
                (Some(n), _) => (n, true),
                (_, Some(n)) => (n, false),
                _ => continue,
            };
            if let Ok(k) = num.parse::<u32>() {
                let entry = found.entry(k).or_default();
                if bin {
                    entry.0 = true;
                } else {
                    entry.1 = true;
                }
            }
        }
    }
    found.into_iter().map(|(k, (b, j))| (k, b, j)).collect()
}

/// What is missing of a shard folder: the folder itself, or shards with one file of their pair.
pub fn missing_shard_files(folder: &Path) -> Vec<String> {
    if !folder.is_dir() {
        return vec![format!("{} (the whole folder)", folder.display())];
    }
    shard_files(folder)
        .into_iter()
        .filter(|&(_, bin, json)| !(bin && json))
        .map(|(k, bin, _)| {
            let ext = if bin { "json" } else { "bin" };
            format!(
                "{}",
                folder
                    .join(format!("{}.{ext}", tafl_models::run_dir::shard_name(k.into())))
                    .display()
            )
        })
        .collect()
}

/// The message for a run that has nothing left to do, or `None` when it has.
pub fn finished(dir: &Path, state: &RunState, config: &TrainConfig) -> Option<String> {
    let done = state.iteration.saturating_sub(1);
    if state.iteration <= config.iterations {
        return None;
    }
    Some(if done == config.iterations {
        format!(
            "the run in {} is complete: all {done} iterations are done (best network: iter-{:04}); nothing to resume",
            dir.display(),
            state.best
        )
    } else {
        format!(
            "the run in {} has done {done} iterations, more than `iterations = {}` of its config.toml (edited since?); nothing to do: raise `iterations` to train further",
            dir.display(),
            config.iterations
        )
    })
}

/// The model a ladder anchor `mcts:model=PATH[:SIMS]` plays with, if it is one.
fn anchor_model(anchor: &str) -> Option<String> {
    match PlayerSpec::parse(anchor) {
        Ok(PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Model(path),
            ..
        }) => Some(path),
        _ => None,
    }
}

/// Loads every ladder anchor that is a model (`mcts:model=PATH:SIMS`, `mcts:model=shipped:SIMS`)
/// under the run's rules, so that one that cannot play is refused when the config is read,
/// naming the key, rather than at the first ladder.
pub fn check_model_anchors(config: &TrainConfig, ruleset: &Ruleset) -> Result<(), String> {
    for (key, anchor) in config.arena.all_anchors() {
        if let Some(path) = anchor_model(anchor) {
            tafl_models::load_evaluator(Path::new(&path), ruleset, 1)
                .map_err(|e| format!("key `{key}`: `{anchor}`: {e}"))?;
        }
    }
    Ok(())
}

/// The ladder opponent of an anchor spec: classic players as they are, models loaded (a run or
/// checkpoint folder, or `shipped`) into an evaluator batching `callers` games.
pub fn anchor_contender<B: BitSet>(
    anchor: &str,
    ruleset: &Ruleset,
    callers: usize,
) -> Result<Contender<B>, String> {
    let spec = PlayerSpec::parse(anchor)?;
    let net = match anchor_model(anchor) {
        Some(path) => {
            let (net, _) = tafl_models::load_evaluator(Path::new(&path), ruleset, callers)
                .map_err(|e| format!("ladder anchor `{anchor}`: {e}"))?;
            Some(net as Arc<dyn Evaluator<B>>)
        }
        None => None,
    };
    Ok(Contender {
        label: anchor.to_string(),
        spec,
        net,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names() {
        for t in [
            ".state.json.tmp123-0",
            ".shard-0002.json.tmp99-4",
            ".tmp-77-3",
            ".learning-curve.tmp.png",
        ] {
            assert!(is_temporary(t), "{t}");
        }
        for f in [
            "state.json",
            "shard-0002.json",
            "lock",
            "train.log",
            "events.out.tfevents.1",
        ] {
            assert!(!is_temporary(f), "{f}");
        }
    }

    #[test]
    fn a_second_lock_on_a_folder_is_refused_naming_the_holder() {
        let d = std::env::temp_dir().join(format!("tafl-lock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let held = lock(&d).unwrap();
        let e = lock(&d).unwrap_err();
        assert!(
            e.contains(&d.display().to_string()) && e.contains(&format!("process {}", std::process::id())),
            "{e}"
        );
        drop(held);
        lock(&d).expect("free again once dropped");
        let _ = std::fs::remove_dir_all(&d);
    }
}
