//! Games and matches between two players: the one place games are played, for `tafl arena`,
//! the trainer's arena and ladder, and the skilled rows of balance studies.

use super::player::Player;
use super::time::{Clock, ThinkingLimit};
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::Game;
use crate::game_record::GameRecord;
use crate::outcome::{Outcome, Reason};
use crate::random::game_seed;
use crate::side::Side;
use crate::stats::EloEstimate;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Plays one game from the start: `attackers` and `defenders` choose moves until the rules
/// or `ply_limit` end it. Returns the finished game.
pub fn play_game<B: BitSet>(
    rules: &Rules<B>,
    attackers: &mut Player<B>,
    defenders: &mut Player<B>,
    ply_limit: Option<u32>,
) -> Game<B> {
    play_game_from(
        rules,
        Game::new(rules).with_ply_limit(ply_limit),
        attackers,
        defenders,
    )
}

/// A random opening: `plies` uniformly random legal moves from the start, drawn from `seed`.
/// Openings that end the game are redrawn (from the next seeds), so the game goes on; after
/// 100 tries the start position is returned.
///
/// Matches need openings because search players without noise are deterministic: two such
/// players would otherwise play the same game in every pair, and a hundred games would
/// measure one.
pub fn random_opening<B: BitSet>(rules: &Rules<B>, plies: u32, seed: u64, ply_limit: Option<u32>) -> Game<B> {
    for attempt in 0..100u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(crate::random::game_seed(seed, attempt));
        let mut game = Game::new(rules).with_ply_limit(ply_limit);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            match game.pick_move(rules, |count| rng.random_range(0..count)) {
                Some(mv) => {
                    game.play_unchecked(rules, mv);
                }
                None => break,
            }
        }
        if game.outcome().is_none() {
            return game;
        }
    }
    Game::new(rules).with_ply_limit(ply_limit)
}

/// Plays `game` on to its end: `attackers` and `defenders` choose moves until the rules or the
/// game's ply limit end it. A player whose limit is a game clock has its clock kept here: the
/// time each move takes is spent from it, its increment added, and a player whose clock runs
/// out loses on time.
pub fn play_game_from<B: BitSet>(
    rules: &Rules<B>,
    mut game: Game<B>,
    attackers: &mut Player<B>,
    defenders: &mut Player<B>,
) -> Game<B> {
    let start_clock = |p: &Player<B>| match p.limit {
        ThinkingLimit::Clock { base, increment } => Some(Clock {
            remaining: base,
            increment,
        }),
        _ => None,
    };
    let mut clocks = [start_clock(attackers), start_clock(defenders)];
    while game.outcome().is_none() {
        let side = game.position().to_move();
        let (player, clock) = match side {
            Side::Attackers => (&mut *attackers, &mut clocks[0]),
            Side::Defenders => (&mut *defenders, &mut clocks[1]),
        };
        player.clock = *clock;
        let t0 = Instant::now();
        let Some((mv, _)) = player.choose(rules, &game) else {
            // Another program forfeited, or its rules ended the game.
            if let Some(stop) = &player.stopped {
                game.end_outside_rules(stop.outcome);
            }
            break;
        };
        if let Some(c) = clock {
            if !c.spend(t0.elapsed()) {
                game.lose_on_time(side);
                break;
            }
        }
        if game.play(rules, mv).is_err() {
            // A player that returns an illegal move ends the game without a result rather
            // than crashing the match.
            break;
        }
    }
    game
}

