//! Players outside the engine: another program behind an engine protocol (`htp:COMMAND`,
//! `htp-host:COMMAND`, `otep:COMMAND`). The engine starts no programs and speaks no protocol; a host that does
//! (the `tafl` binary) builds the [`ExternalPlayer`] and hands it to [`crate::Player::external`],
//! so matches and levels treat it like any other player.

use super::{Clock, ThinkingLimit};
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::Game;
use crate::outcome::Outcome;
use crate::position::Move;
use std::fmt;

/// The engine protocols another program can be played through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineProtocol {
    /// The Hnefatafl Text Protocol of hnefatafl.org (`htp:`), over the program's stdin and
    /// stdout.
    Htp,
    /// The same protocol with the program as a bot that connects to its host
    /// (`htp-host:`): hnefatafl.org's engine started with `--host ADDRESS`, the one mode in
    /// which it plays the AI its flags choose (`--ai monte-carlo --seconds S`).
    HtpHost,
    /// The OpenTafl Engine Protocol (`otep:`).
    Otep,
}

impl EngineProtocol {
    /// The prefix of a player spec (`htp`, `htp-host`, `otep`).
    pub const fn name(self) -> &'static str {
        match self {
            EngineProtocol::Htp => "htp",
            EngineProtocol::HtpHost => "htp-host",
            EngineProtocol::Otep => "otep",
        }
    }

    /// The protocol a player spec names, and the command after its prefix.
    pub fn split_spec(text: &str) -> Option<(EngineProtocol, &str)> {
        [EngineProtocol::Htp, EngineProtocol::HtpHost, EngineProtocol::Otep]
            .into_iter()
            .find_map(|p| Some((p, text.strip_prefix(p.name())?.strip_prefix(':')?)))
    }
}

impl fmt::Display for EngineProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest command line an external player spec may hold.
pub const MAX_COMMAND_LEN: usize = 4096;

/// Why a game with an external player ended outside the engine's own checks: the result it
/// ends with and what happened, for the match's report.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// The game's result: a loss for the program that forfeited (an illegal or malformed
    /// reply, a resignation, no reply in time), or the verdict of its own rules when they
    /// ended a game that ours go on with.
    pub outcome: Outcome,
    /// What happened, naming the program and the line it sent.
    pub why: String,
}

/// A player whose moves come from another program. It is told every move of the game
/// (it keeps its own copy) and asked for one whenever its side is to move.
pub trait ExternalPlayer<B: BitSet>: Send {
    /// The program's move for the side to move in `game`, thinking within `limit` and, when
    /// a game clock is kept, `clock` (its side's time). The move is legal under `rules`;
    /// anything else ends the game with the [`Stop`] returned.
    fn choose(
        &mut self,
        rules: &Rules<B>,
        game: &Game<B>,
        limit: ThinkingLimit,
        clock: Option<Clock>,
    ) -> Result<Move, Stop>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_the_protocol_prefix() {
        assert_eq!(
            EngineProtocol::split_spec("htp:prog --x 1"),
            Some((EngineProtocol::Htp, "prog --x 1"))
        );
        assert_eq!(
            EngineProtocol::split_spec("otep:a:b"),
            Some((EngineProtocol::Otep, "a:b"))
        );
        assert_eq!(
            EngineProtocol::split_spec("htp-host:prog --ai monte-carlo"),
            Some((EngineProtocol::HtpHost, "prog --ai monte-carlo"))
        );
        assert_eq!(EngineProtocol::split_spec("htpx:prog"), None);
        assert_eq!(EngineProtocol::split_spec("htp-hostx:prog"), None);
        assert_eq!(EngineProtocol::split_spec("mcts:uniform"), None);
    }
}
