//! 8-bit quantization of the exported graph: the arithmetic of ONNX's `QuantizeLinear` and
//! `DequantizeLinear` pairs, and the activation ranges a calibration run measures.
//!
//! The int8 graph follows ONNX Runtime's "QDQ" format: every tensor a convolution or an addition
//! reads goes through a quantize/dequantize pair at its calibrated range (unsigned 8 bits with a
//! zero point), weights are stored as signed 8 bits with one scale per output channel, biases as
//! 32 bits at the scale of input times weight. The graph still computes in float where a runtime
//! does not know the pattern; ONNX Runtime fuses each pair with its operator into an integer
//! kernel (`QLinearConv`, `QLinearAdd`), which uses the CPU's VNNI instructions where it has them.

use std::collections::BTreeMap;

/// Each quantized tensor's smallest and largest value over the calibration positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActivationRanges {
    ranges: BTreeMap<String, (f32, f32)>,
}

impl ActivationRanges {
    /// No ranges yet.
    pub fn new() -> ActivationRanges {
        ActivationRanges::default()
    }

    /// Widens the range of `tensor` to hold `values` (non-finite values are skipped).
    pub fn observe(&mut self, tensor: &str, values: &[f32]) {
        let entry = self
            .ranges
            .entry(tensor.to_string())
            .or_insert((f32::INFINITY, f32::NEG_INFINITY));
        for &v in values.iter().filter(|v| v.is_finite()) {
            entry.0 = entry.0.min(v);
            entry.1 = entry.1.max(v);
        }
    }

    /// The range of `tensor`, where one was observed.
    pub fn get(&self, tensor: &str) -> Option<(f32, f32)> {
        self.ranges
            .get(tensor)
            .copied()
            .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
    }

    /// How many tensors have a range.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether no tensor has a range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The largest magnitude of a quantized weight. Full signed 8 bits where the CPU multiplies
/// unsigned by signed bytes into 32-bit sums (VNNI); 7 bits elsewhere, because the AVX2 kernels
/// add two byte products in 16 bits, which 255 * 127 * 2 overflows (ONNX Runtime's
/// `reduce_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightRange {
    /// -127..=127.
    Full,
    /// -63..=63.
    Reduced,
}

impl WeightRange {
    /// The range this machine's CPU computes exactly.
    pub fn for_this_cpu() -> WeightRange {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512vnni")
                || std::arch::is_x86_feature_detected!("avxvnni")
            {
                return WeightRange::Full;
            }
            WeightRange::Reduced
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            WeightRange::Full
        }
    }

    fn max(self) -> f32 {
        match self {
            WeightRange::Full => 127.0,
            WeightRange::Reduced => 63.0,
        }
    }
}

/// Scale and zero point of an unsigned 8-bit activation over `[lo, hi]`, widened to hold 0 (so
/// that zero, the padding of convolutions, is exact, and a range starting at 0 has zero point 0,
/// which lets the runtime drop the `Relu` before it).
pub fn activation_params(lo: f32, hi: f32) -> (f32, u8) {
    let lo = lo.min(0.0);
    let hi = hi.max(0.0).max(lo + 1e-6);
    let scale = (hi - lo) / 255.0;
    let zero = (-lo / scale).round().clamp(0.0, 255.0) as u8;
    (scale, zero)
}

/// Symmetric per-channel quantization of `weights`, `channels` rows one after another: the
/// 8-bit values and each channel's scale.
pub fn quantize_weights(weights: &[f32], channels: usize, range: WeightRange) -> (Vec<i8>, Vec<f32>) {
    let per = weights.len() / channels.max(1);
    let mut q = Vec::with_capacity(weights.len());
    let mut scales = Vec::with_capacity(channels);
    for row in weights.chunks(per.max(1)).take(channels) {
        let largest = row.iter().fold(0.0f32, |m, w| m.max(w.abs()));
        // An all-zero channel: any scale represents it exactly.
        let scale = if largest > 0.0 { largest / range.max() } else { 1.0 };
        scales.push(scale);
        q.extend(row.iter().map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8));
    }
    (q, scales)
}

/// Biases at the scale of the product of the input's scale and each channel's weight scale, as
/// the integer convolution accumulates them.
pub fn quantize_biases(biases: &[f32], input_scale: f32, weight_scales: &[f32]) -> (Vec<i32>, Vec<f32>) {
    let scales: Vec<f32> = weight_scales.iter().map(|w| w * input_scale).collect();
    let q = biases
        .iter()
        .zip(&scales)
        .map(|(b, s)| (b / s).round().clamp(i32::MIN as f32, i32::MAX as f32) as i32)
        .collect();
    (q, scales)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_hold_zero_and_relu_outputs_have_zero_point_zero() {
        let (scale, zero) = activation_params(0.0, 5.1);
        assert_eq!(zero, 0);
        assert!((scale - 0.02).abs() < 1e-6);
        let (scale, zero) = activation_params(-1.0, 1.0);
        assert!(zero == 127 || zero == 128, "{zero}");
        // The ends of the range land within one step of 0 and 255.
        assert!(((-1.0 / scale) + zero as f32).round().abs() <= 1.0);
        assert!((((1.0 / scale) + zero as f32).round() - 255.0).abs() <= 1.0);
        // A range above zero is widened down to it.
        assert_eq!(activation_params(2.0, 3.0).1, 0);
        // An empty range still has a usable scale.
        assert!(activation_params(0.0, 0.0).0 > 0.0);
    }

    #[test]
    fn weights_round_trip_within_half_a_step_per_channel() {
        let w = [0.5, -1.0, 0.25, 0.0, 0.0, 0.0, 2.0, 1.0, -0.3];
        for range in [WeightRange::Full, WeightRange::Reduced] {
            let (q, scales) = quantize_weights(&w, 3, range);
            assert_eq!(scales.len(), 3);
            assert_eq!(scales[1], 1.0, "an all-zero channel");
            for (i, (&v, &qv)) in w.iter().zip(&q).enumerate() {
                let s = scales[i / 3];
                assert!((qv as f32 * s - v).abs() <= s / 2.0 + 1e-7, "{v} {qv} {s}");
            }
            let top = q.iter().map(|v| v.unsigned_abs()).max().unwrap() as f32;
            assert_eq!(top, range.max());
        }
        let (b, s) = quantize_biases(&[0.3, -0.6], 0.1, &[0.5, 0.2]);
        assert!((s[0] - 0.05).abs() < 1e-7 && (s[1] - 0.02).abs() < 1e-7, "{s:?}");
        assert_eq!(b, vec![6, -30]);
    }

    #[test]
    fn ranges_widen_and_skip_non_finite_values() {
        let mut r = ActivationRanges::new();
        r.observe("x", &[1.0, f32::NAN, -2.0]);
        r.observe("x", &[3.0, f32::INFINITY]);
        assert_eq!(r.get("x"), Some((-2.0, 3.0)));
        r.observe("y", &[]);
        assert_eq!(r.get("y"), None);
        assert_eq!(r.len(), 2);
    }
}
