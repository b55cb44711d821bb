//! The Copenhagen additions of RULES.md: shieldwall, exit fort, encirclement and repetition,
//! each asserted with a before/after diagram (repetition through `Game`).

mod common;

use common::*;
use tafl_engine::{Game, Outcome, Reason, Rules};

// ---------------------------------------------------------------------------------------------
// Shieldwall
// ---------------------------------------------------------------------------------------------

#[test]
fn shieldwall_captured_between_two_brackets() {
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . A . . . .
        2 . . . A A A . . . . .
        1 # . A D D D . . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . A A A . . . . .
        1 # . A . . . A . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, before, Attackers, "g3-g1", after, None), 3);
    // Without the shieldwall rule the same move takes nothing.
    let plain = rules("copenhagen", &[("shieldwall", "no")]);
    let unchanged = after.replace("1 # . A . . . A . . . #", "1 # . A D D D A . . . #");
    assert_eq!(check(&plain, before, Attackers, "g3-g1", &unchanged, None), 0);
}

#[test]
fn shieldwall_captured_against_a_corner() {
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . A . . . . . .
        2 . A A A . . . . . . .
        1 # D D D . . . . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . A A A . . . . . . .
        1 # . . . A . . . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, before, Attackers, "e3-e1", after, None), 3);
}

#[test]
fn shieldwall_with_the_king_in_the_row_takes_the_soldiers_only() {
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . A . . . .
        2 . . . A A A . . . . .
        1 # . A D K D . . . . #
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
        2 . . . A A A . . . . .
        1 # . A . K . A . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, before, Attackers, "g3-g1", after, None), 2);
}

#[test]
fn shieldwall_refused_when_the_mover_is_not_a_bracket() {
    // Both brackets already stand; the move that completes the inward row closes nothing.
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . A . . . . .
        2 . . . A A . . . . . .
        1 # . A D D D A . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . A A A . . . . .
        1 # . A D D D A . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, before, Attackers, "f3-f2", after, None), 0);
}

#[test]
fn shieldwall_refused_when_a_member_has_no_enemy_in_front() {
    // e1 has no attacker on e2: the whole wall stands.
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . A . . . .
        2 . . . A . A . . . . .
        1 # . A D D D . . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . K . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . A . A . . . . .
        1 # . A D D D A . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, before, Attackers, "g3-g1", after, None), 0);
    // A defender in front instead of an attacker does not help either.
    let before_d = before.replace("2 . . . A . A . . . . .", "2 . . . A D A . . . . .");
    let after_d = after.replace("2 . . . A . A . . . . .", "2 . . . A D A . . . . .");
    assert_eq!(check(&r, &before_d, Attackers, "g3-g1", &after_d, None), 0);
}

const DEFENDER_WALL: &str = "
   11 # . . . . . . . . . #
   10 . . . . . . . . . . .
    9 . . . . . . . . . A .
    8 . . . . . . . . . . .
    7 . . . . . . . . . . .
    6 . . . . . # . . . . .
    5 . . . . . . . . . . .
    4 . . . . . . . . . . .
    3 . . . . . D . . . . .
    2 . . . D D . . . . . .
    1 # . K A A . . . . . #
      a b c d e f g h i j k";

#[test]
fn shieldwall_by_defenders_with_the_armed_king_as_far_bracket() {
    let r = rules("copenhagen", &[]);
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . . A .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . D D . . . . . .
        1 # . K . . D . . . . #
          a b c d e f g h i j k";
    assert_eq!(check(&r, DEFENDER_WALL, Defenders, "f3-f1", after, None), 2);
    // With a king who only captures as the mover, he is no bracket.
    let hammer = rules("copenhagen", &[("king_armed", "hammer")]);
    let kept = after.replace("1 # . K . . D . . . . #", "1 # . K A A D . . . . #");
    assert_eq!(check(&hammer, DEFENDER_WALL, Defenders, "f3-f1", &kept, None), 0);
}

// ---------------------------------------------------------------------------------------------
// Exit fort
// ---------------------------------------------------------------------------------------------