/// The score of a game for `side`: 1 for a win, 0 for a loss, 0.5 for a draw or no result.
pub fn score_for(outcome: Option<Outcome>, side: Side) -> f64 {
    match outcome.and_then(|o| o.winner) {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
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
    /// Search threads per player, replacing the players' own; 0 keeps each player's own
    /// (as built: a timed level's cores, one for a player by simulations).
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

/// One finished game of a match, from A's point of view: what the match result is made of,
/// and what `play_match_with` hands its `on_game` as each game ends (in the order games
/// finish), so that a progress log keeps the games of an interrupted match. Its `record` is
/// for `on_game` only: the match does not keep it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    /// Its index in the match, from 0 (A attacks in even games; pair `game / 2`).
    pub game: u64,
    /// The side A played.
    pub a_side: Side,
    /// A's score: 1, 0.5 or 0.
    pub score: f64,
    /// Its length.
    pub plies: u32,
    /// Whether a player lost on time.
    pub on_time: bool,
    /// What ended the game outside the rules (another program's forfeit or verdict).
    pub stopped: Option<String>,
    /// The game as a record: rules, start position (when not the rules' own), ply limit,
    /// moves, result and how it ended. A host adds its own tags (the players, say) and
    /// writes it out; `tafl arena --records` does.
    pub record: GameRecord,
}

/// Mixed into the match seed for the openings, so they do not share a stream with the players.
pub const OPENING_SEED: u64 = 0x0BE1_1115;

/// Makes a side's player for one game from that game's seed.
pub type PlayerFactory<'a, B> = dyn Fn(u64) -> Result<Player<B>, String> + Sync + 'a;

/// Where the games of a match start.
#[derive(Clone, Copy, Debug)]
pub enum Openings<'a, B: BitSet> {
    /// The rules' start position after the settings' `opening_plies` random plies, drawn
    /// anew for each pair.
    Random,
    /// The positions of an opening suite (see [`crate::formats::OpeningSuite`]): pair `p` plays
    /// position `p % len` (so the suite cycles when a match asks for more pairs than it
    /// holds), with no random plies.
    Suite(&'a [crate::position::Position<B>]),
}

impl<B: BitSet> Openings<'_, B> {
    /// The suite position game `game` starts from (`None` for random openings).
    pub fn suite_index(&self, game: u64) -> Option<usize> {
        match self {
            Openings::Random => None,
            Openings::Suite(p) => Some(((game / 2) % p.len().max(1) as u64) as usize),
        }
    }
}

/// How the games from one start position went, by side (not by player): what tells a
/// balanced position from one that one side wins whoever plays it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideTally {
    /// Games the attackers won.
    pub attackers: u32,
    /// Games the defenders won.
    pub defenders: u32,
    /// Draws and games without a result.
    pub other: u32,
}

impl SideTally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.attackers + self.defenders + self.other
    }
}

/// The games of a match from a suite of `positions` start positions, tallied by position and
/// by side: `scores` are A's in game order (A attacks in even games), pair `p` from position
/// `p % positions`, as [`play_match_from`] plays them.
pub fn suite_tallies(scores: &[f64], positions: usize) -> Vec<SideTally> {
    let mut tally = vec![SideTally::default(); positions.max(1)];
    for (g, &score) in scores.iter().enumerate() {
        let t = &mut tally[(g / 2) % positions.max(1)];
        let a_attacks = g % 2 == 0;
        if score == 0.5 {
            t.other += 1;
        } else if (score > 0.5) == a_attacks {
            t.attackers += 1;
        } else {
            t.defenders += 1;
        }
    }
    tally.truncate(positions);
    tally
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
    on_game: &(dyn Fn(&FinishedGame) + Sync),
) -> Result<MatchResult, String> {
    play_match_from(rules, a, b, settings, Openings::Random, on_game)
}

