//! Training: samples in the encoding's terms, batches as tensors, the AlphaZero loss and a
//! learner that takes one optimizer step per batch.
//!
//! ```no_run
//! use burn::optim::{AdamConfig, SgdConfig};
//! use tafl_engine::{Game, Rules, Ruleset, search::Wdl};
//! use tafl_nn::{default_device, Batch, Encoder, Learner, LossConfig, NetConfig, Sample};
//!
//! let ruleset = Ruleset::builtin("brandubh");
//! let rules = Rules::<u128>::new(&ruleset).unwrap();
//! let encoder = Encoder::new(&ruleset);
//! let device = default_device().autodiff();
//! let model = NetConfig::for_board(7).init(&device);
//! let mut learner = Learner::new(model, AdamConfig::new().init(), LossConfig::new());
//!
//! // One sample per searched position: visit counts and the game's result.
//! let game = Game::new(&rules);
//! let pos = game.position();
//! let moves = pos.moves(&rules);
//! let visits = vec![1.0; moves.len()];
//! let sample = Sample::new(&encoder, pos, 1, 0, moves.as_slice(), &visits, Wdl::from_value(0.0), 40.0);
//! let samples: Vec<Sample> = (0..8).map(|i| sample.transformed(&encoder, i as u8)).collect();
//!
//! let batch = Batch::new(&encoder, &samples, &device);
//! let losses = learner.step(&batch, 1e-3);
//! println!("policy {:.3} value {:.3}", losses.policy, losses.value);
//! ```

use crate::encoding::Encoder;
use crate::model::{NetOutput, TaflNet};
use burn::module::{ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use tafl_engine::{search::Wdl, BitSet, Move, Position};

/// Moves-left targets and outputs are plies divided by this.
pub const MOVES_LEFT_SCALE: f32 = 100.0;

/// The logit offset that masks an illegal move out of the training softmax.
const ILLEGAL: f32 = -1.0e4;

/// One training example: an encoded position and its targets, in host memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The input planes, `Encoder::input_len()` values.
    pub planes: Vec<f32>,
    /// Target probability per policy index; the probabilities sum to 1.
    pub policy: Vec<(u32, f32)>,
    /// The policy indices of the legal moves: the loss's softmax runs over these only. Empty
    /// for no mask.
    pub legal: Vec<u32>,
    /// Target win/draw/loss probabilities for the side to move; all zeros for a sample with
    /// no value target (policy only).
    pub wdl: [f32; 3],
    /// Plies left until the game ended.
    pub moves_left: f32,
}

impl Sample {
    /// A sample from a searched position: `visits` holds one weight per move of `moves`
    /// (normalised here), `outcome` the game's result for the side to move.
    #[allow(clippy::too_many_arguments)]
    pub fn new<B: BitSet>(
        encoder: &Encoder,
        pos: &Position<B>,
        occurrences: u8,
        ply: u32,
        moves: &[Move],
        visits: &[f32],
        outcome: Wdl,
        moves_left: f32,
    ) -> Sample {
        let legal = encoder.move_indices(moves, 0);
        let total: f32 = visits.iter().filter(|v| v.is_finite() && **v > 0.0).sum();
        let policy = legal
            .iter()
            .zip(visits)
            .filter(|(_, v)| v.is_finite() && **v > 0.0)
            .map(|(&i, &v)| (i, v / total))
            .collect();
        Sample {
            planes: encoder.encode_vec(pos, occurrences, ply, 0),
            policy,
            legal,
            wdl: [outcome.win, outcome.draw, outcome.loss],
            moves_left,
        }
    }

    /// The same sample seen through symmetry `sym` (for augmentation; use the symmetries of
    /// [`Encoder::symmetries`]).
    pub fn transformed(&self, encoder: &Encoder, sym: u8) -> Sample {
        let mut planes = vec![0.0; self.planes.len()];
        encoder.transform_planes(sym, &self.planes, &mut planes);
        Sample {
            planes,
            policy: self
                .policy
                .iter()
                .map(|&(i, p)| (encoder.transform_index(sym, i as usize) as u32, p))
                .collect(),
            legal: self
                .legal
                .iter()
                .map(|&i| encoder.transform_index(sym, i as usize) as u32)
                .collect(),
            wdl: self.wdl,
            moves_left: self.moves_left,
        }
    }
}

/// A batch of samples as tensors on one device.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Encoded positions, `[B, planes, n, n]`.
    pub input: Tensor<4>,
    /// Target policy over the whole index space, `[B, policy_size]`.
    pub policy: Tensor<2>,
    /// 0 on legal moves, a large negative number elsewhere, `[B, policy_size]`.
    pub policy_mask: Tensor<2>,
    /// Target win/draw/loss, `[B, 3]`.
    pub wdl: Tensor<2>,
    /// Target plies left divided by [`MOVES_LEFT_SCALE`], `[B, 1]`.
    pub moves_left: Tensor<2>,
}

