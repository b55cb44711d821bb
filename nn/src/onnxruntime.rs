//! ONNX Runtime as the fast inference engine: the network exported in-process to the ONNX graph
//! `tafl export` writes ([`crate::onnx_model`]), run by `libonnxruntime.so` loaded at run time.
//!
//! Measured on the project's 2-core machine, ONNX Runtime's fp32 CPU kernels (MLAS) run the
//! residual tower several times faster than burn's `flex` backend (see `nn/README.md`), so every
//! player and self-play evaluates through it when the library is there. Nothing is linked or
//! downloaded at build time (the `ort` crate's `load-dynamic` feature): the library comes from
//! the PyPI `onnxruntime` wheel that `scripts/install-onnxruntime.sh` installs into
//! `target/onnx-venv`, and without it burn evaluates (see [`Inference::Auto`]).
//!
//! Where the library is looked for, first match wins:
//! 1. `ORT_DYLIB_PATH` (the `ort` crate's variable), when set: that file only;
//! 2. the `onnxruntime` package of the virtual environment `TAFL_ONNX_VENV` (the install
//!    script's variable), when set: that environment only;
//! 3. `target/onnx-venv` of the working directory, of any folder above the executable (a
//!    binary built in `target/release` finds `target/onnx-venv`), and of the source tree the
//!    binary was built from.
//!
//! Training stays in burn; only inference runs here, and [`crate::NetEvaluator`] rebuilds its
//! session from the burn model whenever the model is replaced.

use crate::model::TaflNet;
use crate::onnx::quantize::{ActivationRanges, WeightRange};
use crate::onnx::{
    board_size, onnx_calibration_model, onnx_model, onnx_model_int8, ONNX_INPUT, ONNX_POLICY, ONNX_WDL,
};
use crate::NnError;
use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// Which engine runs the network's forward passes for [`crate::NetEvaluator`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inference {
    /// ONNX Runtime when its library loads, else burn (saying once, on stderr, how to get the
    /// fast path).
    #[default]
    Auto,
    /// burn's own forward pass ([`TaflNet::forward`] on the evaluator's device).
    Burn,
    /// ONNX Runtime; an error where its library cannot be loaded.
    OnnxRuntime,
    /// ONNX Runtime with 8-bit integer weights and activations ([`OnnxNet::new_int8`]): about
    /// twice the positions a second of [`Inference::OnnxRuntime`] on CPUs with VNNI, at a small
    /// cost in accuracy; an error where the library cannot be loaded.
    Int8,
}

impl Inference {
    /// Every choice, as written in configs and on command lines.
    pub const ALL: [Inference; 4] = [
        Inference::Auto,
        Inference::Burn,
        Inference::OnnxRuntime,
        Inference::Int8,
    ];

    /// The name used in configs, on command lines and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Inference::Auto => "auto",
            Inference::Burn => "burn",
            Inference::OnnxRuntime => "onnxruntime",
            Inference::Int8 => "int8",
        }
    }

    /// The engine this choice comes to on this machine: `Burn`, `OnnxRuntime` or `Int8`, or why
    /// an explicit `OnnxRuntime` or `Int8` cannot be had.
    pub fn resolve(self) -> Result<Inference, NnError> {
        match self {
            Inference::Burn => Ok(Inference::Burn),
            Inference::OnnxRuntime | Inference::Int8 => runtime().map(|_| self),
            Inference::Auto => Ok(if runtime().is_ok() {
                Inference::OnnxRuntime
            } else {
                Inference::Burn
            }),
        }
    }

    /// The choice of [`crate::BatchConfig::default`] in this process: [`Inference::Auto`]
    /// unless [`Inference::set_process_default`] said otherwise (as `tafl --inference` does).
    pub fn process_default() -> Inference {
        Inference::ALL[PROCESS_DEFAULT.load(Ordering::Relaxed) as usize % Inference::ALL.len()]
    }

    /// Sets [`Inference::process_default`] for evaluators built from now on.
    pub fn set_process_default(choice: Inference) {
        let index = Inference::ALL.iter().position(|&c| c == choice).unwrap_or(0);
        PROCESS_DEFAULT.store(index as u8, Ordering::Relaxed);
    }
}

static PROCESS_DEFAULT: AtomicU8 = AtomicU8::new(0);

impl fmt::Display for Inference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Inference {
    type Err = String;
    fn from_str(s: &str) -> Result<Inference, String> {
        Inference::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| {
            format!(
                "inference engine `{}`: expected one of {}",
                tafl_engine::input::printable(s, false, 40),
                Inference::ALL.map(Inference::name).join(", ")
            )
        })
    }
}

/// The loaded runtime: its one environment per process, and where it came from.
struct Runtime {
    environment: Environment,
    library: PathBuf,
}

fn runtime() -> Result<&'static Runtime, NnError> {
    static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(load_runtime)
        .as_ref()
        .map_err(|why| NnError::Runtime(why.clone()))
}