#[test]
fn exit_fort_wins() {
    // After f5-f3 the king (f1) and the empty f2 are walled in by e1 g1 e2 g2 f3, with e3
    // covering f3: no wall piece can be captured, and the king can still move to f2.
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . D . . . . .
        4 . . . . . . . . . . .
        3 . . . . D . . . . . .
        2 . . . . D . D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . D D . . . . .
        2 . . . . D . D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    check(
        &r,
        before,
        Defenders,
        "f5-f3",
        after,
        win(Defenders, Reason::ExitFort),
    );
    // The knob turns it off.
    let off = rules("copenhagen", &[("exit_fort", "no")]);
    check(&off, before, Defenders, "f5-f3", after, None);
}

#[test]
fn exit_fort_does_not_win_when_a_wall_piece_can_be_captured() {
    // Without e3, f3 could be taken by attackers on e3 and g3.
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . D . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . . D . D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . D . . . . .
        2 . . . . D . D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    check(&r, before, Defenders, "f5-f3", after, None);
}

#[test]
fn exit_fort_does_not_win_when_an_attacker_touches_the_fort() {
    // The fort of `exit_fort_wins`, but an attacker stands on g2, next to the king's room f2.
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . D . . . . .
        4 . . . . . . . . . . .
        3 . . . . D . . . . . .
        2 . . . . D . A . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . D D . . . . .
        2 . . . . D . A . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    check(&r, before, Defenders, "f5-f3", after, None);
}

#[test]
fn exit_fort_does_not_win_when_the_king_cannot_move() {
    let r = rules("copenhagen", &[]);
    let before = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . D . . . . .
        3 . . . . . . . . . . .
        2 . . . . D . D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    let after = "
       11 # . . . . . . . . . #
       10 . . . . . . . . . . .
        9 . . . . . . . . A . .
        8 . . . . . . . . . . .
        7 . . . . . . . . . . .
        6 . . . . . # . . . . .
        5 . . . . . . . . . . .
        4 . . . . . . . . . . .
        3 . . . . . . . . . . .
        2 . . . . D D D . . . .
        1 # . . . D K D . . . #
          a b c d e f g h i j k";
    check(&r, before, Defenders, "f4-f2", after, None);
}

// ---------------------------------------------------------------------------------------------
// Encirclement
// ---------------------------------------------------------------------------------------------

const RING_BEFORE: &str = "
   11 # . . . . . . . . . #
   10 . . . . . . . . . . .
    9 . . . . . . . . . . .
    8 . . . . . A . . . . .
    7 . . . . A D A . . . .
    6 . . . A . K . A . . .
    5 . . . . A . A . . . .
    4 . . . . . . . . . . .
    3 . . . . . . . . . . .
    2 . . . . . A . . . . .
    1 # . . . . . . . . . #
      a b c d e f g h i j k";
const RING_AFTER: &str = "
   11 # . . . . . . . . . #
   10 . . . . . . . . . . .
    9 . . . . . . . . . . .
    8 . . . . . A . . . . .
    7 . . . . A D A . . . .
    6 . . . A . K . A . . .
    5 . . . . A . A . . . .
    4 . . . . . A . . . . .
    3 . . . . . . . . . . .
    2 . . . . . . . . . . .
    1 # . . . . . . . . . #
      a b c d e f g h i j k";

#[test]
fn encirclement_wins() {
    let r = rules("copenhagen", &[]);
    check(
        &r,
        RING_BEFORE,
        Attackers,
        "f2-f4",
        RING_AFTER,
        win(Attackers, Reason::Encirclement),
    );
    let off = rules("copenhagen", &[("encirclement", "no")]);
    check(&off, RING_BEFORE, Attackers, "f2-f4", RING_AFTER, None);
}

#[test]
fn encirclement_broken_by_a_defender_on_the_edge() {
    let r = rules("copenhagen", &[]);
    let before = RING_BEFORE.replace("1 # . . . . . . . . . #", "1 # . D . . . . . . . #");
    let after = RING_AFTER.replace("1 # . . . . . . . . . #", "1 # . D . . . . . . . #");
    check(&r, &before, Attackers, "f2-f4", &after, None);
}

#[test]
fn encirclement_broken_by_a_defender_outside_the_ring() {
    let r = rules("copenhagen", &[]);
    let before = RING_BEFORE.replace("3 . . . . . . . . . . .", "3 . . D . . . . . . . .");
    let after = RING_AFTER.replace("3 . . . . . . . . . . .", "3 . . D . . . . . . . .");
    check(&r, &before, Attackers, "f2-f4", &after, None);
}

