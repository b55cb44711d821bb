//! Trained models as evaluators and players: a checkpoint folder, or a run folder (its best
//! checkpoint), loaded into a batched [`NetEvaluator`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tafl_engine::{classic_evaluator, BitSet, Evaluator, EvaluatorSpec, Ruleset};
use tafl_nn::{
    burn::prelude::Device, default_device, load_checkpoint, BatchConfig, EloInfo, Manifest, NetEvaluator,
    TaflNet, MANIFEST_FILE,
};

/// The checkpoint folder a path names: itself when it holds a manifest, else the best
/// checkpoint of the run folder it is.
pub fn checkpoint_dir(path: &Path) -> Result<PathBuf, String> {
    if path.join(MANIFEST_FILE).is_file() {
        return Ok(path.to_path_buf());
    }
    if path.join(crate::run::STATE_FILE).is_file() {
        let state = crate::run::RunState::load(path)?;
        return Ok(crate::run::checkpoint_path(path, state.best));
    }
    Err(format!(
        "`{}` is neither a checkpoint folder (with {MANIFEST_FILE}) nor a training run folder",
        path.display()
    ))
}

/// The Elo a training run recorded for the checkpoint folder `dir`: `Ok(None)` unless `dir`
/// is `RUN/checkpoints/iter-NNNN` of a run folder with a state file.
pub fn checkpoint_elo(dir: &Path) -> Result<Option<EloInfo>, String> {
    let iteration = dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("iter-"))
        .and_then(|n| n.parse::<u32>().ok());
    let run = dir
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "checkpoints"))
        .and_then(Path::parent);
    let (Some(iteration), Some(run)) = (iteration, run) else {
        return Ok(None);
    };
    if !run.join(crate::run::STATE_FILE).is_file() {
        return Ok(None);
    }
    let state = crate::run::RunState::load(run)?;
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
    if path == Path::new(crate::shipped::SHIPPED_PATH) {
        return crate::shipped::load_evaluator(ruleset, callers);
    }
    let dir = checkpoint_dir(path)?;
    let device = default_device();
    let (model, manifest) = load_checkpoint(&dir, ruleset, &device).map_err(|e| e.to_string())?;
    Ok((
        evaluator_from(model, &manifest, ruleset, device, callers),
        manifest,
    ))
}

/// Wraps a loaded model in a batched evaluator for up to `callers` concurrent searches.
pub fn evaluator_from(
    model: TaflNet,
    manifest: &Manifest,
    ruleset: &Ruleset,
    device: Device,
    callers: usize,
) -> Arc<NetEvaluator> {
    let config = BatchConfig {
        callers,
        max_wait: Duration::from_millis(2),
        ..BatchConfig::default()
    };
    let name = format!("net:{}@{}", manifest.ruleset_id, manifest.training_step);
    Arc::new(NetEvaluator::new(model, ruleset, device, config, name))
}

/// An evaluator factory for players: classic evaluators, and models loaded from their path.
pub fn evaluator_for<B: BitSet>(
    spec: &EvaluatorSpec,
    ruleset: &Ruleset,
) -> Result<Arc<dyn Evaluator<B>>, String> {
    match spec {
        EvaluatorSpec::Model(path) => {
            let (e, _) = load_evaluator(Path::new(path), ruleset, 0)?;
            Ok(e)
        }
        other => classic_evaluator(other),
    }
}
