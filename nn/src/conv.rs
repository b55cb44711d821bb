//! The network's convolutions, with gradients that burn flex computes slowly done another way.
//!
//! Every convolution of [`crate::TaflNet`] is "same": stride 1, an odd square kernel (1x1 or
//! 3x3) padded by half its width, so the output has the input's board. burn's autodiff
//! differentiates a convolution through two backend ops that flex does not specialise: the
//! weight gradient as a convolution with batch and channels swapped (about 15 GFLOP/s on two
//! AVX-512 cores) and the input gradient as a transposed convolution (about 26), while a forward
//! convolution runs near 150 and a plain GEMM near 140. On flex the training graph therefore
//! uses [`ConvSame::conv_same`], a backend extension with its own backward pass:
//!
//! ```text
//!   forward:  y  = conv(x, w)                          flex's im2col + GEMM, as before
//!   dx:       dx = conv(dy, flip_hw(swap_io(w)))       the same forward kernel, [co,ci] swapped
//!   dw:       dw = sum over chunks c of dy'_c . cols_c'  one GEMM a chunk of images:
//!             dy'_c  [co, m]       (the chunk's dy with batch and channels swapped)
//!             cols_c [ci*k*k, m]   (the chunk's im2col of x, read transposed)
//!             m = images in the chunk x n*n, about 1,024
//! ```
//!
//! The weight gradient is chunked because one GEMM over the whole batch reads an im2col of
//! tens of megabytes from memory (87.8 GFLOP/s training 8x64 on 11x11), while a chunk's im2col
//! stays in cache and the chunks keep both cores busy (126 GFLOP/s).
//!
//! Other backends (the GPU ones) keep burn's convolution and its backward; so does a dtype
//! other than f32. The parameters stay burn `Conv2d` modules, so checkpoints do not change.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::ops::{ConvOptions, FloatTensorOps, ModuleOps};
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Autodiff, Dispatch, Flex};
use burn::nn::conv::Conv2d;
use burn::prelude::{Device, Tensor};
use burn::tensor::{DType, TensorData};
use rayon::prelude::*;

