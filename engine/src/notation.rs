//! Text in and out: moves (`e1-e4`, `d5-d3xd2xc3`), OpenTafl position records, game records.
//!
//! A game record is a few tags and a move list:
//! ```text
//! [Rules "brandubh"]
//! [Result "defenders"]
//! 1. d1-b1 d3-b3 2. a4-a2 ...
//! ```
//! Optional tags `Position` (an OpenTafl record) and `ToMove` start the game elsewhere.
//! Move numbers are optional when reading; captures after a move are checked when replaying.

use crate::bitset::BitSet;
use crate::error::ParseError;
use crate::game::{Game, Played};
use crate::position::{Move, Position};
use crate::rules::Rules;
use crate::side::{Piece, Side};
use crate::square::{parse_square_prefix, square, square_name, Sq};

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
    let Some(played) = game.moves().last() else {
        return Ok(());
    };
    let made = played.captured;
    let written_set = written.iter().fold(B::EMPTY, |a, &s| a | B::single(s as usize));
    if !written.is_empty() && written_set != made {
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
            names(made.squares().map(|s| s as Sq).collect())
        )));
    }
    Ok(())
}

/// A played move as text with its captures: `d5-d3xd2xc3`.
pub fn played_text<B: BitSet>(n: usize, p: &Played<B>) -> String {
    let mut s = p.mv.text(n);
    for c in p.captured.squares() {
        s.push('x');
        s.push_str(&square_name(n, c as Sq).to_string());
    }
    s
}

/// Parses an OpenTafl position record, first row = rank 1: `/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/`.
/// `t` attacker, `T` defender, `K` king, numbers are runs of empty squares.
pub fn parse_position_record(n: usize, text: &str) -> Result<Vec<(Sq, Piece)>, ParseError> {
    let t = text.trim();
    let inner = t
        .strip_prefix('/')
        .and_then(|s| s.strip_suffix('/'))
        .ok_or_else(|| {
            ParseError::new(format!(
                "position record `{}` must start and end with `/`",
                crate::input::quote(t)
            ))
        })?;
    let rows: Vec<&str> = inner.split('/').collect();
    if rows.len() != n {
        return Err(ParseError::new(format!(
            "position record has {} rows, a {n}x{n} board needs {n}",
            rows.len()
        )));
    }
    let mut pieces = Vec::new();
    for (rank, row) in rows.iter().enumerate() {
        let mut file = 0usize;
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                let mut run = d as usize;
                while let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                    run = run.saturating_mul(10).saturating_add(d2 as usize);
                    chars.next();
                }
                if run == 0 {
                    return Err(ParseError::new(format!(
                        "position record row {}: a run of 0 squares",
                        rank + 1
                    )));
                }
                file = file.saturating_add(run);
            } else {
                let p = match c {
                    't' => Piece::Attacker,
                    'T' => Piece::Defender,
                    'K' | 'k' => Piece::King,
                    other => {
                        return Err(ParseError::new(format!(
                            "position record row {}: `{}` is not a piece; use t, T, K or a number",
                            rank + 1,
                            other.escape_default()
                        )))
                    }
                };
                if file < n {
                    pieces.push((square(n, file, rank), p));
                }
                file += 1;
            }
            if file > n {
                return Err(ParseError::new(format!(
                    "position record row {} is longer than {n} squares",
                    rank + 1
                )));
            }
        }
        if file != n {
            return Err(ParseError::new(format!(
                "position record row {} has {file} squares, expected {n}",
                rank + 1
            )));
        }
    }
    Ok(pieces)
}

/// Writes an OpenTafl position record (first row = rank 1).
pub fn position_record<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> String {
    pieces_record(rules.n, &pos.pieces())
}

