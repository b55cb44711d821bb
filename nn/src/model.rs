//! The network: a residual tower with optional global-pooling bias blocks (KataGo), a
//! convolutional policy head over the policy index of [`crate::encoding`], a win/draw/loss
//! value head and an optional moves-left head.
//!
//! ```text
//! input [B, 11, n, n]
//!   stem: conv3x3 -> BN -> ReLU                      [B, C, n, n]
//!   blocks x N: conv3x3 -> (+ global-pool bias) -> BN -> ReLU -> conv3x3 -> BN -> + skip -> ReLU
//!   policy: conv1x1 -> BN -> ReLU -> conv1x1 (4(n-1) outputs per square)  [B, n*n*4(n-1)]
//!   value:  conv1x1 -> BN -> ReLU -> mean & max pool -> FC -> ReLU -> FC  [B, 3] (W/D/L logits)
//!           (moves left: FC from the same hidden layer                     [B, 1])
//! ```

use crate::conv::conv;
use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;

/// The shape of a network. Saved in every manifest, so a checkpoint rebuilds its own model.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Board side `n`; the policy head has `4 * (n - 1)` outputs per square.
    pub board_size: usize,
    /// Input planes (11 for encoding v1).
    #[config(default = 11)]
    pub input_planes: usize,
    /// Residual blocks in the tower.
    #[config(default = 6)]
    pub blocks: usize,
    /// Channels of the tower.
    #[config(default = 64)]
    pub channels: usize,
    /// Every `k`-th block (the `k`-th, `2k`-th, ...) is a global-pooling bias block; 0 for none.
    #[config(default = 0)]
    pub global_pool_every: usize,
    /// Channels pooled by a global-pooling bias block.
    #[config(default = 16)]
    pub global_pool_channels: usize,
    /// Channels of the policy head's hidden layer.
    #[config(default = 32)]
    pub policy_channels: usize,
    /// Channels of the value head's convolution.
    #[config(default = 32)]
    pub value_channels: usize,
    /// Width of the value head's hidden layer.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// Whether the network has a moves-left head.
    #[config(default = false)]
    pub moves_left: bool,
}

impl NetConfig {
    /// The default network for a board size: 6x64 up to 9x9, 8x64 for 11x11, 10x96 above,
    /// with a global-pooling bias block every third block.
    pub fn for_board(n: usize) -> NetConfig {
        let (blocks, channels) = match n {
            0..=9 => (6, 64),
            10..=11 => (8, 64),
            _ => (10, 96),
        };
        NetConfig::new(n)
            .with_blocks(blocks)
            .with_channels(channels)
            .with_global_pool_every(3)
    }

    /// A tiny network for tests: 2 blocks of 16 channels, one of them pooling.
    pub fn tiny(n: usize) -> NetConfig {
        NetConfig::new(n)
            .with_blocks(2)
            .with_channels(16)
            .with_global_pool_every(2)
            .with_global_pool_channels(8)
            .with_policy_channels(8)
            .with_value_channels(8)
            .with_value_hidden(16)
    }

    /// Policy outputs per square, `4 * (n - 1)`.
    pub fn moves_per_square(&self) -> usize {
        4 * self.board_size.saturating_sub(1)
    }

    /// Size of the policy index space, `n * n * 4 * (n - 1)`.
    pub fn policy_size(&self) -> usize {
        self.board_size * self.board_size * self.moves_per_square()
    }

    /// Checks the numbers before [`NetConfig::init`], which would panic on zeros.
    pub fn validate(&self) -> Result<(), String> {
        let fields = [
            ("board_size", self.board_size),
            ("input_planes", self.input_planes),
            ("channels", self.channels),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
        ];
        for (name, v) in fields {
            if v == 0 {
                return Err(format!("model config field `{name}` must be positive"));
            }
        }
        if self.board_size < 2 || self.board_size > tafl_engine::board::MAX_SIZE {
            return Err(format!(
                "model config field `board_size`: {} is outside 2..={}",
                self.board_size,
                tafl_engine::board::MAX_SIZE
            ));
        }
        if self.global_pool_every > 0 && self.global_pool_channels == 0 {
            return Err("model config field `global_pool_channels` must be positive".into());
        }
        if self.blocks > 256 || self.channels > 4096 {
            return Err("model config: more than 256 blocks or 4096 channels".into());
        }
        // Layers such as batch norms are allocated when the model is built, before its weights
        // are read: a manifest may not ask for more than any model of this project has.
        let widths = [
            ("input_planes", self.input_planes),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
            ("global_pool_channels", self.global_pool_channels),
        ];
        for (name, v) in widths {
            if v > 4096 {
                return Err(format!("model config field `{name}`: {v} is more than 4096"));
            }
        }
        Ok(())
    }

