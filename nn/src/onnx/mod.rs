//! ONNX export of a [`TaflNet`]: the inference-mode forward pass as an ONNX opset 17 graph with
//! the weights embedded, for runtimes such as onnxruntime (web, mobile, desktop).
//!
//! ```text
//! planes [batch, 11, n, n]
//!   Conv -> BatchNormalization -> Relu -> residual blocks            [batch, C, n, n]
//!   policy: Conv -> BatchNormalization -> Relu -> Conv -> Transpose -> Reshape
//!                                                  -> policy_logits  [batch, n*n*4(n-1)]
//!   value:  Conv -> BatchNormalization -> Relu -> mean & max pool -> Gemm -> Relu
//!             -> Gemm -> wdl_logits                                  [batch, 3]
//!             -> Gemm -> moves_left (when the model has that head)   [batch, 1]
//! ```
//!
//! The graph is written node by node from the model's own modules (batch norms keep their
//! running statistics and epsilon as `BatchNormalization` nodes; linear layers are `Gemm`
//! nodes on burn's `[in, out]` weights), so it computes what [`TaflNet::forward`] computes with
//! no autodiff device. burn-onnx 0.22's experimental exporter was not used: it has no lowering
//! for the transpose, mean and max reductions of this network.
//!
//! The same builder writes two variants for inference on CPUs ([`onnx_model_int8`]): the batch
//! norms folded into the convolutions before them, with the tensors to quantize as extra
//! outputs (the calibration graph, run over sample positions to measure their ranges), and the
//! int8 graph itself, with those ranges ([`quantize`]).

mod proto;
pub mod quantize;

use crate::model::{GlobalPoolBias, ResBlock, TaflNet};
use crate::NnError;
use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear, PaddingConfig2d};
use burn::prelude::*;
use proto::{Attr, Dim, ModelProto, NodeProto, TensorProto, TensorValues, ValueInfo};
use quantize::{ActivationRanges, WeightRange};
use std::collections::HashMap;

/// The ONNX operator set the graph uses.
pub const ONNX_OPSET: i64 = 17;
/// Name of the graph's input: encoded positions `[batch, planes, n, n]`, float32.
pub const ONNX_INPUT: &str = "planes";
/// Name of the policy output: logits over the policy index `[batch, policy_size]`.
pub const ONNX_POLICY: &str = "policy_logits";
/// Name of the value output: win/draw/loss logits for the side to move `[batch, 3]`.
pub const ONNX_WDL: &str = "wdl_logits";
/// Name of the moves-left output `[batch, 1]`, present when the model has that head.
pub const ONNX_MOVES_LEFT: &str = "moves_left";
/// Name of the symbolic batch axis of the input and outputs.
pub const ONNX_BATCH_AXIS: &str = "batch";

/// Serializes `model` as an ONNX model (opset [`ONNX_OPSET`]) with its weights embedded.
///
/// `metadata` becomes the model's `metadata_props` (rules id, encoding version, ...), which
/// runtimes show to client code.
pub fn onnx_model(model: &TaflNet, metadata: &[(String, String)]) -> Result<Vec<u8>, NnError> {
    Ok(proto::encode(&build(model, metadata, Mode::Plain)?.0))
}

/// The calibration graph of `model`: batch norms folded, and every tensor the int8 graph
/// quantizes added as an output after the usual ones. Returns the model and those tensors'
/// names; running it over sample positions gives the [`ActivationRanges`] of
/// [`onnx_model_int8`].
pub fn onnx_calibration_model(model: &TaflNet) -> Result<(Vec<u8>, Vec<String>), NnError> {
    let (onnx, points) = build(model, &[], Mode::Calibration)?;
    Ok((proto::encode(&onnx), points))
}

/// `model` with 8-bit weights and activations (ONNX Runtime's QDQ format; see [`quantize`]):
/// the batch norms folded, each tensor a convolution or an addition reads quantized at its
/// range in `ranges` (measured with [`onnx_calibration_model`]), weights at `weights`. The
/// policy's last convolution keeps float outputs, and the small dense layers of the value head
/// stay in float. Errors name a tensor `ranges` lacks.
pub fn onnx_model_int8(
    model: &TaflNet,
    metadata: &[(String, String)],
    ranges: &ActivationRanges,
    weights: WeightRange,
) -> Result<Vec<u8>, NnError> {
    Ok(proto::encode(
        &build(model, metadata, Mode::Int8(ranges, weights))?.0,
    ))
}

