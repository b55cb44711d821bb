//! Games between two players, the unit of arenas, ladders and skilled balance studies.

use super::player::Player;
use super::time::{Clock, ThinkingLimit};
use crate::bitset::BitSet;
use crate::game::Game;
use crate::outcome::Outcome;
use crate::rules::Rules;
use crate::side::Side;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
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
            match game
                .position()
                .pick_move(rules, |count| rng.random_range(0..count))
            {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;

    #[test]
    fn random_openings_are_seeded_and_go_on() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).expect("brandubh builds");
        let a = random_opening(&rules, 4, 7, Some(100));
        let b = random_opening(&rules, 4, 7, Some(100));
        assert_eq!(a.moves(), b.moves(), "the same seed gives the same opening");
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
