//! Self-play: many games at once on worker threads whose positions meet in one batched
//! evaluator, so the network sees full batches. A full search (with noise) records a sample;
//! a fast search (playout-cap randomization) only moves the game on.
//!
//! Value targets: a win is `[1, 0, 0]` for the winner's positions and `[0, 0, 1]` for the
//! loser's; draws by the rules *and games stopped by the ply limit* are `[0, 1, 0]`. Counting
//! an unfinished game as a draw is a choice: it teaches the net that shuffling gains nothing,
//! without pretending to know who would have won.

use crate::config::SelfPlaySection;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tafl_engine::{BitSet, Evaluator, Game, Reason, Rules, Search, SearchConfig, Side, Wdl};
use tafl_nn::{Encoder, Sample};

/// Tallies of self-play games (saved beside each shard so a resumed run keeps them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayStats {
    /// Games played.
    pub games: u64,
    /// Samples recorded.
    pub samples: u64,
    /// Plies played.
    pub plies: u64,
    /// Won by the defenders (resignations included).
    pub defender_wins: u64,
    /// Won by the attackers (resignations included).
    pub attacker_wins: u64,
    /// Drawn by the rules.
    pub draws: u64,
    /// Stopped by the ply limit.
    pub no_result: u64,
    /// Ended by resignation.
    pub resigned: u64,
    /// Games that never resign in which a side fell below the resignation threshold.
    pub resign_checks: u64,
    /// Of those, games the side that would have resigned did not lose.
    pub false_resigns: u64,
    /// Sum over samples of the search policy's entropy (nats).
    pub policy_entropy_sum: f64,
    /// Games in which one side was handicapped.
    #[serde(default)]
    pub handicapped: u64,
    /// Of those, games the handicapped side still won.
    #[serde(default)]
    pub handicapped_won: u64,
    /// Defender wins in even (unhandicapped) games.
    #[serde(default)]
    pub even_defender_wins: u64,
    /// Attacker wins in even (unhandicapped) games.
    #[serde(default)]
    pub even_attacker_wins: u64,
}

impl SelfPlayStats {
    /// Adds another tally.
    pub fn merge(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.samples += o.samples;
        self.plies += o.plies;
        self.defender_wins += o.defender_wins;
        self.attacker_wins += o.attacker_wins;
        self.draws += o.draws;
        self.no_result += o.no_result;
        self.resigned += o.resigned;
        self.resign_checks += o.resign_checks;
        self.false_resigns += o.false_resigns;
        self.policy_entropy_sum += o.policy_entropy_sum;
        self.handicapped += o.handicapped;
        self.handicapped_won += o.handicapped_won;
        self.even_defender_wins += o.even_defender_wins;
        self.even_attacker_wins += o.even_attacker_wins;
    }
    /// The side that won more than `above` of the even games, if one did.
    pub fn dominant_side(&self, above: f64) -> Option<Side> {
        let even = self.games.saturating_sub(self.handicapped).max(1) as f64;
        if self.even_defender_wins as f64 / even > above {
            Some(Side::Defenders)
        } else if self.even_attacker_wins as f64 / even > above {
            Some(Side::Attackers)
        } else {
            None
        }
    }
    /// Share of games won by the defenders.
    pub fn defender_share(&self) -> f64 {
        self.defender_wins as f64 / self.games.max(1) as f64
    }
    /// Mean game length in plies.
    pub fn mean_length(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }
    /// Mean entropy of the search policies recorded.
    pub fn mean_policy_entropy(&self) -> f64 {
        self.policy_entropy_sum / self.samples.max(1) as f64
    }
}

/// One finished self-play game: its samples and its tally.
pub struct SelfPlayGame {
    /// Training samples (full searches only).
    pub samples: Vec<Sample>,
    /// This game's tally.
    pub stats: SelfPlayStats,
}

