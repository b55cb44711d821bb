//! `tafl-trainer`: the AlphaZero loop for Tafl, built on the engine's search and the `nn`
//! crate: self-play on many threads into one batched evaluator, versioned and checksummed
//! replay shards, a burn learner, arena and ladder with Elo intervals, and run folders that
//! resume after `kill -9`. See [`run_dir`] for the run folder's layout.
#![warn(missing_docs)]

pub mod arena;
pub mod config;
pub mod curve;
pub mod events;
pub mod integrity;
pub mod ladder;
pub mod learn;
pub mod plot;
pub mod records;
pub mod run;
pub mod selfplay;
pub mod shard;
mod stages;
pub mod state;
pub mod suites;

pub use config::{TrainConfig, DEFAULT_CONFIG};
pub use run::{
    ladder, resume, run_stage, selfplay_games, selfplay_plan, start, LadderRequest, RunState, Stage,
    TrainOptions,
};
