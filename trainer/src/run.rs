//! A training run: a folder that holds everything needed to resume after `kill -9` (its
//! layout is [`RunDir`]), and the loop of iterations (self-play, training, arena, ladder) that
//! reads and writes it.
//!
//! Each phase writes its files atomically and then records itself as done in `state.json`,
//! so a run killed at any moment resumes at the phase it was in, losing at most the self-play
//! games that were not yet in a shard, or the training steps of the interrupted phase.

use crate::arena::{play_match, Contender};
use crate::config::{Promotion, SelfPlaySection, TeacherEvaluator, TrainConfig};
use crate::events::{Events, RunLog};
pub use crate::run_dir::STATE_FILE;
use crate::run_dir::{shard_name, RunDir};
use crate::selfplay::{play_game, SelfPlayStats};
use crate::shard::{read_shard, read_shard_games, write_shard, ShardGames};
pub use crate::state::{
    EloSource, IterationSummary, LadderResult, LadderSides, OriginElo, Phase, PretrainSummary, Promotions,
    RunState, ORIGIN_ANCHOR,
};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tafl_engine::search::MatchSettings;
use tafl_engine::stats::Elo;
use tafl_engine::{
    board::game_seed,
    search::{Evaluator, Heuristic, Rollout},
    with_board, BitSet, Rules, Ruleset, Side,
};
use tafl_nn::burn::optim::AdamWConfig;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{
    default_device, load_checkpoint, save_checkpoint, write_atomic, Batch, BatchConfig, Encoder, Learner,
    LossConfig, Manifest, NetConfig, NetEvaluator, Sample, TaflNet,
};

const OPTIMIZER_FILE: &str = "optimizer.bin";

/// An evaluator that self-play's threads share.
type SharedEvaluator<B> = Arc<dyn Evaluator<B> + Send + Sync>;
/// The most read of an optimizer state, per byte of its checkpoint's weights (it is 48 times
/// the weights on Brandubh).
const OPTIMIZER_PER_WEIGHT: u64 = 256;

/// Options of `tafl train` beyond the config.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// Stop after this iteration even if the config asks for more (tests, short sessions).
    pub stop_after: Option<u32>,
    /// Hide progress bars.
    pub quiet: bool,
}

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
        &Manifest::new(&ruleset, &net_config(&config, &ruleset), step),
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

