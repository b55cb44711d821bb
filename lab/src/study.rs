//! What every study shares: how its games are played. The balance study, the strength sweep,
//! the rebalance search and the tuning of the linear evaluation each take a seed, a ply limit,
//! the exploration rule and a thread count; they are declared here once, with their checks, and
//! each study's request holds them as its `play` (the commands keep their own defaults).

/// How a study's games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StudyGames {
    /// Seed every game's seed derives from (with the study's own indices).
    pub seed: u64,
    /// Plies after which a game ends with no result (0: no limit).
    pub ply_limit: u32,
    /// Each ply, the side to move plays a uniformly random legal move with this probability
    /// instead of its own (0 to 1).
    pub exploration: f32,
    /// Worker threads (`None`: all cores); no study's results depend on it.
    pub threads: Option<usize>,
}

impl StudyGames {
    /// Refuses an exploration that is not a probability, and, when `searched` (players that
    /// search, which are deterministic), no ply limit together with no exploration: two such
    /// players under rules that ignore repetition can shuffle forever.
    pub fn check(&self, searched: bool) -> Result<(), String> {
        if !(self.exploration.is_finite() && (0.0..=1.0).contains(&self.exploration)) {
            return Err(format!(
                "--exploration: {} is not a probability; allowed: 0 to 1",
                self.exploration
            ));
        }
        if searched && self.ply_limit == 0 && self.exploration == 0.0 {
            return Err(
                "--ply-limit 0 with --exploration 0: games could go on forever; set a ply limit or some exploration"
                    .into(),
            );
        }
        Ok(())
    }

    /// The ply limit as the game settings take it (`None`: no limit).
    pub fn limit(&self) -> Option<u32> {
        (self.ply_limit > 0).then_some(self.ply_limit)
    }

    /// The worker pool the study runs on.
    pub fn pool(&self) -> Result<rayon::ThreadPool, String> {
        crate::work::pool(self.threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(ply_limit: u32, exploration: f32) -> StudyGames {
        StudyGames {
            seed: 0,
            ply_limit,
            exploration,
            threads: None,
        }
    }

    #[test]
    fn exploration_is_a_probability_and_searched_games_must_end() {
        assert!(play(400, 0.1).check(true).is_ok());
        for bad in [-0.1, 1.5, f32::NAN, f32::INFINITY] {
            let e = play(400, bad).check(false).unwrap_err();
            assert!(
                e.contains("--exploration") && e.contains("not a probability"),
                "{e}"
            );
        }
        let e = play(0, 0.0).check(true).unwrap_err();
        assert!(e.contains("--ply-limit 0 with --exploration 0"), "{e}");
        // Random players end their games; some exploration ends searched ones.
        assert!(play(0, 0.0).check(false).is_ok());
        assert!(play(0, 0.1).check(true).is_ok());
        assert_eq!(play(0, 0.1).limit(), None);
        assert_eq!(play(300, 0.1).limit(), Some(300));
    }
}
