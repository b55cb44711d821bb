//! Search behaviour a user relies on: it takes one-move wins with any evaluator, the solver
//! proves short forced wins, trees are reused between moves, and a seed fixes the result.

use tafl_engine::{board::*, formats::*, rules::*, search::*};

fn rules(id: &str) -> Rules<u128> {
    Rules::new(&Ruleset::builtin(id)).unwrap()
}

fn evaluators() -> Vec<Box<dyn Evaluator<u128>>> {
    vec![
        Box::new(Uniform),
        Box::new(Rollout::default()),
        Box::new(Heuristic),
    ]
}

fn search(
    rules: &Rules<u128>,
    game: &Game<u128>,
    config: SearchConfig,
    eval: &dyn Evaluator<u128>,
) -> SearchResult {
    Search::new(config, game, 7)
        .run(rules, eval, 0.0)
        .expect("a move")
}

fn configs(sims: u32) -> Vec<SearchConfig> {
    let puct = SearchConfig {
        simulations: sims,
        ..SearchConfig::default()
    };
    let gumbel = SearchConfig {
        simulations: sims,
        root: RootSelection::Gumbel,
        ..SearchConfig::default()
    };
    vec![puct, gumbel]
}

/// The king on c7 runs to the corner a7 (b7 is open); many other moves are possible.
fn king_escapes_in_one(r: &Rules<u128>) -> Game<u128> {
    let pos = Position::from_diagram(
        r,
        "
        7 # . K A . . #
        6 . . . A . . .
        5 . . . . . . .
        4 A A D . D A A
        3 . . . D . . .
        2 . . . A . . .
        1 # . . A . . #
          a b c d e f g",
        Side::Defenders,
    )
    .unwrap();
    Game::from_position(r, pos)
}

#[test]
fn takes_a_one_move_escape_with_any_evaluator() {
    // The king on c7 runs to the corner a7 (b7 is open); many other moves are possible.
    let r = rules("brandubh");
    let game = king_escapes_in_one(&r);
    for eval in evaluators() {
        for config in configs(64) {
            let res = search(&r, &game, config.clone(), eval.as_ref());
            assert_eq!(res.best.text(7), "c7-a7", "{} {:?}", eval.name(), config.root);
            assert_eq!(res.proven, Some(Proven::Win));
        }
    }
}

#[test]
fn takes_a_one_move_king_capture_with_any_evaluator() {
    // The king on d5, next to the empty throne d4, has attackers on d6 and e5: the attacker
    // from a5 closes c5, and the throne is the fourth wall.
    let r = rules("brandubh");
    let pos = Position::from_diagram(
        &r,
        "
        7 # . . . . . #
        6 . . . A . . .
        5 A . . K A . .
        4 . . . . . . .
        3 . . . . D . .
        2 . . . . . . .
        1 # . . . . A #
          a b c d e f g",
        Side::Attackers,
    )
    .unwrap();
    let game = Game::from_position(&r, pos);
    for eval in evaluators() {
        for config in configs(64) {
            let res = search(&r, &game, config.clone(), eval.as_ref());
            let mut g = game.clone();
            let outcome = g.play(&r, res.best).unwrap();
            assert_eq!(
                outcome,
                Some(Outcome::win(Side::Attackers, Reason::KingCaptured)),
                "{} {:?} chose {}",
                eval.name(),
                config.root,
                res.best.text(7)
            );
        }
    }
}

#[test]
fn solver_proves_a_three_ply_forced_win() {
    // The king steps to the a-file or the first rank with both ways to a corner open: the
    // attackers can close only one, and he escapes through the other. No move wins at once.
    let r = rules("brandubh");
    let pos = Position::from_diagram(
        &r,
        "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . A
        4 . . . K . . .
        3 . . . . . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g",
        Side::Defenders,
    )
    .unwrap();
    let mut game = Game::from_position(&r, pos);
    let config = SearchConfig {
        simulations: 20_000,
        ..SearchConfig::default()
    };
    let res = search(&r, &game, config.clone(), &Uniform);
    assert_eq!(res.proven, Some(Proven::Win), "not proven: {:?}", res.moves);
    // Play it out: whatever the attackers answer, the defenders win on their next move.
    game.play(&r, res.best).unwrap();
    for reply in game.position().moves(&r).iter() {
        let mut g = game.clone();
        g.play(&r, *reply).unwrap();
        let res2 = search(&r, &g, config.clone(), &Uniform);
        assert_eq!(res2.proven, Some(Proven::Win));
        assert_eq!(
            g.play(&r, res2.best).unwrap(),
            Some(Outcome::win(Side::Defenders, Reason::Escape))
        );
    }
    // And from the attackers' side after the king's move, the loss is proven, two plies
    // away whatever they play.
    let res3 = search(&r, &game, config, &Uniform);
    assert_eq!(res3.proven, Some(Proven::Loss));
    assert!(
        res3.moves.iter().all(|m| m.plies_to_end == Some(2)),
        "{:?}",
        res3.moves
    );
    // The winner's move is proven three plies from the end.
    let chosen = res.moves.iter().find(|m| m.mv == res.best).unwrap();
    assert_eq!(chosen.plies_to_end, Some(3));
}

