//! Trained models as evaluators and players: a checkpoint folder, or a run folder (its best
//! checkpoint), loaded into a batched [`NetEvaluator`].

use crate::run_dir::RunDir;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tafl_engine::Ruleset;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{
    default_device, load_checkpoint, read_manifest, EloInfo, Inference, Manifest, NetEvaluator, TaflNet,
    MANIFEST_FILE,
};

/// The checkpoint folder a path names: itself when it holds a manifest, else the best
/// checkpoint of the run folder it is.
pub fn checkpoint_dir(path: &Path) -> Result<PathBuf, String> {
    if path.join(MANIFEST_FILE).is_file() {
        return Ok(path.to_path_buf());
    }
    let run = RunDir::new(path);
    if run.is_run() {
        let state = crate::state::RunState::load(path)?;
        return Ok(run.checkpoint(state.best));
    }
    Err(format!(
        "`{}` is neither a checkpoint folder (with {MANIFEST_FILE}) nor a training run folder",
        path.display()
    ))
}

/// The Elo a training run recorded for the checkpoint folder `dir`: `Ok(None)` unless `dir`
/// is `RUN/checkpoints/iter-NNNN` of a run folder with a state file.
pub fn checkpoint_elo(dir: &Path) -> Result<Option<EloInfo>, String> {
    let Some((run, iteration)) = RunDir::of_checkpoint(dir) else {
        return Ok(None);
    };
    if !run.is_run() {
        return Ok(None);
    }
    let state = crate::state::RunState::load(run.path())?;
    Ok(Some(state.elo_of(iteration)))
}

/// Loads the model at `path` (checkpoint or run folder, or `shipped`: the built-in model for
/// the rules) for the rules in use, as an evaluator
/// that batches the positions of up to `callers` concurrent searches.
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
    if path == Path::new(crate::shipped::SHIPPED_PATH) {
        return crate::shipped::load_evaluator_on(ruleset, callers, inference);
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
    if path == Path::new(crate::shipped::SHIPPED_PATH) {
        return crate::shipped::load_model(ruleset, device).map(|(model, manifest, _)| (model, manifest));
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
