//! Self-play: many games at once on worker threads whose positions meet in one batched
//! evaluator, so the network sees full batches. A full search (with noise) records a sample;
//! a fast search (playout-cap randomization) only moves the game on.
//!
//! Value targets: a win is `[1, 0, 0]` for the winner's positions and `[0, 0, 1]` for the
//! loser's; draws by the rules are `[0, 1, 0]`. A game stopped by the self-play ply limit has
//! no result, and its positions get no value target (`[0, 0, 0]`, policy only): calling it a
//! draw would teach the value head, which sees the ply count, that positions near the limit
//! are drawn, while games played for real have no limit.
//!
//! In a handicapped game only the positions after the handicapped side's last blunder get a
//! value target: before it, the result says "as if one side then blundered", which nothing in
//! the input shows, and would teach the value head a mix of two games. Those positions keep
//! their policy target (the search's, unaffected by what was played later) and carry
//! `[0, 0, 0]`, which the loss reads as "no value target". The `exploration` random moves,
//! which both sides make alike (the rule of the balance study's skilled play and of the
//! strength measurement), are part of the game being learned, so their games keep every
//! value target.

use crate::config::SelfPlaySection;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tafl_engine::{
    search::{Evaluator, Proven, Search, SearchConfig, Wdl},
    BitSet, Game, Reason, Rules, Side,
};
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
    /// Samples recorded without a value target (games stopped by the ply limit; handicapped
    /// games before the last blunder).
    #[serde(default)]
    pub no_value_target: u64,
    /// Random moves played by the `exploration` rule.
    #[serde(default)]
    pub exploration_moves: u64,
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
        self.no_value_target += o.no_value_target;
        self.exploration_moves += o.exploration_moves;
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
/// the targets stay the search's; only the trajectory and the outcome change. With `starts`
/// (an opening suite's positions), a share `cfg.openings_share` of games starts from one of
/// them, drawn uniformly.
#[allow(clippy::too_many_arguments)]
pub fn play_game<B: BitSet>(
    rules: &Rules<B>,
    evaluator: &dyn Evaluator<B>,
    encoder: &Encoder,
    cfg: &SelfPlaySection,
    seed: u64,
    may_resign: bool,
    dominant: Option<Side>,
    starts: &[tafl_engine::Position<B>],
) -> SelfPlayGame {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let never_resign =
        !may_resign || cfg.resign_threshold <= -1.0 || rng.random::<f32>() < cfg.resign_disabled_share;
    let handicapped = dominant.filter(|_| rng.random::<f32>() < cfg.handicap_share);
    // Drawn only with a suite, so that games without one replay as before.
    let start = match starts.len() {
        0 => None,
        n => (rng.random::<f32>() < cfg.openings_share).then(|| starts[rng.random_range(0..n)]),
    };
    let mut game = match start {
        Some(pos) => Game::from_position(rules, pos),
        None => Game::new(rules),
    }
    .with_ply_limit(Some(cfg.ply_limit));
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
    // Each recorded sample, the side to move, its ply and its search's root value.
    let mut pending: Vec<(Sample, Side, u32, f32)> = Vec::new();
    let mut stats = SelfPlayStats {
        games: 1,
        ..SelfPlayStats::default()
    };
    let mut resigned_by: Option<Side> = None;
    let mut would_resign: Option<Side> = None;
    // The ply of the handicapped side's last blunder.
    let mut last_blunder: Option<u32> = None;
    while game.outcome().is_none() {
        if cfg.exploration > 0.0 && rng.random::<f32>() < cfg.exploration {
            let Some(mv) = game.pick_move(rules, |c| rng.random_range(0..c)) else {
                break;
            };
            stats.exploration_moves += 1;
            search.advance(rules, mv);
            game.play_unchecked(rules, mv);
            continue;
        }
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
            pending.push((sample, me, game.ply(), result.value));
        }
        // Handicapped games never resign and do not count in the resignation check: the
        // values are for even play.
        if handicapped.is_none() && result.value < cfg.resign_threshold && result.proven != Some(Proven::Win)
        {
            if never_resign {
                would_resign.get_or_insert(me);
            } else {
                resigned_by = Some(me);
                break;
            }
        }
        let mut mv = result.best;
        if handicapped == Some(me)
            && result.proven != Some(Proven::Win)
            && !result.moves.is_empty()
            && rng.random::<f32>() < cfg.handicap_blunder
        {
            mv = result.moves[rng.random_range(0..result.moves.len())].mv;
            last_blunder = Some(game.ply());
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
    let unfinished = resigned_by.is_none() && game.outcome().is_some_and(|o| o.reason == Reason::PlyLimit);
    let samples: Vec<Sample> = pending
        .into_iter()
        .map(|(mut s, side, ply, q)| {
            s.wdl = match winner {
                _ if unfinished || last_blunder.is_some_and(|b| ply <= b) => [0.0, 0.0, 0.0],
                Some(w) if w == side => [1.0, 0.0, 0.0],
                Some(_) => [0.0, 0.0, 1.0],
                None => [0.0, 1.0, 0.0],
            };
            if s.wdl != [0.0; 3] {
                s.wdl = blend_search_value(s.wdl, q, cfg.search_value_weight);
            }
            // Plies left; the batch scales it by tafl_nn::MOVES_LEFT_SCALE.
            s.moves_left = (plies - ply) as f32;
            s
        })
        .collect();
    stats.no_value_target = samples.iter().filter(|s| s.wdl == [0.0; 3]).count() as u64;
    SelfPlayGame { samples, stats }
}

/// `(1 - weight) * result + weight * [(1 + q) / 2, 0, (1 - q) / 2]`, with `q` clamped to
/// [-1, 1]: still a distribution summing to 1, so the loss counts it as one value target.
fn blend_search_value(result: [f32; 3], q: f32, weight: f32) -> [f32; 3] {
    if weight <= 0.0 {
        return result;
    }
    let q = if q.is_finite() { q.clamp(-1.0, 1.0) } else { 0.0 };
    let searched = [(1.0 + q) / 2.0, 0.0, (1.0 - q) / 2.0];
    std::array::from_fn(|i| (1.0 - weight) * result[i] + weight * searched[i])
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
    use tafl_engine::{search::Uniform, Ruleset};

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
    fn a_share_of_games_starts_from_the_suite() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        // The defenders to move with the king beside a corner: a game from it is one ply long
        // (the uniform search still sees the escape as a proven win).
        let escape =
            tafl_engine::formats::position_from_record(&rules, "/7/K6/7/t6/7/7/3t3/", Side::Defenders)
                .unwrap();
        let mut cfg = config(0.0, 1.0);
        cfg.openings_share = 1.0;
        for seed in 0..4 {
            let g = play_game(&rules, &Uniform, &encoder, &cfg, seed, false, None, &[escape]);
            assert_eq!(g.stats.defender_wins, 1, "seed {seed}");
            assert_eq!(g.stats.plies, 1, "seed {seed}");
        }
        cfg.openings_share = 0.0;
        let g = play_game(&rules, &Uniform, &encoder, &cfg, 1, false, None, &[escape]);
        assert!(g.stats.plies > 1, "share 0: from the start");
    }

    #[test]
    fn handicapped_games_are_tallied_apart_and_change_the_game() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        let eval = Uniform;
        let even = play_game(&rules, &eval, &encoder, &config(1.0, 1.0), 5, false, None, &[]);
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
                &[],
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
                &[],
            );
            assert_eq!(g.stats.handicapped, 1);
            assert_eq!(g.stats.even_defender_wins + g.stats.even_attacker_wins, 0);
            assert_eq!(g.stats.handicapped_won, g.stats.defender_wins);
            assert_eq!(g.samples.len() as u64, g.stats.samples);
            handicapped.merge(&g.stats);
        }
        assert_eq!(handicapped.handicapped, 6);
    }

    #[test]
    fn handicapped_games_teach_no_value_before_the_last_blunder() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        let mut masked = 0;
        for seed in 0..6 {
            let mut cfg = config(1.0, 0.3);
            cfg.full_search_probability = 1.0;
            let g = play_game(
                &rules,
                &Uniform,
                &encoder,
                &cfg,
                seed,
                false,
                Some(Side::Defenders),
                &[],
            );
            // In game order: the samples without a value target (all zeros) come first,
            // then those after the last blunder, each with a whole target.
            if g.stats.no_result == 1 {
                continue;
            }
            let first_with = g
                .samples
                .iter()
                .position(|s| s.wdl != [0.0; 3])
                .unwrap_or(g.samples.len());
            assert!(g.samples[..first_with].iter().all(|s| s.wdl == [0.0; 3]));
            assert!(g.samples[first_with..]
                .iter()
                .all(|s| (s.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6));
            assert!(
                g.samples.iter().all(|s| !s.policy.is_empty()),
                "policy targets stay"
            );
            assert_eq!(g.stats.no_value_target, first_with as u64);
            masked += first_with;
        }
        assert!(masked > 0, "blunders happened and masked value targets");
        // Even games that end keep every value target; games stopped by the ply limit keep none.
        let mut ended = 0;
        for seed in 0..6 {
            let even = play_game(
                &rules,
                &Uniform,
                &encoder,
                &config(1.0, 0.3),
                seed,
                false,
                None,
                &[],
            );
            if even.stats.no_result == 1 {
                assert!(even.samples.iter().all(|s| s.wdl == [0.0; 3]));
            } else {
                ended += 1;
                assert!(even.samples.iter().all(|s| s.wdl != [0.0; 3]));
                assert_eq!(even.stats.no_value_target, 0);
            }
        }
        assert!(ended > 0);
        let mut cfg = config(0.0, 0.0);
        cfg.ply_limit = 6;
        let stopped = play_game(&rules, &Uniform, &encoder, &cfg, 1, false, None, &[]);
        assert_eq!(stopped.stats.no_result, 1);
        assert!(stopped.samples.iter().all(|s| s.wdl == [0.0; 3]));
        assert_eq!(stopped.stats.no_value_target, stopped.stats.samples);
    }

    #[test]
    fn the_search_value_weight_blends_each_result_with_its_searched_value() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        let heuristic = tafl_engine::search::Heuristic;
        let play = |w: f32, seed: u64| {
            let mut cfg = config(0.0, 0.0);
            cfg.full_search_probability = 1.0;
            cfg.ply_limit = 400;
            cfg.search_value_weight = w;
            play_game(&rules, &heuristic, &encoder, &cfg, seed, false, None, &[])
        };
        let mut differ = 0;
        for seed in 0..3 {
            let (result, searched, half) = (play(0.0, seed), play(1.0, seed), play(0.5, seed));
            // The weight changes the targets only, never the game.
            assert_eq!(result.stats, searched.stats);
            assert_eq!(result.stats, half.stats);
            for ((r, s), h) in result.samples.iter().zip(&searched.samples).zip(&half.samples) {
                assert_eq!(r.policy, h.policy);
                if r.wdl == [0.0; 3] {
                    assert_eq!(s.wdl, [0.0; 3], "no result, no value target");
                    continue;
                }
                assert!(r.wdl.contains(&1.0), "a result is one outcome: {:?}", r.wdl);
                assert!((s.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6);
                assert_eq!(s.wdl[1], 0.0);
                for i in 0..3 {
                    assert!((h.wdl[i] - (r.wdl[i] + s.wdl[i]) / 2.0).abs() < 1e-6);
                }
                differ += (s.wdl != r.wdl) as u32;
            }
        }
        assert!(differ > 0, "the searched values are not the results");
        assert_eq!(
            blend_search_value([1.0, 0.0, 0.0], f32::NAN, 1.0),
            [0.5, 0.0, 0.5]
        );
        assert_eq!(blend_search_value([0.0, 0.0, 1.0], 3.0, 0.25), [0.25, 0.0, 0.75]);
    }

    #[test]
    fn exploration_moves_are_random_for_both_sides_and_record_no_sample() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let encoder = Encoder::new(&rs);
        let mut cfg = config(0.0, 0.0);
        cfg.exploration = 1.0;
        let g = play_game(&rules, &Uniform, &encoder, &cfg, 4, false, None, &[]);
        assert!(g.samples.is_empty());
        assert_eq!(g.stats.exploration_moves, g.stats.plies);
        cfg.exploration = 0.2;
        cfg.full_search_probability = 1.0;
        let g = play_game(&rules, &Uniform, &encoder, &cfg, 4, false, None, &[]);
        assert!(g.stats.exploration_moves > 0 && g.stats.exploration_moves < g.stats.plies);
        assert_eq!(g.stats.samples + g.stats.exploration_moves, g.stats.plies);
        // Both sides' value targets are kept.
        assert_eq!(g.stats.no_result, 0);
        assert!(g.samples.iter().all(|s| s.wdl != [0.0; 3]));
    }
}
