//! One module per command of `tafl`, named after it: its arguments, their parsers, and the
//! code that runs it (`tafl rebalance` is `rebalance.rs`). `crate::cli` is only the table of
//! commands and the dispatch.

pub mod analyze;
pub mod arena;
pub mod balance;
pub mod bench;
pub mod engine;
pub mod export;
pub mod ladder;
pub mod openings;
pub mod perft;
pub mod play;
pub mod random;
pub mod rebalance;
pub mod records;
pub mod replay;
pub mod rules;
pub mod selfplay;
pub mod serve;
pub mod stages;
pub mod train;
pub mod tune;
