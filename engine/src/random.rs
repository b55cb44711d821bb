//! Uniformly random games: each legal move equally likely, the classic baseline of balance studies.

use crate::bitset::BitSet;
use crate::game::Game;
use crate::outcome::{Outcome, Reason};
use crate::rules::Rules;
use crate::side::Side;
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
        let picked = game
            .position()
            .pick_move(rules, |count| rng.random_range(0..count));
        let Some(mv) = picked else {
            unreachable!("a game that is not over has a legal move");
        };
        game.play_unchecked(rules, mv);
    }
}

/// Tallies of many games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RandomStats {
    /// Games played.
    pub games: u64,
    /// Won by the defenders.
    pub defender_wins: u64,
    /// Won by the attackers.
    pub attacker_wins: u64,
    /// Drawn by the rules (repetition draw, no moves draw).
    pub draws: u64,
    /// Stopped by the ply limit.
    pub no_result: u64,
    /// Plies summed over decided games.
    pub decided_plies: u64,
    /// Plies summed over all games.
    pub total_plies: u64,
    /// Games per ending reason, indexed as [`Reason`] is declared.
    pub by_reason: [u64; 7],
}

impl RandomStats {
    /// Adds one finished game.
    pub fn add(&mut self, outcome: Outcome, plies: u32) {
        self.games += 1;
        self.total_plies += plies as u64;
        self.by_reason[outcome.reason as usize] += 1;
        match outcome.winner {
            Some(Side::Defenders) => self.defender_wins += 1,
            Some(Side::Attackers) => self.attacker_wins += 1,
            None if outcome.reason == Reason::PlyLimit => self.no_result += 1,
            None => self.draws += 1,
        }
        if outcome.winner.is_some() {
            self.decided_plies += plies as u64;
        }
    }
    /// Sums two tallies (order does not matter).
    pub fn merge(mut self, o: RandomStats) -> RandomStats {
        self.games += o.games;
        self.defender_wins += o.defender_wins;
        self.attacker_wins += o.attacker_wins;
        self.draws += o.draws;
        self.no_result += o.no_result;
        self.decided_plies += o.decided_plies;
        self.total_plies += o.total_plies;
        for i in 0..7 {
            self.by_reason[i] += o.by_reason[i];
        }
        self
    }
    /// Games won by either side.
    pub fn decisive(&self) -> u64 {
        self.defender_wins + self.attacker_wins
    }
    /// Average length in plies over decided games (0 when none was decided).
    pub fn avg_decided_length(&self) -> f64 {
        if self.decisive() == 0 {
            0.0
        } else {
            self.decided_plies as f64 / self.decisive() as f64
        }
    }
}
