//! The learning stage: the next network trained on the replay window (AdamW's state carried
//! over from the last checkpoint), or pretrained on recorded games before the first iteration.

use super::Trainer;
use crate::shard::read_shard;
use crate::state::PretrainSummary;
use crate::state::RunState;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tafl_engine::{
    board::game_seed,
    search::{Evaluator, Heuristic},
    BitSet,
};
use tafl_nn::burn::optim::AdamWConfig;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{
    default_device, load_checkpoint, save_checkpoint, write_atomic, Encoder, Learner, LossConfig, Manifest,
    Sample,
};

/// The optimizer state's file in a checkpoint folder.
const OPTIMIZER_FILE: &str = "optimizer.bin";
/// The most read of an optimizer state, per byte of its checkpoint's weights (it is 48 times
/// the weights on Brandubh).
const OPTIMIZER_PER_WEIGHT: u64 = 256;

impl<B: BitSet> Trainer<'_, B> {
    /// Loads the replay window: every shard of the last iterations, skipping damaged ones.
    pub(crate) fn window(&self, it: u32, encoder: &Encoder) -> Vec<Sample> {
        let from = it.saturating_sub(self.config.replay.window_iterations - 1).max(1);
        let mut all = Vec::new();
        for i in from..=it {
            let missing = crate::integrity::missing_shard_files(&self.run_dir.shards(i));
            if !missing.is_empty() {
                self.log.line(
                    &format!(
                        "warning: replay window of iteration {it}: missing {}; training goes on without their samples",
                        missing.join(", ")
                    ),
                    !self.options.quiet,
                );
            }
            let Ok(entries) = std::fs::read_dir(self.run_dir.shards(i)) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .collect();
            paths.sort();
            for p in paths {
                match read_shard(&p, encoder.input_len(), encoder.policy_size()) {
                    Ok(s) => all.extend(s),
                    Err(e) => self.log.line(
                        &format!("warning: skipping replay shard: {e}"),
                        !self.options.quiet,
                    ),
                }
            }
        }
        all
    }

    /// Learns the recorded games of `[pretrain]` into the initial network (checkpoint 0),
    /// measuring its agreement with the validation games' moves before and after. Started
    /// again from the initial network when interrupted: nothing of it is saved until the end.
    pub(crate) fn pretrain(&self, state: &mut RunState) -> Result<(), String> {
        use crate::records::{games_of, read_records, score_evaluator, total, AgreementFigures, Split};
        let Some(p) = &self.config.pretrain else {
            return Ok(());
        };
        let games =
            read_records(self.rules, Path::new(&p.records)).map_err(|e| format!("pretrain.records: {e}"))?;
        let train_games = games_of(&games, Some(Split::Train));
        let validation = games_of(&games, Some(Split::Validation));
        let encoder = Encoder::new(self.ruleset);
        let samples: Vec<Sample> = train_games
            .iter()
            .flat_map(|g| g.samples(self.rules, &encoder))
            .collect();
        if samples.is_empty() {
            return Err(format!(
                "pretrain.records: `{}` holds no training game",
                p.records
            ));
        }
        let figures = |e: &dyn Evaluator<B>| {
            AgreementFigures::from(&total(&score_evaluator(self.rules, e, &validation, || ())))
        };
        let heuristic = figures(&Heuristic);
        let before = figures(self.load_net(0, 1)?.as_ref());
        let t = &self.config.training;
        let batch_size = p.batch_size.unwrap_or(t.batch_size);
        let lr = p.learning_rate.unwrap_or(t.learning_rate[0].1);
        let steps = ((p.epochs as f64 * samples.len() as f64 / batch_size as f64).ceil() as u64).max(1);
        let device: Device = default_device().autodiff();
        let (model, _) =
            load_checkpoint(&self.run_dir.checkpoint(0), self.ruleset, &device).map_err(|e| e.to_string())?;
        let optim = AdamWConfig::new().with_weight_decay(t.weight_decay).init();
        let mut learner = Learner::new(model, optim, LossConfig::new().with_value_weight(p.value_weight));
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed(self.config.seed ^ 0x9E7A, 0));
        self.say(&format!(
            "pretraining on {} recorded games ({} positions; {} validation games held out): {steps} steps of {batch_size}",
            train_games.len(),
            samples.len(),
            validation.len()
        ));
        let bar = self.bar(steps, "pretraining");
        let t0 = Instant::now();
        crate::learn::steps(
            &mut learner,
            &samples,
            &encoder,
            &device,
            &mut rng,
            (steps, batch_size),
            lr,
            &bar,
            &|step, l| {
                format!(
                    "pretraining diverged at step {step} of {steps} (loss {}) at learning rate {lr}; nothing was saved: lower `pretrain.learning_rate` in {}/config.toml and resume",
                    l.total,
                    self.dir.display()
                )
            },
        )?;
        let seconds = t0.elapsed().as_secs_f64();
        if let Some(param) = tafl_nn::non_finite_parameter(learner.model()) {
            return Err(format!(
                "pretraining diverged: parameter `{param}` is not a finite number; nothing was saved: lower `pretrain.learning_rate` in {}/config.toml and resume",
                self.dir.display()
            ));
        }
        save_checkpoint(
            &self.run_dir.checkpoint(0),
            &learner.inference_model(),
            &Manifest::new(self.ruleset, &self.config.net_config(self.ruleset), steps),
        )
        .map_err(|e| e.to_string())?;
        let after = figures(self.load_net(0, 1)?.as_ref());
        self.say(&format!(
            "pretrained in {seconds:.0} s: on {} validation games the prior's top-1 agreement with the move played went {:.3} -> {:.3} (top-3 {:.3} -> {:.3}; hand-written {:.3}, top-3 {:.3}), value log-loss {:.3} -> {:.3} (hand-written {:.3})",
            validation.len(),
            before.top1,
            after.top1,
            before.top3,
            after.top3,
            heuristic.top1,
            heuristic.top3,
            before.log_loss,
            after.log_loss,
            heuristic.log_loss
        ));
        state.pretrain = Some(PretrainSummary {
            records: p.records.clone(),
            train_games: train_games.len(),
            train_samples: samples.len(),
            validation_games: validation.len(),
            steps,
            seconds,
            before,
            after,
            heuristic,
        });
        Ok(())
    }

    pub(crate) fn train(&self, state: &mut RunState) -> Result<(), String> {
        let it = state.iteration;
        let t = &self.config.training;
        let encoder = Encoder::new(self.ruleset);
        let samples = self.window(it, &encoder);
        if samples.is_empty() {
            return Err(format!(
                "iteration {it}: no training samples in the replay window"
            ));
        }
        let device: Device = default_device().autodiff();
        let from = self.run_dir.checkpoint(state.latest);
        let (model, manifest) = load_checkpoint(&from, self.ruleset, &device).map_err(|e| e.to_string())?;
        let mut optim = AdamWConfig::new().with_weight_decay(t.weight_decay).init();
        let optimizer_file = from.join(OPTIMIZER_FILE);
        if optimizer_file.exists() {
            // Bounded by the model it belongs to (an endless file would fill the memory).
            let limit = manifest
                .weights
                .bytes
                .saturating_mul(OPTIMIZER_PER_WEIGHT)
                .max(1 << 20);
            let bytes = tafl_engine::input::read_limited(&optimizer_file, limit)
                .map_err(|e| format!("{}: {e}", optimizer_file.display()))?;
            optim = optim
                .from_bytes(tafl_nn::burn::tensor::Bytes::from_bytes_vec(bytes))
                .map_err(|e| format!("{}: {e:?}", from.join(OPTIMIZER_FILE).display()))?;
        }
        let mut learner = Learner::new(model, optim, LossConfig::new());
        let lr = self.config.learning_rate(it);
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed(self.config.seed ^ 0x7EA1, it as u64));
        let bar = self.bar(t.steps_per_iteration as u64, &format!("iter {it} training"));
        let t0 = Instant::now();
        // Nothing of this phase is saved when it diverges: the run stays at its last good
        // checkpoint.
        let sum = crate::learn::steps(
            &mut learner,
            &samples,
            &encoder,
            &device,
            &mut rng,
            (t.steps_per_iteration as u64, t.batch_size),
            lr,
            &bar,
            &|step, l| {
                format!(
                    "iteration {it}: training diverged at step {step} of {}: the loss is {} (policy {}, value {}) at learning rate {lr}; nothing was saved: lower `training.learning_rate` in {}/config.toml and resume",
                    t.steps_per_iteration,
                    l.total,
                    l.policy,
                    l.value,
                    self.dir.display()
                )
            },
        )?;
        let secs = t0.elapsed().as_secs_f64();
        let k = t.steps_per_iteration as f32;
        state.current.loss = [sum.total / k, sum.policy / k, sum.value / k, sum.moves_left / k];
        state.current.samples_per_second =
            (t.steps_per_iteration as f64 * t.batch_size as f64) / secs.max(1e-9);
        let (accuracy, entropy) = self.measure(&learner.inference_model(), &samples, &encoder, &mut rng);
        state.current.value_accuracy = accuracy;
        state.current.net_policy_entropy = entropy;
        if let Some(param) = tafl_nn::non_finite_parameter(learner.model()) {
            return Err(format!(
                "iteration {it}: training diverged: parameter `{param}` is not a finite number; nothing was saved: lower `training.learning_rate` in {}/config.toml and resume",
                self.dir.display()
            ));
        }
        let out = self.run_dir.checkpoint(it);
        let step = manifest.training_step + t.steps_per_iteration as u64;
        let net_cfg = self.config.net_config(self.ruleset);
        save_checkpoint(
            &out,
            &learner.inference_model(),
            &Manifest::new(self.ruleset, &net_cfg, step),
        )
        .map_err(|e| e.to_string())?;
        let bytes = learner
            .optimizer()
            .into_bytes()
            .map_err(|e| format!("saving the optimizer: {e:?}"))?;
        write_atomic(&out.join(OPTIMIZER_FILE), &bytes).map_err(|e| e.to_string())?;
        // Optimizer states are large (tens of MB; 48 times the weights on Brandubh) and only
        // resuming needs one: that of the latest checkpoint, or of the one before it when a
        // run was killed between this write and the state file's. Older ones go.
        if it >= 2 {
            let old = self.run_dir.checkpoint(it - 2).join(OPTIMIZER_FILE);
            if let Err(e) = std::fs::remove_file(&old) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    self.log
                        .line(&format!("warning: {}: {e}", old.display()), !self.options.quiet);
                }
            }
        }
        state.latest = it;
        Ok(())
    }
}
