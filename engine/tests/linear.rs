//! The linear evaluation: with the hand-written weights it is the hand-written evaluation,
//! exactly; its file round-trips and a bad one is refused naming what is wrong; its move terms
//! count captures and the hand-written prior's parts.

use tafl_engine::{board::*, rules::*, search::*};

fn rules(id: &str) -> Rules<u128> {
    Rules::new(&Ruleset::builtin(id)).unwrap()
}

/// Positions of a few random games (every ply), for comparing evaluations.
fn positions(r: &Rules<u128>, games: u64) -> Vec<(Position<u128>, Vec<Move>)> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut game = Game::new(r).with_ply_limit(Some(120));
        let mut x = g.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while game.outcome().is_none() {
            let moves: Vec<Move> = game.moves(r).as_slice().to_vec();
            if moves.is_empty() {
                break;
            }
            out.push((*game.position(), moves.clone()));
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            game.play_unchecked(r, moves[(x % moves.len() as u64) as usize]);
        }
    }
    out
}

/// An evaluation request for `p`, seen once, at ply 0.
fn input<'a>(p: &'a Position<u128>, moves: &'a [Move]) -> EvalInput<'a, u128> {
    EvalInput {
        position: p,
        moves,
        occurrences: 1,
        ply: 0,
    }
}

#[test]
fn the_hand_written_weights_are_the_hand_written_evaluation_exactly() {
    for id in ["brandubh", "tablut", "copenhagen"] {
        let r = rules(id);
        let linear = Linear::new(LinearWeights::hand_written(&r), &r).unwrap();
        for (p, moves) in positions(&r, 6) {
            let input = input(&p, &moves);
            let a = Heuristic.evaluate(&r, &[input]).remove(0);
            let b = linear.evaluate(&r, &[input]).remove(0);
            assert_eq!(a, b, "{id}: {}", p.diagram(&r, &[]));
        }
    }
}

#[test]
fn every_moves_hand_term_is_the_hand_written_logit_with_or_without_the_parts() {
    // The move terms find the hand-written logit from the squares they look at for the parts
    // (not by asking the hand-written prior again): the two must stay one figure.
    for id in ["brandubh", "tablut", "copenhagen"] {
        let r = rules(id);
        let (classes, _) = square_classes(r.n);
        for (p, moves) in positions(&r, 6) {
            let hand = Heuristic::prior_logits(&r, &p, &moves);
            let detailed: Vec<f32> = MoveTerms::of(&r, &p, &moves, &classes)
                .iter()
                .map(|t| t.hand)
                .collect();
            let mut plain = Vec::new();
            MoveTerms::for_each(&r, &p, &moves, &classes, false, |t| plain.push(t.hand));
            assert_eq!(detailed, hand, "{id}: {}", p.diagram(&r, &[]));
            assert_eq!(plain, hand, "{id}: {}", p.diagram(&r, &[]));
        }
    }
}

#[test]
fn weights_change_the_value_and_the_priors() {
    let r = rules("brandubh");
    let mut w = LinearWeights::hand_written(&r);
    let (p, moves) = positions(&r, 1).remove(3);
    let input = EvalInput {
        position: &p,
        moves: &moves,
        occurrences: 1,
        ply: 0,
    };
    let before = Linear::new(w.clone(), &r)
        .unwrap()
        .evaluate(&r, &[input])
        .remove(0);
    // A king on any square is worth a lot more to the defenders.
    w.king.iter_mut().for_each(|x| *x = 3.0);
    // The side to move likes its pieces' destinations in class 0 (the corners' class) and
    // dislikes every other class.
    let side = p.to_move() as usize;
    w.priors[side].to.iter_mut().for_each(|x| *x = -2.0);
    w.priors[side].king_to.iter_mut().for_each(|x| *x = -2.0);
    let after = Linear::new(w, &r).unwrap().evaluate(&r, &[input]).remove(0);
    let defenders = |e: &Evaluation| {
        if p.to_move() == Side::Defenders {
            e.wdl.value()
        } else {
            -e.wdl.value()
        }
    };
    assert!(
        defenders(&after) > defenders(&before) + 0.1,
        "{before:?} {after:?}"
    );
    // Every logit moved by the same -2, so the priors are those of before.
    for (a, b) in before.priors.iter().zip(&after.priors) {
        assert!((a - b).abs() < 1e-5);
    }
}

