//! The client bundle: what a game client (browser, mobile, another engine) needs to run a
//! trained model without this code base.
//!
//! ```text
//! bundle/
//!   model.onnx          the network, ONNX opset 17, weights embedded (see crate::onnx)
//!   model.int8.onnx     with `--int8`: the same with 8-bit weights and activations
//!   model.safetensors   the checkpoint's weights, unchanged
//!   README.md           input planes, policy index, outputs, for a client author
//!   manifest.json       encoding, policy layout, rules, board, model config, Elo, I/O names
//! ```
//!
//! Every file is written to a temporary name and renamed into place, the manifest last, so a
//! manifest never describes files that are not all there.

use crate::calibration::{calibration_planes, CALIBRATION_POSITIONS, CALIBRATION_SEED};
use crate::checkpoint::{fnv1a64, load_checkpoint, read_manifest, write_atomic, MANIFEST_FILE, WEIGHTS_FILE};
use crate::encoding::{Encoder, ENCODING_VERSION, PLANES, PLANE_INFO, PLY_SCALE};
use crate::model::NetConfig;
use crate::onnx::quantize::WeightRange;
use crate::onnx::{
    onnx_model, onnx_model_int8, ONNX_BATCH_AXIS, ONNX_INPUT, ONNX_MOVES_LEFT, ONNX_OPSET, ONNX_POLICY,
    ONNX_WDL,
};
use crate::onnxruntime::OnnxNet;
use crate::{default_device, NnError, MOVES_LEFT_SCALE};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;
use tafl_engine::stats::Elo;
use tafl_engine::{formats::ruleset_to_opentafl, RulesFile, Ruleset};

/// The value of [`BundleManifest::format`].
pub const BUNDLE_FORMAT: &str = "tafl-client-bundle";
/// Name of the ONNX file in a bundle.
pub const ONNX_FILE: &str = "model.onnx";
/// Name of the int8 ONNX file in a bundle exported with it (`tafl export --int8`).
pub const ONNX_INT8_FILE: &str = "model.int8.onnx";
/// Name of the client documentation in a bundle.
pub const README_FILE: &str = "README.md";

/// The policy index formula of encoding v1, as written in manifests.
const POLICY_INDEX: &str = "from * 4 * (n - 1) + direction * (n - 1) + (distance - 1)";

/// One Elo measurement of the exported network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloResult {
    /// The training iteration whose arena or ladder measured it.
    pub iteration: u32,
    /// The opponent: `iter-N` (another network of the run) or a player spec.
    pub opponent: String,
    /// The Elo difference, positive when the exported network is stronger, with its interval
    /// (written as the fields `elo`, `low`, `high`).
    #[serde(flatten)]
    pub measured: Elo,
}

/// What a training run measured of a checkpoint's strength. Elo is relative: to the network
/// it replaced (arena) and to fixed players (ladder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloInfo {
    /// The checkpoint's iteration in its run.
    pub iteration: u32,
    /// Whether it is the run's best network now.
    pub best_in_run: bool,
    /// Its arena match against the best network of the time, when it played one.
    pub arena: Option<EloResult>,
    /// Ladder matches played while it was the best network.
    pub ladder: Vec<EloResult>,
}

/// Name and meaning of one input plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaneDoc {
    /// Plane number.
    pub index: usize,
    /// Short name.
    pub name: String,
    /// What its values are.
    pub meaning: String,
}

/// The input encoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EncodingDoc {
    /// Encoding version ([`ENCODING_VERSION`]).
    pub version: u32,
    /// Element `[plane][rank][file]` of one position: where a square's value sits.
    pub layout: String,
    /// Plies at which the ply plane reaches 1.
    pub ply_scale: u32,
    /// The planes, in order.
    pub planes: Vec<PlaneDoc>,
}

/// The policy index space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyDoc {
    /// Number of policy logits, `n * n * 4 * (n - 1)`.
    pub size: usize,
    /// Logits per from-square, `4 * (n - 1)`.
    pub moves_per_square: usize,
    /// The index of a move.
    pub index: String,
    /// How squares are numbered.
    pub square: String,
    /// Directions in index order.
    pub directions: Vec<String>,
    /// How to turn logits into move probabilities.
    pub usage: String,
}

