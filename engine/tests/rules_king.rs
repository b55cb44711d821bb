//! The king: armed or not (`king_armed`), how he is captured (`king_capture`), and where he
//! escapes (`escape`), each asserted with a before/after diagram.

mod common;

use common::*;
use tafl_engine::{Game, Reason};

// ---------------------------------------------------------------------------------------------
// king_armed
// ---------------------------------------------------------------------------------------------

/// The king slides f2-d2: the attacker on c2 is between him and the defender on b2.
const KING_AS_HAMMER: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . D A . . K .
    1 # . . . . . #
      a b c d e f g";
const KING_AS_HAMMER_TAKEN: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . D . K . . .
    1 # . . . . . #
      a b c d e f g";
const KING_AS_HAMMER_SPARED: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . D A K . . .
    1 # . . . . . #
      a b c d e f g";

/// The defender steps e2-d2: the attacker on c2 is between it and the king on b2.
const KING_AS_ANVIL: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . K A . D . .
    1 # . . . . . #
      a b c d e f g";
const KING_AS_ANVIL_TAKEN: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . K . D . . .
    1 # . . . . . #
      a b c d e f g";
const KING_AS_ANVIL_SPARED: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . K A D . . .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn king_armed_yes_captures_as_hammer_and_as_anvil() {
    let r = rules("brandubh", &[("king_armed", "yes")]);
    assert_eq!(
        check(&r, KING_AS_HAMMER, Defenders, "f2-d2", KING_AS_HAMMER_TAKEN, None),
        1
    );
    assert_eq!(
        check(&r, KING_AS_ANVIL, Defenders, "e2-d2", KING_AS_ANVIL_TAKEN, None),
        1
    );
}

#[test]
fn king_armed_hammer_captures_only_as_the_moving_piece() {
    let r = rules("brandubh", &[("king_armed", "hammer")]);
    check(&r, KING_AS_HAMMER, Defenders, "f2-d2", KING_AS_HAMMER_TAKEN, None);
    check(&r, KING_AS_ANVIL, Defenders, "e2-d2", KING_AS_ANVIL_SPARED, None);
}

#[test]
fn king_armed_anvil_captures_only_as_the_far_jaw() {
    let r = rules("brandubh", &[("king_armed", "anvil")]);
    check(
        &r,
        KING_AS_HAMMER,
        Defenders,
        "f2-d2",
        KING_AS_HAMMER_SPARED,
        None,
    );
    check(&r, KING_AS_ANVIL, Defenders, "e2-d2", KING_AS_ANVIL_TAKEN, None);
}

#[test]
fn king_armed_no_never_captures() {
    let r = rules("brandubh", &[("king_armed", "no")]);
    check(
        &r,
        KING_AS_HAMMER,
        Defenders,
        "f2-d2",
        KING_AS_HAMMER_SPARED,
        None,
    );
    check(&r, KING_AS_ANVIL, Defenders, "e2-d2", KING_AS_ANVIL_SPARED, None);
}

// ---------------------------------------------------------------------------------------------
// king_capture
// ---------------------------------------------------------------------------------------------

/// b4 closes the fourth side of the king on b5 (away from the throne and the edge).
const FOUR_AROUND: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 A K A . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . A . . . D .
    1 # . . . . . #
      a b c d e f g";
const FOUR_AROUND_AFTER: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 A K A . . . .
    4 . A . # . . .
    3 . . . . . . .
    2 . . . . . D .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn strong_king_is_captured_by_four_attackers() {
    for id in ["brandubh", "brandubh-traditional"] {
        let r = rules(id, &[("king_capture", "strong")]);
        check(
            &r,
            FOUR_AROUND,
            Attackers,
            "b2-b4",
            FOUR_AROUND_AFTER,
            win(Attackers, Reason::KingCaptured),
        );
    }
}

#[test]
fn strong_king_is_not_captured_by_three_attackers() {
    let r = rules("brandubh", &[("king_capture", "strong")]);
    let before = FOUR_AROUND.replace("6 . A . . . . .", "6 . . . . . . .");
    let after = FOUR_AROUND_AFTER.replace("6 . A . . . . .", "6 . . . . . . .");
    check(&r, &before, Attackers, "b2-b4", &after, None);
}

