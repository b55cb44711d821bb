//! Replaying real games from a CSV file, one game per line:
//! `moves,attacker_captures,defender_captures,result` (the format of the Copenhagen games in
//! `tests/data/copenhagen-games.csv`, see `RULES.md`, "Real games to replay").
//!
//! - `moves`: plies separated by spaces, `from-to` with an `xSQ` suffix per captured soldier
//!   (`d5-d3xd2`). King captures are not marked. Some records mark the same soldier twice;
//!   a capture is a set of squares, so the duplicate counts once.
//! - `attacker_captures`, `defender_captures`: how many `x` marks the attackers' plies (1st,
//!   3rd, ...) and the defenders' plies (2nd, 4th, ...) carry, duplicates included.
//!   The last ply may be the word `timeout`: the side to move ran out of time there.
//! - `result`: `White` (defenders won), `Black` (attackers won), `Draw`, or `Ongoing` (the
//!   game stopped before the rules ended it: a resignation or a timeout).
//!
//! A replay plays every ply under the given rules. Every ply must be legal and capture exactly
//! the soldiers the record marks. If the rules end the game before the record does (a third
//! repetition the site did not adjudicate, say), the replay reports the ply and the reason and
//! plays nothing after it. If the last ply ends the game, the recorded result must agree.

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::ParseError;
use crate::game::Game;
use crate::notation::parse_move;
use crate::outcome::Outcome;
use crate::position::Move;
use crate::side::Side;
use crate::square::{square_name, Sq};
use std::collections::BTreeMap;
use std::fmt;

/// The `result` column of a CSV game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum CsvResult {
    /// The defenders won.
    White,
    /// The attackers won.
    Black,
    /// A draw.
    Draw,
    /// The record stops before the rules end the game (resigned or timed out).
    Ongoing,
}

impl CsvResult {
    /// Every value, in the order summaries list them.
    pub const ALL: [CsvResult; 4] = [
        CsvResult::White,
        CsvResult::Black,
        CsvResult::Draw,
        CsvResult::Ongoing,
    ];

    /// Parses the column text (`White`, `Black`, `Draw`, `Ongoing`).
    pub fn parse(text: &str) -> Option<CsvResult> {
        match text {
            "White" => Some(CsvResult::White),
            "Black" => Some(CsvResult::Black),
            "Draw" => Some(CsvResult::Draw),
            "Ongoing" => Some(CsvResult::Ongoing),
            _ => None,
        }
    }

    /// The column text.
    pub const fn as_str(self) -> &'static str {
        match self {
            CsvResult::White => "White",
            CsvResult::Black => "Black",
            CsvResult::Draw => "Draw",
            CsvResult::Ongoing => "Ongoing",
        }
    }

    /// Whether an engine outcome at the end of the record agrees with this result: `White`
    /// needs a defenders' win, `Black` an attackers' win, `Draw` a draw; `Ongoing` agrees with
    /// no end at all.
    pub fn agrees_with(self, outcome: &Outcome) -> bool {
        match self {
            CsvResult::White => outcome.winner == Some(Side::Defenders),
            CsvResult::Black => outcome.winner == Some(Side::Attackers),
            CsvResult::Draw => outcome.is_draw(),
            CsvResult::Ongoing => false,
        }
    }
}

impl fmt::Display for CsvResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One ply of a CSV game.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CsvMove {
    /// The ply as written.
    pub text: String,
    /// The move.
    pub mv: Move,
    /// The captured soldiers it marks, each once, in the order first written.
    pub captures: Vec<Sq>,
    /// How many `x` marks it carries, duplicates included.
    pub marks: usize,
}

/// One line of a CSV games file, typed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CsvGame {
    /// The 1-based line number in the file.
    pub line: usize,
    /// The plies.
    pub moves: Vec<CsvMove>,
    /// The record ends with `timeout`: the side to move after the last ply ran out of time.
    pub timeout: bool,
    /// The `attacker_captures` column: `x` marks on the attackers' plies.
    pub attacker_captures: usize,
    /// The `defender_captures` column: `x` marks on the defenders' plies.
    pub defender_captures: usize,
    /// The `result` column.
    pub result: CsvResult,
}

