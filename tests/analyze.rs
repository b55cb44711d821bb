//! `tafl analyze` resolves its player as play does: `level:N`, with the level's fallback under
//! rules that ship no network.

use std::process::Command;

#[test]
fn analyze_takes_a_level_and_plays_its_fallback_where_no_network_fits() {
    for (rules, level, searched_by) in [
        ("fetlar", "level:3", "heuristic with 50 simulations"),
        ("fetlar", "level:5", "heuristic with 400 simulations"),
        ("copenhagen", "level:3", "model shipped with 50 simulations"),
        ("tablut", "level:3", "model shipped with 50 simulations"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["analyze", "--rules", rules, "--player", level, "--top", "2"])
            .output()
            .expect("run tafl analyze");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{rules} {level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains(searched_by), "{rules} {level}:\n{text}");
    }
    // A level that does not search cannot analyse, and says so.
    let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["analyze", "--rules", "brandubh", "--player", "level:1"])
        .output()
        .expect("run tafl analyze");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a search player"));
}
