//! Perft: the number of leaf positions `depth` plies from a position, the standard check of a
//! move generator against reference counts.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{Move, Position};

/// Leaves at `depth` plies. A move that ends the game (escape, capture of the king, fort,
/// encirclement) is a leaf: nothing is played after it. The last ply's moves are counted
/// without being played.
pub fn perft<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules) as u64,
        _ => {
            let mut total = 0;
            pos.for_each_piece_moves(rules, |from, targets| {
                for to in targets.squares() {
                    let mut child = *pos;
                    let eff = child.play_unchecked(rules, Move::new(from, to as crate::Sq));
                    if child.decisive_outcome(rules, &eff).is_none() {
                        total += perft(rules, &child, depth - 1);
                    }
                }
            });
            total
        }
    }
}

/// Perft split by first move: `(move, leaves)` for every legal move, in generation order.
pub fn perft_divide<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    for &mv in pos.moves(rules).iter() {
        let mut child = *pos;
        let eff = child.play_unchecked(rules, mv);
        let leaves = if depth <= 1 {
            1
        } else if child.decisive_outcome(rules, &eff).is_some() {
            0
        } else {
            perft(rules, &child, depth - 1)
        };
        out.push((mv, leaves));
    }
    out
}
