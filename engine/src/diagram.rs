//! Board diagrams, the notation of `RULES.md`:
//!
//! ```text
//!  7 # . . A . . #
//!  6 . . . A . . .
//!  5 . . . D . . .
//!  4 A A D K D A A
//!  3 . . . D . . .
//!  2 . . . A . . .
//!  1 # . . A . . #
//!    a b c d e f g
//! ```
//! Top rank first; `A` attacker, `D` defender, `K` king, `.` empty, `#` empty special square.
//! Rank numbers on the left and the file letters below are optional when reading.

use crate::error::ParseError;
use crate::pieces_text::parse_position_record;
use crate::ruleset::Ruleset;
use crate::side::Piece;
use crate::square::{square, Sq};

/// A start position's pieces and the squares its diagram marks `#`.
pub(crate) type MarkedSetup = (Vec<(Sq, Piece)>, Vec<Sq>);

/// Reads a start position: a diagram, or an OpenTafl record when `record` is true. Also
/// returns the squares a diagram marks `#` (special squares), which the rules must confirm.
pub(crate) fn parse_setup(n: usize, text: &str, record: bool) -> Result<MarkedSetup, ParseError> {
    if record {
        Ok((parse_position_record(n, text)?, Vec::new()))
    } else {
        parse_diagram_marked(n, text)
    }
}

/// Reads the pieces of an `n x n` diagram.
pub fn parse_diagram(n: usize, text: &str) -> Result<Vec<(Sq, Piece)>, ParseError> {
    parse_diagram_marked(n, text).map(|(pieces, _)| pieces)
}

/// Reads the pieces of an `n x n` diagram and the squares it marks `#`.
fn parse_diagram_marked(n: usize, text: &str) -> Result<MarkedSetup, ParseError> {
    let footer: String = (0..n).map(|i| (b'a' + i as u8) as char).collect();
    let mut rows: Vec<(usize, Vec<char>)> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let compact: String = trimmed.chars().filter(|c| !c.is_whitespace()).collect();
        if compact == footer {
            continue;
        }
        let body = trimmed.trim_start_matches(|c: char| c.is_ascii_digit());
        let cells: Vec<char> = body.chars().filter(|c| !c.is_whitespace()).collect();
        rows.push((lineno + 1, cells));
    }
    if rows.len() != n {
        return Err(ParseError::new(format!(
            "a {n}x{n} diagram needs {n} rows, found {}",
            rows.len()
        )));
    }
    let mut pieces = Vec::new();
    let mut marked = Vec::new();
    for (i, (lineno, cells)) in rows.iter().enumerate() {
        if cells.len() != n {
            return Err(ParseError::new(format!(
                "diagram line {lineno}: expected {n} squares, found {}",
                cells.len()
            )));
        }
        let rank = n - 1 - i;
        for (file, &c) in cells.iter().enumerate() {
            let piece = match c {
                'A' | 'a' | 't' => Some(Piece::Attacker),
                'D' | 'd' | 'T' => Some(Piece::Defender),
                'K' | 'k' => Some(Piece::King),
                '.' => None,
                '#' => {
                    marked.push(square(n, file, rank));
                    None
                }
                other => {
                    return Err(ParseError::new(format!(
                        "diagram line {lineno}: `{}` is not a square; use A, D, K, . or #",
                        other.escape_default()
                    )))
                }
            };
            if let Some(p) = piece {
                pieces.push((square(n, file, rank), p));
            }
        }
    }
    Ok((pieces, marked))
}

/// Writes a diagram of `pieces` on the board of `rules`, with coordinates.
pub fn write_diagram(rules: &Ruleset, pieces: &[(Sq, Piece)], marks: &[Sq]) -> String {
    let n = rules.size();
    let mut grid = vec!['.'; n * n];
    for &sq in rules.corners.iter().chain(rules.throne.iter()) {
        grid[sq as usize] = '#';
    }
    for &(sq, p) in pieces {
        grid[sq as usize] = match p {
            Piece::Attacker => 'A',
            Piece::Defender => 'D',
            Piece::King => 'K',
        };
    }
    let mut out = String::new();
    for rank in (0..n).rev() {
        out.push_str(&format!("{:>2}", rank + 1));
        let marked = |file: usize| marks.contains(&square(n, file, rank));
        for file in 0..n {
            // Brackets replace the separating spaces so columns stay aligned.
            let after_mark = file > 0 && marked(file - 1);
            out.push(match (after_mark, marked(file)) {
                (true, true) => '|',
                (false, true) => '[',
                (true, false) => ']',
                (false, false) => ' ',
            });
            out.push(grid[square(n, file, rank) as usize]);
        }
        if marked(n - 1) {
            out.push(']');
        }
        out.push('\n');
    }
    out.push_str("  ");
    for file in 0..n {
        out.push(' ');
        out.push((b'a' + file as u8) as char);
    }
    out.push('\n');
    out
}

/// The start position of a ruleset as a diagram without coordinates (for rules files).
pub(crate) fn setup_diagram(rules: &Ruleset) -> String {
    let full = write_diagram(rules, &rules.start, &[]);
    let mut out = String::new();
    for line in full.lines().take(rules.size()) {
        out.push_str(line[2..].trim());
        out.push('\n');
    }
    out
}