#[test]
fn a_weights_file_round_trips_and_names_its_classes() {
    let r = rules("tablut");
    let mut w = LinearWeights::hand_written(&r);
    w.attackers[2] = 0.25;
    w.priors[1].captures = 1.5;
    w.priors[0].parts[2] = 0.5;
    w.priors[0].near_to[3] = -0.25;
    w.priors[1].near_from[9] = 0.125;
    w.made_by = "a test".into();
    let text = w.to_toml();
    assert!(text.contains("classes = [\"a1\", \"b1\""), "{text}");
    assert!(text.contains("[priors.defenders]"), "{text}");
    assert_eq!(LinearWeights::parse(&text).unwrap(), w);
    // Without [priors] a file means the hand-written priors.
    let cut = &text[..text.find("[priors.").unwrap()];
    assert_eq!(
        LinearWeights::parse(cut).unwrap().priors,
        LinearWeights::hand_written(&r).priors
    );
    assert!(text.contains("near_king = 0.5"), "{text}");
    // A file written before the parts and the king-relative tables (the Brandubh weights of
    // 5 December, kept as an anchor): they read as 0, so its priors are what they were.
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../checkpoints/distilled/linear/brandubh.toml");
    let text = std::fs::read_to_string(shipped).unwrap();
    assert!(
        !text.contains("near_to") && !text.contains("blocks_run"),
        "{text}"
    );
    let old = LinearWeights::parse(&text).unwrap();
    for p in &old.priors {
        assert_eq!(
            (p.parts, p.near_to, p.near_from),
            ([0.0; MOVE_PART_COUNT], [0.0; NEAR_CLASSES], [0.0; NEAR_CLASSES])
        );
        assert!(p.hand != 1.0 && p.to.iter().any(|x| *x != 0.0), "{p:?}");
    }
    // 15 classes on 9x9: the triangle of a quarter board.
    assert_eq!(square_classes(9).1.len(), 15);
    assert_eq!(square_classes(7).1.len(), 10);
}

