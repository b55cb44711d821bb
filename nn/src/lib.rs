//! `tafl-nn`: the policy/value network of the Tafl players, in burn 0.22.
//!
//! - [`Encoder`]: encoding v1, positions as input planes and moves as policy indices, with the
//!   8 board symmetries acting consistently on both (documented field by field in
//!   [`encoding`]).
//! - [`NetConfig`] / [`TaflNet`]: a residual network with optional KataGo global-pooling bias
//!   blocks, a policy head, a win/draw/loss value head and an optional moves-left head.
//! - [`NetEvaluator`]: [`tafl_engine::search::Evaluator`] for many search threads at once, one forward
//!   pass per gathered batch.
//! - [`Sample`], [`Batch`], [`loss`], [`Learner`]: what a trainer needs for one step.
//! - [`save_checkpoint`] / [`load_checkpoint`]: `model.safetensors` + `manifest.json`, checked
//!   against the rules in use.
//! - [`onnx_model`] / [`write_bundle`]: the network as an ONNX graph, and the client bundle
//!   (`model.onnx`, weights, manifest, README) that `tafl export` writes.
//! - [`Inference`] / [`OnnxNet`]: the forward pass in ONNX Runtime (loaded at run time from the
//!   PyPI wheel), the evaluator's default where installed; burn otherwise.
//! - [`Backend`]: `flex` on CPU by default, `wgpu` and `cuda` behind cargo features.
//!
//! ```no_run
//! use tafl_engine::{Game, Rules, Ruleset, search::{EvalInput, Evaluator}};
//! use tafl_nn::{default_device, BatchConfig, NetConfig, NetEvaluator};
//!
//! let ruleset = Ruleset::builtin("brandubh");
//! let rules = Rules::<u128>::new(&ruleset).unwrap();
//! let device = default_device();
//! let model = NetConfig::for_board(ruleset.size()).init(&device);
//! let eval = NetEvaluator::new(model, &ruleset, device, BatchConfig::default(), "net:fresh");
//! let game = Game::new(&rules);
//! let moves = game.position().moves(&rules);
//! let input = EvalInput { position: game.position(), moves: moves.as_slice(), occurrences: 1, ply: 0 };
//! let out = eval.evaluate(&rules, &[input]);
//! assert_eq!(out[0].priors.len(), moves.len());
//! ```
#![warn(missing_docs)]

mod backend;
mod bundle;
mod cache;
mod calibration;
mod checkpoint;
mod conv;
pub mod encoding;
mod error;
mod inference;
mod model;
mod onnx;
mod onnxruntime;
mod speed;
mod train;

pub use backend::{default_device, Backend};
pub use bundle::{
    write_bundle, BundleManifest, EloInfo, EloResult, EncodingDoc, FileDoc, Int8Doc, OnnxDoc, PlaneDoc,
    PolicyDoc, TensorDoc, BUNDLE_FORMAT, ONNX_FILE, ONNX_INT8_FILE, README_FILE,
};
pub use cache::{CacheKey, EvalCache};
pub use calibration::{calibration_planes, CALIBRATION_POSITIONS, CALIBRATION_SEED};
pub use checkpoint::{
    fnv1a64, load_checkpoint, load_checkpoint_bytes, read_manifest, save_checkpoint, weights_from_bytes,
    weights_to_bytes, write_atomic, Manifest, WeightsInfo, FORMAT, MANIFEST_FILE, WEIGHTS_FILE,
};
pub use encoding::{Encoder, ENCODING_VERSION, PLANES, PLANE_INFO};
pub use error::NnError;
pub use inference::{softmax, BatchConfig, EvalStats, NetEvaluator, PLAY_CACHE_ENTRIES};
pub use model::{GlobalPoolBias, NetConfig, NetOutput, PolicyHead, ResBlock, TaflNet, ValueHead};
pub use onnx::quantize::{ActivationRanges, WeightRange};
pub use onnx::{
    onnx_calibration_model, onnx_model, onnx_model_int8, ONNX_BATCH_AXIS, ONNX_INPUT, ONNX_MOVES_LEFT,
    ONNX_OPSET, ONNX_POLICY, ONNX_WDL,
};
pub use onnxruntime::{
    find_onnxruntime_library, onnxruntime_library, Inference, OnnxNet, OnnxOutput, ONNXRUNTIME_HINT,
};
pub use speed::{forward_rate, peak_gflops};
pub use train::{
    loss, non_finite_parameter, with_stable_param_ids, Batch, Learner, LossConfig, LossValues, Losses,
    Sample, MOVES_LEFT_SCALE,
};

/// burn, re-exported so users build devices and tensors with the same version.
pub use burn;