// ---------------------------------------------------------------------------------------------
// Repetition
// ---------------------------------------------------------------------------------------------

/// From the 11x11 start: one attacker and one defender shuffle back and forth.
const SHUFFLE_ATTACKERS_FIRST: [&str; 4] = ["d11-d9", "f8-c8", "d9-d11", "c8-f8"];
const SHUFFLE_DEFENDERS_FIRST: [&str; 4] = ["f8-c8", "d11-d9", "c8-f8", "d9-d11"];

/// Plays the shuffle twice (8 plies). The start position recurs after ply 4 (second time) and
/// ply 8 (third time). Checks that nothing happens before ply 8; returns ply 8's outcome.
fn third_occurrence(r: &Rules<u128>, cycle: &[&str; 4]) -> Option<Outcome> {
    let mut g = Game::new(r);
    let start = *g.position();
    for ply in 1..=8 {
        let text = cycle[(ply - 1) % 4];
        let o = g
            .play(r, mv(r, text))
            .unwrap_or_else(|e| panic!("[{}] ply {ply} {text}: {e}", r.ruleset.id()));
        assert_eq!(o, g.outcome());
        if ply == 4 {
            assert_eq!(*g.position(), start, "the shuffle does not return to the start");
            assert_eq!(g.occurrences(), 2);
        }
        if ply < 8 {
            assert_eq!(
                o,
                None,
                "[{}] ended at ply {ply} (occurrence {}):\n{}",
                r.ruleset.id(),
                g.occurrences(),
                g.position().diagram(r, &[])
            );
        } else {
            assert_eq!(g.occurrences(), 3);
            // The game is over: no more moves.
            assert!(g.play(r, mv(r, cycle[0])).is_err());
            return o;
        }
    }
    unreachable!()
}

#[test]
fn repetition_defenders_lose_on_the_third_occurrence_whoever_repeats() {
    // Copenhagen's own value.
    let r = rules("copenhagen", &[]);
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_ATTACKERS_FIRST),
        win(Attackers, Reason::Repetition)
    );
    let r = rules("copenhagen", &[("first", "defenders")]);
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_DEFENDERS_FIRST),
        win(Attackers, Reason::Repetition)
    );
}

#[test]
fn repetition_draw_on_the_third_occurrence() {
    let r = rules("fetlar", &[]);
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_ATTACKERS_FIRST),
        draw(Reason::Repetition)
    );
    let r = rules("copenhagen", &[("repetition", "draw"), ("first", "defenders")]);
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_DEFENDERS_FIRST),
        draw(Reason::Repetition)
    );
}

#[test]
fn repetition_mover_loses_on_the_third_occurrence() {
    // Ply 8 is a defender move when the attackers open ...
    let r = rules("copenhagen", &[("repetition", "mover_loses")]);
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_ATTACKERS_FIRST),
        win(Attackers, Reason::Repetition)
    );
    // ... and an attacker move when the defenders open.
    let r = rules(
        "copenhagen",
        &[("repetition", "mover_loses"), ("first", "defenders")],
    );
    assert_eq!(
        third_occurrence(&r, &SHUFFLE_DEFENDERS_FIRST),
        win(Defenders, Reason::Repetition)
    );
}

#[test]
fn repetition_ignore_plays_on() {
    let r = rules("copenhagen", &[("repetition", "ignore")]);
    let mut g = Game::new(&r);
    for ply in 1..=16 {
        let text = SHUFFLE_ATTACKERS_FIRST[(ply - 1) % 4];
        assert_eq!(g.play(&r, mv(&r, text)).unwrap(), None, "ply {ply}");
    }
    assert_eq!(g.occurrences(), 5);
    assert_eq!(g.outcome(), None);
    // hnefatafl's file ignores repetition too.
    let r = rules("hnefatafl", &[]);
    let mut g = Game::new(&r);
    let moves: Vec<&str> = SHUFFLE_ATTACKERS_FIRST.iter().cycle().take(12).copied().collect();
    assert_eq!(play_all(&r, &mut g, &moves), None);
}
