//! `tafl train`: a training run from a config, or one resumed (the trainer's
//! [`tafl_trainer::start`] and [`tafl_trainer::resume`] do the work).

/// The arguments of `tafl train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Training config (TOML); the embedded `configs/train/brandubh.toml` when absent.
    config: Option<String>,
    /// Run folder for a new run (default: runs/<config>-<unix time>).
    #[arg(long)]
    out: Option<String>,
    /// Continue the run in this folder.
    #[arg(long, conflicts_with_all = ["config", "out"])]
    resume: Option<String>,
    /// Stop after this iteration (the run can be resumed later).
    #[arg(long)]
    stop_after: Option<u32>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Do not install ONNX Runtime where it is missing: self-play then evaluates through
    /// burn, about 3x slower (by default a first run installs it with
    /// scripts/install-onnxruntime.sh, PyPI's onnxruntime into target/onnx-venv).
    #[arg(long)]
    pub(crate) no_install: bool,
}

impl TrainArgs {
    /// Runs `tafl train`.
    pub fn run(self) -> Result<(), String> {
        let TrainArgs {
            config,
            out,
            resume,
            stop_after,
            quiet,
            no_install: _,
        } = self;
        let options = tafl_trainer::TrainOptions { stop_after, quiet };
        if let Some(dir) = resume {
            return tafl_trainer::resume(std::path::Path::new(&dir), &options);
        }
        let (text, name) = match &config {
            Some(path) => (
                tafl_engine::input::read_text(std::path::Path::new(path))
                    .map_err(|e| format!("config `{path}`: {e}"))?,
                path.clone(),
            ),
            None => (
                tafl_trainer::DEFAULT_CONFIG.to_string(),
                "configs/train/brandubh.toml (embedded)".to_string(),
            ),
        };
        let out = out.unwrap_or_else(|| {
            let stem = config
                .as_deref()
                .and_then(|p| std::path::Path::new(p).file_stem())
                .map_or("brandubh".to_string(), |s| s.to_string_lossy().into_owned());
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("runs/{stem}-{secs}")
        });
        tafl_trainer::start(&text, &name, std::path::Path::new(&out), &options)
    }
}