impl Batch {
    /// Stacks samples into tensors on `device`. Indices outside the policy space are ignored.
    pub fn new(encoder: &Encoder, samples: &[Sample], device: &Device) -> Batch {
        let b = samples.len();
        let n = encoder.board_size();
        let p = encoder.policy_size();
        let len = encoder.input_len();
        let mut input = vec![0.0f32; b * len];
        let mut policy = vec![0.0f32; b * p];
        let mut mask = vec![0.0f32; b * p];
        let mut wdl = Vec::with_capacity(b * 3);
        let mut moves_left = Vec::with_capacity(b);
        for (i, s) in samples.iter().enumerate() {
            let k = s.planes.len().min(len);
            input[i * len..i * len + k].copy_from_slice(&s.planes[..k]);
            let row = &mut policy[i * p..(i + 1) * p];
            for &(j, v) in &s.policy {
                if let Some(x) = row.get_mut(j as usize) {
                    *x += v;
                }
            }
            if !s.legal.is_empty() {
                let row = &mut mask[i * p..(i + 1) * p];
                row.fill(ILLEGAL);
                for &j in &s.legal {
                    if let Some(x) = row.get_mut(j as usize) {
                        *x = 0.0;
                    }
                }
            }
            wdl.extend_from_slice(&s.wdl);
            moves_left.push(s.moves_left / MOVES_LEFT_SCALE);
        }
        Batch {
            input: Tensor::from_data(TensorData::new(input, [b, encoder.planes(), n, n]), device),
            policy: Tensor::from_data(TensorData::new(policy, [b, p]), device),
            policy_mask: Tensor::from_data(TensorData::new(mask, [b, p]), device),
            wdl: Tensor::from_data(TensorData::new(wdl, [b, 3]), device),
            moves_left: Tensor::from_data(TensorData::new(moves_left, [b, 1]), device),
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.input.dims()[0]
    }

    /// True for a batch of no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Weights of the loss terms.
#[derive(Config, Debug)]
pub struct LossConfig {
    /// Weight of the policy cross-entropy.
    #[config(default = 1.0)]
    pub policy_weight: f32,
    /// Weight of the win/draw/loss cross-entropy.
    #[config(default = 1.0)]
    pub value_weight: f32,
    /// Weight of the moves-left Huber loss (when the network has that head).
    #[config(default = 0.1)]
    pub moves_left_weight: f32,
}

/// The loss terms of a batch, as tensors (so `total.backward()` works).
#[derive(Clone, Debug)]
pub struct Losses {
    /// The weighted sum, `[1]`.
    pub total: Tensor<1>,
    /// Policy cross-entropy, `[1]`.
    pub policy: Tensor<1>,
    /// Win/draw/loss cross-entropy, `[1]`.
    pub value: Tensor<1>,
    /// Moves-left Huber loss, `[1]`, when the network has that head.
    pub moves_left: Option<Tensor<1>>,
}

/// The loss terms of a batch as numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossValues {
    /// The weighted sum.
    pub total: f32,
    /// Policy cross-entropy.
    pub policy: f32,
    /// Win/draw/loss cross-entropy.
    pub value: f32,
    /// Moves-left Huber loss (0 without that head).
    pub moves_left: f32,
}

impl Losses {
    /// Reads the values back to the host.
    pub fn values(&self) -> LossValues {
        let read = |t: &Tensor<1>| t.clone().into_scalar::<f32>();
        LossValues {
            total: read(&self.total),
            policy: read(&self.policy),
            value: read(&self.value),
            moves_left: self.moves_left.as_ref().map_or(0.0, read),
        }
    }
}

/// The AlphaZero loss: policy cross-entropy over the legal moves, win/draw/loss
/// cross-entropy, and a Huber loss on moves left.
pub fn loss(output: NetOutput, batch: &Batch, config: &LossConfig) -> Losses {
    let masked = output.policy + batch.policy_mask.clone(); // [B, P]
    let policy = (batch.policy.clone() * log_softmax(masked, 1)) // [B, P]
        .sum_dim(1) // [B, 1]
        .mean() // [1]
        .neg();
    // A sample whose win/draw/loss target is all zeros has no value target (a position of
    // a handicapped game before the handicapped side's last blunder: its result says nothing
    // of even play): it weighs 0 in the value and moves-left terms, which are averaged over
    // the samples that have one.
    let has_value = batch.wdl.clone().sum_dim(1); // [B, 1], 1 or 0
    let with_value = has_value.clone().sum().clamp_min(1.0); // [1]
    let value = (batch.wdl.clone() * log_softmax(output.wdl, 1)) // [B, 3]
        .sum_dim(1) // [B, 1]
        .sum() // [1]
        .div(with_value.clone())
        .neg();
    let moves_left = output.moves_left.map(|m| {
        let d = (m - batch.moves_left.clone()).abs(); // [B, 1]
        let small = d.clone().clamp_max(1.0); // [B, 1]
        ((small.clone() * small.clone() * 0.5 + d - small) * has_value) // [B, 1]
            .sum() // [1]
            .div(with_value)
    });
    let mut total = policy.clone() * config.policy_weight + value.clone() * config.value_weight;
    if let Some(m) = &moves_left {
        total = total + m.clone() * config.moves_left_weight;
    }
    Losses {
        total,
        policy,
        value,
        moves_left,
    }
}

/// A model and its optimizer: one [`Learner::step`] per batch.
pub struct Learner {
    model: Option<TaflNet>,
    optim: ModuleOptimizer,
    loss: LossConfig,
    steps: u64,
}

/// Gives a module's float parameters the ids 0, 1, 2, ... in the order the module visits them.
struct StableIds {
    next: u64,
}

impl ModuleMapper for StableIds {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (_, tensor, mapper) = param.consume();
        let id = ParamId::from(self.next);
        self.next += 1;
        Param::from_mapped_value(id, tensor, mapper)
    }
}