/// c5 closes a pair of attackers around the king on b5, away from the throne.
const TWO_AROUND: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 A K . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . A . . D .
    1 # . . . . . #
      a b c d e f g";
const TWO_AROUND_AFTER: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 A K A . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . D .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn king_between_two_attackers_away_from_the_throne() {
    let strong = rules("brandubh", &[("king_capture", "strong")]);
    check(&strong, TWO_AROUND, Attackers, "c2-c5", TWO_AROUND_AFTER, None);
    for value in ["strong_near_throne", "weak"] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(
            &r,
            TWO_AROUND,
            Attackers,
            "c2-c5",
            TWO_AROUND_AFTER,
            win(Attackers, Reason::KingCaptured),
        );
    }
}

#[test]
fn strong_near_throne_weak_king_is_taken_by_two_attackers_off_the_throne() {
    // The traditional Brandubh file sets king_capture = strong_near_throne.
    let r = rules("brandubh-traditional", &[]);
    check(
        &r,
        TWO_AROUND,
        Attackers,
        "c2-c5",
        TWO_AROUND_AFTER,
        win(Attackers, Reason::KingCaptured),
    );
}

/// The king on c1 on the edge: b1, c2 and now d1 hold attackers, the fourth side is off the board.
const EDGE_KING: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . D .
    4 . . . # . . .
    3 . . . . . . .
    2 . . A . . . .
    1 # A K . A . #
      a b c d e f g";
const EDGE_KING_AFTER: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . D .
    4 . . . # . . .
    3 . . . . . . .
    2 . . A . . . .
    1 # A K A . . #
      a b c d e f g";

#[test]
fn strong_king_on_the_edge_cannot_be_captured() {
    let r = rules("brandubh", &[]);
    check(&r, EDGE_KING, Attackers, "e1-d1", EDGE_KING_AFTER, None);
}

#[test]
fn weak_king_on_the_edge_is_captured_like_a_soldier() {
    for value in ["weak", "strong_near_throne"] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(
            &r,
            EDGE_KING,
            Attackers,
            "e1-d1",
            EDGE_KING_AFTER,
            win(Attackers, Reason::KingCaptured),
        );
    }
}

/// The king on d5 next to the empty throne d4; d6 closes the third attacker side.
const NEXT_TO_THRONE: &str = "
    7 # . . . . . #
    6 . . . . . A .
    5 . . A K A . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . D .
    1 # . . . . . #
      a b c d e f g";
const NEXT_TO_THRONE_AFTER: &str = "
    7 # . . . . . #
    6 . . . A . . .
    5 . . A K A . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . D .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn empty_throne_is_the_fourth_wall_of_a_king_capture() {
    for value in ["strong", "strong_near_throne", "weak"] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(
            &r,
            NEXT_TO_THRONE,
            Attackers,
            "f6-d6",
            NEXT_TO_THRONE_AFTER,
            win(Attackers, Reason::KingCaptured),
        );
    }
}

#[test]
fn strong_near_throne_needs_four_sides_next_to_the_throne() {
    // Only c5 and d6 (plus the empty throne): not enough for strong or strong_near_throne.
    let before = NEXT_TO_THRONE.replace("5 . . A K A . .", "5 . . A K . . .");
    let after = NEXT_TO_THRONE_AFTER.replace("5 . . A K A . .", "5 . . A K . . .");
    for r in [
        rules("brandubh", &[("king_capture", "strong")]),
        rules("brandubh", &[("king_capture", "strong_near_throne")]),
        rules("brandubh-traditional", &[]),
    ] {
        check(&r, &before, Attackers, "f6-d6", &after, None);
    }
    // Two attackers on opposite sides next to the throne: still not enough.
    let before = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . A K . . A
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . A K A . .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    check(
        &rules("brandubh-traditional", &[]),
        before,
        Attackers,
        "g5-e5",
        after,
        None,
    );
    // The weak king is taken there.
    let weak = rules("brandubh", &[("king_capture", "weak")]);
    check(
        &weak,
        before,
        Attackers,
        "g5-e5",
        after,
        win(Attackers, Reason::KingCaptured),
    );
    // And by one attacker against the empty throne (hostile to defenders).
    let before = "
        7 # . . . . . #
        6 . . . . . A .
        5 . . . K . . .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . A . . .
        5 . . . K . . .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    check(
        &weak,
        before,
        Attackers,
        "f6-d6",
        after,
        win(Attackers, Reason::KingCaptured),
    );
    check(
        &rules("brandubh-traditional", &[]),
        before,
        Attackers,
        "f6-d6",
        after,
        None,
    );
}

