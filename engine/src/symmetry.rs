//! The 8 symmetries of the square board (the dihedral group D4), acting on squares, moves and
//! positions. Every built-in ruleset is invariant under them, which tests and training use.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{Move, Position};
use crate::square::{square, Sq};

/// The symmetries, numbered 0..8: bit 2 transposes (swaps file and rank) first, then bit 0
/// mirrors files and bit 1 mirrors ranks. 0 is the identity.
pub const SYMMETRIES: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// Maps a square of an `n x n` board under symmetry `sym`.
#[inline]
pub fn transform_square(n: usize, sym: u8, sq: Sq) -> Sq {
    let (mut f, mut r) = (sq as usize % n, sq as usize / n);
    if sym & 4 != 0 {
        std::mem::swap(&mut f, &mut r);
    }
    if sym & 1 != 0 {
        f = n - 1 - f;
    }
    if sym & 2 != 0 {
        r = n - 1 - r;
    }
    square(n, f, r)
}

/// Maps a move under symmetry `sym`.
#[inline]
pub fn transform_move(n: usize, sym: u8, mv: Move) -> Move {
    Move::new(transform_square(n, sym, mv.from), transform_square(n, sym, mv.to))
}

/// Maps a position under symmetry `sym`; fails when the rules' special squares are not
/// symmetric and a piece would land on a restricted square.
pub fn transform_position<B: BitSet>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sym: u8,
) -> Result<Position<B>, String> {
    let pieces: Vec<_> = pos
        .pieces()
        .into_iter()
        .map(|(sq, p)| (transform_square(rules.n, sym, sq), p))
        .collect();
    Position::from_pieces(rules, &pieces, pos.to_move())
}
