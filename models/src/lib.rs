//! `tafl-models`: the model store. Where a network comes from and whether it fits the rules in
//! play, below the training loop, so that players, levels and the server load models without
//! linking the trainer:
//!
//! - a checkpoint folder (`manifest.json` + `model.safetensors`), or a training run's folder
//!   (its best checkpoint; the folder's layout is [`run_dir`]);
//! - `shipped`: the networks built into the program for their games ([`shipped`]), matched by
//!   the game the rules describe, not by name (the rules question itself,
//!   [`Ruleset::same_game`], is the engine's).
//!
//! Crate order: `tafl-engine` <- `tafl-nn` <- `tafl-models` <- `tafl-trainer` <- `tafl-lab`.
#![warn(missing_docs)]

pub mod run_dir;
pub mod shipped;

pub use run_dir::RunDir;
pub use shipped::SHIPPED_PATH;

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tafl_engine::Ruleset;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{
    default_device, load_checkpoint, read_manifest, Inference, Manifest, NetEvaluator, TaflNet, MANIFEST_FILE,
};

/// The checkpoint folder a path names: itself when it holds a manifest, else the best
/// checkpoint of the run folder it is.
pub fn checkpoint_dir(path: &Path) -> Result<PathBuf, String> {
    if path.join(MANIFEST_FILE).is_file() {
        return Ok(path.to_path_buf());
    }
    let run = RunDir::new(path);
    if run.is_run() {
        return Ok(run.checkpoint(best_of_run(&run)?));
    }
    Err(format!(
        "`{}` is neither a checkpoint folder (with {MANIFEST_FILE}) nor a training run folder",
        path.display()
    ))
}

/// The one field of a run's state file that play needs: the iteration whose checkpoint is the
/// run's best. The trainer's `RunState` writes the file and reads all of it; reading only this
/// keeps the loop's record types (self-play tallies, losses, ladders) out of the store.
#[derive(Deserialize)]
struct BestOfRun {
    best: u32,
}

/// The iteration of `run`'s best checkpoint, from its state file.
fn best_of_run(run: &RunDir) -> Result<u32, String> {
    let p = run.state_file();
    let text = tafl_engine::input::read_text(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str::<BestOfRun>(&text)
        .map(|s| s.best)
        .map_err(|e| format!("{}: not a run state: {e}", p.display()))
}

/// Loads the model at `path` (checkpoint or run folder, or `shipped`: the built-in model for
/// the rules) for the rules in use, as an evaluator that batches the positions of up to
/// `callers` concurrent searches.
pub fn load_evaluator(
    path: &Path,
    ruleset: &Ruleset,
    callers: usize,
) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    load_evaluator_on(path, ruleset, callers, Inference::process_default())
}

/// [`load_evaluator`] with the forward passes on `inference` instead of the process's default
/// (a level that asks for int8).
pub fn load_evaluator_on(
    path: &Path,
    ruleset: &Ruleset,
    callers: usize,
    inference: Inference,
) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    if path == Path::new(SHIPPED_PATH) {
        return shipped::load_evaluator_on(ruleset, callers, inference);
    }
    let device = default_device();
    let (model, manifest) = load_model(path, ruleset, &device)?;
    Ok((
        NetEvaluator::for_play(model, &manifest, ruleset, device, callers, inference),
        manifest,
    ))
}

/// The network at `path` (a checkpoint or run folder, or `shipped`) for the game `ruleset`
/// describes, on `device`, with its manifest: to evaluate with, or to train further.
pub fn load_model(path: &Path, ruleset: &Ruleset, device: &Device) -> Result<(TaflNet, Manifest), String> {
    if path == Path::new(SHIPPED_PATH) {
        return shipped::load_model(ruleset, device).map(|(model, manifest, _)| (model, manifest));
    }
    let dir = checkpoint_dir(path)?;
    // A model fits rules that describe its game however they are spelled (a TOML diagram or
    // an OpenTafl position record, another name or id) and from whatever start position: it is
    // then loaded against its own rules, which the manifest check compares knob by knob.
    let model_rules = read_manifest(&dir)
        .ok()
        .and_then(|m| Ruleset::from_file(m.ruleset).ok())
        .filter(|own| own.same_game_any_start(ruleset));
    load_checkpoint(&dir, model_rules.as_ref().unwrap_or(ruleset), device).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_folder_names_its_best_checkpoint_and_anything_else_is_refused() {
        let dir = std::env::temp_dir().join(format!("tafl-models-best-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let err = checkpoint_dir(&dir).unwrap_err();
        assert!(err.contains("neither a checkpoint folder"), "{err}");
        let run = RunDir::new(&dir);
        std::fs::write(
            run.state_file(),
            r#"{"iteration": 5, "best": 3, "latest": 4, "history": []}"#,
        )
        .unwrap();
        assert_eq!(checkpoint_dir(&dir), Ok(run.checkpoint(3)));
        std::fs::write(run.state_file(), r#"{"best": "three"}"#).unwrap();
        let err = checkpoint_dir(&dir).unwrap_err();
        assert!(
            err.contains("state.json") && err.contains("not a run state"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