/// Once every move loses, the search resists longest; with wins, it takes the quickest.
#[test]
fn a_lost_side_resists_longest_and_a_winner_wins_soonest() {
    let stat = |to: Sq, visits: u32, proven: Proven, plies: u32| MoveStat {
        mv: Move { from: 0, to },
        visits,
        q: proven.value(),
        prior: 0.25,
        proven: Some(proven),
        plies_to_end: Some(plies),
    };
    let result = |moves: Vec<MoveStat>| SearchResult {
        best: moves[0].mv,
        policy: vec![0.25; moves.len()],
        moves,
        value: 0.0,
        proven: None,
        pv: vec![],
        simulations: 10,
    };
    let lost = vec![
        stat(1, 50, Proven::Loss, 2),
        stat(2, 5, Proven::Loss, 6),
        stat(3, 30, Proven::Loss, 4),
    ];
    let won = vec![
        stat(1, 50, Proven::Win, 5),
        stat(2, 5, Proven::Win, 3),
        stat(3, 30, Proven::Loss, 2),
    ];
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    for temperature in [0.0, 1.0] {
        let merged = merge_results(
            vec![result(lost.clone()), result(lost.clone())],
            temperature,
            &mut rng,
        )
        .unwrap();
        assert_eq!(merged.best.to, 2, "the loss six plies away, though least visited");
        let merged = merge_results(
            vec![result(won.clone()), result(won.clone())],
            temperature,
            &mut rng,
        )
        .unwrap();
        assert_eq!(merged.best.to, 2, "the win in three");
    }
}

#[test]
fn tree_reuse_keeps_the_chosen_childs_visits() {
    let r = rules("hnefatafl");
    let game = Game::new(&r);
    for config in configs(400) {
        let mut s = Search::new(config, &game, 3);
        let res = s.run(&r, &Heuristic, 0.0).unwrap();
        let chosen = res.moves.iter().find(|m| m.mv == res.best).unwrap();
        assert!(chosen.visits > 1);
        s.advance(&r, res.best);
        assert_eq!(s.root_visits(), chosen.visits);
        assert_eq!(s.game().ply(), 1);
        // The next search adds to what was kept.
        let res2 = s.run(&r, &Heuristic, 0.0).unwrap();
        let total: u32 = res2.moves.iter().map(|m| m.visits).sum();
        assert!(total + 1 >= chosen.visits + 400 - 1, "{total} {}", chosen.visits);
    }
}

#[test]
fn a_fixed_seed_reproduces_the_search() {
    let r = rules("tablut");
    let mut game = Game::new(&r);
    game.play(&r, parse_move(9, "d1-d3").unwrap().0).unwrap();
    for mut config in configs(300) {
        config.dirichlet_epsilon = 0.25;
        let a = Search::new(config.clone(), &game, 11)
            .run(&r, &Rollout::default(), 1.0)
            .unwrap();
        let b = Search::new(config.clone(), &game, 11)
            .run(&r, &Rollout::default(), 1.0)
            .unwrap();
        assert_eq!(a, b);
        let c = Search::new(config, &game, 12)
            .run(&r, &Rollout::default(), 1.0)
            .unwrap();
        assert_ne!(a.moves, c.moves, "another seed should change the noise");
        let sum: f32 = a.policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4);
    }
}

