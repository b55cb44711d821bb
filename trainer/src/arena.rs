//! Matches inside a training run: candidate against best, and the ladder of fixed anchors.
//! Games run on many threads at once so network evaluators see batches.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tafl_engine::stats::EloEstimate;
use tafl_engine::{
    classic_evaluator, game_seed, play_game_from, random_opening, score_for, BitSet, Evaluator,
    EvaluatorSpec, Player, PlayerSpec, Rules, SearchConfig, Side,
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
    } = *settings;
    let games = games.div_ceil(2) as u64 * 2;
    // Build once to surface spec errors before the threads start.
    a(0)?;
    b(0)?;
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<(u64, Side, f64, u32)>> = Mutex::new(Vec::new());
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
                results.lock().unwrap_or_else(|p| p.into_inner()).push((
                    g,
                    a_side,
                    score_for(game.outcome(), a_side),
                    game.ply(),
                ));
                on_game();
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut r = results.into_inner().unwrap_or_else(|p| p.into_inner());
    r.sort_by_key(|x| x.0);
    let mut out = MatchResult::default();
    for (_, side, score, plies) in r {
        out.scores.push(score);
        out.plies.push(plies);
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
