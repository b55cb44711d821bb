//! Batched inference behind [`tafl_engine::search::Evaluator`]: many search threads share one
//! [`NetEvaluator`], whose worker thread gathers their positions into one forward pass.
//!
//! ```text
//!  search thread 1 ──evaluate(8 leaves)──┐                      ┌── priors + WDL ──► thread 1
//!  search thread 2 ──evaluate(8 leaves)──┼─► queue ─► worker ───┼── priors + WDL ──► thread 2
//!  search thread k ──evaluate(8 leaves)──┘  (one forward pass   └── priors + WDL ──► thread k
//!                                            per batch)
//! ```
//!
//! The worker runs a batch when it holds `max_batch` positions, when every caller that is
//! searching has a call waiting (so no more work can come), or `max_wait` after the oldest
//! position arrived, whichever comes first. Callers that are searching are the threads that
//! submitted within the last [`ACTIVE_CALLER`] (at most `callers` of them): one search alone
//! (a level thinking by simulations on one tree, the only network player of a match) is then
//! answered at once instead of waiting `max_wait` at every call for callers that are not
//! searching. Callers encode their own positions, so
//! encoding runs in parallel; the worker runs the forward pass in its own rayon pool, so
//! search threads that are themselves rayon workers, blocked in `evaluate`, cannot starve it.
//!
//! The forward pass runs in ONNX Runtime when [`BatchConfig::inference`] resolves to it (the
//! default where its library is installed, several times faster on CPU; see
//! [`crate::Inference`]), else in burn; the search sees the same evaluator either way.

use crate::cache::{CacheKey, EvalCache};
use crate::calibration::{calibration_planes, CALIBRATION_POSITIONS, CALIBRATION_SEED};
use crate::encoding::{Encoder, PLANES, PLY_SCALE};
use crate::model::TaflNet;
use crate::onnxruntime::{Inference, OnnxNet, ONNXRUNTIME_HINT};
use burn::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tafl_engine::{
    search::{EvalInput, Evaluation, Evaluator, Wdl},
    BitSet, Rules, Ruleset,
};

/// How a [`NetEvaluator`] batches.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchConfig {
    /// Most positions in one forward pass.
    pub max_batch: usize,
    /// Longest a position waits for others before its batch runs.
    pub max_wait: Duration,
    /// Most calls expected at once (the number of search threads). The batch runs at once
    /// when every one of them that is searching (that called within [`ACTIVE_CALLER`]) has a
    /// call waiting. 0: unknown, rely on `max_batch` and `max_wait`.
    pub callers: usize,
    /// Show the network each position through a random valid symmetry (the priors are mapped
    /// back), which averages out the network's asymmetries over a search.
    pub random_symmetry: bool,
    /// Seed of the symmetry choice.
    pub seed: u64,
    /// Threads of the forward pass's rayon pool; 0 for one per core.
    pub threads: usize,
    /// Evaluations kept in the evaluation cache ([`crate::EvalCache`]); 0 for none.
    pub cache_entries: usize,
    /// The engine of the forward pass; the default is [`Inference::process_default`].
    pub inference: Inference,
}

impl Default for BatchConfig {
    fn default() -> BatchConfig {
        BatchConfig {
            max_batch: 256,
            max_wait: Duration::from_millis(2),
            callers: 0,
            random_symmetry: false,
            seed: 0,
            threads: 0,
            cache_entries: 0,
            inference: Inference::process_default(),
        }
    }
}

/// Counters of a [`NetEvaluator`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalStats {
    /// Forward passes run.
    pub batches: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Positions answered from the evaluation cache.
    pub cache_hits: u64,
    /// Positions looked up in the cache and not found (0 without a cache).
    pub cache_misses: u64,
}

impl EvalStats {
    /// Share of cache lookups that found their position (0 without lookups).
    pub fn cache_hit_rate(&self) -> f64 {
        let all = self.cache_hits + self.cache_misses;
        if all == 0 {
            0.0
        } else {
            self.cache_hits as f64 / all as f64
        }
    }
}

/// The results of one `evaluate` call, filled in by the worker.
struct Call {
    state: Mutex<CallState>,
    done: Condvar,
}

struct CallState {
    results: Vec<Evaluation>,
    remaining: usize,
    failure: Option<String>,
}

