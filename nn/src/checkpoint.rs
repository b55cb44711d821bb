//! Checkpoints: a folder with `model.safetensors` (weights under readable names such as
//! `blocks.0.conv1.weight`) and `manifest.json` (what the weights mean).
//!
//! ```text
//! checkpoint/
//!   model.safetensors   weights, f32
//!   manifest.json       { "format": "tafl-nn-model", "encoding_version": 1,
//!                         "ruleset_id": "brandubh", "ruleset": { every knob },
//!                         "board_size": 7, "input_planes": 11, "policy_size": 1176,
//!                         "model": { NetConfig }, "training_step": 1200,
//!                         "weights": { "file": "model.safetensors", "bytes": ..., "fnv1a64": "..." } }
//! ```
//!
//! Both files are written to a temporary name and renamed into place, weights first, so a
//! manifest never describes weights that are not all there. Loading checks the manifest against
//! the rules in use, the weights' size and checksum against the manifest, and every tensor's
//! name and shape against the model config; any difference is an [`NnError`].

use crate::encoding::{Encoder, ENCODING_VERSION, PLANES};
use crate::model::{NetConfig, TaflNet};
use crate::NnError;
use burn::module::Module;
use burn::prelude::Device;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use tafl_engine::{RulesFile, Ruleset};

/// The value of [`Manifest::format`].
pub const FORMAT: &str = "tafl-nn-model";
/// Name of the weights file in a checkpoint folder.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// Name of the manifest file in a checkpoint folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The size and checksum of the weights file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightsInfo {
    /// The file name, relative to the checkpoint folder.
    pub file: String,
    /// Its length in bytes.
    pub bytes: u64,
    /// FNV-1a 64-bit hash of its content, as 16 hex digits.
    pub fnv1a64: String,
}

/// What a checkpoint's weights mean: encoding, rules, board and network shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// The input encoding and policy index version ([`ENCODING_VERSION`]).
    pub encoding_version: u32,
    /// The ruleset's id.
    pub ruleset_id: String,
    /// Every knob of the ruleset the model was trained under.
    pub ruleset: RulesFile,
    /// Board side.
    pub board_size: usize,
    /// Input planes.
    pub input_planes: usize,
    /// Size of the policy index space.
    pub policy_size: usize,
    /// The network's shape.
    pub model: NetConfig,
    /// Optimizer steps taken when the weights were saved.
    pub training_step: u64,
    /// The weights file; filled in by [`save_checkpoint`].
    pub weights: WeightsInfo,
}

impl Manifest {
    /// A manifest for a model of `config` trained under `ruleset`.
    pub fn new(ruleset: &Ruleset, config: &NetConfig, training_step: u64) -> Manifest {
        let encoder = Encoder::new(ruleset);
        Manifest {
            format: FORMAT.to_string(),
            encoding_version: ENCODING_VERSION,
            ruleset_id: ruleset.id().to_string(),
            ruleset: ruleset.file.clone(),
            board_size: ruleset.size(),
            input_planes: PLANES,
            policy_size: encoder.policy_size(),
            model: config.clone(),
            training_step,
            weights: WeightsInfo {
                file: WEIGHTS_FILE.to_string(),
                bytes: 0,
                fnv1a64: String::new(),
            },
        }
    }