/// A "same" convolution without bias (stride 1, odd square kernel, padding half its width) as a
/// backend op, so that its backward pass can be the one of this module.
#[backend_extension(Flex, Autodiff)]
pub trait ConvSame: burn::backend::Backend {
    /// `x` `[B, ci, n, n]` convolved with `weight` `[co, ci, k, k]`: `[B, co, n, n]`.
    fn conv_same(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self>;
}

/// Stride 1, no dilation, one group, padding `k / 2` on every side.
fn same_options(k: usize) -> ConvOptions<2> {
    let p = k / 2;
    ConvOptions::new([1, 1], [p, p], [1, 1], 1)
}

fn kernel_of(weight: &FloatTensor<Flex>) -> usize {
    weight.layout().shape()[3]
}

impl ConvSame for Flex {
    fn conv_same(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self> {
        let k = kernel_of(&weight);
        Flex::conv2d(x, weight, None, same_options(k))
    }
}

impl<C: CheckpointStrategy> ConvSame for Autodiff<Flex, C> {
    fn conv_same(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct ConvSameBackward;

        impl Backward<Flex, 2> for ConvSameBackward {
            // The forward inputs: the weight gradient needs x, the input gradient the weight.
            type State = (FloatTensor<Flex>, FloatTensor<Flex>);

            fn backward(
                self,
                ops: Ops<Self::State, 2>,
                grads: &mut Gradients,
                _checkpointer: &mut Checkpointer,
            ) {
                let [node_x, node_w] = ops.parents;
                let grad = grads.consume::<Flex>(&ops.node);
                let (x, weight) = ops.state;
                if let Some(node) = node_w {
                    grads.register::<Flex>(node.id, weight_grad(&x, &weight, grad.clone()));
                }
                if let Some(node) = node_x {
                    grads.register::<Flex>(node.id, input_grad(grad, weight));
                }
            }
        }

        match ConvSameBackward
            .prepare::<C>([x.node(), weight.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(prep) => {
                let x = x.primitive().clone();
                let weight = weight.primitive().clone();
                let out = Flex::conv_same(x.clone(), weight.clone());
                prep.finish((x, weight), out)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(Flex::conv_same(x.into_primitive(), weight.into_primitive()))
            }
        }
    }
}

/// `dx = conv(dy, w')`, `w'[ci, co, a, b] = w[co, ci, k-1-a, k-1-b]`: a "same" convolution of
/// stride 1 is its own transpose up to that weight, so flex's fast forward kernel does it.
fn input_grad(grad: FloatTensor<Flex>, weight: FloatTensor<Flex>) -> FloatTensor<Flex> {
    let k = kernel_of(&weight);
    let flipped = Flex::float_flip(Flex::float_swap_dims(weight, 0, 1), &[2, 3]);
    Flex::conv2d(grad, flipped, None, same_options(k))
}

/// `dw[co, (ci, a, b)] = sum over (b, y, x) of dy[b, co, y, x] * x[b, ci, y+a-p, x+b-p]`: GEMMs
/// of `dy` (channels by positions) with the im2col of `x`, over chunks of the batch.
fn weight_grad(
    x: &FloatTensor<Flex>,
    weight: &FloatTensor<Flex>,
    grad: FloatTensor<Flex>,
) -> FloatTensor<Flex> {
    let k = kernel_of(weight);
    if x.dtype() != DType::F32 || grad.dtype() != DType::F32 {
        return Flex::conv2d_weight_backward(x.clone(), weight.clone(), grad, same_options(k));
    }
    let shape = x.layout().shape();
    let dims = ConvDims {
        batch: shape[0],
        cin: shape[1],
        cout: weight.layout().shape()[0],
        n: shape[2],
        k,
    };
    let (x, grad) = (x.to_contiguous(), grad.to_contiguous());
    let xs: &[f32] = x.as_slice().expect("a contiguous f32 tensor has a slice");
    let dys: &[f32] = grad.as_slice().expect("a contiguous f32 tensor has a slice");
    let dw = weight_grad_f32(xs, dys, dims); // [co, ci*k*k]
    let (co, ci) = (dims.cout, dims.cin);
    FloatTensor::<Flex>::from_data(TensorData::new(dw, [co, ci, k, k]))
}

/// The sizes of one "same" convolution: `[batch, cin, n, n]` to `[batch, cout, n, n]`, kernel k.
#[derive(Clone, Copy, Debug)]
struct ConvDims {
    batch: usize,
    cin: usize,
    cout: usize,
    n: usize,
    k: usize,
}

/// Positions (images x squares) per chunk of the weight gradient: the chunk's im2col
/// (`ci*k*k` rows of this many floats, 2.4 MB at 64 channels) stays in cache, and a batch of 256
/// still makes dozens of chunks for the threads to share.
const CHUNK_POSITIONS: usize = 1024;

/// [`weight_grad`] on slices: `xs` is `x` `[B, ci, n, n]`, `dys` is `dy` `[B, co, n, n]`, the result
/// is `dw` `[co, ci*k*k]`. Each rayon task takes whole images, builds their im2col and their
/// `dy` rows in its own buffers and adds one GEMM to its own sum; the sums are added at the end.
fn weight_grad_f32(xs: &[f32], dys: &[f32], d: ConvDims) -> Vec<f32> {
    let area = d.n * d.n;
    let rows = d.cin * d.k * d.k;
    assert_eq!(xs.len(), d.batch * d.cin * area, "x has the convolution's shape");
    assert_eq!(
        dys.len(),
        d.batch * d.cout * area,
        "dy has the convolution's shape"
    );
    let images = (CHUNK_POSITIONS / area).max(1);
    let starts: Vec<usize> = (0..d.batch).step_by(images).collect();
    let sum = |mut a: Vec<f32>, b: Vec<f32>| {
        a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
        a
    };
    starts
        .into_par_iter()
        .fold(
            || (vec![0.0f32; d.cout * rows], Vec::new(), Vec::new()),
            |(mut dw, mut cols, mut dy), start| {
                let count = images.min(d.batch - start);
                let m = count * area;
                cols.resize(rows * m, 0.0);
                dy.resize(d.cout * m, 0.0);
                let xs = &xs[start * d.cin * area..][..count * d.cin * area];
                im2col_into(&mut cols, xs, count, d.cin, d.n, d.k);
                // dy rows: [co, (image, square)] from [image, co, square].
                for img in 0..count {
                    for c in 0..d.cout {
                        let src = &dys[((start + img) * d.cout + c) * area..][..area];
                        dy[c * m + img * area..][..area].copy_from_slice(src);
                    }
                }
                // SAFETY: dw is cout x rows (row stride rows), dy is cout x m (row stride m),
                // cols is rows x m read as its transpose m x rows (row stride 1, column stride
                // m); the three buffers have exactly those lengths (resized above) and do not
                // alias.
                unsafe {
                    gemm::gemm(
                        d.cout,
                        rows,
                        m,
                        dw.as_mut_ptr(),
                        1,
                        rows as isize,
                        true,
                        dy.as_ptr(),
                        1,
                        m as isize,
                        cols.as_ptr(),
                        m as isize,
                        1,
                        1.0,
                        1.0,
                        false,
                        false,
                        false,
                        gemm::Parallelism::None,
                    );
                }
                (dw, cols, dy)
            },
        )
        .map(|(dw, _, _)| dw)
        .reduce(|| vec![0.0f32; d.cout * rows], sum)
}

/// The im2col of `xs` (`count` images `[ci, n, n]`, contiguous) for a "same" `k`x`k` kernel into
/// `cols`: one row per (channel, kernel row, kernel column), one column per output position
/// (image, y, x); row `(c, a, b)` holds `x[image, c, y+a-p, x+b-p]`, zero off the board. Every
/// entry is written, so `cols` may hold an earlier chunk. Each row is shifted copies of board
/// rows.
fn im2col_into(cols: &mut [f32], xs: &[f32], count: usize, cin: usize, n: usize, k: usize) {
    let p = k / 2;
    let m = count * n * n;
    for (row, out) in cols.chunks_mut(m).enumerate().take(cin * k * k) {
        let (c, a, b) = (row / (k * k), (row / k) % k, row % k);
        // Output column x reads input column x + b - p; the valid range of x:
        let x0 = p.saturating_sub(b);
        let x1 = (n + p).saturating_sub(b).min(n);
        for img in 0..count {
            let plane = &xs[(img * cin + c) * n * n..][..n * n];
            for y in 0..n {
                let dst = &mut out[(img * n + y) * n..][..n];
                let src_y = y + a;
                if src_y < p || src_y - p >= n {
                    dst.fill(0.0); // off the board
                    continue;
                }
                let src = &plane[(src_y - p) * n..][..n];
                dst[..x0].fill(0.0);
                dst[x0..x1].copy_from_slice(&src[x0 + b - p..x1 + b - p]);
                dst[x1..].fill(0.0);
            }
        }
    }
}

/// Whether `device` runs on flex, where [`conv`] uses [`ConvSame`].
fn on_flex(device: &Device) -> bool {
    device.clone().inner() == Device::flex()
}

/// `conv`'s convolution of `x` (`[B, ci, n, n]` to `[B, co, n, n]`): through [`ConvSame`] on
/// flex, through burn's `Conv2d::forward` elsewhere. `conv` must be a "same" convolution (stride
/// 1, odd square kernel padded by half its width), as all of [`crate::TaflNet`]'s are.
pub(crate) fn conv(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    if !on_flex(&x.device()) {
        return conv.forward(x);
    }
    let weight = conv.weight.val(); // [co, ci, k, k]
    let y = Tensor::<4>::from_dispatch(<Dispatch as ConvSame>::conv_same(
        x.into_dispatch(),
        weight.into_dispatch(),
    )); // [B, co, n, n]
    match &conv.bias {
        Some(bias) => {
            let co = bias.dims()[0];
            y + bias.val().reshape([1, co, 1, 1])
        }
        None => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::nn::conv::Conv2dConfig;
    use burn::nn::PaddingConfig2d;
    use burn::tensor::Distribution;

    fn max_diff(a: Tensor<4>, b: Tensor<4>) -> f32 {
        (a - b).abs().max().into_scalar()
    }

    /// The fast path's value and all three gradients against burn's own convolution, for both
    /// kernel sizes the network uses, on a batch that makes two chunks of the weight gradient
    /// (40 5x5 images a chunk), the second one partial.
    #[test]
    fn the_fast_convolution_and_its_gradients_agree_with_burns() {
        let device = Device::flex().autodiff();
        device.seed(7);
        assert!(on_flex(&device), "the test must take the fast path");
        for (k, bias) in [(3, false), (1, true), (1, false)] {
            let conv = Conv2dConfig::new([3, 4], [k, k])
                .with_padding(PaddingConfig2d::Explicit(k / 2, k / 2, k / 2, k / 2))
                .with_bias(bias)
                .init(&device);
            let x =
                Tensor::<4>::random([45, 3, 5, 5], Distribution::Normal(0.0, 1.0), &device).require_grad();
            let r = Tensor::<4>::random([45, 4, 5, 5], Distribution::Normal(0.0, 1.0), &device);

            let fast = super::conv(&conv, x.clone());
            let slow = conv.forward(x.clone());
            assert!(
                max_diff(fast.clone(), slow.clone()) < 1e-5,
                "k = {k}: outputs differ"
            );

            let g_fast = (fast * r.clone()).sum().backward();
            let g_slow = (slow * r).sum().backward();
            let dx = |g| Tensor::<4>::from_inner(x.grad(g).unwrap());
            assert!(
                max_diff(dx(&g_fast), dx(&g_slow)) < 1e-4,
                "k = {k}: input gradients differ"
            );
            let dw = |g| Tensor::<4>::from_inner(conv.weight.val().grad(g).unwrap());
            assert!(
                max_diff(dw(&g_fast), dw(&g_slow)) < 1e-4,
                "k = {k}: weight gradients differ"
            );
            if let Some(b) = &conv.bias {
                let db_fast = b.val().grad(&g_fast).unwrap();
                let db_slow = b.val().grad(&g_slow).unwrap();
                let d: f32 = (db_fast - db_slow).abs().max().into_scalar();
                assert!(d < 1e-4, "bias gradients differ");
            }
        }
    }

    #[test]
    fn im2col_shifts_the_board_and_pad_with_zeros() {
        // One 3x3 image 1..9, kernel 3: row (0, 0, 0) reads x[y-1, x-1].
        let xs: Vec<f32> = (1..=9).map(|v| v as f32).collect();
        let mut cols = vec![f32::NAN; 9 * 9];
        im2col_into(&mut cols, &xs, 1, 1, 3, 3);
        assert!(cols.iter().all(|v| !v.is_nan()), "every entry is written");
        assert_eq!(&cols[..9], &[0., 0., 0., 0., 1., 2., 0., 4., 5.]);
        // The centre row (0, 1, 1) is the image itself; the last (0, 2, 2) reads x[y+1, x+1].
        assert_eq!(&cols[4 * 9..5 * 9], &xs[..]);
        assert_eq!(&cols[8 * 9..], &[5., 6., 0., 8., 9., 0., 0., 0., 0.]);
    }
}