/// How long after its last call a thread still counts as searching (so that the worker waits
/// for its next call before running a batch without it). Long against the time between two
/// calls of a searching thread (one forward pass and a few tree walks: milliseconds to tens of
/// milliseconds in self-play), short against a search that has ended.
pub const ACTIVE_CALLER: Duration = Duration::from_millis(250);

/// One position waiting for the network.
struct Item {
    planes: Vec<f32>,
    /// Policy indices of the legal moves, through the item's symmetry.
    legal: Vec<u32>,
    call: Arc<Call>,
    index: usize,
}

struct State {
    queue: VecDeque<Item>,
    /// When the oldest queued position arrived.
    oldest: Option<Instant>,
    /// Calls submitted and not yet answered.
    waiting_calls: usize,
    /// The threads that submitted lately, with the time of their last call (at most
    /// `callers` of them: the oldest goes first).
    recent_callers: Vec<(std::thread::ThreadId, Instant)>,
    next_model: Option<TaflNet>,
    shutdown: bool,
    stats: EvalStats,
}

impl State {
    /// Records a call of thread `id` at `now`, keeping at most `callers` threads (0: no count
    /// is kept, as the worker then waits on `max_batch` and `max_wait` alone).
    fn note_caller(&mut self, id: std::thread::ThreadId, now: Instant, callers: usize) {
        if callers == 0 {
            return;
        }
        if let Some(entry) = self.recent_callers.iter_mut().find(|(t, _)| *t == id) {
            entry.1 = now;
            return;
        }
        if self.recent_callers.len() >= callers {
            if let Some(oldest) = (0..self.recent_callers.len()).min_by_key(|&i| self.recent_callers[i].1) {
                self.recent_callers.swap_remove(oldest);
            }
        }
        self.recent_callers.push((id, now));
    }

    /// Whether every caller that is searching (a thread that called within [`ACTIVE_CALLER`]
    /// of `now`, at most `callers`) has a call waiting: no more work can come before a batch
    /// runs. Never with `callers` 0 (unknown).
    fn all_searching_waiting(&self, now: Instant, callers: usize) -> bool {
        if callers == 0 {
            return false;
        }
        let searching = self
            .recent_callers
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(*at) < ACTIVE_CALLER)
            .count()
            .clamp(1, callers);
        self.waiting_calls >= searching
    }
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a lock leaves plain data behind, still consistent enough to
    // report and shut down.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A network evaluator shared by search threads; see the module documentation.
pub struct NetEvaluator {
    encoder: Arc<Encoder>,
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
    config: BatchConfig,
    name: String,
    counter: AtomicU64,
    cache: Option<EvalCache>,
    /// The engine the forward passes run in: `Burn`, `OnnxRuntime` or `Int8`.
    engine: Inference,
}

/// Evaluations a player's network keeps (about 20 MB on 11x11): positions a search meets
/// again by another move order, and those of the last moves' trees, cost a lookup instead of a
/// forward pass.
pub const PLAY_CACHE_ENTRIES: usize = 1 << 16;

impl NetEvaluator {
    /// A loaded model as a player's evaluator (the one batching every player's network uses):
    /// up to `callers` concurrent searches, forward passes on `inference`, named after the
    /// manifest's rules and training step (`net:brandubh@3200`).
    pub fn for_play(
        model: TaflNet,
        manifest: &crate::checkpoint::Manifest,
        ruleset: &Ruleset,
        device: Device,
        callers: usize,
        inference: Inference,
    ) -> Arc<NetEvaluator> {
        let config = BatchConfig {
            callers,
            inference,
            max_wait: std::time::Duration::from_millis(2),
            cache_entries: PLAY_CACHE_ENTRIES,
            ..BatchConfig::default()
        };
        let name = format!("net:{}@{}", manifest.ruleset_id, manifest.training_step);
        Arc::new(NetEvaluator::new(model, ruleset, device, config, name))
    }

