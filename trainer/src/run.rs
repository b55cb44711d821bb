//! A training run: a folder that holds everything needed to resume after `kill -9` (its
//! layout is [`RunDir`]), and the loop of iterations (self-play, training, arena, ladder) that
//! reads and writes it.
//!
//! Each phase writes its files atomically and then records itself as done in `state.json`,
//! so a run killed at any moment resumes at the phase it was in, losing at most the self-play
//! games that were not yet in a shard, or the training steps of the interrupted phase.

use crate::config::TrainConfig;
use crate::events::{Events, RunLog};
pub use crate::ladder::LadderRequest;
pub use crate::stages::TrainOptions;
use crate::stages::Trainer;
pub use crate::state::{
    EloSource, IterationSummary, LadderResult, LadderSides, OriginElo, Phase, PretrainSummary, Promotions,
    RunState, ORIGIN_ANCHOR,
};
use std::path::Path;
use std::time::Instant;
use tafl_engine::{with_board, BitSet, Ruleset};
use tafl_models::run_dir::RunDir;
use tafl_models::run_dir::STATE_FILE;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{default_device, save_checkpoint, write_atomic, Manifest, TaflNet};

/// Starts a new run in `dir` (which must not hold one) from config text.
pub fn start(config_text: &str, config_name: &str, dir: &Path, options: &TrainOptions) -> Result<(), String> {
    let config = TrainConfig::parse(config_text, config_name)?;
    let ruleset = config.ruleset()?;
    // Before the folder is made: a ladder anchor that is a model must load under these rules,
    // and so must the first network (a start that does not load leaves no folder behind).
    crate::integrity::check_model_anchors(&config, &ruleset)
        .map_err(|e| format!("config `{config_name}`: {e}"))?;
    let device = default_device();
    device.seed(config.seed);
    let (model, step) = start_network(&config, config_name, &ruleset, &device)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // One process per run folder, from its first file on (a folder in use says by whom).
    let lock = crate::integrity::lock(dir)?;
    let run_dir = RunDir::new(dir);
    if run_dir.state_file().exists() {
        return Err(format!(
            "`{}` already holds a run; continue it with --resume {}",
            dir.display(),
            dir.display()
        ));
    }
    write_atomic(&run_dir.config_file(), config_text.as_bytes()).map_err(|e| e.to_string())?;
    save_checkpoint(
        &run_dir.checkpoint(0),
        &model,
        &Manifest::new(&ruleset, &config.net_config(&ruleset), step),
    )
    .map_err(|e| e.to_string())?;
    let state = RunState {
        iteration: 1,
        phase: if config.pretrain.is_some() {
            Phase::Pretrain
        } else {
            Phase::SelfPlay
        },
        best: 0,
        latest: 0,
        history: vec![],
        current: IterationSummary {
            iteration: 1,
            ..Default::default()
        },
        pretrain: None,
    };
    state.save(dir)?;
    RunLog::new(&run_dir.log_file()).line(
        &format!(
            "new run: {} ({} iterations) in {}{}",
            config_name,
            config.iterations,
            dir.display(),
            match &config.model.start {
                Some(start) => format!(", starting from `{start}` (training step {step})"),
                None => String::new(),
            }
        ),
        !options.quiet,
    );
    run(dir, options, lock)
}

/// Continues the run in `dir` where it stopped.
pub fn resume(dir: &Path, options: &TrainOptions) -> Result<(), String> {
    if !RunDir::new(dir).state_file().exists() {
        return Err(format!("`{}` holds no run (no {STATE_FILE})", dir.display()));
    }
    let lock = crate::integrity::lock(dir)?;
    run(dir, options, lock)
}

/// One stage of an iteration, run by itself on a run folder: what `tafl selfplay`, `tafl learn`
/// and `tafl gate` do, so that processes on other machines can take turns on one run.
/// `tafl train` runs them in turn in one process; the state file says which is next, so a run
/// can go on either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Play the iteration's games with the best network into replay shards.
    SelfPlay,
    /// Train the next candidate on the replay window (or pretrain on records, first).
    Learn,
    /// Candidate against best, the ladder, promotion: the end of the iteration.
    Gate,
}

impl Stage {
    /// The command that runs the stage.
    pub fn command(self) -> &'static str {
        match self {
            Stage::SelfPlay => "tafl selfplay",
            Stage::Learn => "tafl learn",
            Stage::Gate => "tafl gate",
        }
    }

    /// The stage a phase belongs to.
    pub fn of(phase: Phase) -> Stage {
        match phase {
            Phase::SelfPlay => Stage::SelfPlay,
            Phase::Pretrain | Phase::Train => Stage::Learn,
            Phase::Arena => Stage::Gate,
        }
    }
}

