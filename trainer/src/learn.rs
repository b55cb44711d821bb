//! The learner's inner loop, shared by pretraining on recorded games and by training on the
//! replay window: batches drawn with replacement, each sample under a random board symmetry
//! (D4 augmentation), one optimizer step a batch.

use indicatif::ProgressBar;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{Batch, Encoder, Learner, LossValues, Sample};

/// Takes `steps` optimizer steps of `batch_size` samples drawn from `samples` with `rng`, at
/// learning rate `lr`, ticking `bar` once a step, and returns the sum of the steps' losses.
/// A loss that is not a finite number stops it at once: `diverged(step, loss)` (the step
/// counted from 1) says what to do.
#[allow(clippy::too_many_arguments)]
pub fn steps(
    learner: &mut Learner,
    samples: &[Sample],
    encoder: &Encoder,
    device: &Device,
    rng: &mut ChaCha8Rng,
    (steps, batch_size): (u64, usize),
    lr: f64,
    bar: &ProgressBar,
    diverged: &dyn Fn(u64, LossValues) -> String,
) -> Result<LossValues, String> {
    let syms = encoder.symmetries().to_vec();
    let mut sum = LossValues::default();
    for step in 0..steps {
        let batch: Vec<Sample> = (0..batch_size)
            .map(|_| {
                let s = &samples[rng.random_range(0..samples.len())];
                let sym = syms[rng.random_range(0..syms.len())];
                if sym == 0 {
                    s.clone()
                } else {
                    s.transformed(encoder, sym)
                }
            })
            .collect();
        let l = learner.step(&Batch::new(encoder, &batch, device), lr);
        if !(l.total.is_finite() && l.policy.is_finite() && l.value.is_finite()) {
            return Err(diverged(step + 1, l));
        }
        sum.total += l.total;
        sum.policy += l.policy;
        sum.value += l.value;
        sum.moves_left += l.moves_left;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(sum)
}
