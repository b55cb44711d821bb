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

mod proto;

use crate::model::{GlobalPoolBias, ResBlock, TaflNet};
use crate::NnError;
use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear, PaddingConfig2d};
use burn::prelude::*;
use proto::{Attr, Dim, ModelProto, NodeProto, TensorProto, TensorValues, ValueInfo};

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
    Ok(proto::encode(&build(model, metadata)?))
}

fn build(model: &TaflNet, metadata: &[(String, String)]) -> Result<ModelProto, NnError> {
    let mut g = Graph::default();
    let [_, planes, _, _] = model.stem.weight.dims();
    let board = board_size(model)?;

    let x = g.conv("stem", &model.stem, ONNX_INPUT)?; // [B, C, n, n]
    let x = g.batch_norm("stem_bn", &model.stem_bn, &x)?;
    let mut x = g.op("Relu", "stem_relu", vec![x], vec![]);
    for (i, block) in model.blocks.iter().enumerate() {
        x = g.block(&format!("blocks.{i}"), block, &x)?; // [B, C, n, n]
    }

    let p = g.conv("policy.conv", &model.policy.conv, &x)?; // [B, P, n, n]
    let p = g.batch_norm("policy.bn", &model.policy.bn, &p)?;
    let p = g.op("Relu", "policy.relu", vec![p], vec![]);
    let p = g.conv("policy.out", &model.policy.out, &p)?; // [B, 4(n-1), n, n]
                                                          // Square-major, as the policy index: (rank * n + file) * 4(n-1) + move.
    let p = g.op(
        "Transpose",
        "policy.square_major",
        vec![p],
        vec![Attr::Ints("perm", vec![0, 2, 3, 1])],
    ); // [B, n, n, 4(n-1)]
    let shape = g.i64_constant("policy.flat_shape", vec![0, -1]);
    g.op_named("Reshape", "policy.flatten", ONNX_POLICY, vec![p, shape], vec![]); // [B, n*n*4(n-1)]

    let v = g.conv("value.conv", &model.value.conv, &x)?; // [B, V, n, n]
    let v = g.batch_norm("value.bn", &model.value.bn, &v)?;
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
    Ok(onnx)
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
#[derive(Default)]
struct Graph {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
}

impl Graph {
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
        let data = tensor.into_data();
        let values = data
            .as_slice::<f32>()
            .map_err(|e| NnError::Export(format!("tensor `{name}` is not f32: {e:?}")))?
            .to_vec();
        self.initializers.push(TensorProto {
            name: name.into(),
            dims,
            data: TensorValues::F32(values),
        });
        Ok(name.into())
    }

    fn param<const D: usize>(&mut self, name: &str, p: &Param<Tensor<D>>) -> Result<String, NnError> {
        self.weight(name, p.val())
    }

    fn conv(&mut self, name: &str, conv: &Conv2d, x: &str) -> Result<String, NnError> {
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
        let mut inputs = vec![
            x.to_string(),
            self.param(&format!("{name}.weight"), &conv.weight)?,
        ];
        if let Some(b) = &conv.bias {
            inputs.push(self.param(&format!("{name}.bias"), b)?);
        }
        let ints = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let attrs = vec![
            Attr::Ints("kernel_shape", ints(&[kh, kw])),
            Attr::Ints("pads", ints(&pads)),
            Attr::Ints("strides", ints(&conv.stride)),
            Attr::Ints("dilations", ints(&conv.dilation)),
            Attr::Int("group", conv.groups as i64),
        ];
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
        let mut y = self.conv(&format!("{name}.conv1"), &block.conv1, x)?; // [B, C, n, n]
        if let Some(pool) = &block.pool {
            let bias = self.pool_bias(&format!("{name}.pool"), pool, x)?; // [B, C, 1, 1]
            y = self.op("Add", &format!("{name}.pool_add"), vec![y, bias], vec![]);
        }
        let y = self.batch_norm(&format!("{name}.bn1"), &block.bn1, &y)?;
        let y = self.op("Relu", &format!("{name}.relu1"), vec![y], vec![]);
        let y = self.conv(&format!("{name}.conv2"), &block.conv2, &y)?;
        let y = self.batch_norm(&format!("{name}.bn2"), &block.bn2, &y)?;
        let y = self.op("Add", &format!("{name}.skip"), vec![y, x.into()], vec![]);
        Ok(self.op("Relu", &format!("{name}.relu2"), vec![y], vec![]))
    }

    /// The KataGo global-pooling bias of a block, shaped `[B, C, 1, 1]` to broadcast.
    fn pool_bias(&mut self, name: &str, pool: &GlobalPoolBias, x: &str) -> Result<String, NnError> {
        let g = self.conv(&format!("{name}.conv"), &pool.conv, x)?; // [B, G, n, n]
        let g = self.batch_norm(&format!("{name}.bn"), &pool.bn, &g)?;
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
            let onnx = build(&model, &[]).unwrap();
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
            let outputs: Vec<&str> = onnx.outputs.iter().map(|o| o.name.as_str()).collect();
            assert_eq!(outputs, names);
            assert!(names.iter().all(|n| defined.contains(n)));
            let params: usize = onnx
                .initializers
                .iter()
                .map(|t| match &t.data {
                    proto::TensorValues::F32(v) => v.len(),
                    proto::TensorValues::I64(_) => 0,
                })
                .sum();
            // Every parameter, nothing else (burn counts the running statistics of batch norms).
            assert_eq!(params, model.num_params());
        }
    }
}
