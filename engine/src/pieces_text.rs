//! Piece lists as text: OpenTafl position records, `/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/` (first
//! row = rank 1). Rules files, diagrams and game records all write start positions this way; it
//! needs only squares and pieces, so the rules data does not depend on positions or games.

use crate::error::ParseError;
use crate::side::Piece;
use crate::square::{square, Sq};

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

#[cfg(test)]
mod tests {
    use super::*;

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