/// Runs the next stage of the run in `dir`, which must be `stage` (an error names the command
/// of the stage that is due). Holds the run's lock while it runs, as `tafl train` does.
pub fn run_stage(dir: &Path, stage: Stage, options: &TrainOptions) -> Result<(), String> {
    if !RunDir::new(dir).state_file().exists() {
        return Err(format!("`{}` holds no run (no {STATE_FILE})", dir.display()));
    }
    let _lock = crate::integrity::lock(dir)?;
    with_trainer(dir, options, Job::Stage(stage))
}

/// Plays games `games` of the current iteration's self-play (game indices, seeded as in the
/// run) into shards `shard-0000...` in `out`, leaving the run folder untouched: the work of one
/// self-play task of a distributed run, whose driver moves the shards into the run in game
/// order. Needs only the run's config, state and the checkpoint self-play plays with, so a
/// copy of those is enough; takes no lock, so many may read one run at once.
pub fn selfplay_games(
    dir: &Path,
    games: std::ops::Range<u64>,
    out: &Path,
    options: &TrainOptions,
) -> Result<(), String> {
    if !RunDir::new(dir).state_file().exists() {
        return Err(format!("`{}` holds no run (no {STATE_FILE})", dir.display()));
    }
    with_trainer(dir, options, Job::Games(games, out))
}

/// Plays the run's ladder, as its config now describes it, for finished iterations of the
/// run in `dir`: each series an iteration has no result for (or every series, `again`), with
/// the network that was the best after that iteration, as the ladder of that iteration would
/// have. The results go into the iteration's summary in `state.json` and the learning curve
/// is drawn again, so a run trained without a ladder, or with a ladder that could not see its
/// progress, can be measured afterwards; holds the run's lock, as training does.
pub fn ladder(dir: &Path, request: &LadderRequest, options: &TrainOptions) -> Result<(), String> {
    if !RunDir::new(dir).state_file().exists() {
        return Err(format!("`{}` holds no run (no {STATE_FILE})", dir.display()));
    }
    let _lock = crate::integrity::lock(dir)?;
    with_trainer(dir, options, Job::Ladder(request))
}

/// The current iteration of the run in `dir` and how many self-play games it plays (what a
/// distributed driver cuts into tasks).
pub fn selfplay_plan(dir: &Path) -> Result<(u32, u64), String> {
    let run_dir = RunDir::new(dir);
    let text = tafl_engine::input::read_text(&run_dir.config_file())
        .map_err(|e| format!("{}/config.toml: {e}", dir.display()))?;
    let config = TrainConfig::parse(&text, &format!("{}/config.toml", dir.display()))?;
    let state = RunState::load(dir)?;
    let (sp, _) = config.selfplay_at(state.iteration);
    Ok((state.iteration, sp.games_per_iteration as u64))
}

/// The run's first network and its training step: random weights from the seed, or the model
/// `[model] start` names, which must have the config's shape.
fn start_network(
    config: &TrainConfig,
    config_name: &str,
    ruleset: &Ruleset,
    device: &Device,
) -> Result<(TaflNet, u64), String> {
    let shape = config.net_config(ruleset);
    let Some(start) = &config.model.start else {
        return Ok((shape.init(device), 0));
    };
    let (model, manifest) = tafl_models::load_model(Path::new(start), ruleset, device)
        .map_err(|e| format!("config `{config_name}`: key `model.start`: {e}"))?;
    if manifest.model != shape {
        let (m, c) = (&manifest.model, &shape);
        return Err(format!(
            "config `{config_name}`: key `model.start`: `{start}` is a network of {} blocks x {} channels \
             (global pooling every {}, moves left {}), [model] asks for {} x {} (every {}, {}): give \
             [model] the start's shape",
            m.blocks,
            m.channels,
            m.global_pool_every,
            m.moves_left,
            c.blocks,
            c.channels,
            c.global_pool_every,
            c.moves_left
        ));
    }
    Ok((model, manifest.training_step))
}

/// Trains the run in `dir`, whose lock `_lock` is held until the end.
fn run(dir: &Path, options: &TrainOptions, _lock: crate::integrity::RunLock) -> Result<(), String> {
    with_trainer(dir, options, Job::All)
}