/// Which graph [`build`] writes.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// Every module as it is, batch norms as nodes: what [`TaflNet::forward`] computes.
    Plain,
    /// Batch norms folded into the convolutions before them, the tensors to quantize added as
    /// outputs.
    Calibration,
    /// Folded, with 8-bit weights and activations.
    Int8(&'a ActivationRanges, WeightRange),
}

/// The graph of `model` in `mode`, and (calibration) the names of the tensors to quantize.
fn build(
    model: &TaflNet,
    metadata: &[(String, String)],
    mode: Mode<'_>,
) -> Result<(ModelProto, Vec<String>), NnError> {
    let mut g = Graph::new(mode);
    let [_, planes, _, _] = model.stem.weight.dims();
    let board = board_size(model)?;

    let x = g.conv_bn("stem", &model.stem, Some(("stem_bn", &model.stem_bn)), ONNX_INPUT)?; // [B, C, n, n]
    let mut x = g.op("Relu", "stem_relu", vec![x], vec![]);
    for (i, block) in model.blocks.iter().enumerate() {
        x = g.block(&format!("blocks.{i}"), block, &x)?; // [B, C, n, n]
    }

    let p = g.conv_bn(
        "policy.conv",
        &model.policy.conv,
        Some(("policy.bn", &model.policy.bn)),
        &x,
    )?; // [B, P, n, n]
    let p = g.op("Relu", "policy.relu", vec![p], vec![]);
    let p = g.conv_bn("policy.out", &model.policy.out, None, &p)?; // [B, 4(n-1), n, n]
                                                                   // Square-major, as the policy index: (rank * n + file) * 4(n-1) + move.
    let p = g.op(
        "Transpose",
        "policy.square_major",
        vec![p],
        vec![Attr::Ints("perm", vec![0, 2, 3, 1])],
    ); // [B, n, n, 4(n-1)]
    let shape = g.i64_constant("policy.flat_shape", vec![0, -1]);
    g.op_named("Reshape", "policy.flatten", ONNX_POLICY, vec![p, shape], vec![]); // [B, n*n*4(n-1)]

    let v = g.conv_bn(
        "value.conv",
        &model.value.conv,
        Some(("value.bn", &model.value.bn)),
        &x,
    )?; // [B, V, n, n]
    let v = g.op("Relu", "value.relu", vec![v], vec![]);
    let v = g.global_pool("value.pool", &v); // [B, 2V]
    let h = g.linear("value.hidden", &model.value.hidden, &v, None)?; // [B, H]
    let h = g.op("Relu", "value.hidden_relu", vec![h], vec![]);
    g.linear("value.wdl", &model.value.wdl, &h, Some(ONNX_WDL))?; // [B, 3]
    if let Some(m) = &model.value.moves_left {
        g.linear("value.moves_left", m, &h, Some(ONNX_MOVES_LEFT))?; // [B, 1]
    }

    let policy_size = board * board * model.policy.out.weight.dims()[0];
    let batch = || Dim::Named(ONNX_BATCH_AXIS);
    let mut outputs = vec![
        ValueInfo {
            name: ONNX_POLICY.into(),
            dims: vec![batch(), Dim::Fixed(policy_size)],
            doc: "policy logits; index = from * 4(n-1) + direction * (n-1) + distance - 1".into(),
        },
        ValueInfo {
            name: ONNX_WDL.into(),
            dims: vec![batch(), Dim::Fixed(3)],
            doc: "win/draw/loss logits for the side to move; softmax gives probabilities".into(),
        },
    ];
    if model.value.moves_left.is_some() {
        outputs.push(ValueInfo {
            name: ONNX_MOVES_LEFT.into(),
            dims: vec![batch(), Dim::Fixed(1)],
            doc: format!("plies left in the game divided by {}", crate::MOVES_LEFT_SCALE),
        });
    }
    for point in &g.points {
        outputs.push(ValueInfo {
            name: point.clone(),
            dims: vec![],
            doc: "calibration: a tensor the int8 graph quantizes".into(),
        });
    }
    let points = std::mem::take(&mut g.points);
    let onnx = ModelProto {
        producer_version: env!("CARGO_PKG_VERSION").into(),
        opset: ONNX_OPSET,
        doc: "tafl policy/value network (encoding v1); see the bundle's README.md".into(),
        metadata: metadata.to_vec(),
        graph_name: "tafl_net".into(),
        nodes: g.nodes,
        initializers: g.initializers,
        inputs: vec![ValueInfo {
            name: ONNX_INPUT.into(),
            dims: vec![batch(), Dim::Fixed(planes), Dim::Fixed(board), Dim::Fixed(board)],
            doc: "encoded positions (encoding v1 input planes)".into(),
        }],
        outputs,
    };
    Ok((onnx, points))
}

