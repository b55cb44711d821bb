//! How games end, and the checks after a move that end them, in the order of `RULES.md`:
//! 1 captures, 2 escape, 3 king captured, 4 exit fort, 5 encirclement, 6 repetition,
//! 7 no legal move, 8 ply limit. Checks 6 and 8 need the history kept by [`crate::Game`].

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::position::{MoveEffect, Position};
use crate::ruleset::NoMoves;
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The king reached an escape square.
    Escape,
    /// The attackers captured the king.
    KingCaptured,
    /// The king stands in an unbreakable fort on the edge.
    ExitFort,
    /// The attackers enclosed every defender and the king.
    Encirclement,
    /// A position occurred for the third time.
    Repetition,
    /// The side to move had no legal move.
    NoMoves,
    /// The caller's ply limit was reached.
    PlyLimit,
    /// The rules' turn limit was reached (a house rule: `turn_limit`).
    TurnLimit,
    /// A player's game clock ran out (a clock kept by a match or a host, not the rules).
    Time,
    /// A player forfeited: another program resigned, sent an illegal or malformed reply, or
    /// stopped answering.
    Forfeit,
    /// Another program's own rules ended a game that the game's rules go on with (its
    /// verdict stands, and the match says so).
    Adjudication,
}

impl Reason {
    /// Lower-case text used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Escape => "escape",
            Reason::KingCaptured => "king captured",
            Reason::ExitFort => "exit fort",
            Reason::Encirclement => "encirclement",
            Reason::Repetition => "repetition",
            Reason::NoMoves => "no legal moves",
            Reason::PlyLimit => "ply limit",
            Reason::TurnLimit => "turn limit",
            Reason::Time => "time",
            Reason::Forfeit => "forfeit",
            Reason::Adjudication => "adjudication",
        }
    }
}

/// The end of a game: who won (none for a draw or no result) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning side; `None` for a draw or for no result.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: Reason,
}

impl Outcome {
    /// The end the rules give when `to_move` has no legal move (check 7).
    pub fn no_moves<B: BitSet>(rules: &Rules<B>, to_move: Side) -> Outcome {
        match rules.ruleset.file.no_moves {
            NoMoves::Loses => Outcome::win(to_move.opponent(), Reason::NoMoves),
            NoMoves::Draw => Outcome::draw(Reason::NoMoves),
        }
    }

    /// A win for `side`.
    pub const fn win(side: Side, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(side),
            reason,
        }
    }
    /// A draw.
    pub const fn draw(reason: Reason) -> Outcome {
        Outcome { winner: None, reason }
    }
    /// Ended by the caller's ply limit: no result.
    pub const fn no_result() -> Outcome {
        Outcome {
            winner: None,
            reason: Reason::PlyLimit,
        }
    }
    /// True when neither side won and the rules ended the game (not the ply limit).
    pub fn is_draw(&self) -> bool {
        self.winner.is_none() && self.reason != Reason::PlyLimit
    }
    /// The result as game-record text: `defenders`, `attackers`, `draw` or `none`.
    pub fn result_text(&self) -> &'static str {
        match self.winner {
            Some(Side::Defenders) => "defenders",
            Some(Side::Attackers) => "attackers",
            None if self.reason == Reason::PlyLimit => "none",
            None => "draw",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(s) => write!(f, "{s} win ({})", self.reason.name()),
            None if self.reason == Reason::PlyLimit => write!(f, "no result (ply limit)"),
            None => write!(f, "draw ({})", self.reason.name()),
        }
    }
}

impl<B: BitSet> Position<B> {
    /// Checks 2-5 after a move: escape, king captured, exit fort, encirclement.
    #[inline]
    pub fn decisive_outcome(&self, rules: &Rules<B>, effect: &MoveEffect<B>) -> Option<Outcome> {
        if rules.escape.has(self.king_sq as usize) {
            return Some(Outcome::win(Side::Defenders, Reason::Escape));
        }
        if effect.king_captured {
            return Some(Outcome::win(Side::Attackers, Reason::KingCaptured));
        }
        match effect.mover {
            Side::Defenders if rules.exit_fort && self.exit_fort(rules) => {
                Some(Outcome::win(Side::Defenders, Reason::ExitFort))
            }
            Side::Attackers if rules.encirclement && self.encircled(rules) => {
                Some(Outcome::win(Side::Attackers, Reason::Encirclement))
            }
            _ => None,
        }
    }

    /// The result a position shows on its own, with no move to go by: the king on an escape
    /// square, the defenders in an exit fort or encircled after the side that made it moved
    /// (the side not to move), or no legal move for the side to move. A position given from
    /// outside (a suite, a request) is judged by it, so that a game already over is not
    /// played on. A king's capture leaves no king to judge, so it cannot be shown here.
    pub fn settled_outcome(&self, rules: &Rules<B>) -> Option<Outcome> {
        if rules.escape.has(self.king_sq as usize) {
            return Some(Outcome::win(Side::Defenders, Reason::Escape));
        }
        match self.to_move {
            Side::Attackers if rules.exit_fort && self.exit_fort(rules) => {
                return Some(Outcome::win(Side::Defenders, Reason::ExitFort))
            }
            Side::Defenders if rules.encirclement && self.encircled(rules) => {
                return Some(Outcome::win(Side::Attackers, Reason::Encirclement))
            }
            _ => {}
        }
        self.no_moves_outcome(rules)
    }

    /// Check 7: the side to move has no legal move.
    #[inline]
    pub fn no_moves_outcome(&self, rules: &Rules<B>) -> Option<Outcome> {
        if self.has_move(rules) {
            return None;
        }
        Some(Outcome::no_moves(rules, self.to_move))
    }

    /// The exit fort of `RULES.md`: the king on the edge, able to move, in a fort no attacker
    /// can break.
    pub fn exit_fort(&self, rules: &Rules<B>) -> bool {
        if !rules.edge.has(self.king_sq as usize) || self.targets(rules, self.king_sq).is_empty() {
            return false;
        }
        let empty = rules.board & !self.occupied();
        let mut region = self.king;
        loop {
            let grown = region | (rules.neighbours(region) & empty);
            if grown == region {
                break;
            }
            region = grown;
        }
        let around = rules.neighbours(region);
        if (around & self.attackers).any() {
            return false;
        }
        // Shrink to the largest set of defenders each of which is covered on both axes.
        let [first_file, last_file] = rules.files_edge;
        let [first_rank, last_rank] = rules.ranks_edge;
        let mut safe = self.defenders;
        loop {
            let x = safe | region;
            let horizontal = rules.step(x, 1) | rules.step(x, 3) | first_file | last_file;
            let vertical = rules.step(x, 0) | rules.step(x, 2) | first_rank | last_rank;
            let kept = safe & horizontal & vertical;
            if kept == safe {
                break;
            }
            safe = kept;
        }
        let wall = around & self.defenders;
        (wall & !safe).is_empty()
    }

    /// The encirclement of `RULES.md`: no defender and not the king can reach the edge through
    /// squares free of attackers.
    pub fn encircled(&self, rules: &Rules<B>) -> bool {
        let mut fill = self.defenders | self.king;
        if (fill & rules.edge).any() {
            return false;
        }
        let free = rules.board & !self.attackers;
        loop {
            let grown = (fill | rules.neighbours(fill)) & free;
            if (grown & rules.edge).any() {
                return false;
            }
            if grown == fill {
                return true;
            }
            fill = grown;
        }
    }
}