#[test]
fn players_from_specs_play_legal_moves_and_levels_load() {
    let r = rules("brandubh");
    for spec in [
        "random",
        "greedy",
        "heuristic",
        "mcts:uniform:50",
        "mcts:rollout:50",
        "mcts:heuristic:50",
    ] {
        let spec = PlayerSpec::parse(spec).unwrap();
        let mut p = Player::<u128>::new(&spec, 1, &SearchConfig::default(), &classic_evaluator).unwrap();
        let mut game = Game::new(&r).with_ply_limit(Some(30));
        while game.outcome().is_none() {
            let (mv, _) = p.choose(&r, &game).unwrap();
            game.play(&r, mv).unwrap();
        }
    }
    for bad in [
        "",
        "mcts",
        "mcts:foo:10",
        "mcts:rollout:0",
        "alphabeta",
        "mcts:model=:5",
        "mcts:hybrid=",
        "mcts:hybrid=shipped,linear=",
        "mcts:hybrid=,linear=shipped",
    ] {
        assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
    }
    // A hybrid names its model; the engine alone cannot build it.
    let hybrid = PlayerSpec::parse("mcts:hybrid=runs/a:b:200").unwrap();
    assert_eq!(
        hybrid,
        PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Hybrid {
                model: "runs/a:b".into(),
                linear: None
            },
            simulations: 200
        }
    );
    assert_eq!(hybrid.to_string(), "mcts:hybrid=runs/a:b:200");
    // Its fast layer may be a linear evaluation instead of the hand-written one.
    let layered = PlayerSpec::parse("mcts:hybrid=shipped,linear=w/c.toml:50").unwrap();
    let PlayerSpec::Mcts { evaluator, .. } = &layered else {
        panic!("{layered:?}")
    };
    assert_eq!(
        (evaluator.model_path(), evaluator.linear_path()),
        (Some("shipped"), Some("w/c.toml"))
    );
    assert_eq!(layered.to_string(), "mcts:hybrid=shipped,linear=w/c.toml:50");
    assert!(Player::<u128>::new(&hybrid, 1, &SearchConfig::default(), &classic_evaluator).is_err());
    assert!(Levels::parse(
        "[[level]]\nlevel = 1\nplayer = \"mcts:heuristic\"\nfallback = \"mcts:hybrid=shipped\"\n",
        "x"
    )
    .and_then(|l| l.0[0].fallback_spec())
    .is_err());
    let levels = Levels::builtin();
    assert!(levels.0.len() >= 3);
    for l in &levels.0 {
        l.spec().unwrap();
    }
    assert!(Levels::parse("[[level]]\nlevel = 2\nplayer = \"random\"\n", "x").is_err());
    assert!(Levels::parse("[[level]]\nlevel = 1\nplayer = \"mcts:nope\"\n", "x").is_err());
    // A fallback plays under any rules: it takes the level's simulations and needs no model.
    let l = Levels::parse(
        "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 50\nfallback = \"mcts:heuristic\"\n",
        "x",
    )
    .unwrap();
    assert_eq!(
        l.0[0].fallback_spec().unwrap(),
        Some(PlayerSpec::parse("mcts:heuristic:50").unwrap())
    );
    let e = Levels::parse(
        "[[level]]\nlevel = 1\nplayer = \"mcts:model=shipped\"\nsimulations = 50\nfallback = \"mcts:model=other\"\n",
        "x",
    )
    .unwrap_err();
    assert!(e.contains("fallback") && e.contains("any rules"), "{e}");
    let e = Levels::parse(
        "[[level]]\nlevel = 1\nplayer = \"random\"\nfallback = \"mcts:oops\"\n",
        "x",
    )
    .unwrap_err();
    assert!(e.contains("level 1 fallback"), "{e}");
}

/// An evaluator that puts almost all its prior on one move (by its text) and values every
/// position at `value` for the side to move.
struct Fixated {
    favourite: &'static str,
    value: f32,
}