    /// An evaluator running `model` on `device` for the board of `ruleset`; `name` shows in
    /// reports (`net:brandubh-0042`). The model is switched to inference mode.
    pub fn new(
        model: TaflNet,
        ruleset: &Ruleset,
        device: Device,
        config: BatchConfig,
        name: impl Into<String>,
    ) -> NetEvaluator {
        let encoder = Arc::new(Encoder::new(ruleset));
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                oldest: None,
                waiting_calls: 0,
                recent_callers: Vec::new(),
                next_model: None,
                shutdown: false,
                stats: EvalStats::default(),
            }),
            work: Condvar::new(),
        });
        let name = name.into();
        // Int8 calibrates every network it opens (this one, and each that replaces it) on the
        // same positions.
        let calibration = if config.inference == Inference::Int8 {
            calibration_planes(ruleset, &encoder, CALIBRATION_POSITIONS, CALIBRATION_SEED)
        } else {
            Vec::new()
        };
        let engine = Engine::open(model.valid(), &calibration, &device, &config, &name);
        let engine_kind = engine.kind();
        let worker = {
            let shared = shared.clone();
            let encoder = encoder.clone();
            let config = config.clone();
            let name = name.clone();
            std::thread::Builder::new()
                .name("tafl-nn-eval".into())
                .spawn(move || worker_loop(&shared, &encoder, engine, &calibration, &device, &config, &name))
                .ok()
        };
        NetEvaluator {
            encoder,
            shared,
            worker,
            cache: (config.cache_entries > 0).then(|| EvalCache::new(config.cache_entries)),
            config,
            name,
            counter: AtomicU64::new(0),
            engine: engine_kind,
        }
    }

    /// The engine this evaluator's forward passes run in ([`Inference::Burn`],
    /// [`Inference::OnnxRuntime`] or [`Inference::Int8`]; a later [`NetEvaluator::replace_model`] that ONNX Runtime
    /// cannot open falls back to burn without changing this).
    pub fn inference(&self) -> Inference {
        self.engine
    }

    /// Replaces the network (for example with a newly promoted one) from the next batch on.
    pub fn replace_model(&self, model: TaflNet) {
        lock(&self.shared.state).next_model = Some(model.valid());
    }

    /// The encoder of this evaluator's board.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// Forward passes, positions and cache lookups so far.
    pub fn stats(&self) -> EvalStats {
        let mut stats = lock(&self.shared.state).stats;
        if let Some(cache) = &self.cache {
            (stats.cache_hits, stats.cache_misses) = cache.counts();
        }
        stats
    }

    fn symmetry(&self) -> u8 {
        let syms = self.encoder.symmetries();
        if !self.config.random_symmetry || syms.len() < 2 {
            return 0;
        }
        let k = self.counter.fetch_add(1, Ordering::Relaxed);
        syms[(splitmix64(self.config.seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % syms.len() as u64)
            as usize]
    }

    /// Evaluates positions given as planes (already encoded, through symmetry `sym` each)
    /// with the legal policy indices in the same symmetry; the core of [`Evaluator::evaluate`].
    fn submit(&self, items: Vec<(Vec<f32>, Vec<u32>)>) -> Vec<Evaluation> {
        let count = items.len();
        if count == 0 {
            return Vec::new();
        }
        let call = Arc::new(Call {
            state: Mutex::new(CallState {
                results: vec![Evaluation::default(); count],
                remaining: count,
                failure: None,
            }),
            done: Condvar::new(),
        });
        {
            let mut state = lock(&self.shared.state);
            if state.shutdown || self.worker.is_none() {
                panic!(
                    "network evaluator `{}`: its worker thread is not running",
                    self.name
                );
            }
            state.queue.extend(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(index, (planes, legal))| Item {
                        planes,
                        legal,
                        call: call.clone(),
                        index,
                    }),
            );
            let now = Instant::now();
            state.oldest.get_or_insert(now);
            state.waiting_calls += 1;
            state.note_caller(std::thread::current().id(), now, self.config.callers);
        }
        self.shared.work.notify_one();
        let mut done = lock(&call.state);
        while done.remaining > 0 && done.failure.is_none() {
            done = call.done.wait(done).unwrap_or_else(|e| e.into_inner());
        }
        if let Some(why) = &done.failure {
            panic!("network evaluator `{}` failed: {why}", self.name);
        }
        std::mem::take(&mut done.results)
    }
}