fn load_runtime() -> Result<Runtime, String> {
    let library = find_library()?;
    let environment = ort::init_from(&library)
        .map_err(|e| e.to_string())?
        .with_name("tafl")
        .with_telemetry(false)
        .build()
        .map_err(|e| format!("{}: {e}", library.display()))?;
    Ok(Runtime { environment, library })
}

/// The ONNX Runtime library this process uses (loading it on first call), or why there is none.
pub fn onnxruntime_library() -> Result<PathBuf, NnError> {
    runtime().map(|r| r.library.clone())
}

/// Where the ONNX Runtime library would be loaded from, looked up now without loading it
/// (unlike [`onnxruntime_library`], whose first answer holds for the process): for a host that
/// installs the library when it is missing, before anything loads it.
pub fn find_onnxruntime_library() -> Result<PathBuf, String> {
    find_library()
}

/// How to get the fast path where the library is missing; for the one line a fallback prints.
pub const ONNXRUNTIME_HINT: &str =
    "run scripts/install-onnxruntime.sh (PyPI onnxruntime into target/onnx-venv) or set ORT_DYLIB_PATH";

fn find_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("ORT_DYLIB_PATH={}: no such file", path.display()))
        };
    }
    let mut venvs: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("TAFL_ONNX_VENV").filter(|p| !p.is_empty()) {
        // The environment named is the only one: a user who says where it is means it.
        let venv = PathBuf::from(v);
        return library_in_venv(&venv).ok_or_else(|| {
            format!(
                "TAFL_ONNX_VENV={}: no onnxruntime package with its library there",
                venv.display()
            )
        });
    }
    if let Ok(dir) = std::env::current_dir() {
        venvs.push(dir.join("target").join("onnx-venv"));
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            venvs.push(dir.join("onnx-venv"));
            venvs.push(dir.join("target").join("onnx-venv"));
        }
    }
    venvs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/onnx-venv"));
    for venv in &venvs {
        if let Some(lib) = library_in_venv(venv) {
            return Ok(lib);
        }
    }
    Err(format!(
        "no libonnxruntime.so in ORT_DYLIB_PATH, TAFL_ONNX_VENV or target/onnx-venv (looked in {})",
        venvs
            .first()
            .map_or_else(|| "nothing".into(), |v| v.display().to_string())
    ))
}

/// `VENV/lib/python3.X/site-packages/onnxruntime/capi/libonnxruntime.so.1.Y.Z`, the wheel's
/// layout.
fn library_in_venv(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
        .map(|e| e.path())
        .collect();
    pythons.sort();
    pythons.into_iter().rev().find_map(|python| {
        let capi = python.join("site-packages/onnxruntime/capi");
        let mut libs: Vec<PathBuf> = std::fs::read_dir(&capi)
            .ok()?
            .filter_map(|e| e.ok())
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name == "libonnxruntime.so" || name.starts_with("libonnxruntime.so.")
            })
            .map(|e| e.path())
            .collect();
        libs.sort();
        libs.pop()
    })
}

/// A network as an ONNX Runtime session: what [`crate::NetEvaluator`] runs when its
/// [`Inference`] resolves to ONNX Runtime, and what the benchmarks time.
pub struct OnnxNet {
    session: Session,
    planes: usize,
    board: usize,
    policy_size: usize,
    /// Whether the session runs the int8 graph.
    int8: bool,
    /// Input of the last call, kept so that a batch costs no allocation of its own.
    input: Vec<f32>,
}

/// What [`OnnxNet::forward`] returns: row-major logits, one row per position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OnnxOutput {
    /// Policy logits, `batch * policy_size`.
    pub policy: Vec<f32>,
    /// Win/draw/loss logits, `batch * 3`.
    pub wdl: Vec<f32>,
}

impl OnnxNet {
    /// Exports `model` (inference mode) to ONNX in memory and opens it in ONNX Runtime with
    /// `threads` intra-op threads (0: one per core). Errors when the library cannot be loaded.
    pub fn new(model: &TaflNet, threads: usize) -> Result<OnnxNet, NnError> {
        let bytes = onnx_model(model, &[])?;
        OnnxNet::open(model, &bytes, threads, false)
    }

    /// `model` with 8-bit weights and activations ([`crate::onnx_model_int8`]), its activation
    /// ranges measured first by running the calibration graph over `calibration` (input planes
    /// of sample positions one after another, as [`crate::calibration_planes`] makes them),
    /// weights at the range this CPU computes exactly ([`WeightRange::for_this_cpu`]).
    pub fn new_int8(model: &TaflNet, calibration: &[f32], threads: usize) -> Result<OnnxNet, NnError> {
        let ranges = OnnxNet::calibrate(model, calibration, threads)?;
        let bytes = onnx_model_int8(model, &[], &ranges, WeightRange::for_this_cpu())?;
        OnnxNet::open(model, &bytes, threads, true)
    }