/// One graph input or output of the ONNX file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorDoc {
    /// Its name in the graph.
    pub name: String,
    /// Axes: `"batch"` for the dynamic batch axis, else a size.
    pub shape: Vec<serde_json::Value>,
    /// Element type.
    pub dtype: String,
    /// What the values mean.
    pub meaning: String,
}

/// The ONNX file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnnxDoc {
    /// File name in the bundle.
    pub file: String,
    /// The operator set.
    pub opset: i64,
    /// Graph inputs.
    pub inputs: Vec<TensorDoc>,
    /// Graph outputs.
    pub outputs: Vec<TensorDoc>,
}

/// A bundle file's size and checksum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileDoc {
    /// File name in the bundle.
    pub file: String,
    /// Length in bytes.
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the content, 16 hex digits.
    pub fnv1a64: String,
}

/// `manifest.json` of a bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleManifest {
    /// Always [`BUNDLE_FORMAT`].
    pub format: String,
    /// The version of tafl that wrote the bundle.
    pub tafl_version: String,
    /// Input encoding.
    pub encoding: EncodingDoc,
    /// Policy index layout.
    pub policy: PolicyDoc,
    /// Symmetries (numbered as in the engine) under which the rules' special squares are
    /// invariant: a client may average the network over them.
    pub symmetries: Vec<u8>,
    /// The ruleset's id.
    pub ruleset_id: String,
    /// Every knob of the ruleset.
    pub ruleset: RulesFile,
    /// The ruleset as a rules file (TOML), readable by `tafl rules FILE`.
    pub ruleset_toml: String,
    /// The ruleset as an OpenTafl rules string.
    pub opentafl: String,
    /// Board side `n`.
    pub board_size: usize,
    /// The network's shape.
    pub model: NetConfig,
    /// Optimizer steps behind the weights.
    pub training_step: u64,
    /// Strength measured by the training run, `null` when the checkpoint is not in a run.
    pub elo: Option<EloInfo>,
    /// The ONNX graph's interface.
    pub onnx: OnnxDoc,
    /// The int8 variant of the graph, where the bundle has one (same inputs and outputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int8: Option<Int8Doc>,
    /// The bundle's files.
    pub files: Vec<FileDoc>,
}

/// How the bundle's int8 graph was quantized.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Int8Doc {
    /// Its file, [`ONNX_INT8_FILE`].
    pub file: String,
    /// The quantization format.
    pub format: String,
    /// How weights are stored.
    pub weights: String,
    /// How activations are quantized, and on what they were calibrated.
    pub activations: String,
}

