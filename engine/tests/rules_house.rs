//! House rules of servers, as knobs: hnefatafl.org's defenders who may not recreate an earlier
//! board (`repetition = "defenders_may_not_repeat"`) and its turn limit (`turn_limit`,
//! `turn_limit_result`), each asserted from its definition.

mod common;

use common::*;
use tafl_engine::{Game, Outcome, Reason, Ruleset};

/// A defender soldier on g2 whose only squares are g2 and f2 (attackers on g3, e2, f1, f3),
/// a king who cannot move (d1, walled in by c1, e1, d2), and a free attacker on b6.
const POCKET: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . A A
    2 . . . A A . D
    1 # . A K A A #
      a b c d e f g";

fn game(knobs: &[(&str, &str)], moves: &[&str]) -> (tafl_engine::Rules<u128>, Game<u128>) {
    let r = rules("brandubh", knobs);
    let mut g = Game::from_position(&r, pos(&r, POCKET, Attackers));
    for m in moves {
        g.play(&r, mv(&r, m)).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    (r, g)
}

const NO_REPEAT: (&str, &str) = ("repetition", "defenders_may_not_repeat");

#[test]
fn a_defenders_move_that_recreates_an_earlier_board_is_illegal_and_may_leave_no_move() {
    // b6-b5 g2-f2 b5-b4 f2-g2: the defenders' last move makes a new board (the attacker is
    // on b4); the attackers' b4-b6 then recreates the start, which they may.
    let (r, mut g) = game(&[NO_REPEAT], &["b6-b5", "g2-f2", "b5-b4", "f2-g2"]);
    g.play(&r, mv(&r, "b4-b6")).expect("the attackers may repeat");
    // g2-f2 again: the attacker stands on b6, not on b5 as after move 2, so the board is new.
    g.play(&r, mv(&r, "g2-f2")).expect("a new board");
    // b6-b5 (the board after move 2 again: the attackers may); the soldier's only move,
    // f2-g2, would recreate the board after move 1, and the king cannot move: the
    // defenders have no legal move and lose.
    assert_eq!(
        g.play(&r, mv(&r, "b6-b5")).unwrap(),
        Some(Outcome::win(Attackers, Reason::NoMoves))
    );
    // Under plain Brandubh the same game goes on, f2-g2 among its moves.
    let (r, mut g) = game(
        &[],
        &["b6-b5", "g2-f2", "b5-b4", "f2-g2", "b4-b6", "g2-f2", "b6-b5"],
    );
    assert!(g.outcome().is_none());
    assert!(g.moves(&r).contains(&mv(&r, "f2-g2")));
    g.play(&r, mv(&r, "f2-g2")).expect("legal without the house rule");
}

#[test]
fn the_repeating_move_is_left_out_of_the_legal_moves_and_refused() {
    // Without the attacker on e2 the soldier on f2 may also go to e2.
    let r = rules("brandubh", &[NO_REPEAT]);
    let open = POCKET.replace("2 . . . A A . D", "2 . . . A . . D");
    let mut g = Game::from_position(&r, pos(&r, &open, Attackers));
    for m in ["b6-b5", "g2-f2", "b5-b6"] {
        g.play(&r, mv(&r, m)).unwrap();
    }
    // f2-g2 would recreate the start board: the position allows it, the game does not.
    let back = mv(&r, "f2-g2");
    assert!(g.position().moves(&r).contains(&back));
    assert!(g.repeats_board(&r, back));
    assert!(!g.moves(&r).contains(&back));
    assert!(g.moves(&r).contains(&mv(&r, "f2-e2")));
    let err = g.play(&r, back).unwrap_err();
    assert!(err.reason.contains("earlier position"), "{err}");
    assert!(g.outcome().is_none());
    // Random choices keep to the legal moves.
    for k in 0..20 {
        let picked = g.pick_move(&r, |n| k % n).unwrap();
        assert_ne!(picked, back);
    }
}

#[test]
fn the_turn_limit_ends_an_undecided_game_with_its_result() {
    let (_, g) = game(&[("turn_limit", "4")], &["b6-b5", "g2-f2", "b5-b4"]);
    assert!(g.outcome().is_none());
    let (_, g) = game(&[("turn_limit", "4")], &["b6-b5", "g2-f2", "b5-b4", "f2-g2"]);
    assert_eq!(g.outcome(), Some(Outcome::draw(Reason::TurnLimit)));
    let (_, g) = game(
        &[("turn_limit", "4"), ("turn_limit_result", "defenders")],
        &["b6-b5", "g2-f2", "b5-b4", "f2-g2"],
    );
    assert_eq!(g.outcome(), Some(Outcome::win(Defenders, Reason::TurnLimit)));
    // 0: no limit.
    let (_, g) = game(&[("turn_limit", "0")], &["b6-b5", "g2-f2", "b5-b4", "f2-g2"]);
    assert!(g.outcome().is_none());
}

#[test]
fn hnefatafl_orgs_copenhagen_is_copenhagen_with_its_two_house_rules() {
    let org = Ruleset::builtin("copenhagen-hnefatafl-org");
    let mut copenhagen = Ruleset::builtin("copenhagen");
    copenhagen
        .set_knob("repetition", "defenders_may_not_repeat")
        .unwrap();
    copenhagen.set_knob("turn_limit", "141").unwrap();
    assert_eq!(org.start, copenhagen.start);
    let mut a = org.file.clone();
    let mut b = copenhagen.file.clone();
    for f in [&mut a, &mut b] {
        f.id.clear();
        f.name.clear();
        f.setup = None;
        f.position = None;
    }
    assert_eq!(a, b);
}