fn count_column(text: &str, name: &str) -> Result<usize, ParseError> {
    text.trim().parse().map_err(|_| {
        ParseError::new(format!(
            "column `{name}`: `{}` is not a count",
            crate::input::quote(text)
        ))
    })
}

impl CsvGame {
    /// Parses one line on an `n x n` board; `line` is its 1-based number, named in errors.
    /// The count columns must match the `x` marks in the moves.
    pub fn parse(n: usize, line: usize, text: &str) -> Result<CsvGame, ParseError> {
        let at = format!("line {line}");
        let text = text.trim_end_matches(['\r', '\n']);
        let cols = csv_fields(text).map_err(|e| e.at(&at))?;
        let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
        if cols.len() != 4 {
            return Err(ParseError::new(format!(
                "expected 4 columns `moves,attacker_captures,defender_captures,result`, found {}",
                cols.len()
            ))
            .at(&at));
        }
        let mut moves = Vec::new();
        let mut marks = [0usize; 2];
        let mut timeout = false;
        for (i, tok) in cols[0].split_whitespace().enumerate() {
            if timeout {
                return Err(ParseError::new(format!(
                    "move {}: `{}` follows `timeout`, which must come last",
                    i + 1,
                    crate::input::quote(tok)
                ))
                .at(&at));
            }
            if tok == "timeout" {
                timeout = true;
                continue;
            }
            let (mv, written) = parse_move(n, tok).map_err(|e| e.at(format!("{at}, move {}", i + 1)))?;
            let mut captures: Vec<Sq> = Vec::with_capacity(written.len());
            for s in &written {
                if !captures.contains(s) {
                    captures.push(*s);
                }
            }
            marks[i % 2] += written.len();
            moves.push(CsvMove {
                text: tok.to_string(),
                mv,
                captures,
                marks: written.len(),
            });
        }
        if moves.is_empty() {
            return Err(ParseError::new("column `moves` is empty").at(&at));
        }
        let attacker_captures = count_column(cols[1], "attacker_captures").map_err(|e| e.at(&at))?;
        let defender_captures = count_column(cols[2], "defender_captures").map_err(|e| e.at(&at))?;
        let result = CsvResult::parse(cols[3].trim()).ok_or_else(|| {
            ParseError::new(format!(
                "column `result`: `{}` is not allowed; allowed values: White, Black, Draw, Ongoing",
                crate::input::quote(cols[3])
            ))
            .at(&at)
        })?;
        for (name, col, marked) in [
            ("attacker_captures", attacker_captures, marks[0]),
            ("defender_captures", defender_captures, marks[1]),
        ] {
            if col != marked {
                return Err(ParseError::new(format!(
                    "column `{name}` is {col}, but the moves mark {marked} captures"
                ))
                .at(&at));
            }
        }
        Ok(CsvGame {
            line,
            moves,
            timeout,
            attacker_captures,
            defender_captures,
            result,
        })
    }

