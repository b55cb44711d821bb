//! Without the ONNX Runtime library, evaluators fall back to burn: `auto` resolves to burn and
//! evaluates as burn does, an explicit `onnxruntime` is an error naming where it looked. Its
//! own test binary, so that no other test has loaded the library into the process.

use std::time::Duration;
use tafl_engine::{
    search::{EvalInput, Evaluator},
    Game, Rules, Ruleset,
};
use tafl_nn::{default_device, BatchConfig, Inference, NetConfig, NetEvaluator};

#[test]
fn without_the_library_auto_evaluates_with_burn() {
    // The only test of this binary: no other thread reads the environment meanwhile.
    std::env::set_var("ORT_DYLIB_PATH", "/nonexistent/libonnxruntime.so");
    assert_eq!(Inference::Auto.resolve().ok(), Some(Inference::Burn));
    assert_eq!(Inference::Burn.resolve().ok(), Some(Inference::Burn));
    let why = Inference::OnnxRuntime.resolve().unwrap_err().to_string();
    assert!(why.contains("ORT_DYLIB_PATH"), "{why}");
    assert!(tafl_nn::onnxruntime_library().is_err());
    assert!("onnx".parse::<Inference>().is_err());

    let ruleset = Ruleset::builtin("brandubh");
    let rules = Rules::<u128>::new(&ruleset).unwrap();
    let device = default_device();
    device.seed(5);
    let model = NetConfig::tiny(7).init(&device);
    let make = |inference| {
        let config = BatchConfig {
            max_wait: Duration::from_millis(5),
            callers: 1,
            threads: 1,
            inference,
            ..BatchConfig::default()
        };
        NetEvaluator::new(model.clone(), &ruleset, device.clone(), config, "net:test")
    };
    let game = Game::new(&rules);
    let moves = game.moves(&rules);
    let input = [EvalInput {
        position: game.position(),
        moves: moves.as_slice(),
        occurrences: 1,
        ply: 0,
    }];
    let reference = make(Inference::Burn).evaluate(&rules, &input);
    for choice in [Inference::Auto, Inference::OnnxRuntime] {
        let eval = make(choice);
        assert_eq!(eval.inference(), Inference::Burn, "{choice}");
        assert_eq!(eval.evaluate(&rules, &input), reference, "{choice}");
    }
}
