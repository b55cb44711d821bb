//! Encoding v1: the symmetries act consistently on planes and policy indices, for random
//! positions of every built-in ruleset.

use std::collections::BTreeSet;
use tafl_engine::{
    board::{transform_move, transform_position},
    rules::BUILTIN_IDS,
    with_board, BitSet, Game, Rules, Ruleset,
};
use tafl_nn::encoding::plane;
use tafl_nn::{Encoder, PLANES};

/// A small deterministic generator, so the test needs no seed plumbing.
struct SplitMix(u64);
impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Positions reached by random play, with their occurrence count and ply.
fn random_games<B: BitSet>(rules: &Rules<B>, games: usize, seed: u64) -> Vec<(Game<B>, usize)> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(rules).with_ply_limit(Some(200));
        let plies = rng.below(120);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.moves(rules);
            if moves.is_empty() {
                break;
            }
            let mv = moves.as_slice()[rng.below(moves.len())];
            game.play_unchecked(rules, mv);
        }
        let occ = game.occurrences();
        out.push((game, occ));
    }
    out
}

fn check_ruleset<B: BitSet>(rules: &Rules<B>, ruleset: &Ruleset) {
    let enc = Encoder::new(ruleset);
    let n = rules.n;
    assert_eq!(
        enc.symmetries(),
        &[0, 1, 2, 3, 4, 5, 6, 7],
        "{}: built-in rules are symmetric",
        ruleset.id()
    );
    assert_eq!(enc.policy_size(), n * n * 4 * (n - 1));
    for (game, occ) in random_games(rules, 12, n as u64 * 7919) {
        let pos = game.position();
        let ply = game.ply();
        let base = enc.encode_vec(pos, occ as u8, ply, 0);
        let moves = pos.moves(rules);
        let indices = enc.move_indices(moves.as_slice(), 0);
        let distinct: BTreeSet<u32> = indices.iter().copied().collect();
        assert_eq!(distinct.len(), indices.len(), "legal moves have distinct indices");
        for &s in enc.symmetries() {
            let moved = transform_position(rules, pos, s).expect("symmetric rules");
            // Encoding the transformed position = transforming the encoding = encoding through s.
            let direct = enc.encode_vec(&moved, occ as u8, ply, 0);
            let mut transformed = vec![0.0; base.len()];
            enc.transform_planes(s, &base, &mut transformed);
            assert_eq!(direct, transformed, "{} sym {s}: planes", ruleset.id());
            assert_eq!(
                direct,
                enc.encode_vec(pos, occ as u8, ply, s),
                "{} sym {s}: encode through",
                ruleset.id()
            );

            // The index map is a bijection from the legal moves onto the transformed ones.
            let moved_moves = moved.moves(rules);
            let want: BTreeSet<u32> = enc.move_indices(moved_moves.as_slice(), 0).into_iter().collect();
            let got: Vec<u32> = indices
                .iter()
                .map(|&i| enc.transform_index(s, i as usize) as u32)
                .collect();
            let got_set: BTreeSet<u32> = got.iter().copied().collect();
            assert_eq!(got_set.len(), got.len(), "{} sym {s}: injective", ruleset.id());
            assert_eq!(got_set, want, "{} sym {s}: onto the legal moves", ruleset.id());
            assert_eq!(
                got,
                enc.move_indices(moves.as_slice(), s),
                "{} sym {s}: move_indices",
                ruleset.id()
            );
            for &mv in moves.as_slice() {
                let i = enc.move_index(mv).expect("legal moves are slides");
                assert_eq!(
                    enc.move_index(transform_move(n, s, mv)),
                    Some(enc.transform_index(s, i)),
                    "{} sym {s}: index of the moved move",
                    ruleset.id()
                );
            }
        }
    }
}

#[test]
fn symmetries_commute_with_encoding_for_every_ruleset() {
    for id in BUILTIN_IDS {
        let ruleset = Ruleset::builtin(id);
        with_board!(&ruleset, B, rules => check_ruleset::<B>(&rules, &ruleset));
    }
}

#[test]
fn policy_index_round_trips_and_symmetries_permute_it() {
    for id in ["brandubh", "tablut", "copenhagen", "alea-evangelii"] {
        let ruleset = Ruleset::builtin(id);
        let n = ruleset.size();
        let enc = Encoder::new(&ruleset);
        let size = enc.policy_size();
        let mut on_board = 0;
        for i in 0..size {
            if let Some(mv) = enc.index_move(i) {
                on_board += 1;
                assert_eq!(enc.move_index(mv), Some(i));
            }
        }
        // Each square reaches 2(n-1) squares along its rank and file.
        assert_eq!(on_board, n * n * 2 * (n - 1));
        for s in 0..8u8 {
            let mut seen = vec![false; size];
            for i in 0..size {
                let j = enc.transform_index(s, i);
                assert!(!seen[j], "n={n} sym {s}: {j} hit twice");
                seen[j] = true;
                // Off-board indices stay off the board.
                assert_eq!(enc.index_move(i).is_some(), enc.index_move(j).is_some());
            }
        }
    }
}

#[test]
fn planes_follow_the_documentation() {
    let ruleset = Ruleset::builtin("brandubh");
    let rules = Rules::<u128>::new(&ruleset).unwrap();
    let enc = Encoder::new(&ruleset);
    let game = Game::new(&rules);
    let pos = game.position();
    let nn = 49;
    let x = enc.encode_vec(pos, 2, 256, 0);
    assert_eq!(x.len(), PLANES * nn);
    let count = |p: usize| x[p * nn..(p + 1) * nn].iter().filter(|v| **v == 1.0).count();
    assert_eq!(count(plane::ATTACKERS), pos.attackers().count() as usize);
    assert_eq!(count(plane::DEFENDERS), pos.defenders().count() as usize);
    assert_eq!(x[plane::KING * nn + pos.king() as usize], 1.0);
    assert_eq!(count(plane::THRONE), 1);
    assert_eq!(x[plane::THRONE * nn + 24], 1.0);
    assert_eq!(count(plane::REFUGES), 4);
    assert_eq!(count(plane::BOARD), nn);
    let to_move = if pos.to_move() == tafl_engine::Side::Attackers {
        nn
    } else {
        0
    };
    assert_eq!(count(plane::ATTACKERS_TO_MOVE), to_move);
    let repeated = if ruleset.file.repetition == tafl_engine::rules::Repetition::Ignore {
        0
    } else {
        nn
    };
    assert_eq!(count(plane::REPEATED), repeated);
    assert_eq!(count(plane::REPEATED_TWICE), 0);
    assert!(x[plane::PLY * nn..].iter().all(|&v| v == 0.5));
    // d4 on 7x7 is square 24: its first move north has index 24 * 24.
    assert_eq!(enc.move_index(tafl_engine::Move::new(24, 31)), Some(576));
    assert_eq!(enc.move_index(tafl_engine::Move::new(24, 23)), Some(576 + 3 * 6));
}
