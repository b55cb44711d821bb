//! Squares: an index `rank * n + file` plus the text `e4` that names it.

use crate::error::ParseError;
use std::fmt;

/// A square index, `rank * n + file`, with `a1` = 0. Its meaning depends on the board size `n`,
/// which lives in the rules; functions that turn it into text take `n`.
pub type Sq = u16;

/// The largest board side the engine supports.
pub const MAX_SIZE: usize = 19;

/// Builds the square index from 0-based file and rank.
#[inline]
pub const fn square(n: usize, file: usize, rank: usize) -> Sq {
    (rank * n + file) as Sq
}

/// The text of a square on an `n x n` board: `a1`, `k11`, `s19`.
pub fn square_name(n: usize, sq: Sq) -> SquareName {
    SquareName { n: n as u8, sq }
}

/// Displays a square as `e4`; built by [`square_name`].
#[derive(Clone, Copy, Debug)]
pub struct SquareName {
    n: u8,
    sq: Sq,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.n as usize;
        let file = self.sq as usize % n;
        let rank = self.sq as usize / n;
        write!(f, "{}{}", (b'a' + file as u8) as char, rank + 1)
    }
}

/// Parses `e4` on an `n x n` board. Files are `a..`, ranks `1..n`, both within the board.
pub fn parse_square(n: usize, text: &str) -> Result<Sq, ParseError> {
    let (sq, rest) = parse_square_prefix(n, text)?;
    if !rest.is_empty() {
        return Err(ParseError::new(format!(
            "`{}` is not a square: unexpected `{}` after it",
            crate::input::quote(text),
            crate::input::quote(rest)
        )));
    }
    Ok(sq)
}

/// Parses a square at the start of `text` and returns it with the rest of the text.
pub fn parse_square_prefix(n: usize, text: &str) -> Result<(Sq, &str), ParseError> {
    let bytes = text.as_bytes();
    let last_file = (b'a' + n as u8 - 1) as char;
    let Some(&f) = bytes.first() else {
        return Err(ParseError::new("expected a square such as `e4`, found nothing"));
    };
    let f = f.to_ascii_lowercase();
    if !f.is_ascii_lowercase() || (f - b'a') as usize >= n {
        return Err(ParseError::new(format!(
            "`{}`: a square starts with a file `a`..`{last_file}`",
            crate::input::quote(text)
        )));
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 2 {
        return Err(ParseError::new(format!(
            "`{}`: a square's file is followed by a rank 1..{n}",
            crate::input::quote(text)
        )));
    }
    let rank: usize = text[1..1 + digits]
        .parse()
        .map_err(|_| ParseError::new(format!("`{}`: bad rank", crate::input::quote(text))))?;
    if rank == 0 || rank > n {
        return Err(ParseError::new(format!(
            "`{}`: rank {rank} is off the board (1..{n})",
            crate::input::quote(text)
        )));
    }
    Ok((square(n, (f - b'a') as usize, rank - 1), &text[1 + digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_and_bad_ones_fail() {
        assert_eq!(parse_square(11, "a1").unwrap(), 0);
        assert_eq!(parse_square(11, "k11").unwrap(), 120);
        assert_eq!(
            square_name(19, parse_square(19, "s19").unwrap()).to_string(),
            "s19"
        );
        for bad in ["", "l1", "a0", "a12", "1a", "a", "a1x", "a123"] {
            assert!(parse_square(11, bad).is_err(), "{bad} should fail");
        }
    }
}
