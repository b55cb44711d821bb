//! Search: the [`Evaluator`] trait, classic evaluators, Monte Carlo tree search, players and
//! AI levels. Search sees evaluations only through [`Evaluator`].

mod arena;
mod classic;
mod config;
mod evaluator;
mod external;
mod heuristic;
mod linear;
mod mcts;
mod noise;
mod player;
mod time;

pub use arena::{
    play_game, play_game_from, play_match_from, play_match_with, random_opening, suite_tallies, FinishedGame,
    MatchResult, MatchSettings, Openings, PlayerFactory, SideTally,
};
pub use classic::{Rollout, Uniform};
pub use config::{Parallelism, RootSelection, SearchConfig, MIN_NODES};
pub use evaluator::{EvalInput, Evaluation, Evaluator, Layered, Wdl};
pub use external::{EngineProtocol, ExternalPlayer, Stop, MAX_COMMAND_LEN};
pub use heuristic::{weigh, Features, Heuristic, VALUE_TERM_COUNT};
pub use linear::{
    square_classes, Linear, LinearWeights, MoveTerms, PriorWeights, MAX_LINEAR_FILE_BYTES, MOVE_PART_COUNT,
    NEAR_CLASSES,
};
pub use mcts::{merge_results, softmax, MoveStat, Proven, Search, SearchResult, MAX_NODES, NODE_BYTES};
pub use player::{classic_evaluator, EvaluatorFactory, EvaluatorSpec, Level, Levels, Player, PlayerSpec};
pub use time::{Clock, Deadline, ThinkingLimit};