#[test]
fn a_bad_weights_file_is_refused_naming_what_is_wrong() {
    let r = rules("brandubh");
    let good = LinearWeights::hand_written(&r).to_toml();
    let cases: Vec<(String, &str)> = vec![
        (good.replace("material = ", "materiel = "), "`materiel`"),
        (good.replace("material = 0.8\n", ""), "no weight for `material`"),
        (good.replace("board = 7", "board = 9"), "classes must be the 15"),
        (good.replace("board = 7", "board = 40"), "board 40"),
        (good.replace("\"a1\", ", ""), "classes must be the 10"),
        (
            good.replace("king_mobility = 0.4", "king_mobility = nan"),
            "not a finite number",
        ),
        (
            good.replace("king_mobility = 0.4", "king_mobility = 1e30"),
            "not a finite number",
        ),
        (good.replace("king = [0.0, ", "king = ["), "king has 9 weights"),
        (good.replace("hand = 1.0", "hand = \"one\""), "invalid type"),
        (format!("extra = 1\n{good}"), "unknown field"),
        (
            good.replace("near_king = 0.0", "near_kink = 0.0"),
            "`near_kink`, which is not a part",
        ),
        (
            good.replace("near_to = [0.0, ", "near_to = ["),
            "near_to has 9 weights",
        ),
        ("not toml at all".into(), "expected"),
    ];
    for (text, why) in cases {
        let e = LinearWeights::parse(&text).unwrap_err();
        assert!(e.contains(why), "expected `{why}` in: {e}");
    }
    // Another ruleset's weights are refused by the evaluation for these rules.
    let tablut = LinearWeights::hand_written(&rules("tablut"));
    let e = Linear::new(tablut, &r).unwrap_err();
    assert!(e.contains("not for brandubh"), "{e}");
    // A file too large is refused before it is read.
    let dir = std::env::temp_dir().join(format!("tafl-linear-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; MAX_LINEAR_FILE_BYTES as usize + 1]).unwrap();
    let e = LinearWeights::load(&big).unwrap_err();
    assert!(e.contains("big.toml") && e.contains("bytes"), "{e}");
    let e = LinearWeights::load(&dir.join("missing.toml")).unwrap_err();
    assert!(e.contains("missing.toml"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn move_terms_count_captures_and_distance() {
    let r = rules("brandubh");
    // The attacker on a3 moving to c3 sandwiches the defender on d3 against the attacker on e3.
    let p = Position::from_diagram(
        &r,
        "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 A . . D A . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g
        ",
        Side::Attackers,
    )
    .unwrap();
    let moves: Vec<Move> = p.moves(&r).as_slice().to_vec();
    let (classes, _) = square_classes(7);
    let terms = MoveTerms::of(&r, &p, &moves, &classes);
    let at = |from: &str, to: &str| {
        let m = Move::new(parse_square(7, from).unwrap(), parse_square(7, to).unwrap());
        terms[moves.iter().position(|x| *x == m).unwrap()]
    };
    let capture = at("a3", "c3");
    assert_eq!(capture.captures, 1.0);
    assert!((capture.distance - 2.0 / 7.0).abs() < 1e-6);
    assert!(!capture.king);
    assert_eq!(at("a3", "b3").captures, 0.0);
    assert_eq!(at("e3", "e2").captures, 0.0);
}

#[test]
fn a_linear_spec_parses_and_prints() {
    let spec = PlayerSpec::parse("mcts:linear=checkpoints/linear/brandubh.toml:400").unwrap();
    assert_eq!(
        spec,
        PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Linear("checkpoints/linear/brandubh.toml".into()),
            simulations: 400
        }
    );
    assert_eq!(
        spec.to_string(),
        "mcts:linear=checkpoints/linear/brandubh.toml:400"
    );
    assert!(PlayerSpec::parse("mcts:linear=").is_err());
}

#[test]
fn a_moves_active_terms_are_its_logit() {
    // The fit's gradient reads `active`; the search reads `logit`: they must be one sum.
    let r = rules("brandubh");
    let (classes, firsts) = square_classes(7);
    let mut w = PriorWeights::hand_written(firsts.len());
    let v: Vec<f32> = (0..w.to_vec().len()).map(|i| (i as f32 * 0.37).sin()).collect();
    w.set_from(&v);
    assert_eq!(w.to_vec(), v);
    for (p, moves) in positions(&r, 2) {
        for t in MoveTerms::of(&r, &p, &moves, &classes) {
            let sum: f32 = w.active(&t).iter().map(|&(j, x)| v[j] * x).sum();
            assert!(
                (sum - w.logit(&t)).abs() < 1e-4,
                "{t:?}: {sum} against {}",
                w.logit(&t)
            );
        }
    }
}

#[test]
fn the_parts_and_places_near_the_king_move_the_priors_only_once_weighed() {
    // Weights from before them (0) leave the priors the hand-written ones; once a file weighs
    // them, the priors of that side move and its value does not.
    let r = rules("copenhagen");
    let hand = Linear::new(LinearWeights::hand_written(&r), &r).unwrap();
    let mut w = LinearWeights::hand_written(&r);
    assert!(!w.priors[0].weighs_parts());
    w.priors[Side::Attackers as usize].near_to[1] = 2.0;
    assert!(w.priors[0].weighs_parts());
    let near = Linear::new(w, &r).unwrap();
    let mut moved = 0;
    for (p, moves) in positions(&r, 2) {
        let input = input(&p, &moves);
        let (a, b) = (
            hand.evaluate(&r, &[input]).remove(0),
            near.evaluate(&r, &[input]).remove(0),
        );
        assert_eq!(a.wdl, b.wdl);
        if a.priors != b.priors {
            assert_eq!(p.to_move(), Side::Attackers);
            moved += 1;
        }
    }
    assert!(moved > 10, "{moved}");
}