/// The board side, from the policy head: it has `4 * (n - 1)` outputs per square.
pub(crate) fn board_size(model: &TaflNet) -> Result<usize, NnError> {
    let k = model.policy.out.weight.dims()[0];
    if k < 4 || !k.is_multiple_of(4) {
        return Err(NnError::Export(format!(
            "the policy head has {k} outputs per square, not a multiple 4 * (n - 1)"
        )));
    }
    Ok(k / 4 + 1)
}

/// A graph under construction. Every node has one output, named after the node, so the ONNX
/// file reads like the model's module tree (`blocks.3.bn1`).
struct Graph<'a> {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    mode: Mode<'a>,
    /// Calibration: the tensors the int8 graph quantizes, in order of first use.
    points: Vec<String>,
    /// Int8: each quantized tensor's dequantized copy, and its scale.
    dequantized: HashMap<String, (String, f32)>,
}

/// `y = scale * x + shift` per channel: an inference-mode batch norm.
fn batch_norm_affine(name: &str, bn: &BatchNorm) -> Result<(Vec<f32>, Vec<f32>), NnError> {
    let gamma = values(name, bn.gamma.val())?;
    let beta = values(name, bn.beta.val())?;
    let mean = values(name, bn.running_mean.value())?;
    let var = values(name, bn.running_var.value())?;
    let scale: Vec<f32> = gamma
        .iter()
        .zip(&var)
        .map(|(g, v)| g / (v + bn.epsilon as f32).sqrt())
        .collect();
    let shift = beta
        .iter()
        .zip(&mean)
        .zip(&scale)
        .map(|((b, m), s)| b - m * s)
        .collect();
    Ok((scale, shift))
}

/// A tensor's values, row-major.
fn values<const D: usize>(name: &str, tensor: Tensor<D>) -> Result<Vec<f32>, NnError> {
    Ok(tensor
        .into_data()
        .as_slice::<f32>()
        .map_err(|e| NnError::Export(format!("tensor `{name}` is not f32: {e:?}")))?
        .to_vec())
}

/// A convolution's attributes: kernel, padding, strides, dilations, groups.
fn conv_attrs(name: &str, conv: &Conv2d) -> Result<Vec<Attr>, NnError> {
    let [kh, kw] = conv.kernel_size;
    // ONNX pads are [top, left, bottom, right] (begins, then ends), as burn's Explicit.
    let pads = match conv.padding {
        PaddingConfig2d::Valid => [0, 0, 0, 0],
        PaddingConfig2d::Explicit(t, l, b, r) => [t, l, b, r],
        PaddingConfig2d::Same if kh % 2 == 1 && kw % 2 == 1 && conv.stride == [1, 1] => {
            [kh / 2, kw / 2, kh / 2, kw / 2]
        }
        PaddingConfig2d::Same => {
            return Err(NnError::Export(format!(
                "`{name}`: 'same' padding with an even kernel or a stride is not exported"
            )))
        }
    };
    let ints = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
    Ok(vec![
        Attr::Ints("kernel_shape", ints(&[kh, kw])),
        Attr::Ints("pads", ints(&pads)),
        Attr::Ints("strides", ints(&conv.stride)),
        Attr::Ints("dilations", ints(&conv.dilation)),
        Attr::Int("group", conv.groups as i64),
    ])
}