/// Plays one self-play game with `evaluator`; `seed` fixes every choice in it. Games may
/// resign only when `may_resign` (and then not the share that checks resignation).
/// `dominant` is the side that won most even games of the previous iteration: in a share
/// `cfg.handicap_share` of games it blunders (plays a random legal move) with probability
/// `cfg.handicap_blunder` per move. Every position still records its search's policy, so
/// the targets stay the search's; only the trajectory and the outcome change.
pub fn play_game<B: BitSet>(
    rules: &Rules<B>,
    evaluator: &dyn Evaluator<B>,
    encoder: &Encoder,
    cfg: &SelfPlaySection,
    seed: u64,
    may_resign: bool,
    dominant: Option<Side>,
) -> SelfPlayGame {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let never_resign =
        !may_resign || cfg.resign_threshold <= -1.0 || rng.random::<f32>() < cfg.resign_disabled_share;
    let handicapped = dominant.filter(|_| rng.random::<f32>() < cfg.handicap_share);
    let mut game = Game::new(rules).with_ply_limit(Some(cfg.ply_limit));
    let full = SearchConfig {
        simulations: cfg.simulations,
        batch_size: cfg.leaf_batch,
        root: cfg.root,
        dirichlet_alpha: cfg.dirichlet_alpha,
        dirichlet_epsilon: cfg.dirichlet_epsilon,
        ..SearchConfig::default()
    };
    let fast = SearchConfig {
        simulations: cfg.fast_simulations,
        dirichlet_epsilon: 0.0,
        ..full.clone()
    };
    let mut search = Search::new(full.clone(), &game, seed);
    let mut pending: Vec<(Sample, Side, u32)> = Vec::new();
    let mut stats = SelfPlayStats {
        games: 1,
        ..SelfPlayStats::default()
    };
    let mut resigned_by: Option<Side> = None;
    let mut would_resign: Option<Side> = None;
    while game.outcome().is_none() {
        let is_full = rng.random::<f32>() < cfg.full_search_probability;
        search.set_config(if is_full { full.clone() } else { fast.clone() });
        let temperature = if game.ply() < cfg.temperature_plies {
            cfg.temperature
        } else {
            0.0
        };
        let Some(result) = search.run(rules, evaluator, temperature) else {
            break;
        };
        let pos = *game.position();
        let me = pos.to_move();
        if is_full {
            let moves: Vec<_> = result.moves.iter().map(|m| m.mv).collect();
            let occurrences = game.occurrences().min(255) as u8;
            let sample = Sample::new(
                encoder,
                &pos,
                occurrences,
                game.ply(),
                &moves,
                &result.policy,
                Wdl::default(),
                0.0,
            );
            stats.policy_entropy_sum += entropy(&result.policy);
            pending.push((sample, me, game.ply()));
        }
        // Handicapped games never resign and do not count in the resignation check: the
        // values are for even play.
        if handicapped.is_none() && result.value < cfg.resign_threshold && result.proven != Some(1) {
            if never_resign {
                would_resign.get_or_insert(me);
            } else {
                resigned_by = Some(me);
                break;
            }
        }
        let mut mv = result.best;
        if handicapped == Some(me)
            && result.proven != Some(1)
            && !result.moves.is_empty()
            && rng.random::<f32>() < cfg.handicap_blunder
        {
            mv = result.moves[rng.random_range(0..result.moves.len())].mv;
        }
        search.advance(rules, mv);
        game.play_unchecked(rules, mv);
    }
    let plies = game.ply();
    let winner = match (resigned_by, game.outcome()) {
        (Some(loser), _) => Some(loser.opponent()),
        (None, Some(o)) => o.winner,
        (None, None) => None,
    };
    stats.plies = plies as u64;
    stats.samples = pending.len() as u64;
    match winner {
        Some(Side::Defenders) => stats.defender_wins = 1,
        Some(Side::Attackers) => stats.attacker_wins = 1,
        None if game.outcome().is_some_and(|o| o.reason == Reason::PlyLimit) => stats.no_result = 1,
        None => stats.draws = 1,
    }
    stats.resigned = resigned_by.is_some() as u64;
    match handicapped {
        Some(side) => {
            stats.handicapped = 1;
            stats.handicapped_won = (winner == Some(side)) as u64;
        }
        None => {
            stats.even_defender_wins = stats.defender_wins;
            stats.even_attacker_wins = stats.attacker_wins;
        }
    }
    if let Some(side) = would_resign {
        stats.resign_checks = 1;
        stats.false_resigns = (winner != Some(side.opponent())) as u64;
    }
    let samples = pending
        .into_iter()
        .map(|(mut s, side, ply)| {
            s.wdl = match winner {
                Some(w) if w == side => [1.0, 0.0, 0.0],
                Some(_) => [0.0, 0.0, 1.0],
                None => [0.0, 1.0, 0.0],
            };
            // Plies left; the batch scales it by tafl_nn::MOVES_LEFT_SCALE.
            s.moves_left = (plies - ply) as f32;
            s
        })
        .collect();
    SelfPlayGame { samples, stats }
}

fn entropy(p: &[f32]) -> f64 {
    p.iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| -(x as f64) * (x as f64).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::{Ruleset, Uniform};

    fn config(share: f32, blunder: f32) -> SelfPlaySection {
        SelfPlaySection {
            simulations: 8,
            fast_simulations: 4,
            ply_limit: 60,
            handicap_share: share,
            handicap_blunder: blunder,
            ..SelfPlaySection::default()
        }
    }

    #[test]
    fn the_dominant_side_is_judged_on_even_games_only() {
        let mut s = SelfPlayStats {
            games: 100,
            defender_wins: 60,
            attacker_wins: 40,
            handicapped: 50,
            handicapped_won: 10,
            even_defender_wins: 50,
            ..SelfPlayStats::default()
        };
        // All 50 even games went to the defenders, although they won only 60% overall.
        assert_eq!(s.dominant_side(0.8), Some(Side::Defenders));
        s.even_defender_wins = 30;
        s.even_attacker_wins = 20;
        assert_eq!(s.dominant_side(0.8), None);
        s.even_defender_wins = 5;
        s.even_attacker_wins = 45;
        assert_eq!(s.dominant_side(0.8), Some(Side::Attackers));
    }

    #[test]
    fn handicapped_games_are_tallied_apart_and_change_the_game() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        let eval = Uniform;
        let even = play_game(&rules, &eval, &encoder, &config(1.0, 1.0), 5, false, None);
        assert_eq!(even.stats.handicapped, 0);
        assert_eq!(
            even.stats.even_defender_wins + even.stats.even_attacker_wins,
            even.stats.defender_wins + even.stats.attacker_wins
        );
        // With no handicap share, a dominant side plays even games.
        for seed in 0..3 {
            let g = play_game(
                &rules,
                &eval,
                &encoder,
                &config(0.0, 1.0),
                seed,
                false,
                Some(Side::Defenders),
            );
            assert_eq!(g.stats.handicapped, 0);
        }
        let mut handicapped = SelfPlayStats::default();
        for seed in 0..6 {
            let g = play_game(
                &rules,
                &eval,
                &encoder,
                &config(1.0, 1.0),
                seed,
                false,
                Some(Side::Defenders),
            );
            assert_eq!(g.stats.handicapped, 1);
            assert_eq!(g.stats.even_defender_wins + g.stats.even_attacker_wins, 0);
            assert_eq!(g.stats.handicapped_won, g.stats.defender_wins);
            assert_eq!(g.samples.len() as u64, g.stats.samples);
            handicapped.merge(&g.stats);
        }
        assert_eq!(handicapped.handicapped, 6);
    }
}
