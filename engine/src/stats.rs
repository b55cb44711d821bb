//! Small statistics for honest reports: Wilson score intervals for shares and Elo differences
//! with confidence intervals from match scores.

/// The 95% two-sided normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `k` successes in `n` trials at normal quantile `z`; `(0, 1)`
/// when `n` is 0.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()) / denom;
    // The interval always holds `p`; at 0 of n (or n of n) the two terms cancel only up to
    // rounding, which would leave a bound a hair on the wrong side of the share.
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}

/// The Elo difference that makes `score` (in (0, 1)) the expected score.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// An Elo difference with its 95% interval: the one shape of an Elo measurement (a match's
/// [`EloEstimate`], a training run's arena and ladder results, an exported bundle's record of
/// them).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Elo {
    /// Elo difference (positive: the player is stronger).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// A match result from one player's point of view, with its Elo estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Games counted.
    pub games: u64,
    /// Mean score per game (win 1, draw or no result 0.5, loss 0).
    pub score: f64,
    /// Elo difference (positive: the player is stronger).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloEstimate {
    /// From per-game scores in {0, 0.5, 1}: the interval comes from the games' own variance
    /// (normal approximation on the mean score), mapped through the Elo curve. With no decisive
    /// spread the interval falls back to a Wilson interval on the score.
    pub fn from_scores(scores: &[f64]) -> EloEstimate {
        let n = scores.len() as f64;
        if scores.is_empty() {
            return EloEstimate {
                games: 0,
                score: 0.5,
                elo: 0.0,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
            };
        }
        let mean = scores.iter().sum::<f64>() / n;
        let var = if n > 1.0 {
            scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.25
        };
        let se = (var / n).sqrt();
        let (lo, hi) = if se > 0.0 {
            (mean - Z95 * se, mean + Z95 * se)
        } else {
            let wins = (mean * n).round() as u64;
            wilson(wins, n as u64, Z95)
        };
        EloEstimate {
            games: scores.len() as u64,
            score: mean,
            elo: elo_from_score(mean),
            low: elo_from_score(lo.max(0.0)),
            high: elo_from_score(hi.min(1.0)),
        }
    }

    /// The Elo difference and its interval.
    pub fn interval(&self) -> Elo {
        Elo {
            elo: self.elo,
            low: self.low,
            high: self.high,
        }
    }

    /// True when the whole interval lies above zero.
    pub fn significantly_positive(&self) -> bool {
        self.low > 0.0
    }
}

impl std::fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.0} Elo (95%: {:+.0} .. {:+.0}), score {:.3} over {} games",
            self.elo, self.low, self.high, self.score, self.games
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_known_value() {
        // 81 of 263: the textbook example, (0.2553, 0.3662).
        let (lo, hi) = wilson(81, 263, Z95);
        assert!(
            (lo - 0.2553).abs() < 1e-3 && (hi - 0.3662).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0, Z95), (0.0, 1.0));
    }

    #[test]
    fn wilson_holds_the_share_even_at_the_ends() {
        for n in 1..200u64 {
            for k in [0, 1, n / 2, n - 1, n] {
                let (lo, hi) = wilson(k, n, Z95);
                let p = k as f64 / n as f64;
                assert!(
                    0.0 <= lo && lo <= p && p <= hi && hi <= 1.0,
                    "{k}/{n}: {lo} {p} {hi}"
                );
            }
            assert_eq!(wilson(0, n, Z95).0, 0.0);
            assert_eq!(wilson(n, n, Z95).1, 1.0);
        }
    }

    #[test]
    fn elo_of_even_and_lopsided_scores() {
        assert!(elo_from_score(0.5).abs() < 1e-9);
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.1);
        let e = EloEstimate::from_scores(&[1.0, 1.0, 1.0, 0.0, 0.5, 1.0, 1.0, 1.0]);
        assert!(e.elo > 0.0 && e.low < e.elo && e.elo < e.high);
    }
}
