//! `tafl export`: the client bundle of a checkpoint (ONNX model, weights, manifest, README).

use std::path::Path;
use tafl_models::checkpoint_dir;
use tafl_trainer::state::checkpoint_elo;

/// The arguments of `tafl export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint folder, or a training run folder (its best checkpoint).
    checkpoint: String,
    /// Folder to write the bundle into (created if needed).
    #[arg(long)]
    out: String,
    /// Also write `model.int8.onnx`: the network with 8-bit weights and activations, calibrated
    /// on sample positions of its rules (needs ONNX Runtime: scripts/install-onnxruntime.sh).
    /// About a third of the size, and faster where the client's runtime has integer kernels.
    #[arg(long)]
    int8: bool,
}

impl ExportArgs {
    /// Runs `tafl export`.
    pub fn run(self) -> Result<(), String> {
        let ExportArgs {
            checkpoint,
            out,
            int8,
        } = self;
        run(
            std::path::Path::new(&checkpoint),
            std::path::Path::new(&out),
            int8,
        )
    }
}

/// Exports the checkpoint at `path` (a checkpoint folder, or a run folder for its best
/// checkpoint) into the folder `out`, with the int8 graph too when `int8` says so.
pub fn run(path: &Path, out: &Path, int8: bool) -> Result<(), String> {
    let dir = checkpoint_dir(path)?;
    check_destination(out, &dir)?;
    // Elo only describes the model; a run state that cannot be read costs the figures, not
    // the export.
    let elo = checkpoint_elo(&dir).unwrap_or_else(|e| {
        eprintln!("warning: no Elo in the manifest: {e}");
        None
    });
    let bundle = tafl_nn::write_bundle(&dir, out, elo, int8).map_err(|e| e.to_string())?;
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

/// Refuses a destination that an export would damage: a folder inside a training run (a
/// bundle's manifest in a run or checkpoint folder breaks `mcts:model=RUN` and `tafl export
/// RUN`, and would replace a checkpoint's), the checkpoint itself, and a folder that holds
/// files but is not an earlier bundle (whose files an export replaces).
fn check_destination(out: &Path, checkpoint: &Path) -> Result<(), String> {
    let shown = out.display();
    if out.exists() && !out.is_dir() {
        return Err(format!("--out `{shown}` is a file, not a folder"));
    }
    // The folder as it will be: its deepest existing ancestor resolved, the rest appended.
    let resolved = tafl_models::run_dir::resolved_path(out).map_err(|e| format!("--out `{shown}`: {e}"))?;
    if let Ok(source) = checkpoint.canonicalize() {
        if resolved == source {
            return Err(format!(
                "--out `{shown}` is the checkpoint folder itself; export into another folder"
            ));
        }
    }
    if let Some(run) = tafl_models::run_dir::run_holding(out) {
        return Err(format!(
            "--out `{shown}` is inside the training run `{}`: an export there would replace or add a manifest.json in the run (breaking `mcts:model=RUN` and `tafl export RUN`); export into a folder outside it",
            run.display()
        ));
    }
    let Ok(mut entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    if entries.next().is_none() {
        return Ok(());
    }
    let manifest = out.join(tafl_nn::MANIFEST_FILE);
    let earlier_bundle = tafl_engine::input::read_text(&manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|m| m["format"] == tafl_nn::BUNDLE_FORMAT);
    if earlier_bundle {
        Ok(())
    } else {
        Err(format!(
            "--out `{shown}` holds files and is not an earlier bundle (no manifest.json of format `{}`): an export would overwrite them; export into a new or empty folder, or into an earlier bundle to replace it",
            tafl_nn::BUNDLE_FORMAT
        ))
    }
}