impl<B: BitSet> Evaluator<B> for NetEvaluator {
    fn evaluate(&self, rules: &Rules<B>, inputs: &[EvalInput<'_, B>]) -> Vec<Evaluation> {
        assert_eq!(
            rules.n,
            self.encoder.board_size(),
            "network evaluator `{}` is for {n}x{n} boards",
            self.name,
            n = self.encoder.board_size()
        );
        let encode = |input: &EvalInput<'_, B>| {
            let sym = self.symmetry();
            let mut planes = vec![0.0; self.encoder.input_len()];
            self.encoder.encode_input(input, sym, &mut planes);
            (planes, self.encoder.move_indices(input.moves, sym))
        };
        let Some(cache) = &self.cache else {
            return self.submit(inputs.iter().map(encode).collect());
        };
        // Answer what the cache holds; send the rest to the network and keep its answers.
        let keys: Vec<CacheKey> = inputs.iter().map(|i| CacheKey::of(i, PLY_SCALE)).collect();
        let mut out: Vec<Option<Evaluation>> = keys.iter().map(|k| cache.get(k)).collect();
        let missing: Vec<usize> = (0..inputs.len()).filter(|&i| out[i].is_none()).collect();
        let fresh = self.submit(missing.iter().map(|&i| encode(&inputs[i])).collect());
        for (&i, eval) in missing.iter().zip(fresh) {
            cache.insert(keys[i], eval.clone());
            out[i] = Some(eval);
        }
        out.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// Its name, with ` (int8)` when its forward passes are quantized (a report then says
    /// which network played at which precision).
    fn name(&self) -> String {
        match self.engine {
            Inference::Int8 => format!("{} (int8)", self.name),
            _ => self.name.clone(),
        }
    }
}

impl Drop for NetEvaluator {
    fn drop(&mut self) {
        lock(&self.shared.state).shutdown = true;
        self.shared.work.notify_all();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Where the worker's forward passes run.
enum Engine {
    Burn(Box<TaflNet>),
    Onnx(Box<OnnxNet>),
}

impl Engine {
    /// The engine `config.inference` asks for, for `model` (in inference mode). Where ONNX
    /// Runtime cannot be had, burn: `auto` says so once per process with how to get the fast
    /// path, an explicit `onnxruntime` says so for every evaluator.
    ///
    /// `calibration` holds the input planes of the positions an int8 network calibrates on.
    fn open(
        model: TaflNet,
        calibration: &[f32],
        device: &Device,
        config: &BatchConfig,
        name: &str,
    ) -> Engine {
        if config.inference != Inference::Burn {
            let opened = if config.inference == Inference::Int8 {
                OnnxNet::new_int8(&model, calibration, config.threads)
            } else {
                OnnxNet::new(&model, config.threads)
            };
            match opened {
                Ok(net) => return Engine::Onnx(Box::new(net)),
                Err(e) if config.inference != Inference::Auto => {
                    eprintln!("network evaluator `{name}`: {e}; evaluating with burn instead");
                }
                Err(e) => {
                    static ONCE: std::sync::Once = std::sync::Once::new();
                    ONCE.call_once(|| {
                        eprintln!(
                            "note: evaluating networks with burn, the slow path ({e}); for the fast path {ONNXRUNTIME_HINT}"
                        )
                    });
                }
            }
        }
        Engine::Burn(Box::new(model.to_device(device)))
    }

    fn kind(&self) -> Inference {
        match self {
            Engine::Burn(_) => Inference::Burn,
            Engine::Onnx(net) => net.kind(),
        }
    }
}

fn worker_loop(
    shared: &Shared,
    encoder: &Encoder,
    mut engine: Engine,
    calibration: &[f32],
    device: &Device,
    config: &BatchConfig,
    name: &str,
) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("tafl-nn-eval-{i}"))
        .build()
        .ok();
    let max_batch = config.max_batch.max(1);
    loop {
        let batch: Vec<Item> = {
            let mut state = lock(&shared.state);
            loop {
                if state.queue.is_empty() {
                    if state.shutdown {
                        return;
                    }
                    state = shared.work.wait(state).unwrap_or_else(|e| e.into_inner());
                    continue;
                }
                let now = Instant::now();
                let deadline = state.oldest.unwrap_or(now) + config.max_wait;
                let all_waiting = state.all_searching_waiting(now, config.callers);
                if state.queue.len() >= max_batch || all_waiting || now >= deadline || state.shutdown {
                    break;
                }
                state = shared
                    .work
                    .wait_timeout(state, deadline - now)
                    .map(|(s, _)| s)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
            let take = state.queue.len().min(max_batch);
            let batch = state.queue.drain(..take).collect();
            if state.queue.is_empty() {
                state.oldest = None;
            }
            let next = state.next_model.take();
            drop(state);
            if let Some(next) = next {
                // The same engine as before (auto's fallback note is not repeated).
                let config = BatchConfig {
                    inference: engine.kind(),
                    ..config.clone()
                };
                engine = Engine::open(next, calibration, device, &config, name);
            }
            batch
        };
        let mut run = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                forward(&mut engine, encoder, device, &batch)
            }))
        };
        let outcome = match &pool {
            Some(pool) => pool.install(run),
            None => run(),
        };
        let outcome = match outcome {
            Ok(r) => r,
            Err(panic) => Err(panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the forward pass panicked".into())),
        };
        // Counted before any caller wakes, so a caller that reads the statistics after its
        // call returns sees its own positions.
        {
            let mut state = lock(&shared.state);
            state.stats.batches += 1;
            state.stats.positions += batch.len() as u64;
        }
        let mut finished = 0;
        match outcome {
            Ok(evals) => {
                for (item, eval) in batch.iter().zip(evals) {
                    let mut call = lock(&item.call.state);
                    call.results[item.index] = eval;
                    call.remaining -= 1;
                    if call.remaining == 0 {
                        finished += 1;
                        item.call.done.notify_all();
                    }
                }
            }
            Err(why) => {
                for item in &batch {
                    let mut call = lock(&item.call.state);
                    if call.failure.is_none() {
                        finished += 1;
                        call.failure = Some(why.clone());
                        item.call.done.notify_all();
                    }
                }
            }
        }
        let mut state = lock(&shared.state);
        state.waiting_calls = state.waiting_calls.saturating_sub(finished);
    }
}

