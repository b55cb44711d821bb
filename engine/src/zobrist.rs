//! Zobrist keys: a random 64-bit key per (square, piece) and one for the side to move.
//!
//! Keys come from a fixed-seed SplitMix64 stream, so hashes are the same in every run and on
//! every machine, and equal positions under different rulesets of one board size hash alike.

use crate::bitset::BitSet;
use crate::position::Position;

/// The keys for one board size.
#[derive(Clone, Debug)]
pub struct ZobristKeys {
    pieces: Vec<[u64; 3]>,
    /// Folded into the hash when the defenders are to move.
    pub side: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl ZobristKeys {
    /// Keys for `squares` squares.
    pub fn new(squares: usize) -> ZobristKeys {
        let mut state = 0x7AF1_2024_0000_0001u64;
        let pieces = (0..squares)
            .map(|_| {
                [
                    splitmix64(&mut state),
                    splitmix64(&mut state),
                    splitmix64(&mut state),
                ]
            })
            .collect();
        ZobristKeys {
            pieces,
            side: splitmix64(&mut state),
        }
    }

    /// The key of `piece_index` (see [`crate::Piece::index`]) on `sq`.
    #[inline]
    pub fn piece(&self, piece_index: usize, sq: usize) -> u64 {
        self.pieces[sq][piece_index]
    }

    /// The hash of a position computed from scratch (the incremental one must agree).
    pub fn hash_of<B: BitSet>(&self, pos: &Position<B>) -> u64 {
        let mut h = 0;
        for (i, set) in [pos.attackers(), pos.defenders(), pos.king_set()]
            .into_iter()
            .enumerate()
        {
            for sq in set.squares() {
                h ^= self.pieces[sq][i];
            }
        }
        if pos.to_move() == crate::Side::Defenders {
            h ^= self.side;
        }
        h
    }
}
