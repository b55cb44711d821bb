//! Players, models and studies: what a game site, a tournament host or a notebook asks of the
//! engine and its trained networks, from one library.
//!
//! - [`players`]: "a player for level 4 under these rules" or for a player spec
//!   (`mcts:model=shipped:400`, `htp:COMMAND`): [`players::level`], [`players::resolve`],
//!   then [`players::build`] for the rules in play; networks are loaded once and shared.
//! - [`balance`]: the balance study (random and skilled games, the table and its pictures)
//!   and balance as strength grows (the strength sweep over a run's checkpoints or the
//!   levels): [`balance::run`], [`balance::sweep::run`]; and the search for rules under which
//!   skilled play is even (`tafl rebalance`): [`balance::rebalance::run`].
//! - [`external_player`], over [`engine_process`]: another program, spoken to through one
//!   of the engine protocols ([`otep`], [`htp`]: typed messages, no I/O), as a player.
//! - [`models`] (the `tafl-models` crate, re-exported): a model from a run or checkpoint
//!   folder, or the one shipped for the rules in play ([`models::shipped`]).
//! - [`openings`]: opening suites built by play, the start positions that let a match
//!   between skilled players measure strength under defender-favoured rules.
//! - [`tune`]: a linear evaluation fitted to a network's values (`tafl tune`), a learned
//!   evaluation at the hand-written one's speed.
//! - [`limits`] and [`work`]: the bounds on what a caller may ask for, the worker pool and the
//!   progress bars that long work shares.
//!
//! Depends on the engine, the network crate, the model store and the trainer (for the studies
//! of training runs: the strength sweep reads a run's recorded Elo, and the charts share the
//! trainer's plotting); players load models from the store alone. The `tafl` binary is a
//! command line over this crate.
//!
//! A level's move under Brandubh, then a small balance study (what `tafl balance` runs):
//!
//! ```
//! use tafl_engine::{with_board, Game, Ruleset};
//!
//! let ruleset = Ruleset::builtin("brandubh");
//! let level = tafl_lab::players::level(4)?;
//! let legal = with_board!(&ruleset, B, rules => {
//!     let mut player = tafl_lab::players::build(&level, 1, &rules)?;
//!     let game = Game::new(&rules);
//!     let (mv, _) = player.choose(&rules, &game).expect("a move from the start");
//!     game.position().moves(&rules).as_slice().contains(&mv)
//! });
//! assert!(legal);
//!
//! let out = std::env::temp_dir().join(format!("tafl-lab-doc-{}", std::process::id()));
//! // A host that wants Ctrl-C to stop the study passes `balance::stop_on_ctrl_c()` instead.
//! let stop = std::sync::atomic::AtomicBool::new(false);
//! tafl_lab::balance::run(&tafl_lab::balance::BalanceRequest {
//!     rules: "brandubh".into(),
//!     random_games: 100,
//!     skilled_games: 0,
//!     out: out.clone(),
//!     skilled: "level:3".into(),
//!     sets: Vec::new(),
//!     compare: false,
//!     openings: Vec::new(),
//!     play: tafl_lab::study::StudyGames { seed: 1, ply_limit: 400, exploration: 0.1, threads: Some(1) },
//! }, &stop)?;
//! assert!(out.join("balance.json").exists());
//! # let _ = std::fs::remove_dir_all(&out);
//! # Ok::<(), String>(())
//! ```

#![warn(missing_docs)]

/// The model store (the `tafl-models` crate, below the trainer): run and checkpoint folders,
/// and the shipped models built into the program.
pub use tafl_models as models;
pub mod balance;
pub mod engine_process;
pub mod external_player;
pub mod hnefatafl_server;
pub mod htp;
pub mod limits;
pub mod openings;
pub mod otep;
pub mod players;
pub mod study;
pub mod tune;
pub mod work;
