//! The stages of an iteration, each in its file, as methods of one [`Trainer`] that holds what
//! they share (the run's config, rules, folder, log and events): [`selfplay`] plays the
//! iteration's games into replay shards, [`learn`] trains the next network on the replay window
//! (or pretrains on records first), [`gate`] measures it (arena and ladder), promotes it and
//! reports the iteration. `run.rs` starts and resumes runs and calls them in turn.

mod gate;
mod learn;
mod selfplay;

use crate::config::TrainConfig;
use crate::events::{Events, RunLog};
use crate::state::{Phase, RunState};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tafl_engine::{BitSet, Rules, Ruleset};
use tafl_models::run_dir::RunDir;
use tafl_nn::{default_device, load_checkpoint, BatchConfig, NetEvaluator};

/// Options of `tafl train` beyond the config.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// Stop after this iteration even if the config asks for more (tests, short sessions).
    pub stop_after: Option<u32>,
    /// Hide progress bars.
    pub quiet: bool,
}

/// An evaluator that self-play's threads share.
pub(crate) type SharedEvaluator<B> = Arc<dyn tafl_engine::search::Evaluator<B> + Send + Sync>;

pub(crate) struct Trainer<'a, B: BitSet> {
    pub(crate) rules: &'a Rules<B>,
    pub(crate) ruleset: &'a Ruleset,
    pub(crate) config: &'a TrainConfig,
    /// The run folder, as given (named in messages).
    pub(crate) dir: &'a Path,
    /// Its layout.
    pub(crate) run_dir: &'a RunDir,
    pub(crate) options: &'a TrainOptions,
    pub(crate) log: RunLog,
    pub(crate) events: Events,
}

impl<B: BitSet> Trainer<'_, B> {
    pub(crate) fn bar(&self, len: u64, what: &str) -> ProgressBar {
        if self.options.quiet {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        if let Ok(style) =
            ProgressStyle::with_template("{msg:<24} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        bar
    }

    /// A line for the log that is printed even with `--quiet`: what a resumed run found.
    pub(crate) fn say(&self, text: &str) {
        self.log.line(text, true);
    }

    /// Before a run goes on: removes what killed processes left half-written, checks that the
    /// state, the checkpoints and the shards agree (an error or a warning names what is
    /// missing), and says so when nothing is left to do (`Ok(false)`). A shard of the
    /// iteration in progress that is missing or damaged before its training sends the
    /// iteration back to self-play, to play its games again.
    pub(crate) fn check_folder(&self, state: &mut RunState) -> Result<bool, String> {
        let removed = crate::integrity::remove_temporaries(self.dir);
        if !removed.is_empty() {
            let names: Vec<String> = removed.iter().map(|p| p.display().to_string()).collect();
            self.say(&format!(
                "removed {} temporary file(s) left by an interrupted process: {}",
                removed.len(),
                names.join(", ")
            ));
        }
        crate::integrity::check_state(self.dir, state)?;
        if let Some(message) = crate::integrity::finished(self.dir, state, self.config) {
            self.say(&message);
            return Ok(false);
        }
        let mut findings = crate::integrity::Findings::default();
        crate::integrity::check_checkpoints(self.dir, state, &mut findings)?;
        // Missing shards of finished iterations are named when the replay window is read.
        for w in &findings.warnings {
            self.say(w);
        }
        if state.phase == Phase::Train {
            let it = state.iteration;
            let total = u64::from(self.config.selfplay_at(it).0.games_per_iteration);
            let (kept, _, _) = self.shards_on_disk(it, &self.run_dir.shards(it), total);
            if kept.games < state.current.selfplay.games {
                // Only the games whose samples are there count: back to self-play for the rest.
                state.phase = Phase::SelfPlay;
                state.save(self.dir)?;
            }
        }
        Ok(true)
    }

    pub(crate) fn load_net(&self, iteration: u32, callers: usize) -> Result<Arc<NetEvaluator>, String> {
        // An explicit `onnxruntime` without its library stops the run; `auto` falls back.
        self.config
            .selfplay
            .inference
            .resolve()
            .map_err(|e| format!("selfplay.inference: {e}"))?;
        let device = default_device();
        let (model, _) = load_checkpoint(&self.run_dir.checkpoint(iteration), self.ruleset, &device)
            .map_err(|e| e.to_string())?;
        let cfg = BatchConfig {
            callers,
            max_wait: Duration::from_millis(3),
            seed: self.config.seed,
            cache_entries: self.config.selfplay.eval_cache as usize,
            inference: self.config.selfplay.inference,
            ..BatchConfig::default()
        };
        Ok(Arc::new(NetEvaluator::new(
            model,
            self.ruleset,
            device,
            cfg,
            format!("net:iter-{iteration}"),
        )))
    }
}