/// What a trainer is asked to do.
enum Job<'a> {
    /// Every stage of every iteration left (`tafl train`).
    All,
    /// The next stage, which must be this one.
    Stage(Stage),
    /// Some of the current iteration's self-play games, into a folder of their own.
    Games(std::ops::Range<u64>, &'a Path),
    /// The ladder for finished iterations (`tafl ladder`).
    Ladder(&'a LadderRequest),
}

impl Job<'_> {
    fn call<B: BitSet>(self, t: &Trainer<'_, B>) -> Result<(), String> {
        match self {
            Job::All => t.run(),
            Job::Stage(stage) => t.stage(stage),
            Job::Games(games, out) => t.selfplay_range(games, out),
            Job::Ladder(request) => t.ladder_finished(request),
        }
    }
}

/// Reads the run's config and gives `job` a trainer for its board.
fn with_trainer(dir: &Path, options: &TrainOptions, job: Job<'_>) -> Result<(), String> {
    let run_dir = RunDir::new(dir);
    let text = tafl_engine::input::read_text(&run_dir.config_file())
        .map_err(|e| format!("{}/config.toml: {e}", dir.display()))?;
    let config = TrainConfig::parse(&text, &format!("{}/config.toml", dir.display()))?;
    let ruleset = config.ruleset()?;
    // A ladder anchor that is a model must load under the run's rules before anything is played.
    crate::integrity::check_model_anchors(&config, &ruleset)
        .map_err(|e| format!("{}/config.toml: {e}", dir.display()))?;
    with_board!(&ruleset, B, rules => job.call(&Trainer::<B> { rules: &rules, ruleset: &ruleset, config: &config, dir, run_dir: &run_dir, options, log: RunLog::new(&run_dir.log_file()), events: Events::new(&run_dir.events_dir()) }))
}

impl<B: BitSet> Trainer<'_, B> {
    fn run(&self) -> Result<(), String> {
        let mut state = RunState::load(self.dir)?;
        if !self.check_folder(&mut state)? {
            return Ok(());
        }
        let last = self
            .options
            .stop_after
            .map_or(self.config.iterations, |s| s.min(self.config.iterations));
        if state.phase == Phase::Pretrain {
            self.pretrain(&mut state)?;
            state.phase = Phase::SelfPlay;
            state.save(self.dir)?;
        }
        if state.iteration > last {
            self.say(&format!(
                "nothing to do: the run is at iteration {}, past --stop-after {last}",
                state.iteration
            ));
        }
        while state.iteration <= last {
            let t0 = Instant::now();
            if state.phase == Phase::SelfPlay {
                self.selfplay(&mut state)?;
                state.phase = Phase::Train;
                state.save(self.dir)?;
            }
            if state.phase == Phase::Train {
                self.train(&mut state)?;
                state.phase = Phase::Arena;
                state.save(self.dir)?;
            }
            if state.phase == Phase::Arena {
                self.gate(&mut state, t0)?;
            }
        }
        if state.iteration > self.config.iterations {
            self.say(&format!(
                "the run in {} is complete: all {} iterations are done (best network: iter-{:04})",
                self.dir.display(),
                self.config.iterations,
                state.best
            ));
        }
        Ok(())
    }

    /// Runs the next stage, which must be `stage`.
    fn stage(&self, stage: Stage) -> Result<(), String> {
        let mut state = RunState::load(self.dir)?;
        if !self.check_folder(&mut state)? {
            return Ok(());
        }
        let due = Stage::of(state.phase);
        if due != stage {
            return Err(format!(
                "`{}` is at iteration {}, whose next stage is {} ({} {}); {} runs only when it is due (`tafl train --resume {}` runs every stage in turn)",
                self.dir.display(),
                state.iteration,
                state.phase.name(),
                due.command(),
                self.dir.display(),
                stage.command(),
                self.dir.display()
            ));
        }
        let t0 = Instant::now();
        match state.phase {
            Phase::Pretrain => {
                self.pretrain(&mut state)?;
                state.phase = Phase::SelfPlay;
                state.save(self.dir)
            }
            Phase::SelfPlay => {
                self.selfplay(&mut state)?;
                state.phase = Phase::Train;
                state.save(self.dir)
            }
            Phase::Train => {
                self.train(&mut state)?;
                state.phase = Phase::Arena;
                state.save(self.dir)
            }
            Phase::Arena => self.gate(&mut state, t0),
        }
    }
}
