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
//!
//! The root holds the core (rules, a game, positions, moves, sides, outcomes, squares); the rest
//! is in four places, one per question: [`rules`] (the rules as data), [`board`] (positions,
//! games and what is computed on them), [`formats`] (notation, records, CSV, OpenTafl, suites)
//! and [`search`] (evaluators, Monte Carlo tree search, players, levels, matches), with
//! [`stats`] (intervals and Elo) and [`input`] (bounded reading of outside input).
#![warn(missing_docs)]

mod bitset;
mod capture;
mod compiled;
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
mod ruleset;
pub mod search;
mod side;
mod square;
pub mod stats;
mod symmetry;
mod zobrist;

// The core every user of the engine needs, at the root (as shakmaty's `Chess`, `Move`, `Square`):
// the rules as a value and compiled, a game and its positions, sides and pieces, outcomes, squares.
pub use bitset::{BitSet, Wide};
pub use compiled::Rules;
pub use error::{IllegalMove, ParseError, RulesError};
pub use game::Game;
pub use game_key::GameKey;
pub use outcome::{Outcome, Reason};
pub use position::{Move, Position};
pub use ruleset::{RulesFile, Ruleset};
pub use side::{Piece, Side};
pub use square::{parse_square, square, square_name, Sq};

/// The rules as data: a rules file's knobs, the built-in rulesets, what makes two rulesets the
/// same game, and the compiled [`Rules`] that play uses. A ruleset is validated in stages:
/// [`RulesFile`] (the text's fields) -> [`Ruleset`] (checked values) -> [`Rules`] (masks and
/// tables for one board type).
pub mod rules {
    pub use crate::compiled::Rules;
    pub use crate::error::RulesError;
    pub use crate::game_key::GameKey;
    pub use crate::panel::rules_panel;
    pub use crate::ruleset::{
        CornersSpec, Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, RulesFile, Ruleset,
        Shieldwall, ThroneKind, ThronePass, ThroneStop, YesNo, BUILTIN_IDS,
    };
}

/// Positions and games: the board's bit sets and squares, moves and their generation, a game
/// with its history, outcomes and their tallies, symmetries, hashing, move-generation counts
/// (perft) and random games.
pub mod board {
    pub use crate::bitset::{BitSet, Squares, Wide};
    pub use crate::compiled::{Dir, DIRECTIONS, NONE};
    pub use crate::error::IllegalMove;
    pub use crate::game::{Game, Played};
    pub use crate::game_tally::GameTally;
    pub use crate::movegen::{MoveList, MAX_MOVES};
    pub use crate::outcome::{Outcome, Reason};
    pub use crate::perft::{perft, perft_divide};
    pub use crate::position::{Move, MoveEffect, Position};
    pub use crate::random::{game_seed, random_game};
    pub use crate::side::{Piece, Side};
    pub use crate::square::{parse_square, square, square_name, Sq, MAX_SIZE};
    pub use crate::symmetry::{transform_move, transform_position, transform_square, SYMMETRIES};
    pub use crate::zobrist::ZobristKeys;
}

/// What the engine reads and writes: move and position notation, board diagrams, game records,
/// CSV game lists and their replay, OpenTafl's rules strings and game files, opening suites.
/// Every reader returns a typed value or an error naming where and why.
pub mod formats {
    pub use crate::diagram::{parse_diagram, write_diagram};
    pub use crate::error::ParseError;
    pub use crate::fnv::fnv1a64;
    pub use crate::game_record::GameRecord;
    pub use crate::notation::{
        board_record, parse_move, play_text, played_text, position_from_record, position_record,
    };
    pub use crate::opening_suite::{symmetry_key, OpeningSuite, SuiteEntry, MAX_SUITE_POSITIONS};
    pub use crate::opentafl::{
        otn_move_text, ruleset_from_opentafl, ruleset_from_text, ruleset_to_opentafl, OtgRecord,
    };
    pub use crate::pieces_text::{parse_position_record, pieces_record};
    pub use crate::replay::{
        parse_csv_games, replay_csv, CsvGame, CsvMove, CsvResult, EarlyEnd, GameReplay, Mismatch, ReplayEnd,
        ReplaySummary,
    };
}

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
