//! Sample positions of a ruleset for calibrating the int8 network: the activation ranges the
//! quantized graph uses are measured on them ([`crate::OnnxNet::new_int8`]).
//!
//! Positions come from games in which each move is drawn from the hand-written evaluation's
//! priors: closer to the positions a search meets than uniformly random games (whose attackers
//! are soon captured wholesale), yet varied from game to game, and cheap (no search). Every third
//! position of each game up to 300 plies is kept, so openings, middle games and endings are all
//! represented. The same seed gives the same positions.

use crate::Encoder;
use tafl_engine::{
    board::game_seed,
    search::{EvalInput, Evaluator, Heuristic},
    with_board, BitSet, Game, Rules, Ruleset,
};

/// Positions [`crate::OnnxNet::new_int8`] calibrates on: enough that every activation's range
/// is seen (the largest values come from the rarer positions), few enough that opening an int8
/// evaluator takes a fraction of a second.
pub const CALIBRATION_POSITIONS: usize = 512;

/// The seed of the calibration positions of int8 evaluators and exported int8 graphs: fixed,
/// so that the same network always quantizes the same way.
pub const CALIBRATION_SEED: u64 = 0x7a71_1ca1;

/// The input planes of `count` sample positions of `ruleset` (see the module documentation),
/// one after another.
pub fn calibration_planes(ruleset: &Ruleset, encoder: &Encoder, count: usize, seed: u64) -> Vec<f32> {
    with_board!(ruleset, B, rules => sample::<B>(&rules, encoder, count, seed))
}

fn sample<B: BitSet>(rules: &Rules<B>, encoder: &Encoder, count: usize, seed: u64) -> Vec<f32> {
    // Draw k of the run: a uniform number in [0, 1) from the seed and k.
    let mut draws = 0u64;
    let mut uniform = || {
        draws += 1;
        (game_seed(seed, draws) >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut planes = Vec::with_capacity(count * encoder.input_len());
    let mut kept = 0;
    // Bounded even for rules whose games end at once: at most this many games.
    for _ in 0..count.max(1) * 4 {
        if kept >= count {
            break;
        }
        let mut game = Game::new(rules).with_ply_limit(Some(300));
        while game.outcome().is_none() && kept < count {
            if game.ply().is_multiple_of(3) {
                let occurrences = game.occurrences().min(u8::MAX as usize) as u8;
                planes.extend(encoder.encode_vec(game.position(), occurrences, game.ply(), 0));
                kept += 1;
            }
            let moves = game.moves(rules);
            if moves.as_slice().is_empty() {
                break;
            }
            let input = EvalInput {
                position: game.position(),
                moves: moves.as_slice(),
                occurrences: 1,
                ply: game.ply(),
            };
            let priors = Heuristic.evaluate(rules, &[input]).remove(0).priors;
            let mut pick = uniform() * priors.iter().sum::<f32>();
            let mut chosen = moves.as_slice().len() - 1;
            for (i, p) in priors.iter().enumerate() {
                if pick < *p {
                    chosen = i;
                    break;
                }
                pick -= p;
            }
            game.play_unchecked(rules, moves.as_slice()[chosen]);
        }
    }
    planes
}
