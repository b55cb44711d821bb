//! Custodial captures, hostile squares, movement and the other general knobs of RULES.md,
//! each asserted with a before/after diagram. Also: input that must be refused.

mod common;

use common::*;
use tafl_engine::{
    formats::{parse_diagram, parse_move},
    Game, Position, Reason, Ruleset, Side,
};

// ---------------------------------------------------------------------------------------------
// Custodial capture of soldiers
// ---------------------------------------------------------------------------------------------

#[test]
fn defender_between_two_attackers_is_captured() {
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . A D . . A .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . A . A . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    assert_eq!(check(&r, before, Attackers, "f3-d3", after, None), 1);
}

#[test]
fn attacker_between_two_defenders_is_captured() {
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . A . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . D A . . D .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . A . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . D . D . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    assert_eq!(check(&r, before, Defenders, "f3-d3", after, None), 1);
}

#[test]
fn moving_between_two_enemies_is_safe() {
    let r = rules("brandubh", &[]);
    // A defender steps between two attackers ...
    let before = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . D . . . .
        4 . . . # . . .
        3 . A . A . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . A D A . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    assert_eq!(check(&r, before, Defenders, "c5-c3", after, None), 0);
    // ... and an attacker between two defenders.
    let before = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . A . . . .
        4 . . . # . . .
        3 . D . D . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . D A D . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    assert_eq!(check(&r, before, Attackers, "c5-c3", after, None), 0);
}

#[test]
fn the_board_edge_is_not_hostile() {
    let r = rules("brandubh", &[]);
    // c1 sits between the attacker on c2 and the edge: not captured.
    let before = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . . A
        1 # . D . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . K . .
        5 . . . . . . .
        4 . . . # . . .
        3 . . . . . . .
        2 . . A . . . .
        1 # . D . . . #
          a b c d e f g";
    assert_eq!(check(&r, before, Attackers, "g2-c2", after, None), 0);
}

#[test]
fn two_captures_in_one_move() {
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . . . . A . .
        5 . K . . . . .
        4 . . . # . . .
        3 . . . . . D A
        2 . . . . D . .
        1 # . . . A . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . K . . . . .
        4 . . . # . . .
        3 . . . . A . A
        2 . . . . . . .
        1 # . . . A . #
          a b c d e f g";
    assert_eq!(check(&r, before, Attackers, "e6-e3", after, None), 2);
}

#[test]
fn three_captures_in_one_move() {
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . . . . A . .
        5 . K . . . . .
        4 . . . # . . .
        3 . . A D . D A
        2 . . . . D . .
        1 # . . . A . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . K . . . . .
        4 . . . # . . .
        3 . . A . A . A
        2 . . . . . . .
        1 # . . . A . #
          a b c d e f g";
    assert_eq!(check(&r, before, Attackers, "e6-e3", after, None), 3);
}

