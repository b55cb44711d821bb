//! Opening suites: fixed start positions for matches, chosen so that equal players score about
//! even from them (as chess testers use opening books: cutechess-cli's `-openings`). Under
//! defender-favoured rules a match from the start position measures little, since the
//! defenders win nearly every game between competent players; from balanced positions, the
//! stronger player shows.
//!
//! A suite is a text file a person can read and edit:
//!
//! ```text
//! # comments start with `#`
//! rules brandubh
//! /3t3/1t1t3/3T3/tT1KTtt/7/3t3/3t3/ defenders ; attackers 0.500 of 8 (4-0-4) ; from d1-b1 ...
//! ```
//!
//! One `rules ID` line names the ruleset the suite was made for; every other line is a start
//! position: an OpenTafl position record (first row = rank 1), the side to move, and after `;`
//! free text saying how it was judged.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::ParseError;
use crate::notation::{position_from_record, position_record};
use crate::position::Position;
use crate::side::Side;
use crate::symmetry::{transform_position, SYMMETRIES};

/// The most positions a suite may hold (a real one has tens to a few hundred).
pub const MAX_SUITE_POSITIONS: usize = 100_000;

/// One start position of a suite, as written (checked against rules by
/// [`OpeningSuite::positions`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteEntry {
    /// The OpenTafl position record.
    pub record: String,
    /// The side to move.
    pub to_move: Side,
    /// How the position was judged (the text after `;`), empty when none.
    pub note: String,
}

/// An opening suite: the ruleset it was made for, its positions, and the comment lines that
/// head the file (how it was made).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OpeningSuite {
    /// The id of the ruleset the suite was made for.
    pub rules: String,
    /// The comment lines before the first position, without their `# `.
    pub header: Vec<String>,
    /// The positions in file order.
    pub entries: Vec<SuiteEntry>,
}

impl OpeningSuite {
    /// Parses a suite's text; errors name the line. Positions are checked against rules only
    /// by [`OpeningSuite::positions`].
    pub fn parse(text: &str) -> Result<OpeningSuite, ParseError> {
        let mut suite = OpeningSuite::default();
        let mut rules: Option<String> = None;
        for (i, raw) in text.lines().enumerate() {
            let at = format!("line {}", i + 1);
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                if suite.entries.is_empty() {
                    suite
                        .header
                        .push(comment.strip_prefix(' ').unwrap_or(comment).to_string());
                }
                continue;
            }
            if let Some(id) = line.strip_prefix("rules ") {
                let id = id.trim();
                if rules.is_some() {
                    return Err(ParseError::new("a second `rules` line; a suite is for one ruleset").at(at));
                }
                if id.is_empty() || id.split_whitespace().count() != 1 {
                    return Err(ParseError::new("`rules` takes one ruleset id").at(at));
                }
                rules = Some(id.to_string());
                continue;
            }
            if !line.starts_with('/') {
                return Err(ParseError::new(format!(
                    "`{}` is neither `rules ID`, a comment, nor a position (`/record/ attackers|defenders ; note`)",
                    crate::input::quote(line)
                ))
                .at(at));
            }
            if suite.entries.len() >= MAX_SUITE_POSITIONS {
                return Err(ParseError::new(format!(
                    "more than {MAX_SUITE_POSITIONS} positions, the most a suite may hold"
                ))
                .at(at));
            }
            let (position, note) = match line.split_once(';') {
                Some((p, n)) => (p.trim(), n.trim()),
                None => (line, ""),
            };
            let mut words = position.split_whitespace();
            let record = words.next().unwrap_or_default();
            let to_move = match words.next() {
                Some("attackers") => Side::Attackers,
                Some("defenders") => Side::Defenders,
                Some(other) => {
                    return Err(ParseError::new(format!(
                        "`{}` is not a side to move; write attackers or defenders",
                        crate::input::quote(other)
                    ))
                    .at(at))
                }
                None => {
                    return Err(ParseError::new(
                        "the position lacks its side to move (attackers or defenders)",
                    )
                    .at(at))
                }
            };
            if let Some(extra) = words.next() {
                return Err(ParseError::new(format!(
                    "`{}` after the side to move; a note goes after `;`",
                    crate::input::quote(extra)
                ))
                .at(at));
            }
            suite.entries.push(SuiteEntry {
                record: record.to_string(),
                to_move,
                note: note.to_string(),
            });
        }
        suite.rules =
            rules.ok_or_else(|| ParseError::new("no `rules ID` line: which ruleset is the suite for?"))?;
        if suite.entries.is_empty() {
            return Err(ParseError::new("the suite holds no position"));
        }
        Ok(suite)
    }

    /// Reads and parses a suite file (at most [`crate::input::TEXT_LIMIT`] bytes); errors
    /// name the file and the line.
    pub fn load(path: &std::path::Path) -> Result<OpeningSuite, String> {
        let text =
            crate::input::read_text(path).map_err(|e| format!("opening suite `{}`: {e}", path.display()))?;
        OpeningSuite::parse(&text).map_err(|e| format!("opening suite `{}`: {e}", path.display()))
    }

    /// The suite's positions under `rules`: refuses a suite made for another ruleset, and any
    /// position the rules do not allow or whose game is already over, naming its line in
    /// the suite (counting positions from 1).
    pub fn positions<B: BitSet>(&self, rules: &Rules<B>) -> Result<Vec<Position<B>>, String> {
        if self.rules != rules.ruleset.id() {
            return Err(format!(
                "the suite was made for rules `{}`, not `{}`: positions balanced under one ruleset say nothing of another",
                self.rules,
                rules.ruleset.id()
            ));
        }
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let at = |why: String| format!("position {}: {why}", i + 1);
                let pos =
                    position_from_record(rules, &e.record, e.to_move).map_err(|err| at(err.to_string()))?;
                if let Some(o) = pos.settled_outcome(rules) {
                    return Err(at(format!("the game is already over there ({o})")));
                }
                Ok(pos)
            })
            .collect()
    }

    /// The suite as text, as [`OpeningSuite::parse`] reads it back.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for h in &self.header {
            if h.is_empty() {
                out.push_str("#\n");
            } else {
                out.push_str(&format!("# {h}\n"));
            }
        }
        out.push_str(&format!("rules {}\n", self.rules));
        for e in &self.entries {
            out.push_str(&format!("{} {}", e.record, e.to_move.name()));
            if !e.note.is_empty() {
                out.push_str(&format!(" ; {}", e.note));
            }
            out.push('\n');
        }
        out
    }
}

