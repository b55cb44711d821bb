//! Game records: a few tags and a move list.
//!
//! ```text
//! [Rules "brandubh"]
//! [Result "defenders"]
//! 1. d1-b1 d3-b3 2. a4-a2 ...
//! ```
//! Optional tags `Position` (an OpenTafl record) and `ToMove` start the game elsewhere.
//! Move numbers are optional when reading; captures after a move are checked when replaying.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::ParseError;
use crate::game::Game;
use crate::notation::{play_text, played_text, position_from_record, position_record};
use crate::position::Position;
use crate::side::Side;

/// A game record: tags and moves, not yet checked against any rules.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameRecord {
    /// `[Key "Value"]` tags in file order.
    pub tags: Vec<(String, String)>,
    /// Move texts in order (with or without captures).
    pub moves: Vec<String>,
}

impl GameRecord {
    /// The longest tag value [`GameRecord::push_tag`] keeps, in characters (a program's
    /// crash report quoted whole fits).
    pub const MAX_TAG_VALUE: usize = 4000;

    /// Adds a tag with its value made writable: a tag is one line, so line breaks and other
    /// control characters are escaped (`\n`), and a value longer than
    /// [`GameRecord::MAX_TAG_VALUE`] characters is cut there and marked `…`. `key` is letters
    /// and digits.
    pub fn push_tag(&mut self, key: &str, value: &str) {
        debug_assert!(!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric()));
        let value = crate::input::printable(value, false, Self::MAX_TAG_VALUE);
        self.tags.push((key.to_string(), value));
    }

    /// Refuses a record whose `Rules` tag names other rules than `ruleset` (a record without
    /// one is taken for any).
    pub fn check_rules(&self, ruleset: &crate::ruleset::Ruleset) -> Result<(), ParseError> {
        match self.tag("Rules") {
            Some(id) if id != ruleset.id() => Err(ParseError::new(format!(
                "the record is for rules `{}`, not `{}`",
                crate::input::quote(id),
                ruleset.id()
            ))),
            _ => Ok(()),
        }
    }

    /// The value of a tag.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Parses record text; errors name the line.
    pub fn parse(text: &str) -> Result<GameRecord, ParseError> {
        let mut rec = GameRecord::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            let at = format!("game record line {}", i + 1);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(body) = line.strip_prefix('[') {
                let body = body
                    .strip_suffix(']')
                    .ok_or_else(|| ParseError::new("a tag must end with `]`").at(&at))?;
                let (key, value) = body
                    .split_once(' ')
                    .ok_or_else(|| ParseError::new("a tag is `[Key \"Value\"]`").at(&at))?;
                let value = value
                    .trim()
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .ok_or_else(|| ParseError::new("a tag's value is in double quotes").at(&at))?;
                if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(
                        ParseError::new(format!("`{}` is not a tag name", crate::input::quote(key))).at(&at),
                    );
                }
                rec.tags.push((key.to_string(), value.to_string()));
                continue;
            }
            for tok in line.split_whitespace() {
                let is_number =
                    tok.ends_with('.') && tok[..tok.len() - 1].chars().all(|c| c.is_ascii_digit());
                if !is_number {
                    rec.moves.push(tok.to_string());
                }
            }
        }
        Ok(rec)
    }

    /// Replays the record under `rules`: every move must be legal, and captures written in
    /// the record must be the ones the rules make. Errors name the move number.
    pub fn replay<B: BitSet>(&self, rules: &Rules<B>) -> Result<Game<B>, ParseError> {
        self.check_rules(&rules.ruleset)?;
        let to_move = match self.tag("ToMove") {
            None => rules.ruleset.file.first,
            Some("attackers") => Side::Attackers,
            Some("defenders") => Side::Defenders,
            Some(other) => {
                return Err(ParseError::new(format!(
                    "tag ToMove: `{}` is not allowed; allowed values: attackers, defenders",
                    crate::input::quote(other)
                )))
            }
        };
        let start = match self.tag("Position") {
            None => Position::start(rules),
            Some(rec) => position_from_record(rules, rec, to_move).map_err(|e| e.at("tag Position"))?,
        };
        let mut game = Game::from_position(rules, start);
        if let Some(limit) = self.tag("PlyLimit") {
            let l: u32 = limit.parse().map_err(|_| {
                ParseError::new(format!(
                    "tag PlyLimit: `{}` is not a number",
                    crate::input::quote(limit)
                ))
            })?;
            game = game.with_ply_limit(Some(l));
        }
        for (i, text) in self.moves.iter().enumerate() {
            let at = format!("move {} (`{}`)", i + 1, crate::input::quote(text));
            play_text(rules, &mut game, text).map_err(|e| e.at(&at))?;
        }
        Ok(game)
    }

    /// The record of a game: rules, result, start position when it is not the rules' own, and
    /// the moves with their captures.
    pub fn from_game<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> GameRecord {
        let mut tags = vec![("Rules".to_string(), rules.ruleset.id().to_string())];
        if *game.start() != Position::start(rules) {
            tags.push(("Position".into(), position_record(rules, game.start())));
            tags.push(("ToMove".into(), game.start().to_move().name().into()));
        }
        if let Some(l) = game.ply_limit() {
            tags.push(("PlyLimit".into(), l.to_string()));
        }
        if let Some(o) = game.outcome() {
            tags.push(("Result".into(), o.result_text().into()));
            tags.push(("Termination".into(), o.reason.name().into()));
        }
        let moves = game.history().iter().map(|p| played_text(rules.n, p)).collect();
        GameRecord { tags, moves }
    }

    /// The record as text, two plies to a numbered line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.tags {
            out.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        for (i, pair) in self.moves.chunks(2).enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, pair.join(" ")));
        }
        out
    }
}
