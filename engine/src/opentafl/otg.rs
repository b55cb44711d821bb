//! OpenTafl game records (`.otg`) and move notation, as specified in OpenTafl's
//! `opentafl-notation-spec.txt` (section 4).

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::ParseError;
use crate::game::Game;
use crate::game_record::GameRecord;
use crate::notation::position_record;
use crate::outcome::Reason;
use crate::position::Position;
use crate::ruleset::Ruleset;
use crate::side::{Piece, Side};
use crate::square::{parse_square_prefix, square_name, Sq};

use super::rules_string::{ruleset_from_opentafl, ruleset_to_opentafl};

/// An OpenTafl game record (`.otg`): tags, the rules, and the moves of the principal line.
///
/// ```text
/// [compiler:tafl]
/// [result:1]
/// [rules:dim:7 name:Brandubh ... start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]
///
/// 1. d2-b2 Kd4-d2
/// 2. b4-b3xc3 ...
/// ```
/// Reading keeps the principal line and drops commentary (`[...|...]`) and variations.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OtgRecord {
    /// Tags other than `rules`, in file order (`result`, `position`, ...).
    pub tags: Vec<(String, String)>,
    /// The rules, from the `rules` tag (written last).
    pub ruleset: Ruleset,
    /// The moves in OpenTafl notation (`Ke6-e7`, `g7-g10xf10/h10`, `e3-e4++`).
    pub moves: Vec<String>,
    /// The record ends with a resignation (`---`) by the side to move.
    pub resigned: bool,
}

/// One OpenTafl move record turned into the engine's text (`e6-e7`, `g7-g10xf10xh10`).
/// Captured kings are dropped: the king is never removed, his capture ends the game.
pub fn otn_move_text(n: usize, token: &str) -> Result<String, ParseError> {
    let at = |e: ParseError| e.at(format!("move `{token}`"));
    let mut rest = token;
    if let Some(c) = piece_prefix(rest) {
        check_mover(c).map_err(at)?;
        rest = &rest[1..];
    }
    let (from, r) = parse_square_prefix(n, rest).map_err(at)?;
    let r = match r.strip_prefix('-') {
        Some(r) if !r.starts_with(['^', '=']) => r,
        _ => {
            return Err(at(ParseError::new(
                "jumps and berserk moves (`^`, `=`) are not supported; a move is `from-to`",
            )))
        }
    };
    let (to, mut r) = parse_square_prefix(n, r).map_err(at)?;
    let mut text = format!("{}-{}", square_name(n, from), square_name(n, to));
    if let Some(caps) = r.strip_prefix('x') {
        r = caps;
        loop {
            let king = piece_prefix(r);
            if let Some(c) = king {
                if !matches!(c, 't' | 'T' | 'K') {
                    return Err(at(ParseError::new(format!(
                        "captured piece `{c}`: only t, T and K are supported"
                    ))));
                }
                r = &r[1..];
            }
            let (sq, r2) = parse_square_prefix(n, r).map_err(at)?;
            if king != Some('K') {
                text.push('x');
                text.push_str(&square_name(n, sq).to_string());
            }
            r = r2;
            match r.strip_prefix('/') {
                Some(r2) => r = r2,
                None => break,
            }
        }
    }
    if r.len() > 3 || !r.chars().all(|c| c == '+' || c == '-') {
        return Err(at(ParseError::new(format!(
            "unexpected `{r}`; after the captures only `+`, `++`, `-`, `--` may follow"
        ))));
    }
    Ok(text)
}

/// A piece letter in front of a square (`Ke6`), if any.
fn piece_prefix(s: &str) -> Option<char> {
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(a), Some(b)) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => Some(a),
        _ => None,
    }
}