    /// Multiply-adds of one forward pass for one position, counting convolutions and fully
    /// connected layers (what the benchmarks turn into FLOP/s: 2 FLOP per multiply-add).
    pub fn macs_per_position(&self) -> u64 {
        let sq = (self.board_size * self.board_size) as u64;
        let c = self.channels as u64;
        let conv = |cin: u64, cout: u64, k: u64| sq * cin * cout * k * k;
        let mut macs = conv(self.input_planes as u64, c, 3);
        for i in 0..self.blocks {
            macs += 2 * conv(c, c, 3);
            if self.is_pool_block(i) {
                let g = self.global_pool_channels as u64;
                macs += conv(c, g, 1) + 2 * g * c;
            }
        }
        let p = self.policy_channels as u64;
        macs += conv(c, p, 1) + conv(p, self.moves_per_square() as u64, 1);
        let v = self.value_channels as u64;
        let h = self.value_hidden as u64;
        macs += conv(c, v, 1) + 2 * v * h + h * 3 + if self.moves_left { h } else { 0 };
        macs
    }

    fn is_pool_block(&self, i: usize) -> bool {
        self.global_pool_every > 0 && (i + 1).is_multiple_of(self.global_pool_every)
    }

    /// Builds the network with fresh weights on `device`.
    ///
    /// Panics on a config with zero sizes; call [`NetConfig::validate`] first on configs
    /// read from outside (checkpoint loading does).
    pub fn init(&self, device: &Device) -> TaflNet {
        let c = self.channels;
        let blocks = (0..self.blocks)
            .map(|i| ResBlock {
                conv1: conv3x3(c, c, device),
                bn1: BatchNormConfig::new(c).init(device),
                conv2: conv3x3(c, c, device),
                bn2: BatchNormConfig::new(c).init(device),
                pool: self.is_pool_block(i).then(|| GlobalPoolBias {
                    conv: conv1x1(c, self.global_pool_channels, false, device),
                    bn: BatchNormConfig::new(self.global_pool_channels).init(device),
                    linear: LinearConfig::new(2 * self.global_pool_channels, c).init(device),
                }),
            })
            .collect();
        TaflNet {
            stem: conv3x3(self.input_planes, c, device),
            stem_bn: BatchNormConfig::new(c).init(device),
            blocks,
            policy: PolicyHead {
                conv: conv1x1(c, self.policy_channels, false, device),
                bn: BatchNormConfig::new(self.policy_channels).init(device),
                out: conv1x1(self.policy_channels, self.moves_per_square(), true, device),
            },
            value: ValueHead {
                conv: conv1x1(c, self.value_channels, false, device),
                bn: BatchNormConfig::new(self.value_channels).init(device),
                hidden: LinearConfig::new(2 * self.value_channels, self.value_hidden).init(device),
                wdl: LinearConfig::new(self.value_hidden, 3).init(device),
                moves_left: self
                    .moves_left
                    .then(|| LinearConfig::new(self.value_hidden, 1).init(device)),
            },
        }
    }
}

fn conv3x3(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .with_bias(false)
        .init(device)
}

fn conv1x1(cin: usize, cout: usize, bias: bool, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [1, 1])
        .with_bias(bias)
        .init(device)
}

