//! Errors of the network crate: everything read from outside (checkpoints, manifests, backend
//! names) fails with one of these, never a panic.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong, with the file and the field or tensor concerned.
#[derive(Debug, Error)]
pub enum NnError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A manifest is not valid JSON or misses a field.
    #[error("manifest {}: {message}", path.display())]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A model was trained for other rules, another board or another encoding.
    #[error("model {} does not fit the rules in use: {message}", path.display())]
    Mismatch {
        /// The manifest file.
        path: PathBuf,
        /// Every difference found, one per line.
        message: String,
    },
    /// A weights file is truncated, corrupt or holds tensors of the wrong shape.
    #[error("weights {}: {message}", path.display())]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A backend was named that this build does not have.
    #[error("backend `{name}` is not available in this build; available: {available}")]
    Backend {
        /// The name asked for.
        name: String,
        /// The names compiled in.
        available: String,
    },
    /// A model configuration has impossible values.
    #[error("{0}")]
    Config(String),
    /// A model could not be written as ONNX.
    #[error("ONNX export: {0}")]
    Export(String),
    /// ONNX Runtime could not be loaded, or failed to open or run a network.
    #[error("onnxruntime: {0}")]
    Runtime(String),
}
