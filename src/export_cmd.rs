//! `tafl export`: the client bundle of a checkpoint (ONNX model, weights, manifest, README).

use std::path::Path;
use tafl_trainer::models::{checkpoint_dir, checkpoint_elo};

/// Exports the checkpoint at `path` (a checkpoint folder, or a run folder for its best
/// checkpoint) into the folder `out`.
pub fn run(path: &Path, out: &Path) -> Result<(), String> {
    let dir = checkpoint_dir(path)?;
    // Elo only describes the model; a run state that cannot be read costs the figures, not
    // the export.
    let elo = checkpoint_elo(&dir).unwrap_or_else(|e| {
        eprintln!("warning: no Elo in the manifest: {e}");
        None
    });
    let bundle = tafl_nn::write_bundle(&dir, out, elo).map_err(|e| e.to_string())?;
    println!(
        "exported {} ({}x{}, {} blocks x {} channels, step {}) to {}",
        dir.display(),
        bundle.board_size,
        bundle.board_size,
        bundle.model.blocks,
        bundle.model.channels,
        bundle.training_step,
        out.display()
    );
    for f in &bundle.files {
        println!("  {:<18} {:>10} bytes", f.file, f.bytes);
    }
    println!("  {:<18}", tafl_nn::MANIFEST_FILE);
    Ok(())
}
