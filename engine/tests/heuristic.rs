//! The hand-written evaluation's terms, each on a diagram where its value can be counted by
//! hand, and the priors and values they produce.

use tafl_engine::{board::*, rules::*, search::*};

fn brandubh() -> Rules<u128> {
    Rules::new(&Ruleset::builtin("brandubh")).unwrap()
}

fn pos(r: &Rules<u128>, diagram: &str, to_move: Side) -> Position<u128> {
    Position::from_diagram(r, diagram, to_move).unwrap()
}

fn sq(r: &Rules<u128>, name: &str) -> usize {
    let b = name.as_bytes();
    (b[1] - b'1') as usize * r.n + (b[0] - b'a') as usize
}

/// The position's legal moves and the heuristic's evaluation of it (priors in move order).
fn evaluate(r: &Rules<u128>, p: &Position<u128>) -> (Vec<Move>, Evaluation) {
    let moves: Vec<Move> = p.moves(r).iter().copied().collect();
    let input = EvalInput {
        position: p,
        moves: &moves,
        occurrences: 1,
        ply: 0,
    };
    let e = Heuristic.evaluate(r, &[input]).remove(0);
    (moves, e)
}

#[test]
fn escape_routes_count_king_moves_with_the_board_as_it_stands() {
    let r = brandubh();
    // The king on c5 reaches no corner in one move; in two it reaches all four (a7 and a1 by
    // a5 or c7/c1, g7 by g5 or c7, g1 along the first rank); g3 blocks g5-g1 only.
    let p = pos(
        &r,
        "
        7 # . . . . . #
        6 . . . . . . .
        5 . . K . . . .
        4 . . . . . . .
        3 . . . . D . A
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g",
        Side::Defenders,
    );
    let f = Heuristic::features(&r, &p);
    assert_eq!(f.escapes_in_one, 0);
    assert_eq!(f.escapes_in_two, 4);
    assert_eq!(f.escape_distance, Some(2));
    assert_eq!(f.escapes, 4);
    assert_eq!(f.open_escapes, 4);

    // On the top edge with b7 open: a7 in one; c7 blocks nothing on the other side (g7 too).
    let p = pos(
        &r,
        "
        7 # . . . K . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . . . . .
        3 . . . . D . A
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g",
        Side::Attackers,
    );
    let f = Heuristic::features(&r, &p);
    assert_eq!(f.escapes_in_one, 2);
    assert_eq!(f.escape_distance, Some(1));
    // Two escapes in one with the attackers to move: the defenders win.
    assert!(Heuristic::defender_score(&r, &p) > 0.95);
}

/// Eight attackers box the king in: it keeps five squares and no escape square.
const BOXED: &str = "
    7 # . . . . . #
    6 . . . A . . .
    5 . . A . A . .
    4 . A . K . A .
    3 . . A . A . .
    2 . . . A . . .
    1 # . . . . . #
      a b c d e f g";

/// The same wall with d2 moved to a3: the king's region leaks to every corner.
const LEAKING: &str = "
    7 # . . . . . #
    6 . . . A . . .
    5 . . A . A . .
    4 . A . K . A .
    3 A . A . A . .
    2 . . . . . . .
    1 # . . . . . #
      a b c d e f g";

#[test]
fn a_wall_of_attackers_cuts_the_king_off_from_the_escape_squares() {
    let r = brandubh();
    let boxed = Heuristic::features(&r, &pos(&r, BOXED, Side::Defenders));
    assert_eq!(boxed.open_escapes, 0);
    assert!((boxed.king_region - 5.0 / 49.0).abs() < 1e-6);
    assert_eq!(boxed.escape_distance, None);
    // Nothing next to the king is hostile (the throne it stands on is occupied).
    assert_eq!(boxed.king_danger, 0.0);

    let leaking = Heuristic::features(&r, &pos(&r, LEAKING, Side::Defenders));
    assert_eq!(leaking.open_escapes, 4);
    assert!(leaking.king_region > 0.5);

    // The defenders are worse off boxed in than with the wall broken, material being equal.
    let b = Heuristic::defender_score(&r, &pos(&r, BOXED, Side::Defenders));
    let l = Heuristic::defender_score(&r, &pos(&r, LEAKING, Side::Defenders));
    assert!(b < l - 0.3, "boxed {b}, leaking {l}");
}

