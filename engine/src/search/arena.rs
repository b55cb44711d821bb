//! Games between two players, the unit of arenas, ladders and skilled balance studies.

use super::player::Player;
use crate::bitset::BitSet;
use crate::game::Game;
use crate::outcome::Outcome;
use crate::rules::Rules;
use crate::side::Side;

/// Plays one game from the start: `attackers` and `defenders` choose moves until the rules
/// or `ply_limit` end it. Returns the finished game.
pub fn play_game<B: BitSet>(
    rules: &Rules<B>,
    attackers: &mut Player<B>,
    defenders: &mut Player<B>,
    ply_limit: Option<u32>,
) -> Game<B> {
    let mut game = Game::new(rules).with_ply_limit(ply_limit);
    while game.outcome().is_none() {
        let player = match game.position().to_move() {
            Side::Attackers => &mut *attackers,
            Side::Defenders => &mut *defenders,
        };
        let Some((mv, _)) = player.choose(rules, &game) else {
            break;
        };
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
