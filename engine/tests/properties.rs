//! Property tests over positions reached by random play in every built-in ruleset:
//! the fast generators agree with an independent square-by-square legality check, the
//! incremental Zobrist hash agrees with one computed from scratch, and the 8 board symmetries
//! map legal-move sets onto each other.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use tafl_engine::{board::*, rules::*, *};

/// A position `plies` random moves from the start (fewer if the game ends first).
fn random_position<B: BitSet>(rules: &Rules<B>, seed: u64, plies: u32) -> Game<B> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.moves(rules);
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(rules, mv).unwrap();
        assert_eq!(
            game.position().hash(),
            rules.zobrist.hash_of(game.position()),
            "incremental hash drifted after {}",
            mv.text(rules.n)
        );
    }
    game
}

fn move_set(moves: &[Move]) -> BTreeSet<(u16, u16)> {
    moves.iter().map(|m| (m.from, m.to)).collect()
}

fn check_generators<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) {
    let n = rules.n;
    let list = pos.moves(rules);
    let generated = move_set(&list);
    assert_eq!(generated.len(), list.len(), "duplicate moves generated");
    // Independent check: every (from, to) pair judged square by square.
    let mut slow = BTreeSet::new();
    for from in 0..(n * n) as u16 {
        for to in 0..(n * n) as u16 {
            if pos.check_move(rules, Move::new(from, to)).is_ok() {
                slow.insert((from, to));
            }
        }
    }
    assert_eq!(
        generated,
        slow,
        "generator and slow check disagree\n{}",
        pos.diagram(rules, &[])
    );
    let count = pos.count_moves(rules);
    assert_eq!(count as usize, list.len());
    assert_eq!(pos.has_move(rules), count > 0);
    let nth: Vec<Move> = (0..count).map(|k| pos.nth_move(rules, k).unwrap()).collect();
    assert_eq!(
        move_set(&nth),
        generated,
        "nth_move does not enumerate the legal moves"
    );
    assert!(pos.nth_move(rules, count).is_none());
    for m in list.iter() {
        assert!(pos.is_legal(rules, *m));
    }
}

fn check_symmetries<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) {
    let n = rules.n;
    let base = move_set(&pos.moves(rules));
    for sym in SYMMETRIES {
        let t = transform_position(rules, pos, sym).unwrap();
        let mapped: BTreeSet<_> = base
            .iter()
            .map(|&(f, to)| {
                let m = transform_move(n, sym, Move::new(f, to));
                (m.from, m.to)
            })
            .collect();
        assert_eq!(move_set(&t.moves(rules)), mapped, "symmetry {sym}");
        assert_eq!(t.count_moves(rules), pos.count_moves(rules));
    }
}

fn run_all(seed: u64, plies: u32, check: fn(&str, u64, u32)) {
    for id in BUILTIN_IDS {
        check(id, seed, plies);
    }
}

fn generators(id: &str, seed: u64, plies: u32) {
    let rs = Ruleset::builtin(id);
    with_board!(&rs, B, rules => {
        let g = random_position(&rules, seed, plies);
        check_generators(&rules, g.position());
    });
}

fn symmetries(id: &str, seed: u64, plies: u32) {
    let rs = Ruleset::builtin(id);
    with_board!(&rs, B, rules => {
        let g = random_position(&rules, seed, plies);
        check_symmetries(&rules, g.position());
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_moves_are_exactly_the_legal_ones(seed in any::<u64>(), plies in 0u32..160) {
        run_all(seed, plies, generators);
    }

    #[test]
    fn symmetries_map_legal_moves_onto_each_other(seed in any::<u64>(), plies in 0u32..160) {
        run_all(seed, plies, symmetries);
    }

    #[test]
    fn incremental_and_recomputed_hashes_agree(seed in any::<u64>()) {
        // random_position asserts the hash after every move; long games reach captures.
        for id in BUILTIN_IDS {
            let rs = Ruleset::builtin(id);
            with_board!(&rs, B, rules => { random_position(&rules, seed, 400); });
        }
    }

    #[test]
    fn symmetric_positions_hash_differently_but_play_alike(seed in any::<u64>(), plies in 1u32..60) {
        // The transformed position is a different board (so a different hash unless symmetric)
        // and plays the same game: capture counts agree move for move.
        let rs = Ruleset::builtin("copenhagen");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let g = random_position(&rules, seed, plies);
        let pos = *g.position();
        for sym in SYMMETRIES {
            let t = transform_position(&rules, &pos, sym).unwrap();
            for m in pos.moves(&rules).iter() {
                let mut a = pos;
                let mut b = t;
                let ea = a.play_unchecked(&rules, *m);
                let eb = b.play_unchecked(&rules, transform_move(rules.n, sym, *m));
                prop_assert_eq!(ea.captured.count(), eb.captured.count());
                prop_assert_eq!(ea.king_captured, eb.king_captured);
            }
        }
    }
}

#[test]
fn a_games_fingerprint_follows_its_moves_and_its_end() {
    let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap();
    for seed in 0..20 {
        let a = random_position(&rules, seed, 30);
        let b = random_position(&rules, seed, 30);
        assert_eq!(
            a.fingerprint(),
            b.fingerprint(),
            "the same moves, the same fingerprint"
        );
        // One ply fewer, or another game, is another fingerprint.
        let mut c = a.clone();
        if c.undo(&rules) {
            assert_ne!(a.fingerprint(), c.fingerprint());
        }
        assert_ne!(
            a.fingerprint(),
            random_position(&rules, seed + 100, 30).fingerprint()
        );
    }
    // The same moves ended differently (here: cut by a ply limit, or not) differ too.
    let g = random_position(&rules, 7, 6);
    let mut cut = Game::new(&rules).with_ply_limit(Some(6));
    for p in g.history() {
        cut.play(&rules, p.mv).unwrap();
    }
    if g.outcome().is_none() {
        assert!(cut.outcome().is_some());
        assert_ne!(g.fingerprint(), cut.fingerprint());
    }
}
