//! The fast path from the first command: `tafl train` on a machine without ONNX Runtime
//! installs it (PyPI's `onnxruntime` into `target/onnx-venv`, by the project's own
//! `scripts/install-onnxruntime.sh`) before anything loads a network, so that the README's
//! main job self-plays through ONNX Runtime, about 3x faster than through burn, on a fresh
//! clone. Where the install cannot run (no script beside the binary's sources, no Python, no
//! network), training goes on through burn and says why.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The install script of the source tree this binary was built from, or of the working
/// directory.
fn script() -> Option<PathBuf> {
    let built_from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/install-onnxruntime.sh");
    let here = PathBuf::from("scripts/install-onnxruntime.sh");
    [built_from, here].into_iter().find(|p| p.is_file())
}

/// Installs ONNX Runtime when no library is found; reports on stderr, never fails.
pub fn install_if_missing() {
    if tafl_nn::find_onnxruntime_library().is_ok() {
        return;
    }
    let Some(script) = script() else {
        eprintln!(
            "note: ONNX Runtime is not installed and no scripts/install-onnxruntime.sh is at hand: self-play evaluates through burn, about 3x slower; {}",
            tafl_nn::ONNXRUNTIME_HINT
        );
        return;
    };
    eprintln!(
        "installing ONNX Runtime for fast self-play (once; {}; `tafl train --no-install` skips this)",
        script.display()
    );
    let status = Command::new("bash")
        .arg(&script)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status();
    match status {
        Ok(s) if s.success() && tafl_nn::find_onnxruntime_library().is_ok() => {
            eprintln!("ONNX Runtime installed");
        }
        Ok(s) => eprintln!(
            "note: installing ONNX Runtime failed ({s}): self-play evaluates through burn, about 3x slower"
        ),
        Err(e) => eprintln!(
            "note: cannot run {}: {e}: self-play evaluates through burn, about 3x slower",
            script.display()
        ),
    }
}