#[test]
fn three_captures_by_defenders_with_the_king_as_one_anvil() {
    let r = rules("hnefatafl", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . D . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . D A . A K . . .
        2 . . . . . A . . . . .
        1 # . . . . D . . . A #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . D . D . K . . .
        2 . . . . . . . . . . .
        1 # . . . . D . . . A #
          a b c d e f g h i j k";
    // f8-f3 slides through the empty throne (throne_pass = all).
    assert_eq!(check(&r, before, Defenders, "f8-f3", after, None), 3);
}

// ---------------------------------------------------------------------------------------------
// corner_hostile
// ---------------------------------------------------------------------------------------------

const CORNER_VS_DEFENDER: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . A . . . .
    2 . . . . . . .
    1 # D . . . . #
      a b c d e f g";
const CORNER_VS_DEFENDER_TAKEN: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # . A . . . #
      a b c d e f g";
const CORNER_VS_DEFENDER_SPARED: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # D A . . . #
      a b c d e f g";
const CORNER_VS_ATTACKER: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . A . . . . .
    4 . . . # . . .
    3 . . . . D . .
    2 . . . . . . .
    1 # . . . . A #
      a b c d e f g";
const CORNER_VS_ATTACKER_TAKEN: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . A . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # . . . D . #
      a b c d e f g";
const CORNER_VS_ATTACKER_SPARED: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . A . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # . . . D A #
      a b c d e f g";

#[test]
fn corner_hostile_all_captures_both_sides_against_a_corner() {
    let r = rules("brandubh", &[("corner_hostile", "all")]);
    check(
        &r,
        CORNER_VS_DEFENDER,
        Attackers,
        "c3-c1",
        CORNER_VS_DEFENDER_TAKEN,
        None,
    );
    check(
        &r,
        CORNER_VS_ATTACKER,
        Defenders,
        "e3-e1",
        CORNER_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn corner_hostile_attackers_captures_only_attackers_against_a_corner() {
    let r = rules("brandubh", &[("corner_hostile", "attackers")]);
    check(
        &r,
        CORNER_VS_DEFENDER,
        Attackers,
        "c3-c1",
        CORNER_VS_DEFENDER_SPARED,
        None,
    );
    check(
        &r,
        CORNER_VS_ATTACKER,
        Defenders,
        "e3-e1",
        CORNER_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn corner_hostile_none_captures_nobody_against_a_corner() {
    let r = rules("brandubh", &[("corner_hostile", "none")]);
    check(
        &r,
        CORNER_VS_DEFENDER,
        Attackers,
        "c3-c1",
        CORNER_VS_DEFENDER_SPARED,
        None,
    );
    check(
        &r,
        CORNER_VS_ATTACKER,
        Defenders,
        "e3-e1",
        CORNER_VS_ATTACKER_SPARED,
        None,
    );
}

// ---------------------------------------------------------------------------------------------
// empty_throne_hostile
// ---------------------------------------------------------------------------------------------

const THRONE_VS_DEFENDER: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . D . . .
    2 . A . . . . .
    1 # . . . . . #
      a b c d e f g";
const THRONE_VS_DEFENDER_TAKEN: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . A . . .
    1 # . . . . . #
      a b c d e f g";
const THRONE_VS_DEFENDER_SPARED: &str = "
    7 # . . . . . #
    6 . . . . K . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . D . . .
    2 . . . A . . .
    1 # . . . . . #
      a b c d e f g";
const THRONE_VS_ATTACKER: &str = "
    7 # . . . . . #
    6 . . K . . . .
    5 . . . . . . .
    4 . . . # A . D
    3 . . . . . . .
    2 . A . . . . .
    1 # . . . . . #
      a b c d e f g";
const THRONE_VS_ATTACKER_TAKEN: &str = "
    7 # . . . . . #
    6 . . K . . . .
    5 . . . . . . .
    4 . . . # . D .
    3 . . . . . . .
    2 . A . . . . .
    1 # . . . . . #
      a b c d e f g";
const THRONE_VS_ATTACKER_SPARED: &str = "
    7 # . . . . . #
    6 . . K . . . .
    5 . . . . . . .
    4 . . . # A D .
    3 . . . . . . .
    2 . A . . . . .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn empty_throne_hostile_all_captures_both_sides() {
    let r = rules("brandubh", &[("empty_throne_hostile", "all")]);
    check(
        &r,
        THRONE_VS_DEFENDER,
        Attackers,
        "b2-d2",
        THRONE_VS_DEFENDER_TAKEN,
        None,
    );
    check(
        &r,
        THRONE_VS_ATTACKER,
        Defenders,
        "g4-f4",
        THRONE_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn empty_throne_hostile_attackers_captures_only_attackers() {
    let r = rules("brandubh", &[("empty_throne_hostile", "attackers")]);
    check(
        &r,
        THRONE_VS_DEFENDER,
        Attackers,
        "b2-d2",
        THRONE_VS_DEFENDER_SPARED,
        None,
    );
    check(
        &r,
        THRONE_VS_ATTACKER,
        Defenders,
        "g4-f4",
        THRONE_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn empty_throne_hostile_none_captures_nobody() {
    let r = rules("brandubh", &[("empty_throne_hostile", "none")]);
    check(
        &r,
        THRONE_VS_DEFENDER,
        Attackers,
        "b2-d2",
        THRONE_VS_DEFENDER_SPARED,
        None,
    );
    check(
        &r,
        THRONE_VS_ATTACKER,
        Defenders,
        "g4-f4",
        THRONE_VS_ATTACKER_SPARED,
        None,
    );
}

#[test]
fn tawlbwrdd_centre_is_an_ordinary_square() {
    // Tawlbwrdd has no throne: the empty centre f6 is never a jaw.
    let r = rules("tawlbwrdd", &[]);
    let before = "
       11 . . . . . . . . . . .
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . K .
        7 . . . . . . . . . . .
        6 . . . . . . . . . . .
        5 . . . . . D . . . . .
        4 . . A . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . . . . . . . . .
        1 . . . . . . . . . . .
          a b c d e f g h i j k";
    let after = "
       11 . . . . . . . . . . .
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . K .
        7 . . . . . . . . . . .
        6 . . . . . . . . . . .
        5 . . . . . D . . . . .
        4 . . . . . A . . . . .
        3 . . . . . . . . . . .
        2 . . . . . . . . . . .
        1 . . . . . . . . . . .
          a b c d e f g h i j k";
    check(&r, before, Attackers, "c4-f4", after, None);
    // And soldiers may stop on the centre.
    assert_legal(&r, after, Defenders, "f5-f6");
}

// ---------------------------------------------------------------------------------------------
// occupied_throne_hostile_to_attackers
// ---------------------------------------------------------------------------------------------

const KING_ON_THRONE_VS_ATTACKER: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 . . . . . . .
    4 . . . K . . .
    3 . . . A . . .
    2 . . . . . D .
    1 # . . . . . #
      a b c d e f g";
const KING_ON_THRONE_VS_ATTACKER_TAKEN: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 . . . . . . .
    4 . . . K . . .
    3 . . . . . . .
    2 . . . D . . .
    1 # . . . . . #
      a b c d e f g";
const KING_ON_THRONE_VS_ATTACKER_SPARED: &str = "
    7 # . . . . . #
    6 . A . . . . .
    5 . . . . . . .
    4 . . . K . . .
    3 . . . A . . .
    2 . . . D . . .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn occupied_throne_hostile_to_attackers_yes_captures_an_attacker_against_it() {
    // The king is not an anvil here (hammer only), so only the knob can make the throne a jaw.
    let r = rules(
        "brandubh",
        &[
            ("king_armed", "hammer"),
            ("occupied_throne_hostile_to_attackers", "yes"),
        ],
    );
    check(
        &r,
        KING_ON_THRONE_VS_ATTACKER,
        Defenders,
        "f2-d2",
        KING_ON_THRONE_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn occupied_throne_hostile_to_attackers_no_spares_the_attacker() {
    let r = rules(
        "brandubh",
        &[
            ("king_armed", "hammer"),
            ("occupied_throne_hostile_to_attackers", "no"),
        ],
    );
    check(
        &r,
        KING_ON_THRONE_VS_ATTACKER,
        Defenders,
        "f2-d2",
        KING_ON_THRONE_VS_ATTACKER_SPARED,
        None,
    );
    // With an armed king (anvil) the king himself is the jaw, throne or not.
    let r = rules(
        "brandubh",
        &[
            ("king_armed", "yes"),
            ("occupied_throne_hostile_to_attackers", "no"),
        ],
    );
    check(
        &r,
        KING_ON_THRONE_VS_ATTACKER,
        Defenders,
        "f2-d2",
        KING_ON_THRONE_VS_ATTACKER_TAKEN,
        None,
    );
}

#[test]
fn occupied_throne_is_never_hostile_to_defenders() {
    let before = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 . . . D . . .
        2 . . . . . A .
        1 # . . . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 . . . D . . .
        2 . . . A . . .
        1 # . . . . . #
          a b c d e f g";
    for knobs in [
        vec![
            ("occupied_throne_hostile_to_attackers", "yes"),
            ("empty_throne_hostile", "all"),
        ],
        vec![
            ("occupied_throne_hostile_to_attackers", "no"),
            ("empty_throne_hostile", "all"),
        ],
    ] {
        let r = rules("brandubh", &knobs);
        check(&r, before, Attackers, "f2-d2", after, None);
    }
    // The traditional Brandubh file sets the knob to yes.
    check(
        &rules("brandubh-traditional", &[]),
        before,
        Attackers,
        "f2-d2",
        after,
        None,
    );
}

// ---------------------------------------------------------------------------------------------
// Movement: throne_stop, throne_pass, corners, blocking
// ---------------------------------------------------------------------------------------------

const KING_ABOVE_THRONE: &str = "
    7 # . . . . . #
    6 . . . K . . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . D . . .
    1 # . . . A . #
      a b c d e f g";

#[test]
fn throne_stop_king_lets_the_king_re_enter_the_throne() {
    let r = rules("brandubh", &[("throne_stop", "king")]);
    assert_legal(&r, KING_ABOVE_THRONE, Defenders, "d6-d4");
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 . . . . . . .
        2 . . . D . . .
        1 # . . . A . #
          a b c d e f g";
    check(&r, KING_ABOVE_THRONE, Defenders, "d6-d4", after, None);
    // Soldiers never stop on it.
    assert_illegal(&r, KING_ABOVE_THRONE, Defenders, "d2-d4");
}

#[test]
fn throne_stop_nobody_keeps_the_king_off_the_throne() {
    let r = rules("brandubh", &[("throne_stop", "nobody")]);
    let e = assert_illegal(&r, KING_ABOVE_THRONE, Defenders, "d6-d4");
    assert!(e.contains("throne"), "{e}");
    assert_illegal(&r, KING_ABOVE_THRONE, Defenders, "d2-d4");
    // He may still slide through it (throne_pass = all).
    assert_legal(&r, KING_ABOVE_THRONE, Defenders, "d6-d3");
}

const ACROSS_THE_THRONE: &str = "
    7 # . . . . . #
    6 . . . D . K .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . . . . . .
    1 # . . A . . #
      a b c d e f g";

#[test]
fn throne_pass_all_lets_soldiers_and_king_slide_through() {
    let r = rules("brandubh", &[("throne_pass", "all")]);
    let soldier = ACROSS_THE_THRONE;
    assert_legal(&r, soldier, Defenders, "d6-d2");
    assert_legal(&r, soldier, Defenders, "d6-d3");
    assert_legal(&r, soldier, Attackers, "d1-d5");
    let king = KING_ABOVE_THRONE.replace("2 . . . D . . .", "2 . . . . . . .");
    assert_legal(&r, &king, Defenders, "d6-d2");
}

#[test]
fn throne_pass_king_stops_soldiers_but_not_the_king() {
    let r = rules("brandubh", &[("throne_pass", "king")]);
    let e = assert_illegal(&r, ACROSS_THE_THRONE, Defenders, "d6-d2");
    assert!(e.contains("throne"), "{e}");
    assert_illegal(&r, ACROSS_THE_THRONE, Attackers, "d1-d5");
    assert_legal(&r, ACROSS_THE_THRONE, Defenders, "d6-d5");
    let king = KING_ABOVE_THRONE.replace("2 . . . D . . .", "2 . . . . . . .");
    assert_legal(&r, &king, Defenders, "d6-d2");
    // The traditional Brandubh file uses this value.
    assert_illegal(
        &rules("brandubh-traditional", &[]),
        ACROSS_THE_THRONE,
        Defenders,
        "d6-d2",
    );
}

#[test]
fn throne_pass_nobody_stops_everyone() {
    let r = rules("brandubh", &[("throne_pass", "nobody")]);
    assert_illegal(&r, ACROSS_THE_THRONE, Defenders, "d6-d2");
    assert_illegal(&r, ACROSS_THE_THRONE, Attackers, "d1-d5");
    let king = KING_ABOVE_THRONE.replace("2 . . . D . . .", "2 . . . . . . .");
    let e = assert_illegal(&r, &king, Defenders, "d6-d2");
    assert!(e.contains("throne"), "{e}");
    // But the king may still stop on it (throne_stop = king).
    assert_legal(&r, &king, Defenders, "d6-d4");
}

#[test]
fn illegal_moves_are_refused_with_a_reason() {
    let r = rules("brandubh", &[]);
    let board = "
        7 # . . . . . #
        6 . . . . . . .
        5 . A . . . . .
        4 . D . # . . .
        3 . . . . . . .
        2 . . . . . . .
        1 # A . . K . #
          a b c d e f g";
    // Through a piece.
    let e = assert_illegal(&r, board, Attackers, "b5-b2");
    assert!(e.contains("b4"), "{e}");
    // Onto an occupied square.
    assert_illegal(&r, board, Attackers, "b5-b4");
    // A soldier onto the throne (and the king may go there).
    let e = assert_illegal(&r, board, Defenders, "b4-d4");
    assert!(e.contains("throne"), "{e}");
    // A soldier onto a corner.
    let e = assert_illegal(&r, board, Attackers, "b1-a1");
    assert!(e.contains("corner"), "{e}");
    // Diagonal.
    let e = assert_illegal(&r, board, Attackers, "b5-c4");
    assert!(e.contains("rank or a file"), "{e}");
    // Moving the opponent's piece.
    let e = assert_illegal(&r, board, Attackers, "b4-c4");
    assert!(e.contains("defenders"), "{e}");
    assert_illegal(&r, board, Defenders, "b5-c5");
    // Moving the king when it is the attackers' turn.
    assert_illegal(&r, board, Attackers, "e1-e2");
    // From an empty square, and a move of zero length.
    assert_illegal(&r, board, Attackers, "c5-c6");
    assert_illegal(&r, board, Attackers, "b5-b5");
    // The king may stop on a corner.
    assert_legal(&r, board, Defenders, "e1-g1");
    assert_legal(&r, board, Defenders, "b4-c4");
    // Position::play refuses the same moves and leaves the position as it was.
    let p = pos(&r, board, Attackers);
    let mut q = p;
    assert!(q.play(&r, mv(&r, "b5-c4")).is_err());
    assert_eq!(q, p);
}

#[test]
fn the_board_diagram_round_trips() {
    let r = rules("brandubh", &[]);
    let p = Position::start(&r);
    let text = p.diagram(&r, &[]);
    let back = pos(&r, &text, Attackers);
    assert_eq!(back.pieces(), p.pieces(), "{text}");
    assert_eq!(
        text,
        " 7 # . . A . . #\n 6 . . . A . . .\n 5 . . . D . . .\n 4 A A D K D A A\n 3 . . . D . . .\n 2 . . . A . . .\n 1 # . . A . . #\n   a b c d e f g\n"
    );
}

// ---------------------------------------------------------------------------------------------
// no_moves and first
// ---------------------------------------------------------------------------------------------

const KING_BOXED_BEFORE: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . A . . . .
    2 . . . . . . .
    1 # A K A . . #
      a b c d e f g";
const KING_BOXED_AFTER: &str = "
    7 # . . . . . #
    6 . . . . . . .
    5 . . . . . . .
    4 . . . # . . .
    3 . . . . . . .
    2 . . A . . . .
    1 # A K A . . #
      a b c d e f g";

#[test]
fn no_moves_loses_defenders_without_a_move_lose() {
    // The king on the edge cannot be captured (strong), but he cannot move either.
    let r = rules("brandubh", &[("no_moves", "loses")]);
    check(
        &r,
        KING_BOXED_BEFORE,
        Attackers,
        "c3-c2",
        KING_BOXED_AFTER,
        win(Attackers, Reason::NoMoves),
    );
}

#[test]
fn no_moves_draw_ends_the_game_drawn() {
    let r = rules("brandubh", &[("no_moves", "draw")]);
    check(
        &r,
        KING_BOXED_BEFORE,
        Attackers,
        "c3-c2",
        KING_BOXED_AFTER,
        draw(Reason::NoMoves),
    );
}

#[test]
fn no_moves_is_a_draw_in_fetlar() {
    let r = rules("fetlar", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . A . . . . . . . .
        2 . . . . . . . . . . .
        1 # A K A . . . . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . A . . . . . . . .
        1 # A K A . . . . . . #
          a b c d e f g h i j k";
    check(&r, before, Attackers, "c3-c2", after, draw(Reason::NoMoves));
    // And through Game, which applies the same check.
    let mut g = Game::from_position(&r, pos(&r, before, Attackers));
    assert_eq!(g.play(&r, mv(&r, "c3-c2")).unwrap(), draw(Reason::NoMoves));
}

#[test]
fn attackers_without_a_move_lose() {
    // The defender lands on b2: b1 is now stuck (corner, c1, b2) but not captured, since b2
    // flanks it against the edge and only the mover captures (c1 and the corner do not act).
    let r = rules("brandubh", &[]);
    let before = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . K .
        4 . . . # . . .
        3 . . . . . . .
        2 . . . . . D .
        1 # A D . . . #
          a b c d e f g";
    let after = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . K .
        4 . . . # . . .
        3 . . . . . . .
        2 . D . . . . .
        1 # A D . . . #
          a b c d e f g";
    check(
        &r,
        before,
        Defenders,
        "f2-b2",
        after,
        win(Defenders, Reason::NoMoves),
    );
}

#[test]
fn a_game_starting_without_a_move_is_already_over() {
    let r = rules("brandubh", &[]);
    let g = Game::from_position(&r, pos(&r, KING_BOXED_AFTER, Defenders));
    assert_eq!(g.outcome(), win(Attackers, Reason::NoMoves));
    let r = rules("brandubh", &[("no_moves", "draw")]);
    let mut g = Game::from_position(&r, pos(&r, KING_BOXED_AFTER, Defenders));
    assert_eq!(g.outcome(), draw(Reason::NoMoves));
    assert!(
        g.play(&r, mv(&r, "c2-c3")).is_err(),
        "no move after the end of the game"
    );
}

#[test]
fn first_knob_decides_who_opens() {
    let r = rules("brandubh", &[("first", "attackers")]);
    let g = Game::new(&r);
    assert_eq!(g.position().to_move(), Side::Attackers);
    assert!(Game::new(&r).play(&r, mv(&r, "d2-c2")).is_ok());
    let r = rules("brandubh", &[("first", "defenders")]);
    let mut g = Game::new(&r);
    assert_eq!(g.position().to_move(), Side::Defenders);
    let e = g.play(&r, mv(&r, "d2-c2")).unwrap_err();
    assert!(e.reason.contains("attackers"), "{e}");
    assert!(g.play(&r, mv(&r, "d3-c3")).is_ok());
    assert_eq!(g.position().to_move(), Side::Attackers);
    // Every built-in ruleset has the attackers open.
    for id in tafl_engine::rules::BUILTIN_IDS {
        assert_eq!(Ruleset::builtin(id).file.first, Side::Attackers, "{id}");
    }
}

#[test]
fn ply_limit_ends_the_game_with_no_result() {
    let r = rules("brandubh", &[]);
    let mut g = Game::new(&r).with_ply_limit(Some(2));
    assert_eq!(g.play(&r, mv(&r, "d2-c2")).unwrap(), None);
    let o = g.play(&r, mv(&r, "d3-d2")).unwrap();
    assert_eq!(o, Some(tafl_engine::Outcome::no_result()));
    assert_eq!(g.ply_limit(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// Input that must be refused
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_move_text_is_refused() {
    for bad in [
        "", "e1", "e1-", "e1-e", "z1-e4", "e0-e4", "e1-e8", "1e-4e", "e1_e4", "e1-e4-", "e1-e4x", "e1-e4xz9",
        "e1 - e4", "e1--e4",
    ] {
        assert!(parse_move(7, bad).is_err(), "`{bad}` should be refused");
    }
    for good in ["e1-e4", "e1e4", "E1-E4", " e1-e4 ", "d5-d3xd2xc3"] {
        assert!(parse_move(7, good).is_ok(), "`{good}` should be accepted");
    }
    let (m, caps) = parse_move(7, "d5-d3xd2xc3").unwrap();
    assert_eq!(m.text(7), "d5-d3");
    assert_eq!(caps.len(), 2);
    assert_eq!(
        parse_move(7, "e1e4").unwrap().0,
        parse_move(7, "e1-e4").unwrap().0
    );
    // A rank past the board only exists on larger boards.
    assert!(parse_move(11, "k11-k10").is_ok());
    assert!(parse_move(9, "k11-k10").is_err());
}

#[test]
fn bad_diagrams_are_refused() {
    let r = rules("brandubh", &[]);
    let ok = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 . . . . . . .
        2 . . . . . . .
        1 # . . A . . #";
    assert!(Position::from_diagram(&r, ok, Side::Attackers).is_ok());
    let cases = [
        // One row short.
        ok.replace("\n        2 . . . . . . .", ""),
        // One row too many.
        format!("{ok}\n        . . . . . . ."),
        // A row too long, a row too short.
        ok.replace("5 . . . . . . .", "5 . . . . . . . ."),
        ok.replace("5 . . . . . . .", "5 . . . . . ."),
        // A character that is no square.
        ok.replace("5 . . . . . . .", "5 . . X . . . ."),
        // No king, two kings.
        ok.replace("4 . . . K . . .", "4 . . . # . . ."),
        ok.replace("5 . . . . . . .", "5 . K . . . . ."),
        // A soldier on a corner, a soldier on the throne.
        ok.replace("1 # . . A . . #", "1 A . . . . . #"),
        ok.replace("4 . . . K . . .", "4 . . . D . K ."),
        // Empty text.
        String::new(),
    ];
    for bad in &cases {
        assert_ne!(bad, ok, "test case did not change the diagram");
        assert!(
            Position::from_diagram(&r, bad, Side::Attackers).is_err(),
            "diagram should be refused:\n{bad}"
        );
    }
    // The parser alone refuses shape errors and unknown characters.
    assert!(parse_diagram(7, &cases[0]).is_err());
    assert!(parse_diagram(7, &cases[4]).is_err());
    // A 7x7 diagram is not a 9x9 one.
    let tablut = rules("tablut", &[]);
    assert!(Position::from_diagram(&tablut, ok, Side::Attackers).is_err());
}

// ---------------------------------------------------------------------------------------------
// Linnaean capture and the relaxed shieldwall (OpenTafl's `linc:y` and `swf:n`)
// ---------------------------------------------------------------------------------------------

/// The king on the throne, attackers on three of its sides, a defender on the fourth: an
/// attacker moving to the square beyond the defender takes him against the occupied throne.
const LINNAEAN_BEFORE: &str = "
    9 # . . . . . . . #
    8 . . . . . . . . .
    7 . . . . . . . . .
    6 . . . . A . . . .
    5 . . . A K A . . .
    4 . . . . D . . . .
    3 . . . . . . . A .
    2 . . . . . . . . .
    1 # . . . . . . . #
      a b c d e f g h i";

#[test]
fn linnaean_capture_takes_a_defender_against_the_king_on_the_throne() {
    let r = rules("tablut", &[("linnaean_capture", "yes")]);
    let after = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . A . . . .
        5 . . . A K A . . .
        4 . . . . . . . . .
        3 . . . . A . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    assert_eq!(check(&r, LINNAEAN_BEFORE, Attackers, "h3-e3", after, None), 1);
    // Without the knob the occupied throne is no jaw against defenders: nothing is taken.
    let plain = rules("tablut", &[]);
    let kept = after.replace("4 . . . . . . . . .", "4 . . . . D . . . .");
    assert_eq!(check(&plain, LINNAEAN_BEFORE, Attackers, "h3-e3", &kept, None), 0);
}

#[test]
fn linnaean_capture_needs_all_three_attackers_the_king_on_the_throne_and_an_attackers_move() {
    let r = rules("tablut", &[("linnaean_capture", "yes")]);
    // Two attackers beside the throne only (f5 is empty).
    let two = LINNAEAN_BEFORE.replace("5 . . . A K A . . .", "5 . . . A K . . . .");
    let after = two.replace("3 . . . . . . . A .", "3 . . . . A . . . .");
    assert_eq!(check(&r, &two, Attackers, "h3-e3", &after, None), 0);
    // The square beyond is reached by a defender: no capture of his own man.
    let defender_moves = LINNAEAN_BEFORE.replace("3 . . . . . . . A .", "3 . . . . . . . D .");
    let after = defender_moves.replace("3 . . . . . . . D .", "3 . . . . D . . . .");
    assert_eq!(check(&r, &defender_moves, Defenders, "h3-e3", &after, None), 0);
    // A throne is required.
    let mut rs = Ruleset::builtin("tawlbwrdd");
    let err = rs.set_knob("linnaean_capture", "yes").unwrap_err();
    assert!(err.contains("needs a throne"), "{err}");
}

/// Defenders d1 and e1 on the edge, bracketed by attackers c1 and f1; d2 holds an attacker
/// and e2 is empty, so the row is not yet enclosed.
const OPEN_WALL: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . K . . . . .
     5 . . . . A . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . A . . . . . . .
     1 # . A D D A . . . . #
       a b c d e f g h i j k";

#[test]
fn a_relaxed_shieldwall_is_taken_by_the_move_that_closes_its_front() {
    let closed = OPEN_WALL
        .replace("5 . . . . A . . . . . .", "5 . . . . . . . . . . .")
        .replace("2 . . . A . . . . . . .", "2 . . . A A . . . . . .");
    let taken = closed.replace("1 # . A D D A . . . . #", "1 # . A . . A . . . . #");
    // Copenhagen's shieldwall needs the bracketing move: closing the front takes nothing.
    let copenhagen = rules("copenhagen", &[]);
    assert_eq!(
        check(&copenhagen, OPEN_WALL, Attackers, "e5-e2", &closed, None),
        0
    );
    let relaxed = rules("copenhagen", &[("shieldwall", "relaxed")]);
    assert_eq!(check(&relaxed, OPEN_WALL, Attackers, "e5-e2", &taken, None), 2);
}

#[test]
fn a_relaxed_shieldwall_is_taken_by_any_move_of_the_enclosing_side() {
    // The defenders walked into the enclosed row; the attackers' next move, far away, takes it.
    let enclosed = OPEN_WALL
        .replace("5 . . . . A . . . . . .", "5 . . . . . . . . . . .")
        .replace("2 . . . A . . . . . . .", "2 . . . A A . . . . . .")
        .replace("10 . . . . . . . . . . .", "10 . . . . . . . . . A .");
    let moved = enclosed.replace("10 . . . . . . . . . A .", "10 . . . . . . . . A . .");
    let taken = moved.replace("1 # . A D D A . . . . #", "1 # . A . . A . . . . #");
    let relaxed = rules("copenhagen", &[("shieldwall", "relaxed")]);
    assert_eq!(check(&relaxed, &enclosed, Attackers, "j10-i10", &taken, None), 2);
    let copenhagen = rules("copenhagen", &[]);
    assert_eq!(
        check(&copenhagen, &enclosed, Attackers, "j10-i10", &moved, None),
        0
    );
    // A row of one is no shieldwall, relaxed or not.
    let single = enclosed.replace("1 # . A D D A . . . . #", "1 # . . A D A . . . . #");
    let single_moved = single.replace("10 . . . . . . . . . A .", "10 . . . . . . . . A . .");
    assert_eq!(
        check(&relaxed, &single, Attackers, "j10-i10", &single_moved, None),
        0
    );
}
