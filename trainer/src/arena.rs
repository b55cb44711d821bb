//! Matches inside a training run: candidate against best, and the ladder of fixed anchors.
//! Games run on many threads at once so network evaluators see batches.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tafl_engine::stats::EloEstimate;
use tafl_engine::{
    classic_evaluator, game_seed, play_game_from, random_opening, score_for, BitSet, Evaluator,
    EvaluatorSpec, Player, PlayerSpec, Reason, Rules, SearchConfig, Side, ThinkingLimit,
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

/// Results of a match from A's point of view.
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// A's score per game, in game order.
    pub scores: Vec<f64>,
    /// Plies of each game.
    pub plies: Vec<u32>,
    /// A's (wins, draws, losses) as attackers.
    pub as_attackers: (u32, u32, u32),
    /// A's (wins, draws, losses) as defenders.
    pub as_defenders: (u32, u32, u32),
    /// Games lost on time (by either player).
    pub on_time: u32,
    /// Games that another program (an `htp:` or `otep:` player) forfeited, or whose end its
    /// own rules decided: one line each, naming the game and what happened.
    pub stopped: Vec<String>,
}

impl MatchResult {
    /// A's Elo difference with its 95% interval.
    pub fn elo(&self) -> EloEstimate {
        EloEstimate::from_scores(&self.scores)
    }
    /// One line: per-side results and Elo.
    pub fn summary(&self) -> String {
        let (aw, ad, al) = self.as_attackers;
        let (dw, dd, dl) = self.as_defenders;
        format!(
            "as attackers {aw}-{ad}-{al}, as defenders {dw}-{dd}-{dl} (W-D-L); {}",
            self.elo()
        )
    }
}

/// How a match is played.
#[derive(Clone, Copy, Debug)]
pub struct MatchSettings {
    /// Games (rounded up to whole pairs).
    pub games: u32,
    /// A game reaching this many plies ends with no result (`None`: no limit).
    pub ply_limit: Option<u32>,
    /// Uniformly random plies opening each pair (both games of a pair share it).
    pub opening_plies: u32,
    /// Worker threads.
    pub threads: usize,
    /// Seed of the openings and the players.
    pub seed: u64,
    /// Probability, each ply, that the player to move plays a uniformly random legal move
    /// instead of its own choice (the exploration rule of the balance study's skilled rows),
    /// for both players. A player's own exploration (a level's mistakes) stays where higher.
    /// Drawn from each game's seeded players, so a match still reproduces. 0: none.
    pub exploration: f32,
    /// How long both players think per move; [`ThinkingLimit::Simulations`] (the default)
    /// leaves each its own (a level's time, or its spec's simulations). Under a clock each
    /// game keeps both players' clocks, and a player whose time runs out loses.
    pub limit: ThinkingLimit,
    /// Search threads per player (root parallelism); 1 when games run in parallel.
    pub search_threads: usize,
}

impl Default for MatchSettings {
    fn default() -> MatchSettings {
        MatchSettings {
            games: 2,
            ply_limit: None,
            opening_plies: 0,
            threads: 1,
            seed: 0,
            exploration: 0.0,
            limit: ThinkingLimit::Simulations,
            search_threads: 1,
        }
    }
}

/// One finished game of a match, from A's point of view.
struct Played {
    /// Its index in the match.
    game: u64,
    /// The side A played.
    a_side: Side,
    /// A's score.
    score: f64,
    plies: u32,
    /// Whether a player lost on time.
    on_time: bool,
    /// What ended the game outside the rules (another program's forfeit or verdict).
    stopped: Option<String>,
}

/// Mixed into the match seed for the openings, so they do not share a stream with the players.
pub const OPENING_SEED: u64 = 0x0BE1_1115;

/// Makes a side's player for one game from that game's seed.
pub type PlayerFactory<'a, B> = dyn Fn(u64) -> Result<Player<B>, String> + Sync + 'a;

/// Plays a match (A attacks in even games) from each pair's random opening.
pub fn play_match<B: BitSet>(
    rules: &Rules<B>,
    a: &Contender<B>,
    b: &Contender<B>,
    settings: &MatchSettings,
    on_game: &(dyn Fn() + Sync),
) -> Result<MatchResult, String> {
    play_match_with(rules, &|s| a.player(s), &|s| b.player(s), settings, on_game)
}

