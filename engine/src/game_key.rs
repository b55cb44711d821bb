//! Whether two rulesets are the same game: [`GameKey`], the game a ruleset describes without how
//! its file spells it. It decides which trained evaluation (a network, linear weights) plays
//! which rules, and whether a game record was played under the rules in use: a rules question,
//! so it lives with the rules.

use crate::ruleset::{
    Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, Ruleset, Shieldwall, ThronePass,
    ThroneStop, YesNo,
};
use crate::side::{Piece, Side};
use crate::square::Sq;

/// The game a ruleset describes, without how its file spells it: the board, the start position,
/// the special squares and every knob that can change a move or a result. Names, ids, the
/// form of the start position (diagram or position record) and of the corners (a word or a
/// list) are left out, and so are the knobs of squares the board does not have (the throne's
/// on a board without one, the corners' on a board without them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameKey {
    size: usize,
    first: Side,
    start: Vec<(Sq, Piece)>,
    corners: Vec<Sq>,
    throne: Option<Sq>,
    corner_hostile: Option<Hostility>,
    throne_knobs: Option<(ThroneStop, ThronePass, Hostility, YesNo)>,
    king_armed: KingArmed,
    king_capture: KingCapture,
    escape: Escape,
    shieldwall: Shieldwall,
    /// Linnaean capture; only with a throne.
    linnaean: Option<YesNo>,
    exit_fort: YesNo,
    encirclement: YesNo,
    repetition: Repetition,
    no_moves: NoMoves,
}

impl GameKey {
    /// The key without the start position: what an evaluation fitted under the rules cares
    /// about, since it fits every position of its game (see
    /// [`Ruleset::same_game_any_start`]).
    pub fn without_start(mut self) -> GameKey {
        self.start = Vec::new();
        self
    }
}

/// The [`GameKey`] of a ruleset.
fn game_key(rs: &Ruleset) -> GameKey {
    let f = &rs.file;
    let mut start = rs.start.clone();
    start.sort_unstable_by_key(|&(sq, _)| sq);
    let mut corners = rs.corners.clone();
    corners.sort_unstable();
    GameKey {
        size: rs.size(),
        first: f.first,
        start,
        corner_hostile: (!corners.is_empty()).then_some(f.corner_hostile),
        corners,
        throne: rs.throne,
        throne_knobs: rs.throne.map(|_| {
            (
                f.throne_stop,
                f.throne_pass,
                f.empty_throne_hostile,
                f.occupied_throne_hostile_to_attackers,
            )
        }),
        king_armed: f.king_armed,
        // Without a throne, "strong on or next to the throne" is weak everywhere.
        king_capture: match (f.king_capture, rs.throne) {
            (KingCapture::StrongNearThrone, None) => KingCapture::Weak,
            (k, _) => k,
        },
        escape: f.escape,
        shieldwall: f.shieldwall,
        linnaean: rs.throne.map(|_| f.linnaean_capture),
        exit_fort: f.exit_fort,
        encirclement: f.encirclement,
        repetition: f.repetition,
        no_moves: f.no_moves,
    }
}

impl Ruleset {
    /// The game the ruleset describes (see [`GameKey`]).
    pub fn game_key(&self) -> GameKey {
        game_key(self)
    }

    /// Whether `other` describes the same game (see [`GameKey`]): what decides whether a
    /// model trained under one plays the other, and whether a record was played under them.
    pub fn same_game(&self, other: &Ruleset) -> bool {
        game_key(self) == game_key(other)
    }

    /// Whether `other` is the same game from any start position: an evaluation fitted under
    /// these rules (a network, linear weights) judges positions, and fits every position of
    /// its game, so a host that sends its own start (OpenTafl writes a game's start into its
    /// rules string, so a game from another start arrives as other rules) keeps it.
    pub fn same_game_any_start(&self, other: &Ruleset) -> bool {
        game_key(self).without_start() == game_key(other).without_start()
    }

    /// Whether `other` is this game but for what a repetition does (and whatever the start,
    /// as [`Ruleset::same_game_any_start`]): what lets a shipped evaluation fitted under these
    /// rules play `other` when no exact match exists. OpenTafl has no "ignore" (hosting rules
    /// with `repetition = "ignore"` it sends them back with its default, a draw), and
    /// hnefatafl.org's Copenhagen forbids the defenders to repeat a board where ours makes it
    /// their loss; the moves are the same but for the few a repetition rule forbids, which the
    /// search sees from the rules in play.
    pub fn same_game_but_repetition(&self, other: &Ruleset) -> bool {
        let mut alike = other.clone();
        alike.file.repetition = self.file.repetition;
        self.same_game_any_start(&alike)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_key_ignores_spelling_and_knobs_of_absent_squares() {
        let a = Ruleset::builtin("tawlbwrdd");
        assert!(a.throne.is_none() && a.corners.is_empty());
        let mut b = a.clone();
        b.file.id = "other".into();
        b.file.name = "Other".into();
        for (k, v) in [
            ("throne_pass", "nobody"),
            ("throne_stop", "nobody"),
            ("empty_throne_hostile", "none"),
            ("corner_hostile", "attackers"),
        ] {
            b.set_knob(k, v).unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(a.same_game(&b));
        // A knob that changes moves or results does count.
        b.set_knob("king_armed", "no").unwrap_or_else(|e| panic!("{e}"));
        assert!(!a.same_game(&b));
        // So do throne knobs where there is a throne.
        let h = Ruleset::builtin("hnefatafl");
        let mut h2 = h.clone();
        h2.set_knob("throne_pass", "king")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!h.same_game(&h2));
        assert!(!h.same_game(&Ruleset::builtin("copenhagen")));
    }

    /// An evaluation fits its game from any start: four plies into a Copenhagen game, as
    /// OpenTafl sends it, is still Copenhagen to a model; another knob is not.
    #[test]
    fn a_model_fits_its_game_whatever_the_start() {
        let c = Ruleset::builtin("copenhagen");
        let later = crate::formats::ruleset_from_opentafl(
            "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t3t1/6T4/2t2T4t/t3TT4t/tt2TKTT2t/t3TTT3t/t2T1T4t/11/5t5/3ttttt3/",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // OpenTafl's Copenhagen: the same but for what a repetition does (`tfr:w`).
        assert!(!c.same_game(&later) && !c.same_game_any_start(&later));
        assert!(c.same_game_but_repetition(&later));
        // Ours from that start.
        let mut ours_later = c.clone();
        ours_later.start = later.start.clone();
        assert!(!c.same_game(&ours_later) && c.same_game_any_start(&ours_later));
        let mut weak = ours_later.clone();
        weak.set_knob("king_armed", "no")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.same_game_any_start(&weak) && !c.same_game_but_repetition(&weak));
        let mut draw = ours_later.clone();
        draw.set_knob("repetition", "draw")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.same_game_any_start(&draw) && c.same_game_but_repetition(&draw));
        // Another board is another game, whatever else.
        assert!(!c.same_game_any_start(&Ruleset::builtin("brandubh")));
    }
}