    /// Replays the game under `rules` (see the module documentation).
    pub fn replay<B: BitSet>(&self, rules: &Rules<B>) -> GameReplay {
        let n = rules.n;
        let names = |sqs: &[Sq]| {
            sqs.iter()
                .map(|&s| square_name(n, s).to_string())
                .collect::<Vec<_>>()
        };
        let mut game = Game::new(rules);
        let mut report = GameReplay {
            line: self.line,
            result: self.result,
            timeout: self.timeout,
            plies: 0,
            recorded_captures: 0,
            captures_matched: 0,
            duplicate_marks: 0,
            end: ReplayEnd::Open,
        };
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + 1;
            let before = *game.position();
            if let Err(e) = game.play(rules, m.mv) {
                report.end = ReplayEnd::Mismatch(Mismatch::Illegal {
                    ply,
                    text: m.text.clone(),
                    reason: e.reason,
                    diagram: before.diagram(rules, &[m.mv.from, m.mv.to]),
                });
                return report;
            }
            report.plies = ply;
            let played = game.history()[i];
            let made: Vec<Sq> = played.captured.squares().map(|s| s as Sq).collect();
            let mut recorded = m.captures.clone();
            recorded.sort_unstable();
            // A record may mark the king's capture or not; the soldiers must be exact.
            if played.king_captured.is_some() && recorded == played.captures() {
                recorded.retain(|&s| Some(s) != played.king_captured);
            }
            if recorded != made {
                report.end = ReplayEnd::Mismatch(Mismatch::Captures {
                    ply,
                    text: m.text.clone(),
                    recorded: names(&recorded),
                    made: names(&made),
                    diagram: before.diagram(rules, &[m.mv.from, m.mv.to]),
                });
                return report;
            }
            report.recorded_captures += recorded.len();
            report.captures_matched += made.len();
            report.duplicate_marks += m.marks - m.captures.len();
            if let Some(outcome) = game.outcome() {
                let unplayed = self.moves.len() - ply;
                report.end = if unplayed > 0 {
                    ReplayEnd::EndedEarly {
                        ply,
                        outcome,
                        unplayed,
                    }
                } else if self.result.agrees_with(&outcome) {
                    ReplayEnd::Ended { outcome }
                } else {
                    ReplayEnd::Mismatch(Mismatch::Result {
                        ply,
                        recorded: self.result,
                        outcome,
                        diagram: game.diagram(rules, &[m.mv.to]),
                    })
                };
                return report;
            }
        }
        if self.timeout {
            // The side to move ran out of time: its opponent wins.
            let loser = game.position().to_move();
            let agrees = match self.result {
                CsvResult::White => loser == Side::Attackers,
                CsvResult::Black => loser == Side::Defenders,
                CsvResult::Draw | CsvResult::Ongoing => false,
            };
            if !agrees {
                report.end = ReplayEnd::Mismatch(Mismatch::Timeout {
                    ply: report.plies,
                    loser,
                    recorded: self.result,
                });
            }
        }
        report
    }
}

/// How a replay ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ReplayEnd {
    /// The record stops before the rules end the game.
    Open,
    /// The last ply of the record ends the game, as the recorded result says.
    Ended {
        /// How the rules ended it.
        outcome: Outcome,
    },
    /// The rules ended the game before the record does; later plies were not played.
    EndedEarly {
        /// The 1-based ply that ended it.
        ply: usize,
        /// How the rules ended it.
        outcome: Outcome,
        /// Plies of the record left unplayed.
        unplayed: usize,
    },
    /// The engine and the record disagree.
    Mismatch(Mismatch),
}

/// A disagreement between the engine and a record.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Mismatch {
    /// The rules do not allow the ply.
    Illegal {
        /// The 1-based ply.
        ply: usize,
        /// The ply as written.
        text: String,
        /// Why the rules refuse it.
        reason: String,
        /// The position before the ply, its from and to squares marked.
        diagram: String,
    },
    /// The ply captures other soldiers than the record marks.
    Captures {
        /// The 1-based ply.
        ply: usize,
        /// The ply as written.
        text: String,
        /// The squares the record marks.
        recorded: Vec<String>,
        /// The squares the rules capture.
        made: Vec<String>,
        /// The position before the ply, its from and to squares marked.
        diagram: String,
    },
    /// The record ends with a timeout, but its result is not a win for the other side.
    Timeout {
        /// Plies played before the timeout.
        ply: usize,
        /// The side to move, which ran out of time.
        loser: Side,
        /// The recorded result.
        recorded: CsvResult,
    },
    /// The last ply ends the game, but not with the recorded result.
    Result {
        /// The 1-based ply.
        ply: usize,
        /// The recorded result.
        recorded: CsvResult,
        /// How the rules ended the game.
        outcome: Outcome,
        /// The final position, the last ply's square marked.
        diagram: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Illegal {
                ply,
                text,
                reason,
                diagram,
            } => write!(
                f,
                "move {ply} `{}` is illegal: {reason}\n{diagram}",
                crate::input::quote(text)
            ),
            Mismatch::Captures {
                ply,
                text,
                recorded,
                made,
                diagram,
            } => write!(
                f,
                "move {ply} `{}`: the record captures [{}], the rules capture [{}]\n{diagram}",
                crate::input::quote(text),
                crate::input::quote(&recorded.join(" ")),
                made.join(" ")
            ),
            Mismatch::Timeout { ply, loser, recorded } => write!(
                f,
                "after move {ply} the {loser} ran out of time, but the record says {recorded}"
            ),
            Mismatch::Result {
                ply,
                recorded,
                outcome,
                diagram,
            } => write!(
                f,
                "move {ply} ends the game with {outcome}, but the record says {recorded}\n{diagram}"
            ),
        }
    }
}

