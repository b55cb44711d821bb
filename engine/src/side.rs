//! The two sides and the three kinds of piece.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the two armies.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The besiegers (`A` in diagrams, `t` in OpenTafl records).
    Attackers,
    /// The king's side (`D`/`K` in diagrams, `T`/`K` in OpenTafl records).
    Defenders,
}

impl Side {
    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }
    /// 0 for attackers, 1 for defenders: an index into per-side tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The lower-case name used in files and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What stands on an occupied square.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Piece {
    /// An attacking soldier.
    Attacker,
    /// A defending soldier.
    Defender,
    /// The defenders' king.
    King,
}

impl Piece {
    /// The side the piece belongs to.
    #[inline]
    pub const fn side(self) -> Side {
        match self {
            Piece::Attacker => Side::Attackers,
            Piece::Defender | Piece::King => Side::Defenders,
        }
    }
    /// 0, 1, 2: an index into per-piece tables (Zobrist keys).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}
