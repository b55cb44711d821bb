//! Tallies of finished games by outcome and length: what the random and skilled rows of the
//! balance study, `tafl random` and the strength sweep count.

use crate::outcome::{Outcome, Reason};
use crate::side::Side;

/// Tallies of many games, however they were played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameTally {
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
    pub by_reason: [u64; GameTally::REASONS.len()],
}

impl GameTally {
    /// The ending reasons [`GameTally::by_reason`] counts, in its order (those a game's own
    /// rules end it by; a clock, a forfeit or another program's verdict are not counted).
    pub const REASONS: [Reason; 8] = [
        Reason::Escape,
        Reason::KingCaptured,
        Reason::ExitFort,
        Reason::Encirclement,
        Reason::Repetition,
        Reason::NoMoves,
        Reason::PlyLimit,
        Reason::TurnLimit,
    ];

    /// Adds one finished game.
    pub fn add(&mut self, outcome: Outcome, plies: u32) {
        self.games += 1;
        self.total_plies += plies as u64;
        // The reasons a game's own rules end it (a clock or a forfeit are not counted here).
        if let Some(n) = self.by_reason.get_mut(outcome.reason as usize) {
            *n += 1;
        }
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
    pub fn merge(mut self, o: GameTally) -> GameTally {
        self.games += o.games;
        self.defender_wins += o.defender_wins;
        self.attacker_wins += o.attacker_wins;
        self.draws += o.draws;
        self.no_result += o.no_result;
        self.decided_plies += o.decided_plies;
        self.total_plies += o.total_plies;
        for (a, b) in self.by_reason.iter_mut().zip(o.by_reason) {
            *a += b;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each listed reason sits at the index `add` counts it under, so tables that walk
    /// `REASONS` label every count with its own reason.
    #[test]
    fn reasons_follow_by_reason_order() {
        for (i, reason) in GameTally::REASONS.iter().enumerate() {
            let mut t = GameTally::default();
            t.add(
                Outcome {
                    winner: None,
                    reason: *reason,
                },
                10,
            );
            assert_eq!(t.by_reason[i], 1, "{reason:?} counted at another index");
            assert_eq!(t.by_reason.iter().sum::<u64>(), 1);
        }
    }
}
