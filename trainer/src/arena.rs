//! Matches inside a training run: candidate against best, and the ladder of fixed anchors,
//! between [`Contender`]s (a spec, and the network it names). The match itself is the
//! engine's [`play_match_with`]; games run on many threads at once so network evaluators see
//! batches.

use std::sync::Arc;
use tafl_engine::{
    search::{
        classic_evaluator, play_match_from, Evaluator, EvaluatorSpec, MatchResult, MatchSettings, Openings,
        Player, PlayerSpec, SearchConfig,
    },
    BitSet, Rules,
};

/// One side of a match: a player spec and, for networks, the evaluator to use.
#[derive(Clone)]
pub struct Contender<B: BitSet> {
    /// What reports call it.
    pub label: String,
    /// The player.
    pub spec: PlayerSpec,
    /// The evaluator for `mcts:model=...` specs.
    pub net: Option<Arc<dyn Evaluator<B>>>,
}

impl<B: BitSet> Contender<B> {
    /// A network player searching `simulations` per move.
    pub fn net(label: &str, net: Arc<dyn Evaluator<B>>, simulations: u32) -> Contender<B> {
        Contender {
            label: label.to_string(),
            spec: PlayerSpec::Mcts {
                evaluator: EvaluatorSpec::Model(label.to_string()),
                simulations,
            },
            net: Some(net),
        }
    }

    fn player(&self, seed: u64) -> Result<Player<B>, String> {
        let net = self.net.clone();
        let factory = move |e: &EvaluatorSpec| -> Result<Arc<dyn Evaluator<B>>, String> {
            match (e, &net) {
                (EvaluatorSpec::Model(_), Some(n)) => Ok(n.clone()),
                _ => classic_evaluator(e),
            }
        };
        Player::new(&self.spec, seed, &SearchConfig::default(), &factory)
    }
}

/// Plays a match (A attacks in even games) from each pair's random opening.
pub fn play_match<B: BitSet>(
    rules: &Rules<B>,
    a: &Contender<B>,
    b: &Contender<B>,
    settings: &MatchSettings,
    on_game: &(dyn Fn(&tafl_engine::search::FinishedGame) + Sync),
) -> Result<MatchResult, String> {
    play_suite_match(rules, a, b, settings, Openings::Random, on_game)
}

/// Plays a match (A attacks in even games) from `openings`: an opening suite's positions, or
/// each pair's random opening.
pub fn play_suite_match<B: BitSet>(
    rules: &Rules<B>,
    a: &Contender<B>,
    b: &Contender<B>,
    settings: &MatchSettings,
    openings: Openings<'_, B>,
    on_game: &(dyn Fn(&tafl_engine::search::FinishedGame) + Sync),
) -> Result<MatchResult, String> {
    play_match_from(
        rules,
        &|s| a.player(s),
        &|s| b.player(s),
        settings,
        openings,
        on_game,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::{search::play_match_with, Ruleset};

    fn brandubh() -> Rules<u128> {
        Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap()
    }

    fn settings(exploration: f32, threads: usize) -> MatchSettings {
        MatchSettings {
            games: 40,
            ply_limit: Some(300),
            opening_plies: 2,
            threads,
            seed: 11,
            exploration,
            ..MatchSettings::default()
        }
    }

    fn classic(spec: &str) -> Contender<u128> {
        Contender {
            label: spec.to_string(),
            spec: PlayerSpec::parse(spec).unwrap(),
            net: None,
        }
    }

    fn play(a: &str, b: &str, s: &MatchSettings) -> MatchResult {
        play_match(&brandubh(), &classic(a), &classic(b), s, &|_| {}).unwrap()
    }

    #[test]
    fn both_players_explore() {
        // At exploration 1 every move of both players is uniformly random, so the greedy
        // player against `random` is random play on both sides: under Brandubh's rules the
        // defenders win about 99% of such games, and the greedy player's edge is gone. Had
        // only one side explored, that side would lose as the defenders or the greedy player
        // would keep its attacking wins.
        let plain = play("greedy", "random", &settings(0.0, 2));
        let r = play("greedy", "random", &settings(1.0, 2));
        assert!(
            plain.as_attackers.0 >= 10,
            "the greedy player wins as attackers against random: {}",
            plain.summary()
        );
        assert!(r.as_attackers.0 <= 2, "{}", r.summary());
        assert!(r.as_defenders.0 >= 18, "{}", r.summary());
        // And with the greedy player as B, too.
        let r = play("random", "greedy", &settings(1.0, 2));
        assert!(r.as_attackers.0 <= 2 && r.as_defenders.0 >= 18, "{}", r.summary());
    }

    #[test]
    fn exploration_is_seeded_and_keeps_a_players_own_as_a_floor() {
        let s = settings(0.3, 2);
        let r = play("mcts:heuristic:8", "greedy", &s);
        let again = play("mcts:heuristic:8", "greedy", &settings(0.3, 1));
        assert_eq!(
            (&r.scores, &r.plies),
            (&again.scores, &again.plies),
            "same seed, same match, whatever the thread count"
        );
        let other = play("mcts:heuristic:8", "greedy", &settings(0.0, 2));
        assert_ne!(r.plies, other.plies, "exploration changes the games");
        // Players that make random moves of their own (a level's mistakes) keep them when the
        // match asks for fewer: the same games as a match that asks for as many.
        let rules = brandubh();
        let own = |spec: &'static str| {
            let c = classic(spec);
            move |seed: u64| -> Result<Player<u128>, String> {
                let mut p = c.player(seed)?;
                p.exploration = 0.7;
                Ok(p)
            }
        };
        let (a, b) = (own("mcts:heuristic:8"), own("greedy"));
        let floor = play_match_with(&rules, &a, &b, &settings(0.2, 2), &|_| {}).unwrap();
        let high = play("mcts:heuristic:8", "greedy", &settings(0.7, 2));
        assert_eq!((&floor.scores, &floor.plies), (&high.scores, &high.plies));
        let (a, b) = (own("mcts:heuristic:8"), own("greedy"));
        let bad = play_match_with(&rules, &a, &b, &settings(1.5, 2), &|_| {});
        assert!(bad.is_err_and(|e| e.contains("exploration")));
    }
}
