//! `tafl analyze`: the top moves of a position with visit share, value and principal variation.

use tafl_engine::{
    play_text, position_from_record, square_name, with_board, BitSet, EvaluatorSpec, Game, PlayerSpec, Rules,
    Ruleset, Search, SearchConfig, Side, ThinkingLimit,
};

/// What to analyse.
pub struct Request<'a> {
    /// OpenTafl position record (start position when absent).
    pub position: Option<&'a str>,
    /// Side to move in that position.
    pub to_move: Option<Side>,
    /// Moves to play first.
    pub moves: &'a [String],
    /// The searching player (an `mcts:` spec, or `level:N` of a level that searches).
    pub player: &'a str,
    /// Lines to show.
    pub top: usize,
    /// Search seed.
    pub seed: u64,
    /// Thinking time (`--movetime`, `--clock`); the player's simulations by default.
    pub limit: ThinkingLimit,
}

/// Runs the command.
pub fn run(rs: &Ruleset, req: &Request) -> Result<(), String> {
    with_board!(rs, B, rules => analyze::<B>(&rules, req))
}

fn analyze<B: BitSet>(rules: &Rules<B>, req: &Request) -> Result<(), String> {
    let n = rules.n;
    let start = match req.position {
        Some(text) => {
            let side = req.to_move.unwrap_or(rules.ruleset.file.first);
            position_from_record(rules, text, side).map_err(|e| format!("--position: {e}"))?
        }
        None => tafl_engine::Position::start(rules),
    };
    let mut game = Game::from_position(rules, start);
    for (i, text) in req.moves.iter().enumerate() {
        // The rule of game records and `tafl play`: captures written must be the ones made.
        play_text(rules, &mut game, text).map_err(|e| {
            format!(
                "--moves, move {} (`{}`): {e}",
                i + 1,
                tafl_engine::input::quote(text)
            )
        })?;
    }
    print!("{}", game.position().diagram(rules, &[]));
    println!("{} to move, ply {}", game.position().to_move(), game.ply());
    if let Some(o) = game.outcome() {
        println!("the game is over: {o}");
        return Ok(());
    }
    // The same resolution as play: `level:N` included, with its fallback under rules that
    // ship no network.
    let player = crate::players::resolve(req.player)?.for_rules(&rules.ruleset);
    let (eval_spec, sims) = match player.spec {
        PlayerSpec::Mcts {
            evaluator,
            simulations,
        } => (evaluator, simulations),
        _ => {
            return Err(format!(
                "--player `{}`: analysis needs a search player (mcts:... or a level that searches)",
                req.player
            ))
        }
    };
    let evaluator = crate::players::evaluator::<B>(&eval_spec, rules)?;
    // The player's own limit (a level's movetime) unless the command line gives one.
    let limit = match req.limit {
        ThinkingLimit::Simulations => player.limit,
        given => given,
    };
    let deadline = limit.deadline(None, game.ply());
    let config = SearchConfig {
        simulations: if deadline.is_timed() { u32::MAX } else { sims },
        ..SearchConfig::default()
    };
    let mut search = Search::new(config, &game, req.seed);
    let Some(res) = search.run_until(rules, evaluator.as_ref(), 0.0, deadline) else {
        return Err("no legal move to analyse".into());
    };
    let total: u32 = res.moves.iter().map(|m| m.visits).sum::<u32>().max(1);
    let order = res.ranked();
    println!(
        "{} with {} simulations: value {:+.3}{}",
        match &eval_spec {
            EvaluatorSpec::Model(p) => format!("model {p}"),
            other => format!("{other:?}").to_lowercase(),
        },
        res.simulations,
        res.value,
        match res.proven {
            Some(1) => ", proven win",
            Some(0) => ", proven draw",
            Some(_) => ", proven loss",
            None => "",
        }
    );
    println!(
        "{:<4} {:<10} {:>7} {:>7} {:>7}  line",
        "#", "move", "visits", "value", "prior"
    );
    for (rank, &i) in order.iter().take(req.top).enumerate() {
        let m = &res.moves[i];
        let mut line = String::new();
        for mv in &search.line(m.mv) {
            line.push_str(&format!("{}-{} ", square_name(n, mv.from), square_name(n, mv.to)));
        }
        let proven = match m.proven {
            Some(1) => " (wins)",
            Some(-1) => " (loses)",
            Some(0) => " (draws)",
            _ => "",
        };
        println!(
            "{:<4} {:<10} {:>6.1}% {:>+7.3} {:>7.3}  {}{}",
            rank + 1,
            m.mv.text(n),
            100.0 * m.visits as f64 / total as f64,
            m.q,
            m.prior,
            line.trim_end(),
            proven
        );
    }
    Ok(())
}
