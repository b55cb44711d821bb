//! Moves and positions as text: moves (`e1-e4`, `d5-d3xd2xc3`) and positions as OpenTafl
//! records (the piece-list text itself is in `pieces_text`; game records in `game_record`).

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::ParseError;
use crate::game::{Game, Played};
use crate::pieces_text::{parse_position_record, pieces_record};
use crate::position::{Move, Position};
use crate::side::Side;
use crate::square::{parse_square_prefix, square_name, Sq};

/// Parses a move: `e1-e4`, `e1e4`, or with captures `d5-d3xd2xc3`. Returns the move and the
/// captures it names (empty when none are written).
pub fn parse_move(n: usize, text: &str) -> Result<(Move, Vec<Sq>), ParseError> {
    let t = text.trim();
    let shown = crate::input::quote(t);
    let (from, rest) = parse_square_prefix(n, t).map_err(|e| e.at(format!("move `{shown}`")))?;
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let (to, mut rest) = parse_square_prefix(n, rest).map_err(|e| e.at(format!("move `{shown}`")))?;
    let mut captures = Vec::new();
    while let Some(r) = rest.strip_prefix('x') {
        let (c, r) = parse_square_prefix(n, r).map_err(|e| e.at(format!("move `{shown}`")))?;
        captures.push(c);
        rest = r;
    }
    if !rest.is_empty() {
        return Err(ParseError::new(format!(
            "move `{shown}`: unexpected `{}`; write moves as `e1-e4` or `d5-d3xd2`",
            crate::input::quote(rest)
        )));
    }
    Ok((Move::new(from, to), captures))
}

/// Plays a move written as text in `game`: `e1-e4`, or with the captures it claims,
/// `d5-d3xd2xc3`. The move must be legal, and captures written after it must be exactly the
/// ones the rules make (a move written without captures is not checked). On an error the game
/// is left as it was. One rule for every move typed or recorded: game records, `tafl analyze
/// --moves`, `tafl play`.
pub fn play_text<B: BitSet>(rules: &Rules<B>, game: &mut Game<B>, text: &str) -> Result<(), ParseError> {
    let n = rules.n;
    let (mv, written) = parse_move(n, text)?;
    game.play(rules, mv).map_err(|e| ParseError::new(e.to_string()))?;
    let Some(&played) = game.history().last() else {
        return Ok(());
    };
    let made = played.captured;
    let written_set = written.iter().fold(B::EMPTY, |a, &s| a | B::single(s as usize));
    // The king's capture may be written or not (records differ); soldiers must be exact.
    let with_king = played
        .king_captured
        .map_or(made, |k| made | B::single(k as usize));
    if !written.is_empty() && written_set != made && written_set != with_king {
        game.undo(rules);
        let names = |squares: Vec<Sq>| {
            if squares.is_empty() {
                "nothing".to_string()
            } else {
                squares
                    .iter()
                    .map(|&s| square_name(n, s).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        return Err(ParseError::new(format!(
            "the move says it captures {}, the rules capture {}",
            names(written),
            names(played.captures())
        )));
    }
    Ok(())
}

/// A played move as text with its captures, the king's included: `d5-d3xd2xc3`.
pub fn played_text<B: BitSet>(n: usize, p: &Played<B>) -> String {
    let mut s = p.mv.text(n);
    for c in p.captures() {
        s.push('x');
        s.push_str(&square_name(n, c).to_string());
    }
    s
}

/// Writes an OpenTafl position record (first row = rank 1). For the board of a game, which
/// may have lost its king, [`board_record`] is the one to use.
pub fn position_record<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> String {
    pieces_record(rules.n, &pos.pieces())
}

/// The OpenTafl position record of a game's board as the game shows it ([`Game::board`]):
/// after the king's capture, without him. Such a record reads back as no position
/// ([`position_from_record`] refuses a board without a king), never as a game to go on with.
pub fn board_record<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> String {
    pieces_record(rules.n, &game.board())
}

/// A position from an OpenTafl record with `to_move` to play, checked against the rules.
pub fn position_from_record<B: BitSet>(
    rules: &Rules<B>,
    text: &str,
    to_move: Side,
) -> Result<Position<B>, ParseError> {
    let pieces = parse_position_record(rules.n, text)?;
    Position::from_pieces(rules, &pieces, to_move).map_err(ParseError::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_text_forms() {
        let (m, c) = parse_move(11, "d5-d3xd2xc3").unwrap();
        assert_eq!(m.text(11), "d5-d3");
        assert_eq!(c.len(), 2);
        assert_eq!(
            parse_move(11, "e1e4").unwrap().0,
            parse_move(11, "e1-e4").unwrap().0
        );
        for bad in ["", "e1", "e1-", "e1-z4", "e1-e4x", "e1-e4 e5", "e1--e4", "e1-e4y"] {
            assert!(parse_move(11, bad).is_err(), "{bad}");
        }
    }
}