    /// The ranges of the tensors the int8 graph quantizes, over the positions of `calibration`.
    pub fn calibrate(
        model: &TaflNet,
        calibration: &[f32],
        threads: usize,
    ) -> Result<ActivationRanges, NnError> {
        let (bytes, points) = onnx_calibration_model(model)?;
        let mut net = OnnxNet::open(model, &bytes, threads, false)?;
        let per = net.planes * net.board * net.board;
        if calibration.is_empty() || !calibration.len().is_multiple_of(per) {
            return Err(NnError::Runtime(format!(
                "calibration: {} input values are not a whole number of positions of {per}",
                calibration.len()
            )));
        }
        let fail = |e: &dyn fmt::Display| NnError::Runtime(format!("calibration: {e}"));
        let mut ranges = ActivationRanges::new();
        for chunk in calibration.chunks(per * 64) {
            let batch = chunk.len() / per;
            let shape = [batch, net.planes, net.board, net.board];
            let input = TensorRef::from_array_view((shape, chunk)).map_err(|e| fail(&e))?;
            let outputs = net
                .session
                .run(ort::inputs![ONNX_INPUT => input])
                .map_err(|e| fail(&e))?;
            for point in &points {
                let value = outputs
                    .get(point.as_str())
                    .ok_or_else(|| NnError::Runtime(format!("calibration: no output `{point}`")))?;
                let (_, data) = value.try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
                ranges.observe(point, data);
            }
        }
        Ok(ranges)
    }

    /// Opens the ONNX model `bytes` of `model`.
    fn open(model: &TaflNet, bytes: &[u8], threads: usize, int8: bool) -> Result<OnnxNet, NnError> {
        let runtime = runtime()?;
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let fail = |e: &dyn fmt::Display| NnError::Runtime(format!("opening the network: {e}"));
        let session = Session::builder(&runtime.environment)
            .map_err(|e| fail(&e))?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| fail(&e))?
            .with_intra_threads(threads)
            .map_err(|e| fail(&e))?
            .with_inter_threads(1)
            .map_err(|e| fail(&e))?
            // Between batches the cores belong to the search threads: idle pool threads sleep
            // instead of spinning.
            .with_intra_op_spinning(false)
            .map_err(|e| fail(&e))?
            .commit_from_memory(bytes)
            .map_err(|e| fail(&e))?;
        let [_, planes, _, _] = model.stem.weight.dims();
        let board = board_size(model)?;
        let policy_size = board * board * model.policy.out.weight.dims()[0];
        Ok(OnnxNet {
            session,
            planes,
            board,
            policy_size,
            int8,
            input: Vec::new(),
        })
    }

    /// The engine this session is: [`Inference::Int8`] or [`Inference::OnnxRuntime`].
    pub fn kind(&self) -> Inference {
        if self.int8 {
            Inference::Int8
        } else {
            Inference::OnnxRuntime
        }
    }

    /// Logits of `batch` positions whose input planes lie one after another in `planes`.
    pub fn forward(&mut self, planes: &[f32], batch: usize) -> Result<OnnxOutput, NnError> {
        let per = self.planes * self.board * self.board;
        if planes.len() != batch * per {
            return Err(NnError::Runtime(format!(
                "{} input values for {batch} positions of {per}",
                planes.len()
            )));
        }
        self.input.clear();
        self.input.extend_from_slice(planes);
        self.run(batch)
    }

    /// Fills the input buffer with `fill` (cleared first) and runs it: the evaluator's path,
    /// which gathers positions straight into the buffer.
    pub(crate) fn forward_with(
        &mut self,
        batch: usize,
        fill: impl FnOnce(&mut Vec<f32>),
    ) -> Result<OnnxOutput, NnError> {
        self.input.clear();
        fill(&mut self.input);
        let per = self.planes * self.board * self.board;
        if self.input.len() != batch * per {
            return Err(NnError::Runtime(format!(
                "{} input values for {batch} positions of {per}",
                self.input.len()
            )));
        }
        self.run(batch)
    }

    fn run(&mut self, batch: usize) -> Result<OnnxOutput, NnError> {
        let fail = |e: &dyn fmt::Display| NnError::Runtime(format!("forward pass: {e}"));
        let shape = [batch, self.planes, self.board, self.board];
        let input = TensorRef::from_array_view((shape, self.input.as_slice())).map_err(|e| fail(&e))?;
        let outputs = self
            .session
            .run(ort::inputs![ONNX_INPUT => input])
            .map_err(|e| fail(&e))?;
        let extract = |name: &str, width: usize| -> Result<Vec<f32>, NnError> {
            let value = outputs
                .get(name)
                .ok_or_else(|| NnError::Runtime(format!("no output `{name}`")))?;
            let (_, data) = value.try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
            if data.len() != batch * width {
                return Err(NnError::Runtime(format!(
                    "output `{name}` has {} values for {batch} positions of {width}",
                    data.len()
                )));
            }
            Ok(data.to_vec())
        };
        Ok(OnnxOutput {
            policy: extract(ONNX_POLICY, self.policy_size)?,
            wdl: extract(ONNX_WDL, 3)?,
        })
    }
}
