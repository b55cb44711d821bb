//! Shared helpers for the rules tests: build a ruleset with knobs, read diagrams, play one move
//! and compare the board after it with an expected diagram.
#![allow(dead_code)]

use tafl_engine::{
    formats::{parse_diagram, parse_move, write_diagram},
    Game, Move, Outcome, Piece, Position, Reason,
};
use tafl_engine::{Rules, Ruleset, Side, Sq};

pub use tafl_engine::Side::{Attackers, Defenders};

/// A built-in ruleset with some knobs changed.
pub fn rules(id: &str, knobs: &[(&str, &str)]) -> Rules<u128> {
    let mut rs = Ruleset::builtin(id);
    for (k, v) in knobs {
        rs.set_knob(k, v)
            .unwrap_or_else(|e| panic!("{id}: set_knob({k}, {v}): {e}"));
    }
    Rules::new(&rs).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// A position from a diagram, panicking with the reason when it is refused.
pub fn pos(rules: &Rules<u128>, diagram: &str, to_move: Side) -> Position<u128> {
    Position::from_diagram(rules, diagram, to_move)
        .unwrap_or_else(|e| panic!("diagram refused: {e}\n{diagram}"))
}

/// A move from text.
pub fn mv(rules: &Rules<u128>, text: &str) -> Move {
    parse_move(rules.n, text)
        .unwrap_or_else(|e| panic!("bad move text {text}: {e}"))
        .0
}

/// The pieces of a diagram in square order.
pub fn sorted_pieces(rules: &Rules<u128>, diagram: &str) -> Vec<(Sq, Piece)> {
    let mut v = parse_diagram(rules.n, diagram).unwrap_or_else(|e| panic!("bad diagram: {e}\n{diagram}"));
    v.sort_by_key(|x| x.0);
    v
}

/// A diagram normalised through the engine's writer (coordinates, `#` on special squares).
pub fn normalized(rules: &Rules<u128>, diagram: &str) -> String {
    write_diagram(&rules.ruleset, &sorted_pieces(rules, diagram), &[])
}

pub fn win(side: Side, reason: Reason) -> Option<Outcome> {
    Some(Outcome::win(side, reason))
}

pub fn draw(reason: Reason) -> Option<Outcome> {
    Some(Outcome::draw(reason))
}

/// Plays `text` from `before` with `to_move` to move and checks the board after it against
/// `after` and the outcome of `Position::play` against `outcome`. Returns the number of
/// soldiers the move captured.
pub fn check(
    rules: &Rules<u128>,
    before: &str,
    to_move: Side,
    text: &str,
    after: &str,
    outcome: Option<Outcome>,
) -> u32 {
    let start = pos(rules, before, to_move);
    let m = mv(rules, text);
    let mut p = start;
    let (effect, got) = p.play(rules, m).unwrap_or_else(|e| {
        panic!(
            "[{}] {text} refused: {e}\nbefore ({to_move} to move):\n{}",
            rules.ruleset.id(),
            start.diagram(rules, &[])
        )
    });
    let want = sorted_pieces(rules, after);
    assert!(
        p.pieces() == want && got == outcome && p.to_move() == to_move.opponent(),
        "[{}] {text} from\n{}expected\n{}with outcome {:?}\ngot\n{}with outcome {:?} (captured {} soldiers, {} to move)",
        rules.ruleset.id(),
        start.diagram(rules, &[]),
        normalized(rules, after),
        outcome,
        p.diagram(rules, &[]),
        got,
        effect.captured.count_ones(),
        p.to_move(),
    );
    effect.captured.count_ones()
}

/// Whether `text` is legal from `diagram`; also checks that the move generator agrees with
/// `check_move`.
pub fn legality(rules: &Rules<u128>, diagram: &str, to_move: Side, text: &str) -> Result<(), String> {
    let p = pos(rules, diagram, to_move);
    let m = mv(rules, text);
    let checked = p.check_move(rules, m);
    let generated = p.moves(rules).contains(&m);
    assert_eq!(
        checked.is_ok(),
        generated,
        "[{}] {text}: check_move says {checked:?} but the move generator {} it\n{}",
        rules.ruleset.id(),
        if generated { "lists" } else { "does not list" },
        p.diagram(rules, &[])
    );
    assert_eq!(p.is_legal(rules, m), generated, "is_legal disagrees for {text}");
    checked
}

/// Asserts that `text` is legal from `diagram`.
pub fn assert_legal(rules: &Rules<u128>, diagram: &str, to_move: Side, text: &str) {
    if let Err(e) = legality(rules, diagram, to_move, text) {
        panic!(
            "[{}] {text} should be legal but: {e}\n{}",
            rules.ruleset.id(),
            normalized(rules, diagram)
        );
    }
}

/// Asserts that `text` is illegal from `diagram`; returns the reason.
pub fn assert_illegal(rules: &Rules<u128>, diagram: &str, to_move: Side, text: &str) -> String {
    match legality(rules, diagram, to_move, text) {
        Ok(()) => panic!(
            "[{}] {text} should be illegal\n{}",
            rules.ruleset.id(),
            normalized(rules, diagram)
        ),
        Err(e) => e,
    }
}

/// Plays a list of moves in a game, checking the outcome after each: `None` until the last.
/// Returns the outcome after the last move.
pub fn play_all(rules: &Rules<u128>, game: &mut Game<u128>, moves: &[&str]) -> Option<Outcome> {
    let mut last = None;
    for (i, text) in moves.iter().enumerate() {
        assert!(
            last.is_none(),
            "[{}] game ended early with {last:?} before ply {}",
            rules.ruleset.id(),
            i + 1
        );
        last = game
            .play(rules, mv(rules, text))
            .unwrap_or_else(|e| panic!("ply {} {text}: {e}", i + 1));
        assert_eq!(last, game.outcome());
    }
    last
}
