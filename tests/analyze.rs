//! `tafl analyze` resolves its player as play does: `level:N`, with the level's fallback under
//! rules that ship no network.

mod cmd;

use cmd::tafl_text;

#[test]
fn analyze_takes_a_level_and_plays_its_fallback_where_no_network_fits() {
    for (rules, level, searched_by) in [
        ("fetlar", "level:3", "heuristic with 50 simulations"),
        ("fetlar", "level:5", "heuristic with 400 simulations"),
        ("copenhagen", "level:3", "model shipped with 50 simulations"),
        ("tablut", "level:3", "model shipped with 50 simulations"),
    ] {
        let (ok, text, err) = tafl_text(&["analyze", "--rules", rules, "--player", level, "--top", "2"]);
        assert!(ok, "{rules} {level}: {err}");
        assert!(text.contains(searched_by), "{rules} {level}:\n{text}");
    }
    // A level that does not search cannot analyse, and says so.
    let (ok, _, err) = tafl_text(&["analyze", "--rules", "brandubh", "--player", "level:1"]);
    assert!(!ok);
    assert!(err.contains("needs a search player"), "{err}");
}

/// Each listed move's prior, by move, from an analysis table.
fn priors(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 5).then(|| (w[1].to_string(), w[4].to_string()))
        })
        .collect()
}

#[test]
fn a_hybrid_searches_with_the_hand_written_evaluation_and_takes_the_networks_priors_at_the_root() {
    let analyse = |player: &str| {
        let (ok, text, err) = tafl_text(&[
            "analyze", "--rules", "brandubh", "--player", player, "--top", "60",
        ]);
        assert!(ok, "{player}: {err}");
        text
    };
    let hybrid = analyse("mcts:hybrid=shipped:400");
    assert!(
        hybrid.contains("heuristic refined by model shipped with 400 simulations"),
        "{hybrid}"
    );
    let (hybrid, network, heuristic) = (
        priors(&hybrid),
        priors(&analyse("mcts:model=shipped:1")),
        priors(&analyse("mcts:heuristic:400")),
    );
    assert!(hybrid.len() > 10, "{hybrid:?}");
    // The root was judged by the network: its priors are the network's, not the heuristic's.
    for (mv, p) in &hybrid {
        assert_eq!(Some(p), network.get(mv), "{mv}");
    }
    assert!(hybrid.iter().any(|(mv, p)| heuristic.get(mv) != Some(p)));
    // With the linear evaluation as its fast layer: the same network at the root, the linear
    // evaluation at the leaves, so the same priors and another search below them.
    let layered = analyse("mcts:hybrid=shipped,linear=shipped:400");
    assert!(
        layered.contains("linear shipped refined by model shipped with 400 simulations"),
        "{layered}"
    );
    let table = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.parse::<u32>().is_ok())
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(priors(&layered), hybrid);
    assert_ne!(table(&layered), table(&analyse("mcts:hybrid=shipped:400")));
    // Under rules no network was trained for there is nothing to refine with.
    let (ok, _, err) = tafl_text(&[
        "analyze",
        "--rules",
        "fetlar",
        "--player",
        "mcts:hybrid=shipped:50",
    ]);
    assert!(!ok);
    assert!(err.contains("shipped"), "{err}");
}