/// The replay of one CSV game.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameReplay {
    /// The game's line in the file.
    pub line: usize,
    /// The recorded result.
    pub result: CsvResult,
    /// The record ends with a timeout.
    pub timeout: bool,
    /// Plies played (up to the end of the game, the record, or the mismatch).
    pub plies: usize,
    /// Distinct captures the played plies mark.
    pub recorded_captures: usize,
    /// Captures the engine made that the record marks (equal to `recorded_captures` unless
    /// there is a capture mismatch).
    pub captures_matched: usize,
    /// `x` marks that repeat a square already marked on the same ply.
    pub duplicate_marks: usize,
    /// How the replay ended.
    pub end: ReplayEnd,
}

/// A game the rules end before its record does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EarlyEnd {
    /// The game's line in the file.
    pub line: usize,
    /// The 1-based ply that ended it.
    pub ply: usize,
    /// How the rules ended it.
    pub outcome: Outcome,
    /// Plies of the record left unplayed.
    pub unplayed: usize,
    /// The recorded result.
    pub recorded: CsvResult,
}

/// Totals over a file of games.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ReplaySummary {
    /// Games replayed.
    pub games: usize,
    /// Plies played.
    pub plies: usize,
    /// Distinct captures marked on the plies played.
    pub recorded_captures: usize,
    /// Captures reproduced by the engine.
    pub captures_matched: usize,
    /// Repeated `x` marks (the same soldier marked twice on one ply).
    pub duplicate_marks: usize,
    /// Records that stop before the rules end the game, by recorded result.
    pub open: BTreeMap<CsvResult, usize>,
    /// Of those, the records that end with a timeout, by recorded result.
    pub open_timeouts: BTreeMap<CsvResult, usize>,
    /// Games whose last ply ends them as recorded, by recorded result and reason.
    pub ended: BTreeMap<(CsvResult, &'static str), usize>,
    /// Games the rules end before the record does, by reason.
    pub ended_early_by_reason: BTreeMap<&'static str, usize>,
    /// The games ended early, in file order.
    pub ended_early: Vec<EarlyEnd>,
    /// Disagreements: line and what.
    pub mismatches: Vec<(usize, Mismatch)>,
}

impl ReplaySummary {
    /// Adds one game's replay.
    pub fn add(&mut self, r: &GameReplay) {
        self.games += 1;
        self.plies += r.plies;
        self.recorded_captures += r.recorded_captures;
        self.captures_matched += r.captures_matched;
        self.duplicate_marks += r.duplicate_marks;
        match &r.end {
            ReplayEnd::Open => {
                *self.open.entry(r.result).or_default() += 1;
                if r.timeout {
                    *self.open_timeouts.entry(r.result).or_default() += 1;
                }
            }
            ReplayEnd::Ended { outcome } => {
                *self.ended.entry((r.result, outcome.reason.name())).or_default() += 1
            }
            ReplayEnd::EndedEarly {
                ply,
                outcome,
                unplayed,
            } => {
                *self
                    .ended_early_by_reason
                    .entry(outcome.reason.name())
                    .or_default() += 1;
                self.ended_early.push(EarlyEnd {
                    line: r.line,
                    ply: *ply,
                    outcome: *outcome,
                    unplayed: *unplayed,
                    recorded: r.result,
                });
            }
            ReplayEnd::Mismatch(m) => self.mismatches.push((r.line, m.clone())),
        }
    }

