//! `tafl export`: the bundle's files and manifest, and its `model.onnx` run by onnxruntime (a
//! runtime independent of burn, installed by `scripts/install-onnxruntime.sh`) against burn's
//! own outputs on fixed positions; refused checkpoints name the file and the reason.
//!
//! Run with `--nocapture` to see the measured differences.

mod cmd;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use tafl_engine::{Game, Rules, Ruleset};
use tafl_nn::burn::prelude::*;
use tafl_nn::{default_device, load_checkpoint, save_checkpoint, Encoder, Manifest, NetConfig, PLANES};

/// Largest difference allowed between onnxruntime's and burn's outputs: both compute in f32,
/// with different summation orders and onnxruntime folding batch norms into convolutions.
const TOLERANCE: f32 = 1e-4;

use cmd::tafl_command as tafl;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The python of the environment with onnxruntime and onnx, installed on first use.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new(root().join("scripts/install-onnxruntime.sh"))
            .output()
            .expect("run scripts/install-onnxruntime.sh");
        assert!(
            out.status.success(),
            "scripts/install-onnxruntime.sh failed (it needs python3 and PyPI access):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout
            .lines()
            .last()
            .expect("the installer prints the python path");
        root().join(last.trim())
    })
}

fn export(checkpoint: &Path, out: &Path) -> String {
    export_with(checkpoint, out, &[])
}

fn export_with(checkpoint: &Path, out: &Path, extra: &[&str]) -> String {
    let o = tafl()
        .arg("export")
        .arg(checkpoint)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "tafl export failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `tafl export` that must fail: returns its error message, after checking that no bundle
/// manifest was written.
fn export_error(checkpoint: &Path, out: &Path) -> String {
    let o = tafl()
        .arg("export")
        .arg(checkpoint)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "tafl export {} succeeded",
        checkpoint.display()
    );
    assert!(!out.join("manifest.json").exists() || out == checkpoint);
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Encoded fixed positions: the start and the positions along a deterministic line of play,
/// with repetition counts and plies that set planes 8 to 10. Returns the planes and the count.
fn positions(ruleset: &Ruleset) -> (Vec<f32>, usize) {
    let rules = Rules::<u128>::new(ruleset).unwrap();
    let encoder = Encoder::new(ruleset);
    let mut game = Game::new(&rules);
    let mut planes = Vec::new();
    let mut count = 0;
    for ply in 0..8u32 {
        let occurrences = 1 + (ply % 3) as u8;
        planes.extend(encoder.encode_vec(game.position(), occurrences, ply * 70, 0));
        count += 1;
        let moves = game.moves(&rules);
        let mv = moves.as_slice()[(ply as usize * 7 + 3) % moves.len()];
        if game.play(&rules, mv).unwrap().is_some() {
            break;
        }
    }
    (planes, count)
}

/// Writes the cases file of `tests/export_check.py`: the positions and burn's outputs for them,
/// computed from the checkpoint as `tafl play` loads it.
fn write_cases(checkpoint: &Path, ruleset: &Ruleset, path: &Path) {
    let device = default_device();
    let (model, manifest) = load_checkpoint(checkpoint, ruleset, &device).unwrap();
    let n = ruleset.size();
    let (planes, count) = positions(ruleset);
    let input = Tensor::<4>::from_data(TensorData::new(planes.clone(), [count, PLANES, n, n]), &device);
    let out = model.forward(input);
    let values = |t: Tensor<2>| t.into_data().as_slice::<f32>().unwrap().to_vec();
    let mut expected = serde_json::json!({
        "policy_logits": values(out.policy),
        "wdl_logits": values(out.wdl),
    });
    if let Some(m) = out.moves_left {
        expected["moves_left"] = values(m).into();
    }
    assert_eq!(out_has_moves_left(&expected), manifest.model.moves_left);
    let cases = serde_json::json!({
        "shape": [count, PLANES, n, n],
        "planes": planes,
        "expected": expected,
        "tolerance": TOLERANCE,
        // The int8 graph's outputs differ by quantization: a few hundredths in probability on
        // the shipped networks (nn/README.md, "int8").
        "int8_wdl_tolerance": 0.05,
        "int8_policy_tolerance": 0.07,
    });
    std::fs::write(path, cases.to_string()).unwrap();
}

fn out_has_moves_left(expected: &serde_json::Value) -> bool {
    expected.get("moves_left").is_some()
}

/// Runs `tests/export_check.py` on a bundle; returns its report.
fn check_with_onnxruntime(bundle: &Path, cases: &Path) -> String {
    let o = Command::new(python())
        .arg(root().join("tests/export_check.py"))
        .arg(bundle)
        .arg(cases)
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    println!("{report}");
    assert!(o.status.success(), "onnxruntime check failed:\n{report}");
    assert!(report.contains("onnx checker: ok"), "{report}");
    report
}

fn manifest(bundle: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(bundle.join("manifest.json")).unwrap()).unwrap()
}