#[test]
fn attackers_on_a_corners_diagonal_seal_it() {
    let r = brandubh();
    // a3, b2 and c1 are the squares two steps from a1: the corner is sealed.
    let p = pos(
        &r,
        "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 A . . . . . .
        2 . A . . . . .
        1 # . A . . . #
          a b c d e f g",
        Side::Defenders,
    );
    let f = Heuristic::features(&r, &p);
    assert!((f.blockade - 3.0 / 12.0).abs() < 1e-6, "{}", f.blockade);
    assert_eq!(f.open_escapes, 3);
    // Two of the three: the corner is still reachable, the blockade counts them.
    let p2 = pos(
        &r,
        "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . K . . .
        3 A . . . . . .
        2 . A . . . . .
        1 # . . . . . #
          a b c d e f g",
        Side::Defenders,
    );
    let f2 = Heuristic::features(&r, &p2);
    assert!((f2.blockade - 2.0 / 12.0).abs() < 1e-6);
    assert_eq!(f2.open_escapes, 4);
}

#[test]
fn the_king_in_danger_and_a_capture_in_one() {
    let r = brandubh();
    // Three attackers around the king on c3; g2 can slide to c2 and close the fourth side.
    let threat = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . A . . . .
        3 . A K A . . .
        2 . . . . . . A
        1 # . . . . . #
          a b c d e f g";
    let p = pos(&r, threat, Side::Attackers);
    let f = Heuristic::features(&r, &p);
    assert!((f.king_danger - 0.75).abs() < 1e-6);
    assert!(f.king_capture_threat);
    assert!(Heuristic::defender_score(&r, &p) < -0.9);

    // A defender on e2 blocks the slide: no capture in one.
    let blocked = threat.replace("2 . . . . . . A", "2 . . . . D . A");
    let f = Heuristic::features(&r, &pos(&r, &blocked, Side::Attackers));
    assert!(!f.king_capture_threat);

    // A strong king on the edge cannot be captured: no danger whatever surrounds it.
    let edge = "
        7 # . . . . . #
        6 . . . . . . .
        5 A . . . . . .
        4 K A . . . . .
        3 A . . . . . .
        2 . . . . . . .
        1 # . . . . . #
          a b c d e f g";
    let f = Heuristic::features(&r, &pos(&r, edge, Side::Attackers));
    assert_eq!(f.king_danger, 0.0);
    assert!(!f.king_capture_threat);
}

#[test]
fn attackers_priors_favour_blocking_the_kings_run() {
    let r = brandubh();
    // The king on e7 threatens g7 over f7 (c7 shuts the other side); f2 can block on f7.
    let p = pos(
        &r,
        "
        7 # . A . K . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . . . . .
        3 . . . D . . .
        2 . . . . . A .
        1 # . . . . . #
          a b c d e f g",
        Side::Attackers,
    );
    let (moves, e) = evaluate(&r, &p);
    let best = moves
        .iter()
        .zip(&e.priors)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap()
        .0;
    assert_eq!(
        (best.from as usize, best.to as usize),
        (sq(&r, "f2"), sq(&r, "f7"))
    );
    assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn defenders_priors_favour_king_runs_that_threaten_an_escape() {
    let r = brandubh();
    // The king on c5: c7 and a5 threaten corners next move; other moves do not.
    let p = pos(
        &r,
        "
        7 # . . . . . #
        6 . A . . . . .
        5 . . K . . . .
        4 . . . . . . .
        3 . . . . D . A
        2 . . . A . . .
        1 # . A . . A #
          a b c d e f g",
        Side::Defenders,
    );
    let (moves, e) = evaluate(&r, &p);
    let prior = |from: &str, to: &str| {
        let i = moves
            .iter()
            .position(|m| m.from as usize == sq(&r, from) && m.to as usize == sq(&r, to))
            .unwrap();
        e.priors[i]
    };
    // c7 threatens g7 (d7-f7 open); c4 threatens nothing.
    assert!(prior("c5", "c7") > prior("c5", "c4"));
    // A king move that threatens an escape beats any soldier move.
    assert!(prior("c5", "c7") > prior("e3", "e4"));
}