fn check_mover(c: char) -> Result<(), ParseError> {
    match c {
        't' | 'T' | 'K' => Ok(()),
        'k' => Err(ParseError::new("attacking kings (`k`) are not supported")),
        'c' | 'C' => Err(ParseError::new("commanders are not supported")),
        'n' | 'N' => Err(ParseError::new("knights are not supported")),
        'm' | 'M' => Err(ParseError::new("mercenaries are not supported")),
        'g' | 'G' => Err(ParseError::new("guards are not supported")),
        _ => Err(ParseError::new(format!("`{c}` is not a piece type"))),
    }
}

fn is_turn_number(tok: &str) -> Option<usize> {
    tok.strip_suffix('.')
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        .and_then(|d| d.parse().ok())
}

fn is_variation_address(tok: &str) -> bool {
    tok.ends_with('.')
        && tok.starts_with(|c: char| c.is_ascii_digit())
        && tok.chars().any(|c| c.is_ascii_lowercase())
        && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
}

impl OtgRecord {
    /// The value of a tag.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Reads a record. Errors name the line of a bad tag or the turn of a bad move.
    pub fn parse(text: &str) -> Result<OtgRecord, ParseError> {
        let mut tags = Vec::new();
        let mut rules = None;
        let mut body_start = text.len();
        let mut offset = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let t = line.trim();
            if t.is_empty() {
                offset += line.len();
                continue;
            }
            let Some(inner) = t.strip_prefix('[') else {
                body_start = offset;
                break;
            };
            let at = format!("line {}", i + 1);
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| ParseError::new("a tag must end with `]`").at(&at))?;
            let (k, v) = inner
                .split_once(':')
                .ok_or_else(|| ParseError::new("a tag is `[key:value]`").at(&at))?;
            if k == "rules" {
                rules = Some(ruleset_from_opentafl(v).map_err(|e| e.at(format!("{at}, rules tag")))?);
            } else {
                tags.push((k.to_string(), v.to_string()));
            }
            offset += line.len();
        }
        let ruleset = rules.ok_or_else(|| ParseError::new("the `[rules:...]` tag is missing"))?;
        let n = ruleset.size();
        // Drop commentary: `[...]` after the tags.
        let mut body = String::new();
        let mut depth = 0usize;
        for c in text[body_start..].chars() {
            match c {
                '[' => depth += 1,
                ']' if depth > 0 => depth -= 1,
                ']' => return Err(ParseError::new("a `]` closes no comment")),
                _ if depth == 0 => body.push(c),
                _ => {}
            }
        }
        if depth > 0 {
            return Err(ParseError::new("a comment `[` is not closed"));
        }
        let mut moves = Vec::new();
        let mut resigned = false;
        let mut turn = 0usize;
        let mut in_turn = 0usize;
        let mut in_variation = false;
        for tok in body.split_whitespace() {
            if let Some(t) = is_turn_number(tok) {
                if t != turn + 1 {
                    return Err(ParseError::new(format!(
                        "turn `{tok}` is out of order; expected {}.",
                        turn + 1
                    )));
                }
                if resigned {
                    return Err(ParseError::new(format!("turn {t} follows a resignation")));
                }
                turn = t;
                in_turn = 0;
                in_variation = false;
                continue;
            }
            if is_variation_address(tok) {
                in_variation = true;
                continue;
            }
            if in_variation {
                continue;
            }
            let at = format!("turn {turn}");
            if turn == 0 {
                return Err(ParseError::new(format!("`{tok}` comes before turn 1.")));
            }
            if resigned {
                return Err(ParseError::new(format!("`{tok}` follows a resignation")).at(&at));
            }
            if tok == "---" {
                resigned = true;
                continue;
            }
            in_turn += 1;
            if in_turn > 2 {
                return Err(ParseError::new(format!(
                    "`{tok}`: a turn holds two moves (berserk turns are not supported)"
                ))
                .at(&at));
            }
            otn_move_text(n, tok).map_err(|e| e.at(&at))?;
            moves.push(tok.to_string());
        }
        Ok(OtgRecord {
            tags,
            ruleset,
            moves,
            resigned,
        })
    }

    /// The record as text: tags, the rules tag last, a blank line, then two moves a turn.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.tags {
            out.push_str(&format!("[{k}:{v}]\n"));
        }
        out.push_str(&format!("[rules:{}]\n\n", ruleset_to_opentafl(&self.ruleset)));
        let mut tokens: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        if self.resigned {
            tokens.push("---");
        }
        for (i, pair) in tokens.chunks(2).enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, pair.join(" ")));
        }
        out
    }

    /// The moves in the engine's notation (`e6-e7`, `g7-g10xf10xh10`).
    pub fn move_texts(&self) -> Result<Vec<String>, ParseError> {
        let n = self.ruleset.size();
        self.moves
            .iter()
            .enumerate()
            .map(|(i, m)| otn_move_text(n, m).map_err(|e| e.at(format!("move {}", i + 1))))
            .collect()
    }

    /// Replays the record under `rules` (normally built from [`OtgRecord::ruleset`]): every
    /// move must be legal and capture what the record says. Starts from the `position` tag
    /// when there is one (with `tafl-to-move` naming the side to move, default the rules'
    /// first side).
    pub fn replay<B: BitSet>(&self, rules: &Rules<B>) -> Result<Game<B>, ParseError> {
        let mut tags = Vec::new();
        if let Some(p) = self.tag("position") {
            tags.push(("Position".to_string(), p.to_string()));
            if let Some(side) = self.tag("tafl-to-move") {
                tags.push(("ToMove".to_string(), side.to_string()));
            }
        }
        GameRecord {
            tags,
            moves: self.move_texts()?,
        }
        .replay(rules)
    }

    /// The record of a game: `compiler`, `result` (`1` attackers, `-1` defenders, `0` draw,
    /// `?` none yet), `termination` when it ended, `position` when it did not start from the
    /// rules' start, and the moves with the king marked `K`, captures, and `++`/`--` on a
    /// final king capture or escape.
    pub fn from_game<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> OtgRecord {
        let n = rules.n;
        let mut tags = vec![("compiler".to_string(), "tafl".to_string())];
        let result = match game.outcome() {
            Some(o) => match o.winner {
                Some(Side::Attackers) => "1",
                Some(Side::Defenders) => "-1",
                None if o.is_draw() => "0",
                None => "?",
            },
            None => "?",
        };
        tags.push(("result".into(), result.into()));
        if let Some(o) = game.outcome() {
            tags.push(("termination".into(), o.to_string()));
        }
        if *game.start() != Position::start(rules) {
            tags.push(("position".into(), position_record(rules, game.start())));
            if game.start().to_move() != rules.ruleset.file.first {
                tags.push(("tafl-to-move".into(), game.start().to_move().name().into()));
            }
        }
        let mut pos = *game.start();
        let last = game.history().len();
        let mut moves = Vec::with_capacity(last);
        for (i, p) in game.history().iter().enumerate() {
            let king = pos.piece_at(p.mv.from) == Some(Piece::King);
            let effect = pos.play_unchecked(rules, p.mv);
            let mut s = String::new();
            if king {
                s.push('K');
            }
            s.push_str(&p.mv.text(n));
            let caps: Vec<String> = p
                .captured
                .squares()
                .map(|c| square_name(n, c as Sq).to_string())
                .collect();
            if !caps.is_empty() {
                s.push('x');
                s.push_str(&caps.join("/"));
            }
            if i + 1 == last {
                match game.outcome().map(|o| o.reason) {
                    Some(Reason::KingCaptured) if effect.king_captured => s.push_str("++"),
                    Some(Reason::Escape) => s.push_str("--"),
                    _ => {}
                }
            }
            moves.push(s);
        }
        OtgRecord {
            tags,
            ruleset: rules.ruleset.clone(),
            moves,
            resigned: false,
        }
    }
}