/// Plays a match between players made by `a` and `b` (A attacks in even games), game `g`
/// from the random opening of pair `g / 2`, on `settings.threads` threads. Each game's
/// players are seeded from (seed, game); results come back in game order, so they do not
/// depend on the thread count.
pub fn play_match_with<B: BitSet>(
    rules: &Rules<B>,
    a: &PlayerFactory<'_, B>,
    b: &PlayerFactory<'_, B>,
    settings: &MatchSettings,
    on_game: &(dyn Fn() + Sync),
) -> Result<MatchResult, String> {
    let MatchSettings {
        games,
        ply_limit,
        opening_plies,
        threads,
        seed,
        exploration,
        limit,
        search_threads,
    } = *settings;
    if !(0.0..=1.0).contains(&exploration) {
        return Err(format!(
            "exploration {exploration} is not a probability; allowed: 0 to 1"
        ));
    }
    if games == 0 {
        return Err("a match needs at least one game".into());
    }
    let games = games.div_ceil(2) as u64 * 2;
    // Build once to surface spec errors before the threads start.
    a(0)?;
    b(0)?;
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Played>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, games as usize) {
            scope.spawn(|| loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                if g >= games {
                    break;
                }
                let s = game_seed(seed, g);
                let players = a(s).and_then(|pa| Ok((pa, b(s ^ 0x5EED)?)));
                let (mut pa, mut pb) = match players {
                    Ok(p) => p,
                    Err(e) => {
                        *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        break;
                    }
                };
                // The match's exploration is the least each player makes; a level's own stays.
                pa.exploration = pa.exploration.max(exploration);
                pb.exploration = pb.exploration.max(exploration);
                for p in [&mut pa, &mut pb] {
                    if limit != ThinkingLimit::Simulations {
                        p.limit = limit;
                    }
                    p.threads = search_threads.max(1);
                }
                let a_side = if g.is_multiple_of(2) {
                    Side::Attackers
                } else {
                    Side::Defenders
                };
                let opening = random_opening(
                    rules,
                    opening_plies,
                    game_seed(seed ^ OPENING_SEED, g / 2),
                    ply_limit,
                );
                let game = match a_side {
                    Side::Attackers => play_game_from(rules, opening, &mut pa, &mut pb),
                    Side::Defenders => play_game_from(rules, opening, &mut pb, &mut pa),
                };
                results.lock().unwrap_or_else(|p| p.into_inner()).push(Played {
                    game: g,
                    a_side,
                    score: score_for(game.outcome(), a_side),
                    plies: game.ply(),
                    on_time: game.outcome().is_some_and(|o| o.reason == Reason::Time),
                    stopped: [("A", &pa), ("B", &pb)].into_iter().find_map(|(who, p)| {
                        let s = p.stopped.as_ref()?;
                        Some(format!(
                            "game {} (A {}), {who}: {} after {} plies: {}",
                            g + 1,
                            a_side.name(),
                            s.outcome,
                            game.ply(),
                            s.why
                        ))
                    }),
                });
                on_game();
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut r = results.into_inner().unwrap_or_else(|p| p.into_inner());
    r.sort_by_key(|x| x.game);
    let mut out = MatchResult::default();
    for Played {
        a_side: side,
        score,
        plies,
        on_time,
        stopped,
        ..
    } in r
    {
        out.stopped.extend(stopped);
        out.scores.push(score);
        out.plies.push(plies);
        out.on_time += on_time as u32;
        let t = match side {
            Side::Attackers => &mut out.as_attackers,
            Side::Defenders => &mut out.as_defenders,
        };
        match score {
            1.0 => t.0 += 1,
            0.0 => t.2 += 1,
            _ => t.1 += 1,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::Ruleset;

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
        play_match(&brandubh(), &classic(a), &classic(b), s, &|| {}).unwrap()
    }

    #[test]
    fn both_players_explore() {
        // At exploration 1 every move of both players is uniformly random, so the greedy
        // player against `random` is random play on both sides: under Brandubh's rules the
        // defenders win about 99% of such games, and the greedy player's edge is gone. Had
        // only one side explored, that side would lose as the defenders or the greedy player
        // would keep its attacking wins.
        let plain = play("heuristic", "random", &settings(0.0, 2));
        let r = play("heuristic", "random", &settings(1.0, 2));
        assert!(
            plain.as_attackers.0 >= 10,
            "the greedy player wins as attackers against random: {}",
            plain.summary()
        );
        assert!(r.as_attackers.0 <= 2, "{}", r.summary());
        assert!(r.as_defenders.0 >= 18, "{}", r.summary());
        // And with the greedy player as B, too.
        let r = play("random", "heuristic", &settings(1.0, 2));
        assert!(r.as_attackers.0 <= 2 && r.as_defenders.0 >= 18, "{}", r.summary());
    }

    #[test]
    fn exploration_is_seeded_and_keeps_a_players_own_as_a_floor() {
        let s = settings(0.3, 2);
        let r = play("mcts:heuristic:8", "heuristic", &s);
        let again = play("mcts:heuristic:8", "heuristic", &settings(0.3, 1));
        assert_eq!(
            (&r.scores, &r.plies),
            (&again.scores, &again.plies),
            "same seed, same match, whatever the thread count"
        );
        let other = play("mcts:heuristic:8", "heuristic", &settings(0.0, 2));
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
        let (a, b) = (own("mcts:heuristic:8"), own("heuristic"));
        let floor = play_match_with(&rules, &a, &b, &settings(0.2, 2), &|| {}).unwrap();
        let high = play("mcts:heuristic:8", "heuristic", &settings(0.7, 2));
        assert_eq!((&floor.scores, &floor.plies), (&high.scores, &high.plies));
        let (a, b) = (own("mcts:heuristic:8"), own("heuristic"));
        let bad = play_match_with(&rules, &a, &b, &settings(1.5, 2), &|| {});
        assert!(bad.is_err_and(|e| e.contains("exploration")));
    }
}