impl Evaluator<u128> for Fixated {
    fn evaluate(&self, rules: &Rules<u128>, inputs: &[EvalInput<'_, u128>]) -> Vec<Evaluation> {
        let n = rules.n;
        inputs
            .iter()
            .map(|i| {
                let k = i.moves.len().max(1) as f32;
                let fav = i.moves.iter().position(|m| m.text(n) == self.favourite);
                let priors = (0..i.moves.len())
                    .map(|j| match fav {
                        Some(f) if f == j => 0.99,
                        Some(_) => 0.01 / (k - 1.0).max(1.0),
                        None => 1.0 / k,
                    })
                    .collect();
                Evaluation {
                    priors,
                    wdl: Wdl::from_value(self.value),
                }
            })
            .collect()
    }
    fn name(&self) -> String {
        "fixated".into()
    }
}

/// Attackers to move; moving the attacker off a6 (or a3) opens a corner to the king on a5.
fn open_corner_position(r: &Rules<u128>) -> Game<u128> {
    let pos = Position::from_diagram(
        r,
        "
        7 # . . . . . #
        6 A . . . . . .
        5 K . . . . . .
        4 . . . . . . .
        3 A . . . . . .
        2 . . . . . . .
        1 # . . . . A #
          a b c d e f g",
        Side::Attackers,
    )
    .unwrap();
    Game::from_position(r, pos)
}

#[test]
fn a_move_the_solver_refuted_is_not_played_while_another_does_not_lose() {
    // The prior pushes a6-f6 (after which the king escapes to a7); two simulations visit it
    // once and prove it lost. It is the only visited move, yet it must not be chosen, by the
    // most-visited rule or by a temperature draw.
    let r = rules("brandubh");
    let game = open_corner_position(&r);
    let eval = Fixated {
        favourite: "a6-f6",
        value: 0.0,
    };
    for temperature in [0.0, 1.0] {
        let config = SearchConfig {
            simulations: 2,
            ..SearchConfig::default()
        };
        let res = Search::new(config, &game, 3).run(&r, &eval, temperature).unwrap();
        let refuted = res.moves.iter().find(|m| m.mv.text(7) == "a6-f6").unwrap();
        assert_eq!(refuted.proven, Some(Proven::Loss), "the solver refutes a6-f6");
        assert!(refuted.visits > 0);
        let chosen = res.moves.iter().find(|m| m.mv == res.best).unwrap();
        assert_ne!(
            chosen.proven,
            Some(Proven::Loss),
            "temperature {temperature}: chose {}",
            res.best.text(7)
        );
        // Nor is it taught as a good move.
        let i = res.moves.iter().position(|m| m.mv.text(7) == "a6-f6").unwrap();
        assert_eq!(res.policy[i], 0.0, "temperature {temperature}: {:?}", res.policy);
    }
}

#[test]
fn a_solved_root_teaches_its_winning_moves() {
    // The king escapes at once (c7-a7); the search stops as soon as that is proven, and the
    // policy target must point at the proven wins, not at the prior it stopped at.
    let r = rules("brandubh");
    let game = king_escapes_in_one(&r);
    for config in configs(32) {
        let res = search(&r, &game, config.clone(), &Uniform);
        let on_wins: f32 = res
            .moves
            .iter()
            .zip(&res.policy)
            .filter(|(m, _)| m.proven == Some(Proven::Win))
            .map(|(_, p)| p)
            .sum();
        assert!((on_wins - 1.0).abs() < 1e-5, "{:?}: {on_wins}", config.root);
    }
}

#[test]
fn a_gumbel_root_below_k_simulations_plays_a_searched_move() {
    // With fewer simulations than `gumbel_k`, only min(k, budget) candidates are drawn, so
    // each is visited and the choice rests on the search, never on an unvisited move that
    // a default value of 0 put above every visited one (the evaluator here says every
    // position is good for its side to move, so every visited root move looks bad).
    let r = rules("brandubh");
    let game = Game::new(&r);
    let eval = Fixated {
        favourite: "none",
        value: 0.6,
    };
    for sims in [4, 8, 12] {
        for seed in 0..20 {
            let config = SearchConfig {
                simulations: sims,
                root: RootSelection::Gumbel,
                gumbel_k: 16,
                ..SearchConfig::default()
            };
            let res = Search::new(config, &game, seed).run(&r, &eval, 0.0).unwrap();
            let chosen = res.moves.iter().find(|m| m.mv == res.best).unwrap();
            assert!(
                chosen.visits > 0,
                "{sims} simulations, seed {seed}: chose an unvisited move"
            );
        }
    }
}

/// Brandubh with another repetition rule.
fn brandubh_with_repetition(rule: &str) -> Rules<u128> {
    let mut rs = Ruleset::builtin("brandubh");
    rs.set_knob("repetition", rule).unwrap();
    Rules::new(&rs).unwrap()
}

/// A game in which a defender on c4 and an attacker on f6 have shuffled (c4-b4, f6-g6, b4-c4,
/// g6-f6, c4-b4, f6-g6): the defenders are to move, and b4-c4 would let the attackers play
/// g6-f6 and bring the start position about a third time.
fn shuffled_game(r: &Rules<u128>) -> Game<u128> {
    let pos = Position::from_diagram(
        r,
        "
        7 # . . . . . #
        6 . . . . . A .
        5 . . . D . . .
        4 . . D K D . .
        3 . . . D . . .
        2 . A . . . . .
        1 # . . . . . #
          a b c d e f g",
        Side::Defenders,
    )
    .unwrap();
    let mut game = Game::from_position(r, pos);
    for text in ["c4-b4", "f6-g6", "b4-c4", "g6-f6", "c4-b4", "f6-g6"] {
        let mv = game
            .position()
            .moves(r)
            .iter()
            .copied()
            .find(|m| m.text(7) == text)
            .unwrap();
        assert_eq!(game.play(r, mv).unwrap(), None, "{text}");
    }
    game
}

#[test]
fn the_search_counts_repetitions_with_the_games_history() {
    // Under `defenders_lose`, b4-c4 loses two plies later (the attackers repeat the start a
    // third time); the prior pushes it, and the few simulations would not find the
    // attackers' one reply among their many. Every other move does not lose at once: the
    // search must see the repetition when it creates the attackers' replies, and avoid it.
    let r = brandubh_with_repetition("defenders_lose");
    let game = shuffled_game(&r);
    let eval = Fixated {
        favourite: "b4-c4",
        value: 0.0,
    };
    for config in configs(12) {
        let res = Search::new(config.clone(), &game, 1).run(&r, &eval, 0.0).unwrap();
        let losing = res.moves.iter().find(|m| m.mv.text(7) == "b4-c4").unwrap();
        assert_eq!(
            losing.proven,
            Some(Proven::Loss),
            "{:?}: b4-c4 is proven lost",
            config.root
        );
        assert_ne!(res.best.text(7), "b4-c4", "{:?}", config.root);
    }
    // The attackers, to move after b4-c4, steer into the repetition that wins for them.
    let mut attackers = game.clone();
    let mv = attackers
        .position()
        .moves(&r)
        .iter()
        .copied()
        .find(|m| m.text(7) == "b4-c4")
        .unwrap();
    attackers.play(&r, mv).unwrap();
    for config in configs(12) {
        let res = Search::new(config.clone(), &attackers, 1)
            .run(&r, &Uniform, 0.0)
            .unwrap();
        assert_eq!(res.best.text(7), "g6-f6", "{:?}", config.root);
        assert_eq!(res.proven, Some(Proven::Win));
    }
    // Under `draw` the repetition is a draw for both; under `ignore` it is nothing.
    let r = brandubh_with_repetition("draw");
    let res = Search::new(configs(12)[0].clone(), &shuffled_game(&r), 1)
        .run(&r, &eval, 0.0)
        .unwrap();
    let drawn = res.moves.iter().find(|m| m.mv.text(7) == "b4-c4").unwrap();
    assert!(
        drawn.proven != Some(Proven::Loss) && drawn.proven != Some(Proven::Win),
        "{drawn:?}"
    );
    let r = brandubh_with_repetition("ignore");
    let res = Search::new(configs(12)[0].clone(), &shuffled_game(&r), 1)
        .run(&r, &eval, 0.0)
        .unwrap();
    let ignored = res.moves.iter().find(|m| m.mv.text(7) == "b4-c4").unwrap();
    assert_eq!(ignored.proven, None);
}

#[test]
fn under_mover_loses_a_side_never_repeats_a_third_time() {
    // Under `mover_loses` the side that brings a position about the third time loses: the
    // attackers, to move after b4-c4, must not play g6-f6 even when it is all the prior likes.
    let r = brandubh_with_repetition("mover_loses");
    let mut game = shuffled_game(&r);
    let mv = game
        .position()
        .moves(&r)
        .iter()
        .copied()
        .find(|m| m.text(7) == "b4-c4")
        .unwrap();
    game.play(&r, mv).unwrap();
    let eval = Fixated {
        favourite: "g6-f6",
        value: 0.0,
    };
    for config in configs(8) {
        let res = Search::new(config.clone(), &game, 2).run(&r, &eval, 0.0).unwrap();
        let repeat = res.moves.iter().find(|m| m.mv.text(7) == "g6-f6").unwrap();
        assert_eq!(repeat.proven, Some(Proven::Loss), "{:?}", config.root);
        assert_ne!(res.best.text(7), "g6-f6", "{:?}", config.root);
    }
}

fn player(spec: &str, seed: u64) -> Player<u128> {
    Player::new(
        &PlayerSpec::parse(spec).unwrap(),
        seed,
        &SearchConfig::default(),
        &classic_evaluator,
    )
    .unwrap()
}

#[test]
fn a_time_limit_replaces_the_simulation_count() {
    // One simulation a move by the spec, but 150 ms a move: the search runs on to its time.
    let r = rules("tablut");
    let game = Game::new(&r);
    let mut p = player("mcts:heuristic:1", 1);
    let (_, res) = p.choose(&r, &game).unwrap();
    assert_eq!(res.unwrap().simulations, 1);
    p.limit = ThinkingLimit::MoveTime(std::time::Duration::from_millis(150));
    let t0 = std::time::Instant::now();
    let (mv, res) = p.choose(&r, &game).unwrap();
    let took = t0.elapsed();
    assert!(game.position().moves(&r).as_slice().contains(&mv));
    assert!(res.unwrap().simulations > 1);
    // Not a speed assertion: a bound far above the limit, that a search ignoring it would pass
    // only by luck (tens of thousands of simulations a second on the slowest machine).
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_player_on_a_clock_loses_on_time_only_if_it_overruns() {
    // Two players on a 2 s + 0.05 s clock play a whole game: the time manager never flags.
    let r = rules("brandubh");
    let clock = ThinkingLimit::parse_clock("2+0.05").unwrap();
    let mut a = player("mcts:heuristic:1000000", 1);
    let mut d = player("mcts:heuristic:1000000", 2);
    a.limit = clock;
    d.limit = clock;
    let game = play_game(&r, &mut a, &mut d, Some(60));
    let o = game.outcome().unwrap();
    assert_ne!(o.reason, Reason::Time, "{o:?} after {} plies", game.ply());
    // A clock with no time left loses at once.
    let mut a = player("random", 1);
    let mut d = player("random", 2);
    a.limit = ThinkingLimit::Clock {
        base: std::time::Duration::ZERO,
        increment: std::time::Duration::from_nanos(1),
    };
    let game = play_game(&r, &mut a, &mut d, Some(60));
    assert_eq!(game.outcome(), Some(Outcome::win(Side::Defenders, Reason::Time)));
}

#[test]
fn two_search_threads_share_the_simulations_and_play_the_same_game_again() {
    let r = rules("brandubh");
    let play = |threads: usize| {
        let mut a = player("mcts:heuristic:200", 5);
        let mut d = player("mcts:heuristic:200", 6);
        a.threads = threads;
        d.threads = threads;
        let mut game = Game::new(&r).with_ply_limit(Some(30));
        let mut sims = Vec::new();
        while game.outcome().is_none() {
            let p = if game.position().to_move() == Side::Attackers {
                &mut a
            } else {
                &mut d
            };
            let (mv, res) = p.choose(&r, &game).unwrap();
            sims.push(res.unwrap().simulations);
            game.play(&r, mv).unwrap();
        }
        (game.history().iter().map(|m| m.mv).collect::<Vec<_>>(), sims)
    };
    let (moves, sims) = play(2);
    assert_eq!(play(2).0, moves, "seeded trees, merged in order: reproducible");
    // Each tree searches half; the merged result counts both (a proven root stops early).
    assert!(sims.iter().all(|&s| s <= 200 + 2), "{sims:?}");
    assert!(sims.iter().any(|&s| s >= 190), "{sims:?}");
}

#[test]
fn merged_results_add_visits_and_keep_proofs() {
    let r = rules("brandubh");
    let game = open_corner_position(&r);
    let eval = Fixated {
        favourite: "a6-f6",
        value: 0.0,
    };
    let results: Vec<SearchResult> = (0..3)
        .map(|seed| {
            let config = SearchConfig {
                simulations: 40,
                ..SearchConfig::default()
            };
            Search::new(config, &game, seed).run(&r, &eval, 0.0).unwrap()
        })
        .collect();
    let total: u32 = results.iter().map(|x| x.simulations).sum();
    let visits: Vec<u32> = (0..results[0].moves.len())
        .map(|i| results.iter().map(|x| x.moves[i].visits).sum())
        .collect();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let merged = merge_results(results, 0.0, &mut rng).unwrap();
    assert_eq!(merged.simulations, total);
    assert_eq!(merged.moves.iter().map(|m| m.visits).collect::<Vec<_>>(), visits);
    let refuted = merged.moves.iter().find(|m| m.mv.text(7) == "a6-f6").unwrap();
    assert_eq!(refuted.proven, Some(Proven::Loss));
    assert_ne!(merged.best.text(7), "a6-f6");
    assert!((merged.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn a_level_can_be_defined_by_time() {
    let text = r#"
[[level]]
level = 1
player = "mcts:heuristic"
movetime = 0.25
description = "a quarter second a move"
"#;
    let levels = Levels::parse(text, "site.toml").unwrap();
    assert_eq!(
        levels.get(1).unwrap().limit(),
        ThinkingLimit::MoveTime(std::time::Duration::from_millis(250))
    );
    for (bad, why) in [
        ("movetime = 0.0", "movetime"),
        ("movetime = -1.0", "movetime"),
        ("movetime = 5000.0", "movetime"),
    ] {
        let e = Levels::parse(&text.replace("movetime = 0.25", bad), "site.toml").unwrap_err();
        assert!(e.contains(why) && e.contains("site.toml"), "{e}");
    }
    let e = Levels::parse(&text.replace("mcts:heuristic", "random"), "site.toml").unwrap_err();
    assert!(e.contains("search player"), "{e}");
    assert_eq!(
        Levels::builtin().get(5).unwrap().limit(),
        ThinkingLimit::Simulations
    );
    // The strongest level follows a host's clock; the others keep the budget they were
    // measured at.
    let builtin = Levels::builtin();
    assert!(builtin.get(5).unwrap().use_clock);
    assert!((1..5).all(|n| !builtin.get(n).unwrap().use_clock));
}

#[test]
fn a_level_can_set_its_search_and_a_bad_setting_is_refused_naming_it() {
    let text = r#"
[[level]]
level = 1
player = "mcts:heuristic"
simulations = 50

[[level]]
level = 2
player = "mcts:heuristic"
movetime = 0.5
search = { batch_size = 32, c_puct = 2.0 }
"#;
    let levels = Levels::parse(text, "site.toml").unwrap();
    assert_eq!(
        levels.get(1).unwrap().search_config().unwrap(),
        SearchConfig::default()
    );
    assert_eq!(levels.get(1).unwrap().search_text(), "");
    let tuned = levels.get(2).unwrap();
    assert_eq!(
        tuned.search_config().unwrap(),
        SearchConfig {
            batch_size: 32,
            c_puct: 2.0,
            ..SearchConfig::default()
        }
    );
    assert_eq!(tuned.search_text(), "batch_size=32, c_puct=2.0");
    for (bad, why) in [
        ("batch_size = 0", "batch_size"),
        ("batch_size = \"many\"", "batch_size"),
        ("c_puct = -1.0", "c_puct"),
        ("simulations = 5", "`simulations` is set by the level's own"),
        ("virtual_losses = 2.0", "virtual_losses"),
    ] {
        let e = Levels::parse(&text.replace("batch_size = 32, c_puct = 2.0", bad), "site.toml").unwrap_err();
        assert!(
            e.contains("site.toml") && e.contains("level 2") && e.contains(why),
            "{bad}: {e}"
        );
    }
    // The player built from the level's config searches with it (the spec's simulations on top).
    let config = tuned.search_config().unwrap();
    let spec = levels.get(1).unwrap().spec().unwrap();
    let p = Player::<u128>::new(&spec, 1, &config, &classic_evaluator).unwrap();
    let used = p.search_config().unwrap();
    assert_eq!((used.batch_size, used.c_puct, used.simulations), (32, 2.0, 50));
}

#[test]
fn a_clock_caps_a_player_that_thinks_by_simulations() {
    // A search of three million simulations, with a clock of 2 s: the clock's hard budget
    // stops it, so it never runs the clock out.
    let r = rules("brandubh");
    let game = Game::new(&r);
    let mut p = player("mcts:heuristic:3000000", 1);
    p.clock = Some(Clock {
        remaining: std::time::Duration::from_secs(2),
        increment: std::time::Duration::ZERO,
    });
    let t0 = std::time::Instant::now();
    let (_, res) = p.choose(&r, &game).unwrap();
    assert!(t0.elapsed() < std::time::Duration::from_secs(30));
    assert!(res.unwrap().simulations < 3_000_000);
}

#[test]
fn one_tree_searched_by_two_threads_counts_every_simulation_once_and_finds_wins() {
    let r = rules("brandubh");
    // From the start: the simulations are the config's exactly, the visits below the root add
    // up to them, and the move is legal, with every evaluator.
    let game = Game::new(&r);
    for eval in evaluators() {
        let config = SearchConfig {
            simulations: 600,
            batch_size: 8,
            solver: false,
            ..SearchConfig::default()
        };
        let mut s = Search::new(config, &game, 3);
        let res = s
            .run_shared(&r, eval.as_ref(), 0.0, Deadline::none(), 2)
            .expect("a move");
        assert_eq!(res.simulations, 600, "{}", eval.name());
        let visits: u32 = res.moves.iter().map(|m| m.visits).sum();
        assert_eq!(
            visits + 1,
            600,
            "{}: the root's own expansion is one",
            eval.name()
        );
        assert!(game.position().moves(&r).as_slice().contains(&res.best));
        assert_eq!(s.root_visits(), 600);
    }
    // A one-move escape is found and proven by the shared tree as by one thread.
    let game = king_escapes_in_one(&r);
    for eval in evaluators() {
        let config = SearchConfig {
            simulations: 400,
            ..SearchConfig::default()
        };
        let res = Search::new(config, &game, 7)
            .run_shared(&r, eval.as_ref(), 0.0, Deadline::none(), 2)
            .unwrap();
        assert_eq!(res.best.text(7), "c7-a7", "{}", eval.name());
        assert_eq!(res.proven, Some(Proven::Win));
    }
}

#[test]
fn a_tree_parallel_player_plays_legal_moves_on_two_threads() {
    let r = rules("hnefatafl");
    let mut a = player("mcts:heuristic:300", 5);
    let mut d = player("mcts:heuristic:300", 6);
    for p in [&mut a, &mut d] {
        p.threads = 2;
        p.parallel = Parallelism::Tree;
    }
    let mut game = Game::new(&r).with_ply_limit(Some(24));
    while game.outcome().is_none() {
        let p = if game.position().to_move() == Side::Attackers {
            &mut a
        } else {
            &mut d
        };
        let (mv, res) = p.choose(&r, &game).unwrap();
        let res = res.unwrap();
        // One tree: the simulations are the spec's, not split between trees.
        assert!(
            res.simulations >= 300 || res.proven.is_some(),
            "{}",
            res.simulations
        );
        game.play(&r, mv).expect("a legal move");
    }
}

/// An analysis lists first the move the search chose, then the rest by the improved policy
/// and value: a Gumbel root's halving leaves its candidates with equal visits, and a flat
/// PUCT root ties them too.
#[test]
fn the_chosen_move_ranks_first_whatever_the_visits() {
    let stat = |to: Sq, visits: u32, q: f32| MoveStat {
        mv: Move { from: 0, to },
        visits,
        q,
        prior: 0.1,
        proven: None,
        plies_to_end: None,
    };
    let moves = vec![
        stat(1, 25, 0.2),
        stat(2, 25, 0.5),
        stat(3, 10, 0.9),
        stat(4, 25, 0.1),
    ];
    let result = |best: Sq, policy: Vec<f32>| SearchResult {
        best: Move { from: 0, to: best },
        moves: moves.clone(),
        policy,
        value: 0.0,
        proven: None,
        pv: vec![],
        simulations: 85,
    };
    // The halving chose move 3; the completed-Q policy orders the rest.
    assert_eq!(result(3, vec![0.3, 0.1, 0.4, 0.2]).ranked(), vec![2, 0, 3, 1]);
    // Equal visits under PUCT: the value breaks the tie.
    let visits = vec![25.0 / 85.0, 25.0 / 85.0, 10.0 / 85.0, 25.0 / 85.0];
    assert_eq!(result(2, visits).ranked(), vec![1, 0, 3, 2]);
}

/// A tree keeps to its node limit, its allocation included.
#[test]
fn a_tree_keeps_to_its_node_limit() {
    let r = rules("copenhagen");
    let game = Game::new(&r);
    let config = SearchConfig {
        simulations: 5_000,
        max_nodes: MIN_NODES * 5,
        ..SearchConfig::default()
    };
    config.validate().unwrap();
    let mut s = Search::new(config, &game, 1);
    let res = s.run(&r, &Heuristic, 0.0).unwrap();
    assert!(res.simulations < 5_000, "the limit did not stop the search");
    // One expansion (a node's children, at most 4 * 10 moves a piece on 11x11) past it.
    assert!(
        s.tree_bytes() <= (MIN_NODES * 5 + 1_000) * NODE_BYTES,
        "{} bytes",
        s.tree_bytes()
    );
    let too_small = SearchConfig {
        max_nodes: 10,
        ..SearchConfig::default()
    };
    assert!(too_small.validate().unwrap_err().contains("max_nodes"));
}

/// Counts the positions it is asked for, answering as the evaluator it wraps.
struct Counting<E> {
    inner: E,
    positions: std::sync::atomic::AtomicUsize,
}

impl<E: Evaluator<u128>> Evaluator<u128> for Counting<E> {
    fn evaluate(&self, rules: &Rules<u128>, inputs: &[EvalInput<'_, u128>]) -> Vec<Evaluation> {
        self.positions
            .fetch_add(inputs.len(), std::sync::atomic::Ordering::Relaxed);
        self.inner.evaluate(rules, inputs)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

#[test]
fn a_layered_evaluator_refines_the_root_and_the_nodes_visited_often() {
    use std::sync::atomic::Ordering::Relaxed;
    use std::sync::Arc;
    let r = rules("brandubh");
    let game = Game::new(&r);
    for threads in [1, 2] {
        let fast = Arc::new(Counting {
            inner: Uniform,
            positions: Default::default(),
        });
        let slow = Arc::new(Counting {
            inner: Fixated {
                favourite: "a4-a3",
                value: 0.0,
            },
            positions: Default::default(),
        });
        let layered = Layered {
            fast: fast.clone(),
            slow: slow.clone(),
        };
        assert!(layered.refiner().is_some());
        let config = SearchConfig {
            simulations: 3000,
            refine_visits: 50,
            refine_weight: 4,
            solver: false,
            ..SearchConfig::default()
        };
        let mut s = Search::new(config, &game, 3);
        let res = s
            .run_shared(&r, &layered, 0.0, Deadline::none(), threads)
            .expect("a move");
        let refined = slow.positions.load(Relaxed);
        let leaves = fast.positions.load(Relaxed);
        // The root and the nodes that reached 50 visits, far fewer than the leaves.
        assert!(refined >= 2, "{threads} thread(s): {refined} refined");
        assert!(
            refined * 10 < leaves,
            "{threads} thread(s): {refined} refined of {leaves} leaves"
        );
        // The refiner's priors replace the fast evaluator's (uniform) and steer the search.
        let fav = res.moves.iter().find(|m| m.mv.text(7) == "a4-a3").expect("a4-a3");
        assert!((fav.prior - 0.99).abs() < 1e-6, "prior {}", fav.prior);
        assert_eq!(res.best.text(7), "a4-a3");
        // Every refinement below the root adds its weight to the root's visits.
        assert_eq!(res.simulations, 3000);
        assert_eq!(
            s.root_visits() as usize,
            3000 + 4 * (refined - 1),
            "{threads} thread(s)"
        );
    }
    // Without a refiner the same search evaluates nothing twice and adds no visits.
    let mut s = Search::new(
        SearchConfig {
            simulations: 3000,
            refine_visits: 50,
            solver: false,
            ..SearchConfig::default()
        },
        &game,
        3,
    );
    s.run(&r, &Uniform, 0.0).expect("a move");
    assert_eq!(s.root_visits(), 3000);
}