/// One forward pass over a batch; priors are the softmax of the legal moves' logits.
fn forward(
    engine: &mut Engine,
    encoder: &Encoder,
    device: &Device,
    batch: &[Item],
) -> Result<Vec<Evaluation>, String> {
    let b = batch.len();
    let gather = |flat: &mut Vec<f32>| {
        for item in batch {
            flat.extend_from_slice(&item.planes);
        }
    };
    match engine {
        Engine::Burn(model) => {
            let n = encoder.board_size();
            let mut flat = Vec::with_capacity(b * encoder.input_len());
            gather(&mut flat);
            let input = Tensor::<4>::from_data(TensorData::new(flat, [b, PLANES, n, n]), device);
            let out = model.forward(input);
            let policy = out.policy.into_data();
            let policy = policy.as_slice::<f32>().map_err(|e| format!("{e:?}"))?;
            let wdl = out.wdl.into_data();
            let wdl = wdl.as_slice::<f32>().map_err(|e| format!("{e:?}"))?;
            Ok(evaluations(encoder, batch, policy, wdl))
        }
        Engine::Onnx(net) => {
            let out = net.forward_with(b, gather).map_err(|e| e.to_string())?;
            Ok(evaluations(encoder, batch, &out.policy, &out.wdl))
        }
    }
}

/// The evaluations of a batch from its policy and win/draw/loss logits (row-major).
fn evaluations(encoder: &Encoder, batch: &[Item], policy: &[f32], wdl: &[f32]) -> Vec<Evaluation> {
    let p = encoder.policy_size();
    batch
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let row = &policy[i * p..(i + 1) * p];
            let logits: Vec<f32> = item
                .legal
                .iter()
                .map(|&j| row.get(j as usize).copied().unwrap_or(f32::MIN))
                .collect();
            let priors = softmax(&logits);
            let w = softmax(&wdl[i * 3..i * 3 + 3]);
            Evaluation {
                priors,
                wdl: Wdl {
                    win: w[0],
                    draw: w[1],
                    loss: w[2],
                },
            }
        })
        .collect()
}

/// Softmax of a slice (empty for empty input), stable for large logits.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut out: Vec<f32> = logits.iter().map(|&x| (x - max).exp()).collect();
    let sum: f32 = out.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        out.iter_mut().for_each(|x| *x /= sum);
    } else if !out.is_empty() {
        let u = 1.0 / out.len() as f32;
        out.iter_mut().for_each(|x| *x = u);
    }
    out
}
