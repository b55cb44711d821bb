//! Uniformly random games: each legal move equally likely, the classic baseline of balance studies.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::Game;
use crate::outcome::Outcome;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of game `index` in a run seeded with `seed`: games are independent of the order
/// and the thread they are played in, so results do not depend on the thread count.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays one game from the start with uniformly random legal moves, ending at the rules'
/// outcome or after `ply_limit` plies (no result). Returns the outcome and the plies played.
pub fn random_game<B: BitSet>(rules: &Rules<B>, seed: u64, ply_limit: Option<u32>) -> (Outcome, u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(rules).with_ply_limit(ply_limit);
    if ply_limit == Some(0) && game.outcome().is_none() {
        return (Outcome::no_result(), 0);
    }
    loop {
        if let Some(o) = game.outcome() {
            return (o, game.ply());
        }
        let picked = game.pick_move(rules, |count| rng.random_range(0..count));
        let Some(mv) = picked else {
            unreachable!("a game that is not over has a legal move");
        };
        game.play_unchecked(rules, mv);
    }
}
