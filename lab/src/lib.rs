//! Players, models and studies: what a game site, a tournament host or a notebook asks of the
//! engine and its trained networks, from one library.
//!
//! - [`players`]: "a player for level 4 under these rules" or for a player spec
//!   (`mcts:model=shipped:400`, `htp:COMMAND`): [`players::level`], [`players::resolve`],
//!   then [`players::build`] for the rules in play; networks are loaded once and shared.
//! - [`balance`]: the balance study (random and skilled games, the table and its pictures)
//!   and balance as strength grows (the strength sweep over a run's checkpoints or the
//!   levels): [`balance::run`], [`balance::sweep::run`].
//! - [`external_player`], over [`engine_process`]: another program, spoken to through one
//!   of the engine protocols ([`otep`], [`htp`]: typed messages, no I/O), as a player.
//! - [`limits`] and [`work`]: the bounds on what a caller may ask for, the worker pool and the
//!   progress bars that long work shares.
//!
//! Depends on the engine, the network crate and the trainer (for run folders and their
//! recorded Elo); the `tafl` binary is a command line over this crate.

#![warn(missing_docs)]

pub mod balance;
pub mod engine_process;
pub mod external_player;
pub mod htp;
pub mod limits;
pub mod otep;
pub mod players;
pub mod work;