#[test]
fn king_on_the_throne_needs_four_attackers() {
    let four = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . A . . .
        4 . . A K A . .
        3 . . . . . A .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    let four_after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . A . . .
        4 . . A K A . .
        3 . . . A . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    for value in ["strong", "strong_near_throne", "weak"] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(
            &r,
            four,
            Attackers,
            "f3-d3",
            four_after,
            win(Attackers, Reason::KingCaptured),
        );
    }
    // Three around him: on the throne nothing stands in for the fourth.
    let three = four.replace("5 . . . A . . .", "5 . . . . . . .");
    let three_after = four_after.replace("5 . . . A . . .", "5 . . . . . . .");
    for value in ["strong", "strong_near_throne"] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(&r, &three, Attackers, "f3-d3", &three_after, None);
    }
    // Two on opposite sides: only the weak king falls.
    let two = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . A K . A .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    let two_after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . A K A . .
        3 . . . . . . .
        2 . . . . . D .
        1 # . . . . . #
          a b c d e f g";
    for (value, outcome) in [
        ("strong", None),
        ("strong_near_throne", None),
        ("weak", win(Attackers, Reason::KingCaptured)),
    ] {
        let r = rules("brandubh", &[("king_capture", value)]);
        check(&r, two, Attackers, "f4-e4", two_after, outcome);
    }
}

#[test]
fn weak_king_is_captured_against_a_hostile_corner() {
    let before = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . D .
        4 . . . # . . .
        3 . . A . . . .
        2 . . . . . . .
        1 # K . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . D .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . . .
        1 # K A . . . #
          a b c d e f g";
    let weak = rules("brandubh", &[("king_capture", "weak")]);
    check(
        &weak,
        before,
        Attackers,
        "c3-c1",
        after,
        win(Attackers, Reason::KingCaptured),
    );
    // The corner must be hostile to defenders.
    let weak_no_corner = rules(
        "brandubh",
        &[("king_capture", "weak"), ("corner_hostile", "attackers")],
    );
    check(&weak_no_corner, before, Attackers, "c3-c1", after, None);
    // A strong king on the edge is safe.
    check(&rules("brandubh", &[]), before, Attackers, "c3-c1", after, None);
}

#[test]
fn weak_king_in_tawlbwrdd_falls_to_two_attackers_anywhere() {
    let r = rules("tawlbwrdd", &[]);
    let before = "
       11 . . . . . . . . . . .
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . A K . . . A .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . D .
        2 . . . . . . . . . . .
        1 . . . . . . . . . . .
          a b c d e f g h i j k";
    let after = "
       11 . . . . . . . . . . .
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . A K A . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . D .
        2 . . . . . . . . . . .
        1 . . . . . . . . . . .
          a b c d e f g h i j k";
    check(
        &r,
        before,
        Attackers,
        "j6-g6",
        after,
        win(Attackers, Reason::KingCaptured),
    );
}

#[test]
fn the_king_is_only_captured_by_a_move_next_to_him() {
    // Four attackers already stand around him (set up that way); a move elsewhere does not
    // capture.
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . A . . . . .
        5 A K A . . . .
        4 . A . # . . .
        3 . . . . . . .
        2 . . . . . A .
        1 # . . . D . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . A . . . . .
        5 A K A . . . .
        4 . A . # . . .
        3 . . . . . . .
        2 . . . . . . A
        1 # . . . D . #
          a b c d e f g";
    check(&r, before, Attackers, "f2-g2", after, None);
}

// ---------------------------------------------------------------------------------------------
// escape
// ---------------------------------------------------------------------------------------------