/// [`play_match_with`] from the given openings: with a suite, pair `p` starts from its
/// position `p % len` and `settings.opening_plies` is not used.
pub fn play_match_from<B: BitSet>(
    rules: &Rules<B>,
    a: &PlayerFactory<'_, B>,
    b: &PlayerFactory<'_, B>,
    settings: &MatchSettings,
    openings: Openings<'_, B>,
    on_game: &(dyn Fn(&FinishedGame) + Sync),
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
    if matches!(openings, Openings::Suite(p) if p.is_empty()) {
        return Err("the opening suite holds no position".into());
    }
    let games = games.div_ceil(2) as u64 * 2;
    // Build once to surface spec errors before the threads start.
    a(0)?;
    b(0)?;
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<FinishedGame>> = Mutex::new(Vec::new());
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
                    if search_threads > 0 {
                        p.threads = search_threads;
                    }
                }
                let a_side = if g.is_multiple_of(2) {
                    Side::Attackers
                } else {
                    Side::Defenders
                };
                let opening = match openings {
                    Openings::Random => random_opening(
                        rules,
                        opening_plies,
                        game_seed(seed ^ OPENING_SEED, g / 2),
                        ply_limit,
                    ),
                    Openings::Suite(positions) => {
                        let i = openings.suite_index(g).unwrap_or(0);
                        Game::from_position(rules, positions[i]).with_ply_limit(ply_limit)
                    }
                };
                let game = match a_side {
                    Side::Attackers => play_game_from(rules, opening, &mut pa, &mut pb),
                    Side::Defenders => play_game_from(rules, opening, &mut pb, &mut pa),
                };
                let mut played = FinishedGame {
                    game: g,
                    a_side,
                    score: score_for(game.outcome(), a_side),
                    plies: game.ply(),
                    on_time: game.outcome().is_some_and(|o| o.reason == Reason::Time),
                    record: GameRecord::from_game(rules, &game),
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
                };
                on_game(&played);
                // The host has had the record; a long match keeps only the results.
                played.record = GameRecord::default();
                results.lock().unwrap_or_else(|p| p.into_inner()).push(played);
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut r = results.into_inner().unwrap_or_else(|p| p.into_inner());
    r.sort_by_key(|x| x.game);
    let mut out = MatchResult::default();
    for FinishedGame {
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
    use crate::ruleset::Ruleset;

    #[test]
    fn suite_games_are_tallied_by_position_and_side() {
        // Two positions; A attacks in even games: position 1 has games 0, 1, 4, 5 (A wins as
        // attackers, A wins as defenders, no result, B wins as attackers).
        let scores = [1.0, 1.0, 0.0, 1.0, 0.5, 0.0];
        let t = suite_tallies(&scores, 2);
        assert_eq!(
            t[0],
            SideTally {
                attackers: 2,
                defenders: 1,
                other: 1
            }
        );
        assert_eq!(
            t[1],
            SideTally {
                attackers: 0,
                defenders: 2,
                other: 0
            }
        );
        assert_eq!(t[0].games(), 4);
        assert!(suite_tallies(&[], 0).is_empty());
    }

    #[test]
    fn a_suite_match_starts_each_pair_from_its_position_cycling() {
        use crate::search::player::{classic_evaluator, Player, PlayerSpec};
        use crate::search::SearchConfig;
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let positions: Vec<_> = (0..3)
            .map(|s| *random_opening(&rules, 6, s, None).position())
            .collect();
        let starts: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());
        let random = |s: u64| {
            Player::new(
                &PlayerSpec::Random,
                s,
                &SearchConfig::default(),
                &classic_evaluator::<u128>,
            )
        };
        let settings = MatchSettings {
            games: 8,
            ply_limit: Some(1),
            threads: 2,
            ..MatchSettings::default()
        };
        let r = play_match_from(
            &rules,
            &random,
            &random,
            &settings,
            Openings::Suite(&positions),
            &|g| starts.lock().unwrap().push((g.game, g.plies as u64)),
        )
        .unwrap();
        assert_eq!(r.scores.len(), 8);
        assert!(
            r.plies.iter().all(|&p| p == 1),
            "one ply from each suite position: {:?}",
            r.plies
        );
        let openings = Openings::Suite(&positions);
        let index: Vec<usize> = (0..8).map(|g| openings.suite_index(g).unwrap()).collect();
        assert_eq!(
            index,
            vec![0, 0, 1, 1, 2, 2, 0, 0],
            "pairs cycle through the suite"
        );
        assert_eq!(Openings::<u128>::Random.suite_index(3), None);
        let empty = play_match_from(&rules, &random, &random, &settings, Openings::Suite(&[]), &|_| {});
        assert!(empty.unwrap_err().contains("no position"));
    }

    #[test]
    fn random_openings_are_seeded_and_go_on() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).expect("brandubh builds");
        let a = random_opening(&rules, 4, 7, Some(100));
        let b = random_opening(&rules, 4, 7, Some(100));
        assert_eq!(a.history(), b.history(), "the same seed gives the same opening");
        assert_eq!(a.ply(), 4);
        assert!(a.outcome().is_none());
        let distinct: std::collections::HashSet<u64> = (0..20)
            .map(|s| random_opening(&rules, 4, s, None).position().hash())
            .collect();
        assert!(
            distinct.len() > 15,
            "openings vary with the seed: {}",
            distinct.len()
        );
        assert_eq!(random_opening(&rules, 0, 3, None).ply(), 0);
    }
}