    /// Every way in which this model does not fit `ruleset` and encoding v1, one per line;
    /// `Ok` when it fits. The display name of the rules is not compared.
    pub fn check(&self, ruleset: &Ruleset) -> Result<(), String> {
        let mut problems = Vec::new();
        if self.format != FORMAT {
            problems.push(format!(
                "field `format` is `{}`, expected `{FORMAT}`",
                self.format
            ));
        }
        if self.encoding_version != ENCODING_VERSION {
            problems.push(format!(
                "encoding version {} (this build reads version {ENCODING_VERSION})",
                self.encoding_version
            ));
        }
        let n = ruleset.size();
        if self.board_size != n || self.model.board_size != n {
            problems.push(format!(
                "board size {} (model config {}), the rules in use have {n}x{n}",
                self.board_size, self.model.board_size
            ));
        }
        if self.input_planes != PLANES || self.model.input_planes != PLANES {
            problems.push(format!(
                "{} input planes (model config {}), encoding v{ENCODING_VERSION} has {PLANES}",
                self.input_planes, self.model.input_planes
            ));
        }
        let policy = Encoder::new(ruleset).policy_size();
        if self.policy_size != policy || self.model.policy_size() != policy {
            problems.push(format!(
                "policy size {}, the rules in use need {policy}",
                self.policy_size
            ));
        }
        if self.ruleset_id != ruleset.id() {
            problems.push(format!(
                "trained for ruleset `{}`, the rules in use are `{}`",
                self.ruleset_id,
                ruleset.id()
            ));
        }
        problems.extend(knob_differences(&self.ruleset, &ruleset.file));
        if let Err(e) = self.model.validate() {
            problems.push(e);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

/// The knobs that differ between the model's rules and the rules in use.
fn knob_differences(model: &RulesFile, used: &RulesFile) -> Vec<String> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(model), serde_json::to_value(used))
    else {
        return vec!["the rules cannot be compared".to_string()];
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| k.as_str() != "name")
        .filter_map(|k| {
            let (x, y) = (a.get(k), b.get(k));
            (x != y).then(|| {
                let show = |v: Option<&serde_json::Value>| match v {
                    None => "(none)".to_string(),
                    Some(serde_json::Value::String(s)) => s.replace('\n', "/"),
                    Some(v) => v.to_string(),
                };
                format!(
                    "knob `{k}`: the model was trained with `{}`, the rules in use have `{}`",
                    show(x),
                    show(y)
                )
            })
        })
        .collect()
}

/// The weights' checksum ([`tafl_engine::formats::fnv1a64`] of their bytes): against truncated or
/// damaged weights, not against tampering.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    tafl_engine::formats::fnv1a64(bytes.iter().copied())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), NnError> {
    let io = |source| NnError::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_file_name(format!(".{name}.tmp{}-{unique}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // Make the rename itself durable where the platform allows syncing a folder.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// The model's weights as safetensors bytes.
pub fn weights_to_bytes(model: &TaflNet) -> Result<Vec<u8>, NnError> {
    let mut store = SafetensorsStore::from_bytes(None).metadata("format", FORMAT);
    let err = |e: &dyn std::fmt::Display| NnError::Weights {
        path: PathBuf::from("(memory)"),
        message: e.to_string(),
    };
    model.save_into(&mut store).map_err(|e| err(&e))?;
    store.get_bytes().map_err(|e| err(&e))
}

/// Loads safetensors bytes into a model built from `config`; `path` names them in errors.
/// Every tensor of the model must be present with its shape, and no other tensor.
pub fn weights_from_bytes(
    config: &NetConfig,
    bytes: Vec<u8>,
    device: &Device,
    path: &Path,
) -> Result<TaflNet, NnError> {
    config.validate().map_err(NnError::Config)?;
    let err = |message: String| NnError::Weights {
        path: path.to_path_buf(),
        message,
    };
    // Parameters are created lazily, so a config that asks for more weights than the file can
    // hold is refused here, before anything is allocated for it.
    let mut model = config.init(device);
    let needed = model.num_params() as u64 * 4;
    if needed > bytes.len() as u64 {
        return Err(err(format!(
            "{} bytes cannot hold the {} parameters of the model config",
            bytes.len(),
            model.num_params()
        )));
    }
    let mut store = SafetensorsStore::from_bytes(Some(bytes));
    // burn's parser is meant to return errors; a panic on hostile bytes would still be a bug
    // of ours to report, not a crash of the caller.
    let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| model.load_from(&mut store)))
        .map_err(|_| err("the file could not be parsed (damaged safetensors data)".into()))?
        .map_err(|e| err(e.to_string()))?;
    if !applied.errors.is_empty() || !applied.missing.is_empty() || !applied.unused.is_empty() {
        return Err(err(format!(
            "tensors do not match the model config: {} wrong, missing [{}], unexpected [{}]",
            applied.errors.len(),
            applied
                .missing
                .iter()
                .map(|m| m.0.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            applied.unused.join(", ")
        )));
    }
    Ok(model)
}

/// Saves a checkpoint folder (created if needed): weights, then the manifest with the
/// weights' size and checksum filled in. Returns that manifest.
pub fn save_checkpoint(dir: &Path, model: &TaflNet, manifest: &Manifest) -> Result<Manifest, NnError> {
    fs::create_dir_all(dir).map_err(|source| NnError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let bytes = weights_to_bytes(model)?;
    let mut manifest = manifest.clone();
    manifest.weights = WeightsInfo {
        file: WEIGHTS_FILE.to_string(),
        bytes: bytes.len() as u64,
        fnv1a64: format!("{:016x}", fnv1a64(&bytes)),
    };
    write_atomic(&dir.join(WEIGHTS_FILE), &bytes)?;
    let path = dir.join(MANIFEST_FILE);
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| NnError::Manifest {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&path, json.as_bytes())?;
    Ok(manifest)
}

/// Reads and parses a checkpoint's manifest, without checking it against any rules.
pub fn read_manifest(dir: &Path) -> Result<Manifest, NnError> {
    let path = dir.join(MANIFEST_FILE);
    let text = tafl_engine::input::read_text(&path).map_err(|message| {
        input_error(&path, message, |path, message| NnError::Manifest {
            path,
            message,
        })
    })?;
    serde_json::from_str(&text).map_err(|e| NnError::Manifest {
        path,
        message: e.to_string(),
    })
}

/// Loads a checkpoint for the rules in use: refuses a manifest that does not fit them, weights
/// whose size or checksum differ from the manifest, and tensors that do not fit the model.
pub fn load_checkpoint(
    dir: &Path,
    ruleset: &Ruleset,
    device: &Device,
) -> Result<(TaflNet, Manifest), NnError> {
    let manifest = read_manifest(dir)?;
    manifest.check(ruleset).map_err(|message| NnError::Mismatch {
        path: dir.join(MANIFEST_FILE),
        message,
    })?;
    let file = &manifest.weights.file;
    if file.is_empty() || file.contains(['/', '\\']) || file.starts_with('.') {
        return Err(NnError::Manifest {
            path: dir.join(MANIFEST_FILE),
            message: format!("field `weights.file`: `{file}` is not a file name in the checkpoint folder"),
        });
    }
    let path = dir.join(file);
    let bytes = read_weights(&path, &manifest)?;
    load_weights(manifest, bytes, device, &path)
}

/// The most read of a weights file: a model of the largest config the manifest allows holds
/// less.
pub const WEIGHTS_LIMIT: u64 = 4 << 30;

/// Reads a checkpoint's weights file, no more than the manifest says it holds (and at most
/// [`WEIGHTS_LIMIT`]): a larger or endless file is refused before it fills the memory.
pub fn read_weights(path: &Path, manifest: &Manifest) -> Result<Vec<u8>, NnError> {
    // One byte more than the manifest gives, so that a longer file is told apart by the size check.
    let limit = manifest.weights.bytes.min(WEIGHTS_LIMIT).saturating_add(1);
    tafl_engine::input::read_limited(path, limit)
        .map_err(|message| input_error(path, message, |path, message| NnError::Weights { path, message }))
}

/// A bounded read's error: the system's (an `Io` error) when the file cannot be opened,
/// else `other` with the reader's message (too large, not text).
fn input_error(path: &Path, message: String, other: fn(PathBuf, String) -> NnError) -> NnError {
    match fs::File::open(path) {
        Err(source) => NnError::Io {
            path: path.to_path_buf(),
            source,
        },
        Ok(_) => other(path.to_path_buf(), message),
    }
}

/// Loads a checkpoint held in memory (a model built into the program): `origin` names it in
/// errors, as a folder would. The same checks as [`load_checkpoint`] apply.
pub fn load_checkpoint_bytes(
    manifest_json: &str,
    weights: Vec<u8>,
    ruleset: &Ruleset,
    device: &Device,
    origin: &Path,
) -> Result<(TaflNet, Manifest), NnError> {
    let manifest: Manifest = serde_json::from_str(manifest_json).map_err(|e| NnError::Manifest {
        path: origin.join(MANIFEST_FILE),
        message: e.to_string(),
    })?;
    manifest.check(ruleset).map_err(|message| NnError::Mismatch {
        path: origin.join(MANIFEST_FILE),
        message,
    })?;
    let path = origin.join(&manifest.weights.file);
    load_weights(manifest, weights, device, &path)
}

/// Checks weights against their manifest (size and checksum) and builds the model.
fn load_weights(
    manifest: Manifest,
    bytes: Vec<u8>,
    device: &Device,
    path: &Path,
) -> Result<(TaflNet, Manifest), NnError> {
    let path = path.to_path_buf();
    if bytes.len() as u64 != manifest.weights.bytes {
        return Err(NnError::Weights {
            path,
            message: format!(
                "{} bytes, the manifest says {} (truncated or replaced)",
                bytes.len(),
                manifest.weights.bytes
            ),
        });
    }
    let sum = format!("{:016x}", fnv1a64(&bytes));
    if sum != manifest.weights.fnv1a64 {
        return Err(NnError::Weights {
            path,
            message: format!(
                "checksum {sum}, the manifest says {} (the file is damaged)",
                manifest.weights.fnv1a64
            ),
        });
    }
    let model = weights_from_bytes(&manifest.model, bytes, device, &path)?;
    Ok((model, manifest))
}