/// Which finished iterations `tafl ladder` measures, and whether again.
#[derive(Clone, Debug, Default)]
pub struct LadderRequest {
    /// These iterations; empty: every `every`-th.
    pub at: Vec<u32>,
    /// Every this-many iterations when `at` is empty; `None`: the config's `ladder_every`.
    pub every: Option<u32>,
    /// Play series that already have a result again, replacing it.
    pub again: bool,
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

/// Refuses a `--out` folder of `tafl selfplay --games` that is, or lies inside, a run folder:
/// shards written there would be read as the run's own.
fn refuse_out_in_run(out: &Path) -> Result<(), String> {
    match crate::run_dir::run_holding(out) {
        Some(run) => Err(format!(
            "--out `{}` is inside the run folder `{}`: shards written there would be taken for the run's own; give a folder outside every run (the games' shards are moved into a run by its driver)",
            out.display(),
            run.display()
        )),
        None => Ok(()),
    }
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
    let shape = net_config(config, ruleset);
    let Some(start) = &config.model.start else {
        return Ok((shape.init(device), 0));
    };
    let (model, manifest) = crate::models::load_model(Path::new(start), ruleset, device)
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

fn net_config(config: &TrainConfig, ruleset: &Ruleset) -> NetConfig {
    NetConfig::new(ruleset.size())
        .with_blocks(config.model.blocks)
        .with_channels(config.model.channels)
        .with_global_pool_every(config.model.global_pool_every)
        .with_moves_left(config.model.moves_left)
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

struct Trainer<'a, B: BitSet> {
    rules: &'a Rules<B>,
    ruleset: &'a Ruleset,
    config: &'a TrainConfig,
    /// The run folder, as given (named in messages).
    dir: &'a Path,
    /// Its layout.
    run_dir: &'a RunDir,
    options: &'a TrainOptions,
    log: RunLog,
    events: Events,
}

impl<B: BitSet> Trainer<'_, B> {
    fn bar(&self, len: u64, what: &str) -> ProgressBar {
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

    /// The gate: arena and ladder, then the iteration's summary, and on to the next.
    fn gate(&self, state: &mut RunState, t0: Instant) -> Result<(), String> {
        let it = state.iteration;
        self.arena(state)?;
        let done = std::mem::take(&mut state.current);
        self.report(&state.history, &done, t0.elapsed());
        state.history.push(done);
        state.iteration = it + 1;
        state.current = IterationSummary {
            iteration: it + 1,
            ..Default::default()
        };
        state.phase = Phase::SelfPlay;
        state.save(self.dir)
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

    /// Plays games `games` of the current iteration's self-play into `out` (see
    /// [`selfplay_games`]).
    fn selfplay_range(&self, games: std::ops::Range<u64>, out: &Path) -> Result<(), String> {
        let state = RunState::load(self.dir)?;
        if let Some(message) = crate::integrity::finished(self.dir, &state, self.config) {
            return Err(message);
        }
        if state.phase != Phase::SelfPlay {
            return Err(format!(
                "`{}` is at iteration {}, stage {}: its self-play is not due",
                self.dir.display(),
                state.iteration,
                state.phase.name()
            ));
        }
        let it = state.iteration;
        let (sp, teacher) = self.config.selfplay_at(it);
        let total = sp.games_per_iteration as u64;
        if games.start >= games.end || games.end > total {
            return Err(format!(
                "--games {}..{}: iteration {it} plays games 0..{total}; ask for a non-empty range within it",
                games.start, games.end
            ));
        }
        refuse_out_in_run(out)?;
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        // Again on the folder made: a path through `..` is judged where it ends.
        refuse_out_in_run(out)?;
        if !crate::integrity::shard_files(out).is_empty() {
            return Err(format!(
                "`{}` already holds shards; give an empty folder",
                out.display()
            ));
        }
        let threads = (sp.parallel_games as usize)
            .min((games.end - games.start) as usize)
            .max(1);
        let (net, _) = self.selfplay_evaluator(&state, teacher, &sp, threads)?;
        let list: Vec<u64> = games.clone().collect();
        let job = SelfPlayGames {
            sp: &sp,
            dir: out,
            games: &list,
            total: games.end,
            threads,
            dominant: self.dominant_side(&state, &sp),
        };
        self.play_and_store(it, &job, net.as_ref(), SelfPlayStats::default(), 0)?;
        Ok(())
    }

    /// A line for the log that is printed even with `--quiet`: what a resumed run found.
    fn say(&self, text: &str) {
        self.log.line(text, true);
    }

    /// Before a run goes on: removes what killed processes left half-written, checks that the
    /// state, the checkpoints and the shards agree (an error or a warning names what is
    /// missing), and says so when nothing is left to do (`Ok(false)`). A shard of the
    /// iteration in progress that is missing or damaged before its training sends the
    /// iteration back to self-play, to play its games again.
    fn check_folder(&self, state: &mut RunState) -> Result<bool, String> {
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

    fn load_net(&self, iteration: u32, callers: usize) -> Result<Arc<NetEvaluator>, String> {
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

    /// Plays the iteration's games with the best network, or with the teacher in the config's
    /// first iterations; shards already on disk count as done.
    fn selfplay(&self, state: &mut RunState) -> Result<(), String> {
        let it = state.iteration;
        let (sp, teacher) = self.config.selfplay_at(it);
        let sp = &sp;
        let sdir = self.run_dir.shards(it);
        std::fs::create_dir_all(&sdir).map_err(|e| format!("{}: {e}", sdir.display()))?;
        // Shards already written (a resumed run) hold games; only whole, readable ones that
        // hold games of this iteration no other holds count, and the games none holds are played.
        let total = sp.games_per_iteration as u64;
        let (stats, shards, held) = self.shards_on_disk(it, &sdir, total);
        let todo: Vec<u64> = (0..total).filter(|g| !held.contains(g)).collect();
        if !held.is_empty() {
            // Parallel games finish out of order: which games the shards hold is named only
            // when they are not the first ones.
            let first = held.len() as u64;
            let which = if held.iter().copied().eq(0..first) {
                String::new()
            } else {
                format!(" (games {})", game_ranges(&held))
            };
            self.log.line(
                &format!("iteration {it}: resuming self-play with {first} of {total} games on disk{which}"),
                !self.options.quiet,
            );
        }
        let dominant = self.dominant_side(state, sp);
        let threads = (sp.parallel_games as usize).min(todo.len()).max(1);
        let (net, network) = self.selfplay_evaluator(state, teacher, sp, threads)?;
        state.current.teacher = teacher;
        let t0 = Instant::now();
        let games = SelfPlayGames {
            sp,
            dir: &sdir,
            games: &todo,
            total,
            threads,
            dominant,
        };
        let stats = self.play_and_store(it, &games, net.as_ref(), stats, shards)?;
        let secs = t0.elapsed().as_secs_f64();
        let played = todo.len() as u64;
        state.current.selfplay = stats;
        state.current.eval_cache_hit_rate = network.map(|n| n.stats().cache_hit_rate());
        state.current.games_per_hour = if played > 0 && secs > 0.0 {
            played as f64 * 3600.0 / secs
        } else {
            state.current.games_per_hour
        };
        Ok(())
    }

    /// The side to handicap this iteration: the one that won more than `handicap_above` of
    /// the previous iteration's even games (none when handicaps are off), logged.
    fn dominant_side(&self, state: &RunState, sp: &SelfPlaySection) -> Option<Side> {
        let dominant = state
            .history
            .last()
            .and_then(|h| h.selfplay.dominant_side(sp.handicap_above as f64))
            .filter(|_| sp.handicap_share > 0.0);
        if let Some(side) = dominant {
            self.log.line(
                &format!(
                    "iteration {}: {side} won more than {:.0}% of last iteration's even games; they blunder in {:.0}% of games",
                    state.iteration,
                    sp.handicap_above * 100.0,
                    sp.handicap_share * 100.0
                ),
                !self.options.quiet,
            );
        }
        dominant
    }

    /// What self-play searches with: the teacher's classic evaluator in its iterations, else
    /// the best network (also returned apart, for its evaluation-cache figures), logged.
    fn selfplay_evaluator(
        &self,
        state: &RunState,
        teacher: Option<TeacherEvaluator>,
        sp: &SelfPlaySection,
        threads: usize,
    ) -> Result<(SharedEvaluator<B>, Option<Arc<NetEvaluator>>), String> {
        let it = state.iteration;
        let Some(t) = teacher else {
            let n = self.load_net(state.best, threads)?;
            self.log.line(
                &format!(
                    "iteration {it}: self-play evaluates the network with {}",
                    n.inference()
                ),
                !self.options.quiet,
            );
            return Ok((n.clone(), Some(n)));
        };
        self.log.line(
            &format!(
                "iteration {it}: self-play searches with the teacher ({}, {} simulations), not the network",
                t.name(),
                sp.simulations
            ),
            !self.options.quiet,
        );
        let evaluator: SharedEvaluator<B> = match t {
            TeacherEvaluator::Heuristic => Arc::new(Heuristic),
            TeacherEvaluator::Rollout => Arc::new(Rollout {
                seed: self.config.seed,
                max_plies: sp.ply_limit,
                ..Rollout::default()
            }),
        };
        Ok((evaluator, None))
    }

    /// Plays the games `games` lists of iteration `it` on `threads` threads and writes them to
    /// replay shards of `games_per_shard` games as they finish (numbered on from `shards`,
    /// each saying which games it holds); returns `stats` with the new games' tallies merged in.
    fn play_and_store(
        &self,
        it: u32,
        games: &SelfPlayGames<'_>,
        net: &(dyn Evaluator<B> + Send + Sync),
        mut stats: SelfPlayStats,
        mut shards: u64,
    ) -> Result<SelfPlayStats, String> {
        let SelfPlayGames {
            sp,
            dir,
            games: list,
            total,
            threads,
            dominant,
        } = *games;
        let encoder = Encoder::new(self.ruleset);
        let starts = sp.opening_positions(self.rules)?;
        let starts = &starts;
        let bar = self.bar(total, &format!("iter {it} self-play"));
        bar.set_position(total.saturating_sub(list.len() as u64));
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel();
        let seed = game_seed(self.config.seed, it as u64);
        let mut write_error = None;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (encoder, next) = (&encoder, &next);
                scope.spawn(move || {
                    while let Some(&g) = list.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let game = play_game(
                            self.rules,
                            net,
                            encoder,
                            sp,
                            game_seed(seed, g),
                            it >= sp.resign_from_iteration,
                            dominant,
                            starts,
                        );
                        if tx.send((g, game)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut samples: Vec<Sample> = Vec::new();
            let mut shard_stats = SelfPlayStats::default();
            // The games of the shard being filled, in the order they finished.
            let mut held = ShardGames {
                iteration: it,
                games: Vec::new(),
            };
            let mut done = 0;
            for (g, game) in rx {
                done += 1;
                bar.inc(1);
                samples.extend(game.samples);
                shard_stats.merge(&game.stats);
                held.games.push(g);
                if held.games.len() == sp.games_per_shard as usize || done == list.len() {
                    let base = dir.join(shard_name(shards));
                    let json = serde_json::to_string(&shard_stats).unwrap_or_default();
                    let bin = base.with_extension("bin");
                    let r = write_shard(&bin, encoder.input_len(), &samples, Some(&held)).and_then(|_| {
                        write_atomic(&base.with_extension("json"), json.as_bytes()).map_err(|e| e.to_string())
                    });
                    if let Err(e) = r {
                        write_error.get_or_insert(e);
                    }
                    stats.merge(&shard_stats);
                    shards += 1;
                    samples.clear();
                    held.games.clear();
                    shard_stats = SelfPlayStats::default();
                }
            }
        });
        bar.finish_and_clear();
        match write_error {
            Some(e) => Err(format!("writing a replay shard: {e}")),
            None => Ok(stats),
        }
    }

    /// The shards of iteration `it` (which plays `total` games) already on disk (a resumed
    /// run): their tallies, their count and the games they hold. They count in order while
    /// both files of a shard are there, its samples read back, and the games it says it holds
    /// are games of this iteration that no shard before it holds, as many as its tallies count
    /// (a shard of format 1, which does not say, holds the next games not yet held). A
    /// missing, damaged or misplaced shard ends the count with a warning, and it and every
    /// shard after it are removed and their games played again, so that no game counts as
    /// played without its samples and none counts twice.
    fn shards_on_disk(&self, it: u32, sdir: &Path, total: u64) -> (SelfPlayStats, u64, BTreeSet<u64>) {
        let encoder = Encoder::new(self.ruleset);
        let mut stats = SelfPlayStats::default();
        let mut shards = 0u64;
        let mut held = BTreeSet::new();
        let why = loop {
            let base = sdir.join(shard_name(shards));
            let (json, bin) = (base.with_extension("json"), base.with_extension("bin"));
            match (json.exists(), bin.exists()) {
                (false, false) => break None,
                (true, false) => break Some(format!("{} is missing", bin.display())),
                (false, true) => break Some(format!("{} is missing", json.display())),
                (true, true) => {}
            }
            let tallies = tafl_engine::input::read_text_limited(&json, 1 << 20)
                .and_then(|t| serde_json::from_str::<SelfPlayStats>(&t).map_err(|e| e.to_string()));
            let s = match tallies {
                Ok(s) => s,
                Err(e) => break Some(format!("{}: {e}", json.display())),
            };
            let games = match read_shard_games(&bin, encoder.input_len(), encoder.policy_size()) {
                Ok(shard) => shard.games,
                Err(e) => break Some(e),
            };
            let games: Vec<u64> = match games {
                Some(g) => {
                    if let Err(e) = shard_fits(&g, it, total, s.games, &held) {
                        break Some(format!("{}: {e}", bin.display()));
                    }
                    g.games
                }
                None => (0..total)
                    .filter(|g| !held.contains(g))
                    .take(s.games as usize)
                    .collect(),
            };
            held.extend(games);
            stats.merge(&s);
            shards += 1;
        };
        let after: Vec<(u32, bool, bool)> = crate::integrity::shard_files(sdir)
            .into_iter()
            .filter(|&(k, _, _)| u64::from(k) >= shards)
            .collect();
        if why.is_some() || !after.is_empty() {
            let why = why.unwrap_or_else(|| {
                format!(
                    "{} is missing",
                    sdir.join(format!("{}.bin", shard_name(shards))).display()
                )
            });
            for &(k, bin, json) in &after {
                let base = sdir.join(shard_name(k.into()));
                for (there, ext) in [(bin, "bin"), (json, "json")] {
                    if there {
                        let _ = std::fs::remove_file(base.with_extension(ext));
                    }
                }
            }
            self.say(&format!(
                "warning: iteration {it}: {why}; self-play resumes with {} games kept (shard-{shards:04}), and the games of the {} shard(s) from there on are played again",
                held.len(),
                after.len()
            ));
        }
        (stats, shards, held)
    }

    /// Loads the replay window: every shard of the last iterations, skipping damaged ones.
    fn window(&self, it: u32, encoder: &Encoder) -> Vec<Sample> {
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
    fn pretrain(&self, state: &mut RunState) -> Result<(), String> {
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
            &Manifest::new(self.ruleset, &net_config(self.config, self.ruleset), steps),
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

    fn train(&self, state: &mut RunState) -> Result<(), String> {
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
        let net_cfg = net_config(self.config, self.ruleset);
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

    /// Value accuracy and policy entropy of the network on up to 256 samples of the window.
    fn measure(
        &self,
        model: &TaflNet,
        samples: &[Sample],
        encoder: &Encoder,
        rng: &mut ChaCha8Rng,
    ) -> (f64, f64) {
        let n = samples.len().min(256);
        let pick: Vec<Sample> = (0..n)
            .map(|_| samples[rng.random_range(0..samples.len())].clone())
            .collect();
        let device = default_device();
        let batch = Batch::new(encoder, &pick, &device);
        let out = model.forward(batch.input.clone());
        let masked = out.policy + batch.policy_mask.clone();
        let policy: Vec<f32> = masked.into_data().try_to_vec().unwrap_or_default();
        let wdl: Vec<f32> = out.wdl.into_data().try_to_vec().unwrap_or_default();
        let p = encoder.policy_size();
        if policy.len() != n * p || wdl.len() != n * 3 {
            return (f64::NAN, f64::NAN);
        }
        let mut correct = 0;
        let mut with_value = 0;
        let mut entropy = 0.0;
        for (i, s) in pick.iter().enumerate() {
            let argmax = |v: &[f32]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(0);
            // Samples with no value target (all zeros) do not count.
            if s.wdl.iter().sum::<f32>() > 0.0 {
                with_value += 1;
                if argmax(&wdl[i * 3..i * 3 + 3]) == argmax(&s.wdl) {
                    correct += 1;
                }
            }
            let probs = tafl_nn::softmax(&policy[i * p..(i + 1) * p]);
            entropy += probs
                .iter()
                .filter(|&&x| x > 0.0)
                .map(|&x| -(x as f64) * (x as f64).ln())
                .sum::<f64>();
        }
        (
            correct as f64 / with_value.max(1) as f64,
            entropy / n.max(1) as f64,
        )
    }

    fn arena(&self, state: &mut RunState) -> Result<(), String> {
        let it = state.iteration;
        let a = &self.config.arena;
        let threads = self
            .config
            .selfplay
            .parallel_games
            .min(a.games.max(a.ladder_games))
            .max(1) as usize;
        let candidate = self.load_net(it, threads)?;
        let best = self.load_net(state.best, threads)?;
        let seed = game_seed(self.config.seed ^ 0xA4E7A, it as u64);
        if a.games > 0 {
            let bar = self.bar(a.games.div_ceil(2) as u64 * 2, &format!("iter {it} arena"));
            let c = Contender::net(
                &format!("iter-{it}"),
                candidate.clone() as Arc<dyn Evaluator<B>>,
                a.simulations,
            );
            let b = Contender::net(
                &format!("iter-{}", state.best),
                best.clone() as Arc<dyn Evaluator<B>>,
                a.simulations,
            );
            let settings = MatchSettings {
                games: a.games,
                ply_limit: Some(a.ply_limit),
                opening_plies: a.opening_plies,
                threads,
                seed,
                exploration: 0.0,
                ..MatchSettings::default()
            };
            let r = play_match(self.rules, &c, &b, &settings, &|_| bar.inc(1))?;
            bar.finish_and_clear();
            let e = r.elo();
            state.current.arena_elo = Some(e.interval());
            state.current.promoted = match a.promotion {
                Promotion::Always => true,
                Promotion::Significant => e.significantly_positive(),
            };
            self.log.line(
                &format!(
                    "iteration {it}: candidate iter-{it} vs best iter-{}: {}",
                    state.best,
                    r.summary()
                ),
                false,
            );
        } else {
            state.current.promoted = true;
        }
        if state.current.promoted {
            state.best = it;
        }
        if a.ladder_every > 0 && it.is_multiple_of(a.ladder_every) {
            let best_now = if state.best == it { candidate } else { best };
            let me = Some(best_now as Arc<dyn Evaluator<B>>);
            let results = self.with_ladder(it, threads, |l| l.play(it, state.best, me))?;
            state.current.ladder = results;
            self.draw_learning_curve(state);
        }
        Ok(())
    }

    /// Calls `f` with the ladder of iteration `it`, whose network players batch `threads`
    /// games.
    fn with_ladder<R>(
        &self,
        it: u32,
        threads: usize,
        f: impl FnOnce(&crate::ladder::Ladder<'_, B>) -> R,
    ) -> R {
        let load_net = |n, callers| Ok(self.load_net(n, callers)? as Arc<dyn Evaluator<B>>);
        let log = |line: &str, show: bool| self.log.line(line, show && !self.options.quiet);
        let progress = |len: u64, what: &str| -> crate::ladder::Tick {
            let bar = self.bar(len, what);
            Box::new(move || {
                bar.inc(1);
                if bar.position() >= len {
                    bar.finish_and_clear();
                }
            })
        };
        f(&crate::ladder::Ladder {
            rules: self.rules,
            ruleset: self.ruleset,
            arena: &self.config.arena,
            run_dir: self.run_dir,
            seed: game_seed(self.config.seed ^ 0xA4E7A, it as u64),
            threads,
            load_net: &load_net,
            log: &log,
            progress: &progress,
        })
    }

    /// `tafl ladder`: the ladder for finished iterations (see [`ladder`]).
    fn ladder_finished(&self, request: &LadderRequest) -> Result<(), String> {
        let mut state = RunState::load(self.dir)?;
        crate::integrity::check_state(self.dir, &state)?;
        let a = &self.config.arena;
        let every = request.every.unwrap_or(a.ladder_every);
        let done: Vec<(u32, u32)> = state
            .promotions()
            .map(|p| (p.summary.iteration, p.best_after))
            .collect();
        for &it in &request.at {
            if !done.iter().any(|&(i, _)| i == it) {
                return Err(format!(
                    "iteration {it} of `{}` is not finished (finished: 1 to {})",
                    self.dir.display(),
                    done.len()
                ));
            }
        }
        if request.at.is_empty() && every == 0 {
            return Err(
                "the config's `arena.ladder_every` is 0: say which iterations with --at or --every".into(),
            );
        }
        let series = crate::ladder::series(a);
        if series.iter().all(|s| s.games == 0) {
            return Err(format!(
                "the ladder of `{}/config.toml` plays no games: give `arena.ladder_anchors` and `arena.ladder_games`",
                self.dir.display()
            ));
        }
        let threads = self
            .config
            .selfplay
            .parallel_games
            .min(a.ladder_games.max(1))
            .max(1) as usize;
        let mut played = 0;
        for (index, &(it, best)) in done.iter().enumerate() {
            let wanted = if request.at.is_empty() {
                it.is_multiple_of(every)
            } else {
                request.at.contains(&it)
            };
            if !wanted {
                continue;
            }
            let have: Vec<String> = state.history[index]
                .ladder
                .iter()
                .map(|r| r.anchor.clone())
                .collect();
            let todo = |s: &crate::ladder::Series| request.again || !have.contains(&s.label);
            if !series.iter().any(todo) {
                continue;
            }
            let results = self.with_ladder(it, threads, |l| l.play_some(it, best, None, &todo))?;
            let ladder = &mut state.history[index].ladder;
            for r in results {
                ladder.retain(|x| x.anchor != r.anchor);
                ladder.push(r);
            }
            played += 1;
            state.save(self.dir)?;
            self.draw_learning_curve(&state);
            let (before, last) = state.history.split_at(index);
            if let Some(line) = crate::ladder::latest_point(before, &last[0]) {
                self.say(&format!("iteration {it}: {line}"));
            }
        }
        self.say(&format!(
            "ladder: {played} iteration(s) of `{}` measured; the curve is {}",
            self.dir.display(),
            self.run_dir.learning_curve_file().display()
        ));
        Ok(())
    }

    /// Draws `RUN/learning-curve.png` from the ladder results so far (the finished iterations
    /// and this one); a chart that cannot be drawn is a warning, never the run's end.
    fn draw_learning_curve(&self, state: &RunState) {
        let mut history = state.history.clone();
        if !state.current.ladder.is_empty() {
            history.push(state.current.clone());
        }
        let subtitle = crate::ladder::subtitle(&self.config.arena, self.ruleset);
        let path = self.run_dir.learning_curve_file();
        if let Err(e) = crate::curve::write_learning_curve(&path, &history, &subtitle) {
            self.log
                .line(&format!("warning: learning curve: {e}"), !self.options.quiet);
        }
    }

    /// Logs iteration `s`'s summary line and the learning curve's latest point (`history`:
    /// the iterations before it), and writes its TensorBoard scalars.
    fn report(&self, history: &[IterationSummary], s: &IterationSummary, took: Duration) {
        let sp = &s.selfplay;
        let arena = match s.arena_elo {
            Some(Elo {
                elo: e,
                low: lo,
                high: hi,
            }) => format!(
                "arena {e:+.0} Elo [{lo:+.0}, {hi:+.0}]{}",
                if s.promoted { " promoted" } else { "" }
            ),
            None => "arena skipped".into(),
        };
        let ladder: Vec<String> = s
            .ladder
            .iter()
            .map(|r| {
                format!(
                    "{} {:+.0} [{:+.0}, {:+.0}]",
                    r.anchor, r.elo.elo, r.elo.low, r.elo.high
                )
            })
            .collect();
        let handicap = if sp.handicapped > 0 {
            format!(
                " ({} handicapped, {} of them won by the handicapped side)",
                sp.handicapped, sp.handicapped_won
            )
        } else {
            String::new()
        };
        let teacher = s.teacher.map_or(String::new(), |t| {
            format!(" searched by the teacher ({})", t.name())
        });
        let cache = s
            .eval_cache_hit_rate
            .map_or(String::new(), |r| format!(", eval cache hits {:.0}%", 100.0 * r));
        let line = format!(
            "iter {} | self-play {} games{teacher}{handicap}, defenders {:.0}%, attackers {:.0}%, no result {:.0}%, {:.0} plies, {} samples, {:.0} games/h{cache} | loss {:.3} (policy {:.3}, value {:.3}) value acc {:.2}, {:.0} samples/s | {arena}{}{} | {:.0}s",
            s.iteration,
            sp.games,
            100.0 * sp.defender_share(),
            100.0 * sp.attacker_wins as f64 / sp.games.max(1) as f64,
            100.0 * sp.no_result as f64 / sp.games.max(1) as f64,
            sp.mean_length(),
            sp.samples,
            s.games_per_hour,
            s.loss[0],
            s.loss[1],
            s.loss[2],
            s.value_accuracy,
            s.samples_per_second,
            if ladder.is_empty() { "" } else { " | ladder: " },
            ladder.join(", "),
            took.as_secs_f64()
        );
        self.log.line(&line, !self.options.quiet);
        if let Some(curve) = crate::ladder::latest_point(history, s) {
            self.log.line(&curve, !self.options.quiet);
        }
        let step = s.iteration as u64;
        let mut scalars: Vec<(String, f64)> = vec![
            ("loss/total".into(), s.loss[0] as f64),
            ("loss/policy".into(), s.loss[1] as f64),
            ("loss/value".into(), s.loss[2] as f64),
            ("loss/moves_left".into(), s.loss[3] as f64),
            ("net/value_accuracy".into(), s.value_accuracy),
            ("net/policy_entropy".into(), s.net_policy_entropy),
            ("selfplay/policy_entropy".into(), sp.mean_policy_entropy()),
            ("selfplay/game_length".into(), sp.mean_length()),
            ("selfplay/defender_share".into(), sp.defender_share()),
            // Between equals only: handicapped games say little about the balance of play.
            (
                "selfplay/even_defender_share".into(),
                sp.even_defender_wins as f64 / sp.games.saturating_sub(sp.handicapped).max(1) as f64,
            ),
            (
                "selfplay/no_result_share".into(),
                sp.no_result as f64 / sp.games.max(1) as f64,
            ),
            ("selfplay/games_per_hour".into(), s.games_per_hour),
            (
                "selfplay/handicapped_share".into(),
                sp.handicapped as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/false_resign_share".into(),
                sp.false_resigns as f64 / sp.resign_checks.max(1) as f64,
            ),
            ("train/samples_per_second".into(), s.samples_per_second),
        ];
        if let Some(e) = s.arena_elo {
            scalars.push(("arena/elo_vs_best".into(), e.elo));
        }
        for r in &s.ladder {
            scalars.push((
                format!("ladder/elo_vs_{}", r.anchor.replace([':', '='], "_")),
                r.elo.elo,
            ));
        }
        let refs: Vec<(&str, f64)> = scalars.iter().map(|(t, v)| (t.as_str(), *v)).collect();
        if let Err(e) = self.events.write(step, &refs) {
            self.log
                .line(&format!("warning: TensorBoard events: {e}"), !self.options.quiet);
        }
    }
}

/// Whether a shard that says it holds `shard`'s games fits in iteration `it`'s self-play of
/// `total` games after the shards before it, which hold `held`: games of this iteration, as
/// many as its tallies count (`counted`), none of them held before. The error says why not.
fn shard_fits(
    shard: &ShardGames,
    it: u32,
    total: u64,
    counted: u64,
    held: &BTreeSet<u64>,
) -> Result<(), String> {
    if shard.iteration != it {
        return Err(format!(
            "holds games of iteration {}, not of iteration {it} (a shard put in the wrong folder)",
            shard.iteration
        ));
    }
    if shard.games.len() as u64 != counted {
        return Err(format!(
            "holds {} games, its tallies count {counted}",
            shard.games.len()
        ));
    }
    let mut seen = BTreeSet::new();
    for &g in &shard.games {
        if g >= total {
            return Err(format!(
                "holds game {g}, and iteration {it} plays games 0..{total}"
            ));
        }
        if held.contains(&g) || !seen.insert(g) {
            return Err(format!(
                "holds game {g}, which an earlier shard holds (a shard put in the wrong place)"
            ));
        }
    }
    Ok(())
}

/// A set of game indices for messages, runs as ranges: `0..4, 6, 8..12`.
fn game_ranges(games: &BTreeSet<u64>) -> String {
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for &g in games {
        match spans.last_mut() {
            Some((_, end)) if *end == g => *end = g + 1,
            _ => spans.push((g, g + 1)),
        }
    }
    spans
        .iter()
        .map(|&(a, b)| {
            if b == a + 1 {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The games one self-play phase plays: which, how, and where their shards go.
#[derive(Clone, Copy)]
struct SelfPlayGames<'a> {
    sp: &'a SelfPlaySection,
    dir: &'a Path,
    /// The games to play, in order (a resumed run's: those no kept shard holds).
    games: &'a [u64],
    /// The iteration's games up to the last (the progress bar's length; those not listed are
    /// done).
    total: u64,
    threads: usize,
    /// The side handicapped in a share of the games, if any.
    dominant: Option<Side>,
}
