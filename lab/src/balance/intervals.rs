//! Shares with 95% Wilson score intervals, and changes between two independent shares with
//! Newcombe's hybrid score interval (Newcombe 1998, method 10), built from the two Wilson
//! intervals so that the before/after and the table agree.

use tafl_engine::stats::{wilson, Z95};

/// `count` of `games` games, with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    /// Games with the property.
    pub count: u64,
    /// Games in the row.
    pub games: u64,
    /// `count / games` (0 when no game was played).
    pub share: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl Share {
    /// The share of `count` in `games`.
    pub fn new(count: u64, games: u64) -> Share {
        let (low, high) = wilson(count, games, Z95);
        Share {
            count,
            games,
            share: if games == 0 {
                0.0
            } else {
                count as f64 / games as f64
            },
            low,
            high,
        }
    }
}

/// The change from one share to another, with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    /// `after - before`, as a fraction.
    pub delta: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl Change {
    /// Newcombe's hybrid score interval for the difference of two independent proportions.
    pub fn between(before: &Share, after: &Share) -> Change {
        let delta = after.share - before.share;
        let low = delta - ((after.share - after.low).powi(2) + (before.high - before.share).powi(2)).sqrt();
        let high = delta + ((after.high - after.share).powi(2) + (before.share - before.low).powi(2)).sqrt();
        Change { delta, low, high }
    }

    /// True when the whole interval lies on one side of zero.
    pub fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998), table II, example (a): 56/70 vs 48/80, difference 0.2000,
        // method 10 interval (0.0524, 0.3339).
        let c = Change::between(&Share::new(48, 80), &Share::new(56, 70));
        assert!((c.delta - 0.2).abs() < 1e-12);
        assert!((c.low - 0.0524).abs() < 5e-4, "{}", c.low);
        assert!((c.high - 0.3339).abs() < 5e-4, "{}", c.high);
        assert!(c.excludes_zero());
    }

    #[test]
    fn equal_shares_do_not_exclude_zero() {
        let c = Change::between(&Share::new(30, 100), &Share::new(30, 100));
        assert_eq!(c.delta, 0.0);
        assert!(c.low < 0.0 && c.high > 0.0 && !c.excludes_zero());
        let s = Share::new(0, 0);
        assert_eq!((s.share, s.low, s.high), (0.0, 0.0, 1.0));
    }
}