impl<'a> Graph<'a> {
    fn new(mode: Mode<'a>) -> Graph<'a> {
        Graph {
            nodes: Vec::new(),
            initializers: Vec::new(),
            mode,
            points: Vec::new(),
            dequantized: HashMap::new(),
        }
    }

    /// Whether batch norms are folded into the convolutions before them.
    fn folded(&self) -> bool {
        !matches!(self.mode, Mode::Plain)
    }

    /// Adds a node whose output is named `name`; returns that name.
    fn op(&mut self, op_type: &'static str, name: &str, inputs: Vec<String>, attrs: Vec<Attr>) -> String {
        self.op_named(op_type, name, name, inputs, attrs)
    }

    /// Adds a node with an explicitly named output (the graph's outputs); returns it.
    fn op_named(
        &mut self,
        op_type: &'static str,
        name: &str,
        output: &str,
        inputs: Vec<String>,
        attrs: Vec<Attr>,
    ) -> String {
        self.nodes.push(NodeProto {
            name: name.into(),
            op_type,
            inputs,
            outputs: vec![output.into()],
            attrs,
        });
        output.into()
    }

    fn i64_constant(&mut self, name: &str, values: Vec<i64>) -> String {
        self.initializers.push(TensorProto {
            name: name.into(),
            dims: vec![values.len() as i64],
            data: TensorValues::I64(values),
        });
        name.into()
    }

    /// Stores a tensor's values as an initializer named `name`.
    fn weight<const D: usize>(&mut self, name: &str, tensor: Tensor<D>) -> Result<String, NnError> {
        let dims = tensor.dims().iter().map(|&d| d as i64).collect();
        let values = values(name, tensor)?;
        Ok(self.initializer(name, dims, TensorValues::F32(values)))
    }

    /// Stores `data`, shaped `dims` (empty: a scalar), as an initializer named `name`.
    fn initializer(&mut self, name: &str, dims: Vec<i64>, data: TensorValues) -> String {
        self.initializers.push(TensorProto {
            name: name.into(),
            dims,
            data,
        });
        name.into()
    }

    /// The tensor `x` as a convolution or an addition reads it, and its scale: in the int8
    /// graph, quantized to 8 bits at its calibrated range and dequantized again (once per tensor,
    /// whatever reads it), which ONNX Runtime fuses with the operator into an integer kernel;
    /// the calibration graph notes it as a tensor to measure.
    fn activation(&mut self, x: &str) -> Result<(String, f32), NnError> {
        match self.mode {
            Mode::Plain => Ok((x.into(), 1.0)),
            Mode::Calibration => {
                if !self.points.iter().any(|p| p == x) {
                    self.points.push(x.into());
                }
                Ok((x.into(), 1.0))
            }
            Mode::Int8(ranges, _) => {
                if let Some(known) = self.dequantized.get(x) {
                    return Ok(known.clone());
                }
                let (lo, hi) = ranges
                    .get(x)
                    .ok_or_else(|| NnError::Export(format!("int8: no calibrated range for tensor `{x}`")))?;
                let (scale, zero) = quantize::activation_params(lo, hi);
                let s = self.initializer(&format!("{x}.scale"), vec![], TensorValues::F32(vec![scale]));
                let z = self.initializer(&format!("{x}.zero_point"), vec![], TensorValues::U8(vec![zero]));
                let q = self.op(
                    "QuantizeLinear",
                    &format!("{x}.quantized"),
                    vec![x.into(), s.clone(), z.clone()],
                    vec![],
                );
                let dq = self.op(
                    "DequantizeLinear",
                    &format!("{x}.dequantized"),
                    vec![q, s, z],
                    vec![],
                );
                self.dequantized.insert(x.into(), (dq.clone(), scale));
                Ok((dq, scale))
            }
        }
    }

    /// `a + b`, both read as [`Graph::activation`]s.
    fn add(&mut self, name: &str, a: &str, b: &str) -> Result<String, NnError> {
        let (a, _) = self.activation(a)?;
        let (b, _) = self.activation(b)?;
        Ok(self.op("Add", name, vec![a, b], vec![]))
    }

    /// A convolution, then its batch norm where `bn` names one: two nodes in the plain graph;
    /// otherwise one convolution with the batch norm folded into its weights and bias, reading
    /// its input as an [`Graph::activation`], with 8-bit weights in the int8 graph.
    fn conv_bn(
        &mut self,
        name: &str,
        conv: &Conv2d,
        bn: Option<(&str, &BatchNorm)>,
        x: &str,
    ) -> Result<String, NnError> {
        if !self.folded() {
            let y = self.conv(name, conv, x)?;
            return match bn {
                Some((bn_name, bn)) => self.batch_norm(bn_name, bn, &y),
                None => Ok(y),
            };
        }
        let dims = conv.weight.dims();
        let out = dims[0];
        let mut weights = values(name, conv.weight.val())?; // [out, in, kh, kw]
        let mut biases = match &conv.bias {
            Some(b) => values(name, b.val())?,
            None => vec![0.0; out],
        };
        if let Some((bn_name, bn)) = bn {
            let (scale, shift) = batch_norm_affine(bn_name, bn)?;
            let per = weights.len() / out;
            for (c, row) in weights.chunks_mut(per).enumerate() {
                row.iter_mut().for_each(|w| *w *= scale[c]);
                biases[c] = biases[c] * scale[c] + shift[c];
            }
        }
        let (input, input_scale) = self.activation(x)?;
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let (w, b) = match self.mode {
            Mode::Int8(_, range) => {
                let (q, scales) = quantize::quantize_weights(&weights, out, range);
                let axis = vec![Attr::Int("axis", 0)];
                let wq = self.initializer(&format!("{name}.weight_quantized"), shape, TensorValues::I8(q));
                let ws = self.initializer(
                    &format!("{name}.weight_scale"),
                    vec![out as i64],
                    TensorValues::F32(scales.clone()),
                );
                let wz = self.initializer(
                    &format!("{name}.weight_zero_point"),
                    vec![out as i64],
                    TensorValues::I8(vec![0; out]),
                );
                let w = self.op(
                    "DequantizeLinear",
                    &format!("{name}.weight"),
                    vec![wq, ws, wz],
                    axis.clone(),
                );
                let (q, scales) = quantize::quantize_biases(&biases, input_scale, &scales);
                let bq = self.initializer(
                    &format!("{name}.bias_quantized"),
                    vec![out as i64],
                    TensorValues::I32(q),
                );
                let bs = self.initializer(
                    &format!("{name}.bias_scale"),
                    vec![out as i64],
                    TensorValues::F32(scales),
                );
                let b = self.op("DequantizeLinear", &format!("{name}.bias"), vec![bq, bs], axis);
                (w, b)
            }
            _ => (
                self.initializer(&format!("{name}.weight"), shape, TensorValues::F32(weights)),
                self.initializer(
                    &format!("{name}.bias"),
                    vec![out as i64],
                    TensorValues::F32(biases),
                ),
            ),
        };
        let attrs = conv_attrs(name, conv)?;
        Ok(self.op("Conv", name, vec![input, w, b], attrs))
    }

    fn param<const D: usize>(&mut self, name: &str, p: &Param<Tensor<D>>) -> Result<String, NnError> {
        self.weight(name, p.val())
    }

    fn conv(&mut self, name: &str, conv: &Conv2d, x: &str) -> Result<String, NnError> {
        let attrs = conv_attrs(name, conv)?;
        let mut inputs = vec![
            x.to_string(),
            self.param(&format!("{name}.weight"), &conv.weight)?,
        ];
        if let Some(b) = &conv.bias {
            inputs.push(self.param(&format!("{name}.bias"), b)?);
        }
        Ok(self.op("Conv", name, inputs, attrs))
    }

    /// Inference-mode batch norm: `(x - running_mean) / sqrt(running_var + eps) * gamma + beta`.
    fn batch_norm(&mut self, name: &str, bn: &BatchNorm, x: &str) -> Result<String, NnError> {
        let inputs = vec![
            x.to_string(),
            self.param(&format!("{name}.gamma"), &bn.gamma)?,
            self.param(&format!("{name}.beta"), &bn.beta)?,
            self.weight(&format!("{name}.running_mean"), bn.running_mean.value())?,
            self.weight(&format!("{name}.running_var"), bn.running_var.value())?,
        ];
        let attrs = vec![Attr::Float("epsilon", bn.epsilon as f32)];
        Ok(self.op("BatchNormalization", name, inputs, attrs))
    }

    /// `x W + b` with burn's `[in, out]` weight, which is Gemm's `B` untransposed.
    fn linear(
        &mut self,
        name: &str,
        linear: &Linear,
        x: &str,
        output: Option<&str>,
    ) -> Result<String, NnError> {
        let mut inputs = vec![
            x.to_string(),
            self.param(&format!("{name}.weight"), &linear.weight)?,
        ];
        if let Some(b) = &linear.bias {
            inputs.push(self.param(&format!("{name}.bias"), b)?);
        }
        Ok(self.op_named("Gemm", name, output.unwrap_or(name), inputs, vec![]))
    }

    /// Mean and max over the board, concatenated: `[B, C, n, n]` to `[B, 2C]`.
    fn global_pool(&mut self, name: &str, x: &str) -> String {
        let mean = self.op(
            "GlobalAveragePool",
            &format!("{name}.mean"),
            vec![x.into()],
            vec![],
        );
        let max = self.op("GlobalMaxPool", &format!("{name}.max"), vec![x.into()], vec![]);
        let both = self.op(
            "Concat",
            &format!("{name}.concat"),
            vec![mean, max],
            vec![Attr::Int("axis", 1)],
        ); // [B, 2C, 1, 1]
        self.op("Flatten", name, vec![both], vec![Attr::Int("axis", 1)])
    }

    fn block(&mut self, name: &str, block: &ResBlock, x: &str) -> Result<String, NnError> {
        let y = if self.folded() {
            // bn1(conv1 + pool) = bn1(conv1) + scale1 * pool: the batch norm folds into conv1,
            // and its scale multiplies the pooled bias.
            let mut y = self.conv_bn(
                &format!("{name}.conv1"),
                &block.conv1,
                Some((&format!("{name}.bn1"), &block.bn1)),
                x,
            )?;
            if let Some(pool) = &block.pool {
                let bias = self.pool_bias(&format!("{name}.pool"), pool, x)?; // [B, C, 1, 1]
                let (scale, _) = batch_norm_affine(&format!("{name}.bn1"), &block.bn1)?;
                let dims = vec![scale.len() as i64, 1, 1];
                let scale = self.initializer(&format!("{name}.pool_scale"), dims, TensorValues::F32(scale));
                let bias = self.op("Mul", &format!("{name}.pool_scaled"), vec![bias, scale], vec![]);
                y = self.add(&format!("{name}.pool_add"), &y, &bias)?;
            }
            y
        } else {
            let mut y = self.conv(&format!("{name}.conv1"), &block.conv1, x)?; // [B, C, n, n]
            if let Some(pool) = &block.pool {
                let bias = self.pool_bias(&format!("{name}.pool"), pool, x)?; // [B, C, 1, 1]
                y = self.op("Add", &format!("{name}.pool_add"), vec![y, bias], vec![]);
            }
            self.batch_norm(&format!("{name}.bn1"), &block.bn1, &y)?
        };
        let y = self.op("Relu", &format!("{name}.relu1"), vec![y], vec![]);
        let y = self.conv_bn(
            &format!("{name}.conv2"),
            &block.conv2,
            Some((&format!("{name}.bn2"), &block.bn2)),
            &y,
        )?;
        let y = self.add(&format!("{name}.skip"), &y, x)?;
        Ok(self.op("Relu", &format!("{name}.relu2"), vec![y], vec![]))
    }

    /// The KataGo global-pooling bias of a block, shaped `[B, C, 1, 1]` to broadcast.
    fn pool_bias(&mut self, name: &str, pool: &GlobalPoolBias, x: &str) -> Result<String, NnError> {
        let g = self.conv_bn(
            &format!("{name}.conv"),
            &pool.conv,
            Some((&format!("{name}.bn"), &pool.bn)),
            x,
        )?; // [B, G, n, n]
        let g = self.op("Relu", &format!("{name}.relu"), vec![g], vec![]);
        let g = self.global_pool(&format!("{name}.pool"), &g); // [B, 2G]
        let bias = self.linear(&format!("{name}.linear"), &pool.linear, &g, None)?; // [B, C]
        let axes = self.i64_constant(&format!("{name}.axes"), vec![2, 3]);
        Ok(self.op("Unsqueeze", &format!("{name}.bias"), vec![bias, axes], vec![]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{default_device, NetConfig};
    use std::collections::HashSet;

    /// ONNX requires nodes in topological order with every input defined; onnxruntime checks
    /// the rest (tests/export.rs), this runs without Python.
    #[test]
    fn every_node_input_is_defined_before_use_and_outputs_are_produced() {
        for config in [NetConfig::tiny(7).with_moves_left(true), NetConfig::tiny(9)] {
            let model = config.init(&default_device());
            let (_, points) = build(&model, &[], Mode::Calibration).unwrap();
            let mut ranges = ActivationRanges::new();
            for p in &points {
                ranges.observe(p, &[-1.0, 2.0]);
            }
            let modes = [
                Mode::Plain,
                Mode::Calibration,
                Mode::Int8(&ranges, WeightRange::Full),
            ];
            for mode in modes {
                let (onnx, _) = build(&model, &[], mode).unwrap();
                let mut defined: HashSet<&str> = onnx.initializers.iter().map(|t| t.name.as_str()).collect();
                defined.insert(ONNX_INPUT);
                for node in &onnx.nodes {
                    for input in &node.inputs {
                        assert!(
                            defined.contains(input.as_str()),
                            "{} reads undefined {input}",
                            node.name
                        );
                    }
                    for output in &node.outputs {
                        assert!(defined.insert(output), "{output} defined twice");
                    }
                }
                let mut names = vec![ONNX_POLICY, ONNX_WDL];
                if config.moves_left {
                    names.push(ONNX_MOVES_LEFT);
                }
                if matches!(mode, Mode::Calibration) {
                    names.extend(points.iter().map(String::as_str));
                }
                let outputs: Vec<&str> = onnx.outputs.iter().map(|o| o.name.as_str()).collect();
                assert_eq!(outputs, names);
                assert!(names.iter().all(|n| defined.contains(n)));
                let count = |op: &str| onnx.nodes.iter().filter(|n| n.op_type == op).count();
                match mode {
                    Mode::Plain => {
                        let params: usize = onnx
                            .initializers
                            .iter()
                            .map(|t| match &t.data {
                                proto::TensorValues::F32(v) => v.len(),
                                _ => 0,
                            })
                            .sum();
                        // Every parameter, nothing else (burn counts the running statistics
                        // of batch norms).
                        assert_eq!(params, model.num_params());
                        assert!(count("BatchNormalization") > 0);
                    }
                    Mode::Calibration => assert_eq!(count("BatchNormalization"), 0),
                    Mode::Int8(..) => {
                        // One quantize/dequantize pair per measured tensor, and every
                        // convolution's weights dequantized from 8 bits.
                        assert_eq!(count("BatchNormalization"), 0);
                        assert_eq!(count("QuantizeLinear"), points.len());
                        assert!(onnx.nodes.iter().filter(|n| n.op_type == "Conv").all(|n| {
                            n.inputs[1].ends_with(".weight")
                                && onnx
                                    .nodes
                                    .iter()
                                    .any(|d| d.op_type == "DequantizeLinear" && d.outputs[0] == n.inputs[1])
                        }));
                        // A range missing is an error naming the tensor.
                        let mut short = ActivationRanges::new();
                        for p in points.iter().skip(1) {
                            short.observe(p, &[0.0, 1.0]);
                        }
                        let why = build(&model, &[], Mode::Int8(&short, WeightRange::Full))
                            .err()
                            .unwrap()
                            .to_string();
                        assert!(why.contains(&points[0]), "{why}");
                    }
                }
            }
        }
    }
}