    /// Games whose last ply ends them with the recorded result.
    pub fn results_matched(&self) -> usize {
        self.ended.values().sum()
    }

    /// Illegal plies among the mismatches.
    pub fn illegal_moves(&self) -> usize {
        self.count(|m| matches!(m, Mismatch::Illegal { .. }))
    }

    /// Capture mismatches.
    pub fn capture_mismatches(&self) -> usize {
        self.count(|m| matches!(m, Mismatch::Captures { .. }))
    }

    /// Result mismatches.
    pub fn result_mismatches(&self) -> usize {
        self.count(|m| matches!(m, Mismatch::Result { .. }))
    }

    fn count(&self, f: impl Fn(&Mismatch) -> bool) -> usize {
        self.mismatches.iter().filter(|(_, m)| f(m)).count()
    }
}

impl fmt::Display for ReplaySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "games replayed:      {}", self.games)?;
        writeln!(f, "moves played:        {}", self.plies)?;
        writeln!(
            f,
            "captures matched:    {} of {} recorded ({} duplicate marks ignored)",
            self.captures_matched, self.recorded_captures, self.duplicate_marks
        )?;
        let open: usize = self.open.values().sum();
        let by = |m: &BTreeMap<CsvResult, usize>| {
            CsvResult::ALL
                .iter()
                .filter_map(|r| m.get(r).map(|c| format!("{r} {c}")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let timeouts: usize = self.open_timeouts.values().sum();
        writeln!(
            f,
            "record ends first:   {open} ({}); {timeouts} of them by timeout ({})",
            by(&self.open),
            by(&self.open_timeouts)
        )?;
        let ended = self
            .ended
            .iter()
            .map(|((r, why), c)| format!("{r} by {why} {c}"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            f,
            "last move ends game: {} matching the recorded result ({ended})",
            self.results_matched()
        )?;
        let early = self
            .ended_early_by_reason
            .iter()
            .map(|(why, c)| format!("{why} {c}"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(f, "rules end it early:  {} ({early})", self.ended_early.len())?;
        for e in &self.ended_early {
            writeln!(
                f,
                "  line {}: move {}, {}; {} recorded moves not played (recorded result {})",
                e.line, e.ply, e.outcome, e.unplayed, e.recorded
            )?;
        }
        writeln!(
            f,
            "mismatches:          {} ({} illegal moves, {} capture mismatches, {} result mismatches, {} timeout mismatches)",
            self.mismatches.len(),
            self.illegal_moves(),
            self.capture_mismatches(),
            self.result_mismatches(),
            self.count(|m| matches!(m, Mismatch::Timeout { .. }))
        )?;
        for (line, m) in &self.mismatches {
            writeln!(f, "  line {line}: {m}")?;
        }
        Ok(())
    }
}

/// The fields of one CSV record (RFC 4180): split at commas, a field in double quotes unquoted
/// (`""` inside it is one `"`, and commas inside it are its own). A quote left open, or text
/// after a closing quote, is an error that says so.
fn csv_fields(text: &str) -> Result<Vec<String>, ParseError> {
    let mut fields = Vec::new();
    let mut rest = text;
    loop {
        let number = fields.len() + 1;
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if let Some(quoted) = trimmed.strip_prefix('"') {
            let mut field = String::new();
            let mut chars = quoted.char_indices();
            let after = loop {
                match chars.next() {
                    Some((i, '"')) if quoted[i + 1..].starts_with('"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some((i, '"')) => break &quoted[i + 1..],
                    Some((_, c)) => field.push(c),
                    None => {
                        return Err(ParseError::new(format!(
                            "column {number}: a quote opened and not closed"
                        )))
                    }
                }
            };
            let after = after.trim_start_matches([' ', '\t']);
            fields.push(field);
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => return Ok(fields),
                None => {
                    let extra = after.split(',').next().unwrap_or(after);
                    return Err(ParseError::new(format!(
                        "column {number}: `{}` after its closing quote",
                        crate::input::quote(extra)
                    )));
                }
            }
        } else {
            match rest.split_once(',') {
                Some((field, next)) => {
                    fields.push(field.to_string());
                    rest = next;
                }
                None => {
                    fields.push(rest.to_string());
                    return Ok(fields);
                }
            }
        }
    }
}

/// Parses every non-empty line of a CSV games file on an `n x n` board. A header line
/// `moves,attacker_captures,defender_captures,result` is skipped. The first bad line is an
/// error that names it.
pub fn parse_csv_games(n: usize, text: &str) -> Result<Vec<CsvGame>, ParseError> {
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || (i == 0 && t == "moves,attacker_captures,defender_captures,result") {
            continue;
        }
        games.push(CsvGame::parse(n, i + 1, line)?);
    }
    Ok(games)
}

/// Parses and replays a CSV games file under `rules`.
pub fn replay_csv<B: BitSet>(rules: &Rules<B>, text: &str) -> Result<ReplaySummary, ParseError> {
    let mut summary = ReplaySummary::default();
    for g in parse_csv_games(rules.n, text)? {
        summary.add(&g.replay(rules));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;

    #[test]
    fn a_line_parses_into_a_typed_record() {
        let g = CsvGame::parse(11, 7, "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2xe2,2,0,Ongoing").unwrap();
        assert_eq!(g.line, 7);
        assert_eq!(g.moves.len(), 5);
        assert_eq!(g.moves[4].captures.len(), 1);
        assert_eq!(g.moves[4].marks, 2);
        assert_eq!(g.result, CsvResult::Ongoing);
        let rules = Rules::<u128>::new(&Ruleset::builtin("copenhagen")).unwrap();
        let r = g.replay(&rules);
        assert_eq!(r.end, ReplayEnd::Open);
        assert_eq!((r.plies, r.captures_matched, r.duplicate_marks), (5, 1, 1));
    }

    #[test]
    fn quoted_fields_are_unquoted() {
        let plain = CsvGame::parse(11, 1, "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2,1,0,Ongoing").unwrap();
        for quoted in [
            "\"d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2\",1,0,Ongoing",
            "\"d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2\",\"1\",\"0\",\"Ongoing\"",
            " \"d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2\" ,1,0,Ongoing\r",
        ] {
            let g = CsvGame::parse(11, 1, quoted).unwrap_or_else(|e| panic!("{quoted}: {e}"));
            assert_eq!(g.moves, plain.moves, "{quoted}");
            assert_eq!(g.result, plain.result);
        }
        assert_eq!(csv_fields("a,\"b,\"\"c\"\"\",").unwrap(), ["a", "b,\"c\"", ""]);
        for (bad, why) in [
            ("\"d1-d3,0,0,White", "not closed"),
            ("\"d1-d3\"x,0,0,White", "after its closing quote"),
        ] {
            let e = CsvGame::parse(11, 3, bad).unwrap_err().to_string();
            assert!(e.starts_with("line 3") && e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn bad_lines_name_the_line_and_the_reason() {
        for (bad, why) in [
            ("d1-d3,0,0", "4 columns"),
            ("d1-d3,0,0,Won", "result"),
            ("d1-d3,x,0,White", "attacker_captures"),
            ("d1-z3,0,0,White", "move 1"),
            (",0,0,White", "empty"),
            ("d1-d3 e5-e2xe1,0,0,White", "defender_captures"),
        ] {
            let e = CsvGame::parse(11, 42, bad).unwrap_err().to_string();
            assert!(e.starts_with("line 42") && e.contains(why), "{bad}: {e}");
        }
    }
}