/// An OpenTafl position record (first row = rank 1) of a list of pieces on an `n x n` board.
pub fn pieces_record(n: usize, pieces: &[(Sq, Piece)]) -> String {
    let mut grid = vec![None; n * n];
    for &(sq, p) in pieces {
        if let Some(cell) = grid.get_mut(sq as usize) {
            *cell = Some(p);
        }
    }
    let mut out = String::from("/");
    for rank in 0..n {
        let mut empty = 0;
        for file in 0..n {
            match grid[square(n, file, rank) as usize] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(match p {
                        Piece::Attacker => 't',
                        Piece::Defender => 'T',
                        Piece::King => 'K',
                    });
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        out.push('/');
    }
    out
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

/// A game record: tags and moves, not yet checked against any rules.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameRecord {
    /// `[Key "Value"]` tags in file order.
    pub tags: Vec<(String, String)>,
    /// Move texts in order (with or without captures).
    pub moves: Vec<String>,
}

impl GameRecord {
    /// The value of a tag.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Parses record text; errors name the line.
    pub fn parse(text: &str) -> Result<GameRecord, ParseError> {
        let mut rec = GameRecord::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            let at = format!("game record line {}", i + 1);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(body) = line.strip_prefix('[') {
                let body = body
                    .strip_suffix(']')
                    .ok_or_else(|| ParseError::new("a tag must end with `]`").at(&at))?;
                let (key, value) = body
                    .split_once(' ')
                    .ok_or_else(|| ParseError::new("a tag is `[Key \"Value\"]`").at(&at))?;
                let value = value
                    .trim()
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .ok_or_else(|| ParseError::new("a tag's value is in double quotes").at(&at))?;
                if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(
                        ParseError::new(format!("`{}` is not a tag name", crate::input::quote(key))).at(&at),
                    );
                }
                rec.tags.push((key.to_string(), value.to_string()));
                continue;
            }
            for tok in line.split_whitespace() {
                let is_number =
                    tok.ends_with('.') && tok[..tok.len() - 1].chars().all(|c| c.is_ascii_digit());
                if !is_number {
                    rec.moves.push(tok.to_string());
                }
            }
        }
        Ok(rec)
    }

    /// Replays the record under `rules`: every move must be legal, and captures written in
    /// the record must be the ones the rules make. Errors name the move number.
    pub fn replay<B: BitSet>(&self, rules: &Rules<B>) -> Result<Game<B>, ParseError> {
        if let Some(id) = self.tag("Rules") {
            if id != rules.ruleset.id() {
                return Err(ParseError::new(format!(
                    "the record is for rules `{}`, not `{}`",
                    crate::input::quote(id),
                    rules.ruleset.id()
                )));
            }
        }
        let to_move = match self.tag("ToMove") {
            None => rules.ruleset.file.first,
            Some("attackers") => Side::Attackers,
            Some("defenders") => Side::Defenders,
            Some(other) => {
                return Err(ParseError::new(format!(
                    "tag ToMove: `{}` is not allowed; allowed values: attackers, defenders",
                    crate::input::quote(other)
                )))
            }
        };
        let start = match self.tag("Position") {
            None => Position::start(rules),
            Some(rec) => position_from_record(rules, rec, to_move).map_err(|e| e.at("tag Position"))?,
        };
        let mut game = Game::from_position(rules, start);
        if let Some(limit) = self.tag("PlyLimit") {
            let l: u32 = limit.parse().map_err(|_| {
                ParseError::new(format!(
                    "tag PlyLimit: `{}` is not a number",
                    crate::input::quote(limit)
                ))
            })?;
            game = game.with_ply_limit(Some(l));
        }
        for (i, text) in self.moves.iter().enumerate() {
            let at = format!("move {} (`{}`)", i + 1, crate::input::quote(text));
            play_text(rules, &mut game, text).map_err(|e| e.at(&at))?;
        }
        Ok(game)
    }

    /// The record of a game: rules, result, start position when it is not the rules' own, and
    /// the moves with their captures.
    pub fn from_game<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> GameRecord {
        let mut tags = vec![("Rules".to_string(), rules.ruleset.id().to_string())];
        if *game.start() != Position::start(rules) {
            tags.push(("Position".into(), position_record(rules, game.start())));
            tags.push(("ToMove".into(), game.start().to_move().name().into()));
        }
        if let Some(l) = game.ply_limit() {
            tags.push(("PlyLimit".into(), l.to_string()));
        }
        if let Some(o) = game.outcome() {
            tags.push(("Result".into(), o.result_text().into()));
            tags.push(("Termination".into(), o.reason.name().into()));
        }
        let moves = game.moves().iter().map(|p| played_text(rules.n, p)).collect();
        GameRecord { tags, moves }
    }

    /// The record as text, two plies to a numbered line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.tags {
            out.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        for (i, pair) in self.moves.chunks(2).enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, pair.join(" ")));
        }
        out
    }
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

    #[test]
    fn bad_position_records_fail() {
        for bad in [
            "",
            "3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "/3t3/",
            "/3t4/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "/3x3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "/0t6/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        ] {
            assert!(parse_position_record(7, bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_position_record(7, "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
                .unwrap()
                .len(),
            13
        );
    }
}