impl SuiteEntry {
    /// The entry of a position (its record and side to move) with a note.
    pub fn of<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, note: impl Into<String>) -> SuiteEntry {
        SuiteEntry {
            record: position_record(rules, pos),
            to_move: pos.to_move(),
            note: note.into(),
        }
    }
}

/// The key a position shares with its mirror images and rotations: the least hash over the
/// board's symmetries that the rules allow (a symmetry that would put a piece on a square the
/// rules forbid it is skipped). Two positions of a suite with the same key play the same
/// games up to symmetry, so a suite keeps one of them.
pub fn symmetry_key<B: BitSet>(rules: &Rules<B>, pos: &Position<B>) -> u64 {
    SYMMETRIES
        .iter()
        .filter_map(|&s| transform_position(rules, pos, s).ok())
        .map(|p| p.hash())
        .min()
        .unwrap_or_else(|| pos.hash())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;

    fn brandubh() -> Rules<u128> {
        Rules::new(&Ruleset::builtin("brandubh")).unwrap()
    }

    const START: &str = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

    #[test]
    fn a_suite_reads_back_what_it_writes() {
        let text = format!(
            "# made by hand\n#\nrules brandubh\n{START} attackers ; attackers 0.5 of 8\n\n/3t3/3t3/3T3/ttTKT1t/3T3/3t3/3t3/ defenders\n"
        );
        let suite = OpeningSuite::parse(&text).unwrap();
        assert_eq!(suite.rules, "brandubh");
        assert_eq!(suite.header, vec!["made by hand".to_string(), String::new()]);
        assert_eq!(suite.entries.len(), 2);
        assert_eq!(suite.entries[0].note, "attackers 0.5 of 8");
        assert_eq!(suite.entries[1].to_move, Side::Defenders);
        assert_eq!(OpeningSuite::parse(&suite.to_text()).unwrap(), suite);
        let positions = suite.positions(&brandubh()).unwrap();
        assert_eq!(positions[0], Position::start(&brandubh()));
        assert_eq!(positions[1].to_move(), Side::Defenders);
    }

    #[test]
    fn bad_suites_are_refused_naming_the_line() {
        let cases = [
            ("", "no `rules ID` line"),
            ("rules brandubh\n", "no position"),
            (&format!("{START} attackers\n"), "no `rules ID` line"),
            ("rules brandubh\nrules tablut\n", "line 2: a second `rules` line"),
            (
                &format!("rules brandubh\n{START}\n"),
                "line 2: the position lacks its side",
            ),
            (
                &format!("rules brandubh\n{START} kings\n"),
                "line 2: `kings` is not a side",
            ),
            (
                &format!("rules brandubh\n{START} attackers 0.5\n"),
                "line 2: `0.5` after the side",
            ),
            ("rules brandubh\nhello\n", "line 2: `hello` is neither"),
            ("rules a b\n", "line 1: `rules` takes one ruleset id"),
        ];
        for (text, want) in cases {
            let err = OpeningSuite::parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn positions_are_checked_against_the_rules() {
        let rules = brandubh();
        let foreign = OpeningSuite::parse(&format!("rules tablut\n{START} attackers\n")).unwrap();
        let err = foreign.positions(&rules).unwrap_err();
        assert!(err.contains("made for rules `tablut`, not `brandubh`"), "{err}");
        for (record, want) in [
            (
                "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/",
                "position 1: position record has 6 rows",
            ),
            (
                "/3t3/3t3/3T3/ttTTTtt/3T3/3t3/3t3/",
                "position 1: a position needs exactly one king",
            ),
            (
                "/K6/3t3/7/7/7/7/7/",
                "position 1: the game is already over there (defenders win (escape))",
            ),
        ] {
            let suite = OpeningSuite::parse(&format!("rules brandubh\n{record} attackers\n")).unwrap();
            let err = suite.positions(&rules).unwrap_err();
            assert!(err.contains(want), "{record}: {err}");
        }
    }

    #[test]
    fn mirror_images_share_a_symmetry_key() {
        let rules = brandubh();
        let start = Position::start(&rules);
        let mut a = start;
        a.play(&rules, crate::notation::parse_move(7, "d1-b1").unwrap().0)
            .unwrap();
        let mut b = start;
        b.play(&rules, crate::notation::parse_move(7, "d1-f1").unwrap().0)
            .unwrap();
        let mut c = start;
        c.play(&rules, crate::notation::parse_move(7, "d1-c1").unwrap().0)
            .unwrap();
        assert_ne!(a.hash(), b.hash());
        assert_eq!(symmetry_key(&rules, &a), symmetry_key(&rules, &b));
        assert_ne!(symmetry_key(&rules, &a), symmetry_key(&rules, &c));
    }
}