/// The model with parameter ids that depend only on its architecture. The optimizer keeps its
/// state (AdamW's moments and step count) per parameter id, and a model loaded from safetensors
/// gets fresh random ids: without this a saved optimizer state would never match the model it
/// is loaded for, and every training phase would restart Adam from step 1.
pub fn with_stable_param_ids(model: TaflNet) -> TaflNet {
    model.map(&mut StableIds { next: 0 })
}

/// Finds the first parameter holding a NaN or an infinity, by its path in the module.
struct NonFinite {
    path: Vec<String>,
    found: Option<String>,
}

impl ModuleVisitor for NonFinite {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }
    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if self.found.is_some() {
            return;
        }
        let values: Vec<f32> = param
            .val()
            .into_data()
            .convert::<f32>()
            .try_to_vec::<f32>()
            .unwrap_or_default();
        if values.iter().any(|v| !v.is_finite()) {
            self.found = Some(if self.path.is_empty() {
                "a parameter".to_string()
            } else {
                self.path.join(".")
            });
        }
    }
}

/// The path of the first parameter of `model` that is not a finite number, if any (a diverged
/// training run).
pub fn non_finite_parameter(model: &TaflNet) -> Option<String> {
    let mut v = NonFinite {
        path: Vec::new(),
        found: None,
    };
    model.visit(&mut v);
    v.found
}

impl Learner {
    /// A learner for a model on an autodiff device (`device.autodiff()`). The model's
    /// parameter ids are made stable ([`with_stable_param_ids`]) so that an optimizer state
    /// saved by one learner resumes in the next.
    pub fn new(model: TaflNet, optim: ModuleOptimizer, loss: LossConfig) -> Learner {
        Learner {
            model: Some(with_stable_param_ids(model)),
            optim,
            loss,
            steps: 0,
        }
    }

    /// One optimizer step on a batch (made on the model's device) at learning rate `lr`;
    /// returns the loss before the step.
    pub fn step(&mut self, batch: &Batch, lr: f64) -> LossValues {
        let Some(model) = self.model.take() else {
            unreachable!("the learner always holds its model between steps")
        };
        let losses = loss(model.forward(batch.input.clone()), batch, &self.loss);
        let values = losses.values();
        let grads = GradientsParams::from_grads(losses.total.backward(), &model);
        self.model = Some(self.optim.step(lr, model, grads));
        self.steps += 1;
        values
    }

    /// The loss of a batch without training on it.
    pub fn evaluate(&self, batch: &Batch) -> LossValues {
        let model = self.model().valid();
        let device = model_device(batch);
        let batch = Batch {
            input: batch.input.clone().to_device(&device),
            policy: batch.policy.clone().to_device(&device),
            policy_mask: batch.policy_mask.clone().to_device(&device),
            wdl: batch.wdl.clone().to_device(&device),
            moves_left: batch.moves_left.clone().to_device(&device),
        };
        loss(model.forward(batch.input.clone()), &batch, &self.loss).values()
    }

    /// The model being trained.
    pub fn model(&self) -> &TaflNet {
        match &self.model {
            Some(m) => m,
            None => unreachable!("the learner always holds its model between steps"),
        }
    }

    /// A copy of the model for inference: no autodiff, batch norm on its running statistics.
    pub fn inference_model(&self) -> TaflNet {
        self.model().valid()
    }

    /// The optimizer (to save its state with [`ModuleOptimizer::into_bytes`]).
    pub fn optimizer(&self) -> &ModuleOptimizer {
        &self.optim
    }

    /// Optimizer steps taken by this learner.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

fn model_device(batch: &Batch) -> Device {
    batch.input.device().without_autodiff()
}
