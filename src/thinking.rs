//! The thinking-time options shared by `tafl arena`, `tafl play` and `tafl analyze`: a time per
//! move, a game clock, and search threads and how they share a search.

use tafl_engine::search::ThinkingLimit;
use tafl_lab::players::Resolved;

/// How long search players think, as given on the command line.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ThinkArgs {
    /// Time per move instead of the players' simulations: seconds (`2`, `0.5`) or `250ms`.
    #[arg(long, value_name = "SECONDS")]
    pub movetime: Option<String>,
    /// A game clock instead of the players' simulations: `BASE+INCREMENT` in seconds (`60+1`),
    /// managed move by move (more time where the best move is unclear, never the whole clock).
    #[arg(long, value_name = "BASE+INC", conflicts_with = "movetime")]
    pub clock: Option<String>,
    /// Threads of each search.
    #[arg(long, value_name = "N")]
    pub search_threads: Option<usize>,
    /// How a search's threads share the work: `root` (independent trees whose root
    /// statistics are merged) or `tree` (one tree, threads kept apart by virtual loss).
    /// Default: each player's own (a level's `parallel`, else root).
    #[arg(long, value_name = "root|tree")]
    pub parallel: Option<tafl_engine::search::Parallelism>,
}

impl ThinkArgs {
    /// The limit the flags give (the players' simulations when neither is given).
    pub fn limit(&self) -> Result<ThinkingLimit, String> {
        match (&self.movetime, &self.clock) {
            (Some(_), Some(_)) => Err("--movetime and --clock: give one or the other".into()),
            (Some(t), None) => ThinkingLimit::parse_movetime(t).map_err(|e| format!("--movetime: {e}")),
            (None, Some(c)) => ThinkingLimit::parse_clock(c).map_err(|e| format!("--clock: {e}")),
            (None, None) => Ok(ThinkingLimit::Simulations),
        }
    }

    /// Search threads: the flag's (1 to 64), else `default`.
    pub fn search_threads(&self, default: usize) -> Result<usize, String> {
        match self.search_threads {
            Some(n) if (1..=64).contains(&n) => Ok(n),
            Some(n) => Err(format!("--search-threads {n}: allowed 1 to 64")),
            None => Ok(default),
        }
    }

    /// The flag's search threads, checked as [`ThinkArgs::search_threads`], when given.
    pub fn given_search_threads(&self) -> Result<Option<usize>, String> {
        self.search_threads.map(|_| self.search_threads(1)).transpose()
    }

    /// `player` with these flags' limit, search threads (threads default to `default_threads`
    /// for a player that thinks by time) and parallelism, when given; the error names the bad
    /// flag.
    pub fn apply(&self, player: Resolved, default_threads: usize) -> Result<Resolved, String> {
        let limit = self.limit()?;
        let mut player = player.thinking(limit, self.given_search_threads()?, default_threads);
        if let Some(p) = self.parallel {
            player.parallel = p;
        }
        Ok(player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn flags_give_a_limit_or_a_named_error() {
        let a = ThinkArgs {
            movetime: Some("0.25".into()),
            ..ThinkArgs::default()
        };
        assert_eq!(
            a.limit().unwrap(),
            ThinkingLimit::MoveTime(Duration::from_millis(250))
        );
        let a = ThinkArgs {
            clock: Some("10+0.1".into()),
            ..ThinkArgs::default()
        };
        assert!(matches!(a.limit().unwrap(), ThinkingLimit::Clock { .. }));
        let bad = ThinkArgs {
            clock: Some("ten".into()),
            ..ThinkArgs::default()
        };
        assert!(bad.limit().unwrap_err().starts_with("--clock"));
        let threads = ThinkArgs {
            search_threads: Some(0),
            ..ThinkArgs::default()
        };
        assert!(threads
            .search_threads(1)
            .unwrap_err()
            .contains("--search-threads"));
        assert_eq!(ThinkArgs::default().search_threads(2).unwrap(), 2);
        assert_eq!(ThinkArgs::default().limit().unwrap(), ThinkingLimit::Simulations);
    }
}
