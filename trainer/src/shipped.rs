//! Models built into the program: the small networks committed under `checkpoints/<name>/`
//! (see `checkpoints/README.md` for how each was trained). A player names them as
//! `mcts:model=shipped`, which picks the one trained for the rules in use.

use std::path::Path;
use std::sync::Arc;
use tafl_engine::Ruleset;
use tafl_nn::{load_checkpoint_bytes, Manifest, NetEvaluator};

/// The model path that means "the shipped model for the rules in use".
pub const SHIPPED_PATH: &str = "shipped";

/// One built-in model: its folder name under `checkpoints/` and its two files.
#[derive(Clone, Copy, Debug)]
pub struct ShippedModel {
    /// Folder name under `checkpoints/` (the ruleset id it was trained for).
    pub name: &'static str,
    /// `manifest.json`.
    pub manifest: &'static str,
    /// `model.safetensors`.
    pub weights: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// The shipped model trained under `ruleset`, if any: the manifest's rules must be the same
/// knobs, so a model for `hnefatafl` is not offered for `copenhagen`.
pub fn for_rules(ruleset: &Ruleset) -> Result<&'static ShippedModel, String> {
    SHIPPED.iter().find(|m| m.name == ruleset.id()).ok_or_else(|| {
        let names: Vec<&str> = SHIPPED.iter().map(|m| m.name).collect();
        format!(
            "no shipped model for the rules `{}` (shipped: {})",
            ruleset.id(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )
    })
}

/// Loads the shipped model for `ruleset` as an evaluator batching up to `callers` searches.
pub fn load_evaluator(ruleset: &Ruleset, callers: usize) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    let m = for_rules(ruleset)?;
    let origin = Path::new("checkpoints").join(m.name);
    let device = tafl_nn::default_device();
    let (model, manifest) = load_checkpoint_bytes(m.manifest, m.weights.to_vec(), ruleset, &device, &origin)
        .map_err(|e| format!("shipped model `{}`: {e}", m.name))?;
    Ok((
        crate::models::evaluator_from(model, &manifest, ruleset, device, callers),
        manifest,
    ))
}