fn output_names(m: &serde_json::Value) -> Vec<String> {
    m["onnx"]["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_trained_run_exports_a_bundle_that_onnxruntime_agrees_with() {
    let dir = temp_dir("run");
    let run = dir.join("run");
    // A real run, so that batch norms carry trained statistics and the state records Elo.
    let o = tafl()
        .args(["train", "configs/train/tiny.toml", "--quiet", "--out"])
        .arg(&run)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    let best = state["best"].as_u64().unwrap();

    let bundle = dir.join("bundle");
    let stdout = export(&run, &bundle);
    assert!(stdout.contains(&format!("iter-{best:04}")), "{stdout}");
    for file in ["model.onnx", "model.safetensors", "manifest.json", "README.md"] {
        assert!(bundle.join(file).is_file(), "{file} missing");
    }
    // The weights are the checkpoint's, byte for byte.
    let checkpoint = run.join("checkpoints").join(format!("iter-{best:04}"));
    assert_eq!(
        std::fs::read(bundle.join("model.safetensors")).unwrap(),
        std::fs::read(checkpoint.join("model.safetensors")).unwrap()
    );

    let m = manifest(&bundle);
    assert_eq!(m["format"], "tafl-client-bundle");
    assert_eq!(m["ruleset_id"], "brandubh");
    assert_eq!(m["board_size"], 7);
    assert_eq!(m["policy"]["size"], 7 * 7 * 4 * 6);
    assert_eq!(m["encoding"]["version"], 1);
    assert_eq!(m["encoding"]["planes"].as_array().unwrap().len(), PLANES);
    assert_eq!(m["model"]["moves_left"], true);
    assert!(m["ruleset_toml"].as_str().unwrap().contains("brandubh"));
    assert!(m["opentafl"].as_str().unwrap().contains("dim:7"));
    assert_eq!(m["onnx"]["inputs"][0]["name"], "planes");
    assert_eq!(
        m["onnx"]["inputs"][0]["shape"],
        serde_json::json!(["batch", 11, 7, 7])
    );
    assert_eq!(output_names(&m), ["policy_logits", "wdl_logits", "moves_left"]);
    // The tiny config plays an arena every iteration and a ladder at iteration 2.
    assert_eq!(m["elo"]["iteration"], best);
    assert_eq!(m["elo"]["best_in_run"], true);
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    for needle in ["policy_logits", "side to move", "| 10 | ply |", "Symmetries"] {
        assert!(readme.contains(needle), "README lacks `{needle}`:\n{readme}");
    }

    let ruleset = Ruleset::builtin("brandubh");
    let cases = dir.join("cases.json");
    write_cases(&checkpoint, &ruleset, &cases);
    let report = check_with_onnxruntime(&bundle, &cases);
    assert!(report.contains("max_abs_diff moves_left"), "{report}");

    // A checkpoint folder of the run exports too, with its own iteration's Elo.
    let first = dir.join("first");
    export(&run.join("checkpoints/iter-0001"), &first);
    assert_eq!(manifest(&first)["elo"]["iteration"], 1);
    assert_eq!(manifest(&first)["elo"]["arena"]["opponent"], "iter-0");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fresh_tablut_net_without_moves_left_exports_outside_a_run() {
    let dir = temp_dir("fresh");
    let ruleset = Ruleset::builtin("tablut");
    let config = NetConfig::tiny(ruleset.size());
    assert!(!config.moves_left);
    let model = config.init(&default_device());
    let checkpoint = dir.join("ckpt");
    save_checkpoint(&checkpoint, &model, &Manifest::new(&ruleset, &config, 42)).unwrap();

    let bundle = dir.join("bundle");
    export(&checkpoint, &bundle);
    let m = manifest(&bundle);
    assert_eq!(m["elo"], serde_json::Value::Null);
    assert_eq!(m["training_step"], 42);
    assert_eq!(output_names(&m), ["policy_logits", "wdl_logits"]);
    assert_eq!(m["policy"]["size"], 9 * 9 * 4 * 8);

    let cases = dir.join("cases.json");
    write_cases(&checkpoint, &ruleset, &cases);
    check_with_onnxruntime(&bundle, &cases);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_and_damaged_checkpoints_are_refused_naming_the_file() {
    let dir = temp_dir("bad");
    let out = dir.join("out");

    let err = export_error(&dir.join("nowhere"), &out);
    assert!(
        err.contains("nowhere") && err.contains("neither a checkpoint"),
        "{err}"
    );

    let ruleset = Ruleset::builtin("brandubh");
    let config = NetConfig::tiny(ruleset.size());
    let checkpoint = dir.join("ckpt");
    let model = config.init(&default_device());
    save_checkpoint(&checkpoint, &model, &Manifest::new(&ruleset, &config, 0)).unwrap();

    // Exporting into the checkpoint folder would overwrite its manifest.
    let err = export_error(&checkpoint, &checkpoint);
    assert!(err.contains("checkpoint folder itself"), "{err}");

    let weights = checkpoint.join("model.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let err = export_error(&checkpoint, &out);
    assert!(
        err.contains("model.safetensors") && err.contains("truncated"),
        "{err}"
    );

    std::fs::write(checkpoint.join("manifest.json"), "{ not json").unwrap();
    let err = export_error(&checkpoint, &out);
    assert!(err.contains("manifest.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_int8_graph_exports_beside_the_float_one_and_onnxruntime_agrees_with_it() {
    // The shipped Brandubh network (real weights, real batch-norm statistics).
    let dir = temp_dir("int8");
    let checkpoint = root().join("checkpoints/brandubh");
    let bundle = dir.join("bundle");
    let stdout = export_with(&checkpoint, &bundle, &["--int8"]);
    assert!(stdout.contains("model.int8.onnx"), "{stdout}");
    let m = manifest(&bundle);
    assert_eq!(m["int8"]["file"], "model.int8.onnx");
    let files: Vec<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"model.int8.onnx"), "{files:?}");
    let float = std::fs::metadata(bundle.join("model.onnx")).unwrap().len();
    let int8 = std::fs::metadata(bundle.join("model.int8.onnx")).unwrap().len();
    assert!(int8 * 2 < float, "int8 {int8} bytes, float {float}");
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    assert!(readme.contains("model.int8.onnx"), "{readme}");

    let ruleset = Ruleset::builtin("brandubh");
    let cases = dir.join("cases.json");
    write_cases(&checkpoint, &ruleset, &cases);
    let report = check_with_onnxruntime(&bundle, &cases);
    assert!(report.contains("int8 wdl_probability_max_diff"), "{report}");

    // Exported again without it, the bundle drops the int8 file (it would describe another
    // export's model).
    export(&checkpoint, &bundle);
    assert!(!bundle.join("model.int8.onnx").exists());
    assert_eq!(manifest(&bundle).get("int8"), None);
    let _ = std::fs::remove_dir_all(&dir);
}