/// Writes the client bundle of the checkpoint folder `checkpoint` into `out` (created if
/// needed) and returns its manifest.
///
/// The checkpoint is loaded and checked as for play (manifest, weights size, checksum and
/// shapes) under the rules it names, so a damaged checkpoint is refused before anything is
/// written.
///
/// With `int8`, the bundle also holds [`ONNX_INT8_FILE`]: the graph with 8-bit weights and
/// activations ([`crate::onnx_model_int8`]), calibrated here on sample positions of the rules,
/// which needs ONNX Runtime (an error names how to install it). Its weights use 7 bits, which
/// every CPU's integer kernels compute exactly (full 8 bits can overflow where the CPU has no
/// VNNI), so the file runs the same on any client.
pub fn write_bundle(
    checkpoint: &Path,
    out: &Path,
    elo: Option<EloInfo>,
    int8: bool,
) -> Result<BundleManifest, NnError> {
    let manifest = read_manifest(checkpoint)?;
    let ruleset = Ruleset::from_file(manifest.ruleset.clone()).map_err(|message| NnError::Manifest {
        path: checkpoint.join(MANIFEST_FILE),
        message: format!("field `ruleset`: {message}"),
    })?;
    let (model, manifest) = load_checkpoint(checkpoint, &ruleset, &default_device())?;
    let weights_path = checkpoint.join(&manifest.weights.file);
    let weights = crate::checkpoint::read_weights(&weights_path, &manifest)?;
    // The file was verified by the load above; a changed checksum means it changed since.
    if format!("{:016x}", fnv1a64(&weights)) != manifest.weights.fnv1a64 {
        return Err(NnError::Weights {
            path: weights_path,
            message: "the file changed while it was being exported".into(),
        });
    }

    let encoder = Encoder::new(&ruleset);
    let n = ruleset.size();
    let config = &manifest.model;
    let metadata = vec![
        ("tafl.format".to_string(), BUNDLE_FORMAT.to_string()),
        ("tafl.encoding_version".into(), ENCODING_VERSION.to_string()),
        ("tafl.ruleset_id".into(), ruleset.id().to_string()),
        ("tafl.board_size".into(), n.to_string()),
        ("tafl.policy_index".into(), POLICY_INDEX.to_string()),
        ("tafl.training_step".into(), manifest.training_step.to_string()),
    ];
    let onnx = onnx_model(&model, &metadata)?;
    let quantized = if int8 {
        let planes = calibration_planes(&ruleset, &encoder, CALIBRATION_POSITIONS, CALIBRATION_SEED);
        let ranges = OnnxNet::calibrate(&model, &planes, 0).map_err(|e| match e {
            NnError::Runtime(why) => NnError::Runtime(format!("--int8 calibrates with ONNX Runtime: {why}")),
            other => other,
        })?;
        let mut metadata = metadata.clone();
        metadata.push(("tafl.quantization".into(), "int8 QDQ".into()));
        Some(onnx_model_int8(&model, &metadata, &ranges, WeightRange::Reduced)?)
    } else {
        None
    };

    let bundle = BundleManifest {
        format: BUNDLE_FORMAT.into(),
        tafl_version: env!("CARGO_PKG_VERSION").into(),
        encoding: EncodingDoc {
            version: ENCODING_VERSION,
            layout: "input[b][plane][rank][file], square a1 = rank 0, file 0".into(),
            ply_scale: PLY_SCALE,
            planes: PLANE_INFO
                .iter()
                .enumerate()
                .map(|(index, (name, meaning))| PlaneDoc {
                    index,
                    name: name.to_string(),
                    meaning: meaning.to_string(),
                })
                .collect(),
        },
        policy: PolicyDoc {
            size: encoder.policy_size(),
            moves_per_square: encoder.moves_per_square(),
            index: POLICY_INDEX.into(),
            square: "from = rank * n + file (a1 = 0)".into(),
            directions: [
                "north (rank + 1)",
                "east (file + 1)",
                "south (rank - 1)",
                "west (file - 1)",
            ]
            .map(String::from)
            .to_vec(),
            usage: "softmax over the logits of the legal moves only; the other indices are never trained"
                .into(),
        },
        symmetries: encoder.symmetries().to_vec(),
        ruleset_id: ruleset.id().to_string(),
        ruleset: ruleset.file.clone(),
        ruleset_toml: ruleset.to_toml(),
        opentafl: ruleset_to_opentafl(&ruleset),
        board_size: n,
        model: config.clone(),
        training_step: manifest.training_step,
        elo,
        onnx: onnx_doc(config, encoder.policy_size()),
        int8: quantized.as_ref().map(|_| Int8Doc {
            file: ONNX_INT8_FILE.into(),
            format: "ONNX QDQ (QuantizeLinear/DequantizeLinear pairs), which onnxruntime runs as integer kernels".into(),
            weights: "int8, symmetric, one scale per output channel, within -63..63; batch norms folded into the convolutions".into(),
            activations: format!(
                "uint8, one scale and zero point per tensor, ranges measured on {CALIBRATION_POSITIONS} positions of the rules; the value head's dense layers in float32"
            ),
        }),
        files: std::iter::once(file_doc(ONNX_FILE, &onnx))
            .chain(quantized.as_ref().map(|q| file_doc(ONNX_INT8_FILE, q)))
            .chain([file_doc(WEIGHTS_FILE, &weights)])
            // The README is described after it is rendered, below.
            .collect(),
    };
    let readme = client_readme(&bundle);
    let mut bundle = bundle;
    bundle.files.push(file_doc(README_FILE, readme.as_bytes()));

    fs::create_dir_all(out).map_err(|source| NnError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    // Exporting into the checkpoint itself would replace its manifest with the bundle's.
    if let (Ok(a), Ok(b)) = (fs::canonicalize(out), fs::canonicalize(checkpoint)) {
        if a == b {
            return Err(NnError::Io {
                path: out.to_path_buf(),
                source: std::io::Error::other("the output folder is the checkpoint folder itself"),
            });
        }
    }
    write_atomic(&out.join(WEIGHTS_FILE), &weights)?;
    write_atomic(&out.join(ONNX_FILE), &onnx)?;
    match &quantized {
        Some(q) => write_atomic(&out.join(ONNX_INT8_FILE), q)?,
        // An earlier bundle's int8 file would no longer match this one's model.
        None => match fs::remove_file(out.join(ONNX_INT8_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(NnError::Io {
                    path: out.join(ONNX_INT8_FILE),
                    source: e,
                })
            }
            _ => {}
        },
    }
    write_atomic(&out.join(README_FILE), readme.as_bytes())?;
    let path = out.join(MANIFEST_FILE);
    let json = serde_json::to_string_pretty(&bundle).map_err(|e| NnError::Manifest {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&path, json.as_bytes())?;
    Ok(bundle)
}

fn file_doc(file: &str, bytes: &[u8]) -> FileDoc {
    FileDoc {
        file: file.into(),
        bytes: bytes.len() as u64,
        fnv1a64: format!("{:016x}", fnv1a64(bytes)),
    }
}

fn onnx_doc(config: &NetConfig, policy_size: usize) -> OnnxDoc {
    let n = config.board_size;
    let shape = |dims: &[usize]| {
        std::iter::once(serde_json::Value::from(ONNX_BATCH_AXIS))
            .chain(dims.iter().map(|&d| serde_json::Value::from(d)))
            .collect()
    };
    let tensor = |name: &str, dims: &[usize], meaning: &str| TensorDoc {
        name: name.into(),
        shape: shape(dims),
        dtype: "float32".into(),
        meaning: meaning.into(),
    };
    let mut outputs = vec![
        tensor(
            ONNX_POLICY,
            &[policy_size],
            "policy logits over the policy index (see `policy`)",
        ),
        tensor(
            ONNX_WDL,
            &[3],
            "win, draw, loss logits for the side to move; softmax gives their probabilities",
        ),
    ];
    if config.moves_left {
        outputs.push(tensor(
            ONNX_MOVES_LEFT,
            &[1],
            &format!("plies left in the game divided by {MOVES_LEFT_SCALE}"),
        ));
    }
    OnnxDoc {
        file: ONNX_FILE.into(),
        opset: ONNX_OPSET,
        inputs: vec![tensor(
            ONNX_INPUT,
            &[PLANES, n, n],
            "encoded positions, encoding v1 (see `encoding`)",
        )],
        outputs,
    }
}

/// The bundle's README: what a client author needs, generated from the manifest.
fn client_readme(b: &BundleManifest) -> String {
    let n = b.board_size;
    let k = b.policy.moves_per_square;
    let mut s = String::new();
    let line = |s: &mut String, text: &str| {
        s.push_str(text);
        s.push('\n');
    };
    line(&mut s, &format!("# tafl model: {} ({n}x{n})", b.ruleset_id));
    line(&mut s, "");
    line(
        &mut s,
        &format!(
            "A policy/value network trained by tafl {} ({} optimizer steps; a residual tower of {} x {} channels). \
             `model.onnx` runs in onnxruntime (web, mobile, desktop) or any ONNX opset {} runtime; \
             `model.safetensors` holds the same weights; `manifest.json` says all of this as data, \
             with the full rules (`ruleset_toml`, `opentafl`).",
            b.tafl_version, b.training_step, b.model.blocks, b.model.channels, b.onnx.opset
        ),
    );
    if let Some(q) = &b.int8 {
        line(&mut s, "");
        line(
            &mut s,
            &format!(
                "`{}` is the same network with 8-bit weights and activations ({}): the same inputs and \
                 outputs, about a third of the size, and about twice as fast in onnxruntime on CPUs with \
                 integer dot-product instructions (VNNI); its outputs differ from `model.onnx`'s by \
                 quantization (the best move agreed on 96-99% of positions for tafl's shipped networks). \
                 Weights: {}. Activations: {}.",
                q.file, q.format, q.weights, q.activations
            ),
        );
    }
    line(&mut s, "");
    line(&mut s, "## Input: `planes`, float32 `[batch, 11, n, n]`");
    line(&mut s, "");
    line(
        &mut s,
        "Element `[b][plane][rank][file]`; square a1 is rank 0, file 0. Colours are absolute \
         (attackers are always plane 0); plane 3 says who moves.",
    );
    line(&mut s, "");
    line(&mut s, "| plane | name | value |");
    line(&mut s, "|---|---|---|");
    for p in &b.encoding.planes {
        line(&mut s, &format!("| {} | {} | {} |", p.index, p.name, p.meaning));
    }
    line(&mut s, "");
    line(
        &mut s,
        "Planes 8 and 9 stay 0 under rules whose `repetition` knob is `ignore`. Planes 4 to 7 depend \
         only on the rules.",
    );
    line(&mut s, "");
    line(
        &mut s,
        &format!("## Output `{ONNX_POLICY}`: float32 `[batch, {}]`", b.policy.size),
    );
    line(&mut s, "");
    line(
        &mut s,
        &format!(
            "One logit per (from-square, direction, distance): `index = from * {k} + direction * {} + \
             (distance - 1)` with `from = rank * {n} + file` and directions 0 north (rank + 1), 1 east \
             (file + 1), 2 south (rank - 1), 3 west (file - 1). Take the softmax over the legal moves' \
             logits only; indices of illegal moves carry no meaning.",
            n - 1
        ),
    );
    line(&mut s, "");
    line(&mut s, &format!("## Output `{ONNX_WDL}`: float32 `[batch, 3]`"));
    line(&mut s, "");
    line(
        &mut s,
        "Logits of win, draw and loss **for the side to move** (plane 3); their softmax gives the \
         probabilities. A scalar value is `P(win) - P(loss)`.",
    );
    if b.model.moves_left {
        line(&mut s, "");
        line(
            &mut s,
            &format!("## Output `{ONNX_MOVES_LEFT}`: float32 `[batch, 1]`"),
        );
        line(&mut s, "");
        line(
            &mut s,
            &format!("Predicted plies left in the game, divided by {MOVES_LEFT_SCALE}."),
        );
    }
    line(&mut s, "");
    line(&mut s, "## Symmetries");
    line(&mut s, "");
    line(
        &mut s,
        &format!(
            "The rules' special squares are invariant under symmetries {:?} of the board (0 = identity; \
             bit 2 transposes file and rank, then bit 0 mirrors files, bit 1 mirrors ranks). A client \
             may evaluate a transformed position and map the policy back (from-square and direction \
             transform, distance is kept), or average over several symmetries.",
            b.symmetries
        ),
    );
    line(&mut s, "");
    line(&mut s, "## Strength");
    line(&mut s, "");
    match &b.elo {
        None => line(
            &mut s,
            "Not measured (the checkpoint was not exported from a training run).",
        ),
        Some(e) => {
            line(
                &mut s,
                &format!(
                    "Iteration {} of its training run{}. Elo is relative to the opponent named, with a 95% interval:",
                    e.iteration,
                    if e.best_in_run { ", the run's best network" } else { "" }
                ),
            );
            line(&mut s, "");
            let results: Vec<&EloResult> = e.arena.iter().chain(&e.ladder).collect();
            if results.is_empty() {
                line(&mut s, "- no arena or ladder match recorded");
            }
            for r in results {
                line(
                    &mut s,
                    &format!(
                        "- vs {} (iteration {}): {:+.0} [{:+.0}, {:+.0}]",
                        // `+ 0.0` turns -0.0 into 0.0, which prints without a sign.
                        r.opponent,
                        r.iteration,
                        r.measured.elo + 0.0,
                        r.measured.low + 0.0,
                        r.measured.high + 0.0
                    ),
                );
            }
        }
    }
    s
}