#[test]
fn escape_corners_king_wins_on_a_corner() {
    let r = rules("brandubh", &[("escape", "corners")]);
    let before = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 K . . # . A .
        3 . . . . . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 K . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . # . A .
        3 . . . . . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    check(
        &r,
        before,
        Defenders,
        "a4-a7",
        after,
        win(Defenders, Reason::Escape),
    );
    let mut g = Game::from_position(&r, pos(&r, before, Defenders));
    assert_eq!(
        g.play(&r, mv(&r, "a4-a7")).unwrap(),
        win(Defenders, Reason::Escape)
    );
}

const KING_TO_EDGE_7: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . A .
    4 . . . # . . .
    3 . . K . . . .
    2 . . . . . . .
    1 # . . . . . #
      a b c d e f g";
const KING_TO_EDGE_7_AFTER: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . A .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # . K . . . #
      a b c d e f g";

#[test]
fn escape_corners_an_edge_square_is_not_enough() {
    let r = rules("brandubh", &[("escape", "corners")]);
    check(&r, KING_TO_EDGE_7, Defenders, "c3-c1", KING_TO_EDGE_7_AFTER, None);
}

#[test]
fn escape_edge_king_wins_on_any_edge_square() {
    let r = rules("brandubh", &[("escape", "edge")]);
    check(
        &r,
        KING_TO_EDGE_7,
        Defenders,
        "c3-c1",
        KING_TO_EDGE_7_AFTER,
        win(Defenders, Reason::Escape),
    );
}

#[test]
fn tablut_traditional_king_escapes_to_the_edge() {
    let r = rules("tablut-traditional", &[]);
    let before = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . A .
        6 . . . . . . . . .
        5 . . . . # . . . .
        4 . . . . . . . . .
        3 . . K . . . . . .
        2 . . . . . . . . .
        1 . . . . . . . . .
          a b c d e f g h i";
    let after = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . A .
        6 . . . . . . . . .
        5 . . . . # . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 . . K . . . . . .
          a b c d e f g h i";
    check(
        &r,
        before,
        Defenders,
        "c3-c1",
        after,
        win(Defenders, Reason::Escape),
    );
    // a1 is an ordinary edge square there: attackers may stop on it, the king escapes on it.
    let corner = before.replace("3 . . K . . . . . .", "3 K . . . . . . . .");
    let corner_after = after.replace("1 . . K . . . . . .", "1 K . . . . . . . .");
    check(
        &r,
        &corner,
        Defenders,
        "a3-a1",
        &corner_after,
        win(Defenders, Reason::Escape),
    );
    let attacker_corner = before.replace("1 . . . . . . . . .", "1 . . A . . . . . .");
    assert_legal(&r, &attacker_corner, Attackers, "c1-a1");
    // In tablut (corners) the same move is refused and reaching c1 does not win.
    let t = rules("tablut", &[]);
    assert_illegal(&t, &attacker_corner, Attackers, "c1-a1");
    check(&t, before, Defenders, "c3-c1", after, None);
}

/// A game set up from a position that is already decided is over from its start, as the move
/// that made the position would have ended it: hosts (the API, `analyze`, the protocols) set
/// positions up this way and must not play on.
#[test]
fn a_game_from_a_decided_position_is_over() {
    let rules = tafl_engine::Rules::<u128>::new(&tafl_engine::Ruleset::builtin("brandubh")).unwrap();
    for to_move in [tafl_engine::Side::Attackers, tafl_engine::Side::Defenders] {
        let pos = tafl_engine::formats::position_from_record(&rules, "/K6/3t3/7/7/7/7/7/", to_move).unwrap();
        let game = Game::from_position(&rules, pos);
        let o = game.outcome().expect("the king on a corner has escaped");
        assert_eq!(o.reason, Reason::Escape);
        assert_eq!(o.winner, Some(tafl_engine::Side::Defenders));
    }
    let pos = tafl_engine::formats::position_from_record(
        &rules,
        "/7/7/K6/6t/3T3/7/7/",
        tafl_engine::Side::Defenders,
    )
    .unwrap();
    assert!(Game::from_position(&rules, pos).outcome().is_none());
}