/// Mean and max over the board: `[B, C, n, n]` to `[B, 2C]`.
fn global_pool(x: Tensor<4>) -> Tensor<2> {
    let [b, c, _, _] = x.dims();
    let mean = x.clone().mean_dims(&[2, 3]).reshape([b, c]); // [B, C]
    let max = x.max_dim(3).max_dim(2).reshape([b, c]); // [B, C]
    Tensor::cat(vec![mean, max], 1) // [B, 2C]
}

/// What the network says of a batch.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// Policy logits over the whole policy index space, `[B, policy_size]`.
    pub policy: Tensor<2>,
    /// Win/draw/loss logits for the side to move, `[B, 3]`.
    pub wdl: Tensor<2>,
    /// Predicted plies left in the game divided by [`crate::MOVES_LEFT_SCALE`], `[B, 1]`,
    /// when the network has that head.
    pub moves_left: Option<Tensor<2>>,
}

/// A KataGo global-pooling bias: pooled statistics of a few channels become a per-channel
/// bias, so every square sees the whole board in one block.
#[derive(Module, Debug)]
pub struct GlobalPoolBias {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
    pub(crate) linear: Linear,
}

/// A residual block, optionally with a global-pooling bias after its first convolution.
#[derive(Module, Debug)]
pub struct ResBlock {
    pub(crate) conv1: Conv2d,
    pub(crate) bn1: BatchNorm,
    pub(crate) conv2: Conv2d,
    pub(crate) bn2: BatchNorm,
    pub(crate) pool: Option<GlobalPoolBias>,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut y = conv(&self.conv1, x.clone()); // [B, C, n, n]
        if let Some(pool) = &self.pool {
            let g = relu(pool.bn.forward(conv(&pool.conv, x.clone()))); // [B, G, n, n]
            let bias = pool.linear.forward(global_pool(g)); // [B, C]
            let [b, c] = bias.dims();
            y = y + bias.reshape([b, c, 1, 1]); // [B, C, n, n]
        }
        let y = relu(self.bn1.forward(y)); // [B, C, n, n]
        let y = self.bn2.forward(conv(&self.conv2, y)); // [B, C, n, n]
        relu(y + x) // [B, C, n, n]
    }
}

/// Policy head: a logit per (from-square, direction, distance).
#[derive(Module, Debug)]
pub struct PolicyHead {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
    pub(crate) out: Conv2d,
}

/// Value head: win/draw/loss logits and, optionally, moves left.
#[derive(Module, Debug)]
pub struct ValueHead {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
    pub(crate) hidden: Linear,
    pub(crate) wdl: Linear,
    pub(crate) moves_left: Option<Linear>,
}

/// The policy/value network. Build it with [`NetConfig::init`].
#[derive(Module, Debug)]
pub struct TaflNet {
    pub(crate) stem: Conv2d,
    pub(crate) stem_bn: BatchNorm,
    pub(crate) blocks: Vec<ResBlock>,
    pub(crate) policy: PolicyHead,
    pub(crate) value: ValueHead,
}

impl TaflNet {
    /// Runs the network on a batch of encoded positions `[B, planes, n, n]`.
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let [b, _, n, _] = input.dims();
        let mut x = relu(self.stem_bn.forward(conv(&self.stem, input))); // [B, C, n, n]
        for block in &self.blocks {
            x = block.forward(x); // [B, C, n, n]
        }

        let p = relu(self.policy.bn.forward(conv(&self.policy.conv, x.clone()))); // [B, P, n, n]
        let p = conv(&self.policy.out, p); // [B, 4(n-1), n, n]
        let k = p.dims()[1];
        // Square-major, as the policy index: (rank * n + file) * 4(n-1) + move.
        let policy = p.permute([0, 2, 3, 1]).reshape([b, n * n * k]); // [B, n*n*4(n-1)]

        let v = relu(self.value.bn.forward(conv(&self.value.conv, x))); // [B, V, n, n]
        let h = relu(self.value.hidden.forward(global_pool(v))); // [B, H]
        let wdl = self.value.wdl.forward(h.clone()); // [B, 3]
        let moves_left = self.value.moves_left.as_ref().map(|m| m.forward(h)); // [B, 1]
        NetOutput {
            policy,
            wdl,
            moves_left,
        }
    }
}
