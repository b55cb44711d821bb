//! `tafl-engine`: the Tafl rules as data, bitboard positions, move generation, outcomes and
//! notation. No dependency on any neural-network crate: small, fast and embeddable.
//!
//! ```
//! use tafl_engine::{Game, Rules, Ruleset};
//! let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap();
//! let game = Game::new(&rules);
//! assert_eq!(game.position().count_moves(&rules), 40);
//! ```
//!
//! Types are generic over the [`BitSet`] that holds one board: `u128` up to 11x11 and
//! [`Wide`] up to 19x19. [`with_board!`] picks the narrowest one for a ruleset.
#![warn(missing_docs)]

mod bitset;
mod capture;
mod diagram;
mod error;
mod fnv;
mod game;
mod game_key;
mod game_record;
mod game_tally;
pub mod input;
mod movegen;
mod notation;
mod opening_suite;
mod opentafl;
mod outcome;
mod panel;
mod perft;
mod pieces_text;
mod position;
mod random;
mod replay;
mod rules;
mod ruleset;
pub mod search;
mod side;
mod square;
pub mod stats;
mod symmetry;
mod zobrist;

pub use bitset::{BitSet, Squares, Wide};
pub use diagram::{parse_diagram, write_diagram};
pub use error::{IllegalMove, ParseError, RulesError};
pub use fnv::fnv1a64;
pub use game::{Game, Played};
pub use game_key::GameKey;
pub use game_record::GameRecord;
pub use game_tally::GameTally;
pub use movegen::{MoveList, MAX_MOVES};
pub use notation::{board_record, parse_move, play_text, played_text, position_from_record, position_record};
pub use opening_suite::{symmetry_key, OpeningSuite, SuiteEntry, MAX_SUITE_POSITIONS};
pub use opentafl::{otn_move_text, ruleset_from_opentafl, ruleset_from_text, ruleset_to_opentafl, OtgRecord};
pub use outcome::{Outcome, Reason};
pub use panel::rules_panel;
pub use perft::{perft, perft_divide};
pub use pieces_text::{parse_position_record, pieces_record};
pub use position::{Move, MoveEffect, Position};
pub use random::{game_seed, random_game};
pub use replay::{
    parse_csv_games, replay_csv, CsvGame, CsvMove, CsvResult, EarlyEnd, GameReplay, Mismatch, ReplayEnd,
    ReplaySummary,
};
pub use rules::{Dir, Rules, DIRECTIONS, NONE};
pub use ruleset::{
    CornersSpec, Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, RulesFile, Ruleset,
    Shieldwall, ThroneKind, ThronePass, ThroneStop, YesNo, BUILTIN_IDS,
};
pub use search::{
    classic_evaluator, play_game, play_game_from, play_match_from, play_match_with, random_opening,
    score_for, suite_tallies, EvalInput, Evaluation, Evaluator, EvaluatorFactory, EvaluatorSpec, Features,
    FinishedGame, Heuristic, Layered, Level, Levels, MatchResult, MatchSettings, MoveStat, Openings,
    Parallelism, Player, PlayerFactory, PlayerSpec, Proven, Rollout, RootSelection, Search, SearchConfig,
    SearchResult, SideTally, Uniform, Wdl, OPENING_SEED,
};
pub use search::{
    merge_results, move_time_search, near_class, parse_duration, softmax, square_classes, weigh, Clock,
    Deadline, Linear, LinearWeights, MoveTerms, PriorWeights, ThinkingLimit, HAND_WEIGHTS,
    MAX_LINEAR_FILE_BYTES, MAX_NODES, MIN_NODES, MOVE_OVERHEAD, MOVE_PARTS, MOVE_PART_COUNT, NEAR_CLASSES,
    NEAR_CLASS_NAMES, NODE_BYTES, VALUE_TERMS, VALUE_TERM_COUNT,
};
pub use search::{EngineProtocol, ExternalPlayer, Stop, MAX_COMMAND_LEN};
pub use side::{Piece, Side};
pub use square::{parse_square, square, square_name, Sq, MAX_SIZE};
pub use symmetry::{transform_move, transform_position, transform_square, SYMMETRIES};
pub use zobrist::ZobristKeys;

/// Runs `$body` with `$B` bound to the narrowest [`BitSet`] type that holds the board of
/// `$ruleset` and `$rules` bound to the compiled [`Rules<$B>`].
///
/// ```
/// use tafl_engine::{with_board, Position, Ruleset};
/// let ruleset = Ruleset::builtin("alea-evangelii");
/// let moves = with_board!(&ruleset, B, rules => Position::<B>::start(&rules).count_moves(&rules));
/// assert!(moves > 0);
/// ```
#[macro_export]
macro_rules! with_board {
    ($ruleset:expr, $B:ident, $rules:ident => $body:expr) => {{
        let ruleset: &$crate::Ruleset = $ruleset;
        if ruleset.size() * ruleset.size() <= 128 {
            type $B = u128;
            match $crate::Rules::<$B>::new(ruleset) {
                Ok($rules) => $body,
                Err(e) => unreachable!("{e}"),
            }
        } else {
            type $B = $crate::Wide;
            match $crate::Rules::<$B>::new(ruleset) {
                Ok($rules) => $body,
                Err(e) => unreachable!("{e}"),
            }
        }
    }};
}
