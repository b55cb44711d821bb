//! Rulesets as data: the knobs of `RULES.md`, read from `configs/rules/*.toml`.
//!
//! A [`Ruleset`] is the typed, validated content of one rules file. The built-in files are
//! embedded in the binary, so `Ruleset::load("brandubh")` works from any directory, and
//! `Ruleset::load("my/rules.toml")` reads a user's own. Unknown fields and bad values are
//! errors that name the file, the field and the allowed values.

use crate::diagram::parse_setup;
use crate::error::RulesError;
use crate::side::{Piece, Side};
use crate::square::{parse_square, square, Sq, MAX_SIZE};
use serde::{Deserialize, Serialize};
use std::path::Path;

macro_rules! knob {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }
        impl $name {
            /// Every value, in file order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The value as written in rules files.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            /// Parses the text written in rules files.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
            /// The allowed values, for error messages: `yes, no`.
            pub fn allowed() -> String {
                [$($text),+].join(", ")
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

knob!(
    /// A yes/no knob.
    YesNo { /** The rule applies. */ Yes = "yes", /** The rule does not apply. */ No = "no" }
);
knob!(
    /// Whether the centre square is a restricted throne.
    ThroneKind { /** No throne. */ None = "none", /** The centre square is the throne. */ Centre = "centre" }
);
knob!(
    /// Who may stop on the throne.
    ThroneStop { /** Only the king (he may re-enter it). */ King = "king", /** Nobody, once the king has left. */ Nobody = "nobody" }
);
knob!(
    /// Who may slide through the empty throne.
    ThronePass { /** Every piece. */ All = "all", /** Only the king. */ King = "king", /** Nobody. */ Nobody = "nobody" }
);
knob!(
    /// Against which pieces a square acts as a capturing jaw.
    Hostility { /** Against both sides. */ All = "all", /** Against attackers only. */ Attackers = "attackers", /** Against nobody. */ None = "none" }
);
knob!(
    /// Whether the king takes part in captures.
    KingArmed {
        /** As the moving piece and as the far jaw. */ Yes = "yes",
        /** Only as the moving piece. */ Hammer = "hammer",
        /** Only as the far jaw. */ Anvil = "anvil",
        /** Never. */ No = "no",
    }
);
knob!(
    /// How the king is captured.
    KingCapture {
        /** Surrounded on four sides (the empty throne may be one); never on the edge. */ Strong = "strong",
        /** Strong on or next to the throne, like a soldier elsewhere. */ StrongNearThrone = "strong_near_throne",
        /** Like a soldier everywhere. */ Weak = "weak",
    }
);
knob!(
    /// Where the king escapes.
    Escape { /** On a corner square. */ Corners = "corners", /** On any edge square. */ Edge = "edge" }
);
knob!(
    /// What a third occurrence of a position does.
    Repetition {
        /** Nothing. */ Ignore = "ignore",
        /** The game is drawn. */ Draw = "draw",
        /** The attackers win, whoever repeated. */ DefendersLose = "defenders_lose",
        /** The side that just moved loses. */ MoverLoses = "mover_loses",
        /** No third occurrence: a defenders' move that would recreate a board of the game
        (the pieces, before its captures) is illegal, as hnefatafl.org plays; the
        attackers may repeat. */
        DefendersMayNotRepeat = "defenders_may_not_repeat",
    }
);
knob!(
    /// The result of a game that reaches the turn limit undecided.
    TurnLimitResult {
        /** A draw. */ Draw = "draw",
        /** The attackers win. */ Attackers = "attackers",
        /** The defenders win. */ Defenders = "defenders",
    }
);
knob!(
    /// Whether and how a shieldwall is captured (Copenhagen's rule: a row of two or more
    /// enemy pieces along the board edge, each faced by one of the capturer's pieces, bracketed
    /// at both ends by the capturer's pieces or corners).
    Shieldwall {
        /** Never. */ No = "no",
        /** By the move to the edge square that brackets the row (Copenhagen). */ Yes = "yes",
        /** By any move of the side that has the row enclosed, whatever moved (OpenTafl's
        relaxed shieldwall, `swf:n`). */ Relaxed = "relaxed",
    }
);
knob!(
    /// What happens to a side that has no legal move on its turn.
    NoMoves { /** It loses. */ Loses = "loses", /** The game is drawn. */ Draw = "draw" }
);

impl YesNo {
    /// `no`: the default of optional knobs.
    pub const fn no() -> YesNo {
        YesNo::No
    }
    /// Whether the knob is `no` (optional knobs are written only when set).
    pub fn is_no(v: &YesNo) -> bool {
        *v == YesNo::No
    }
}

impl TurnLimitResult {
    /// `draw`: the default.
    pub const fn draw() -> TurnLimitResult {
        TurnLimitResult::Draw
    }
    /// Whether it is the default.
    pub fn is_draw(v: &TurnLimitResult) -> bool {
        *v == TurnLimitResult::Draw
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Hostility {
    /// Whether the square is hostile to pieces of `victim`.
    #[inline]
    pub const fn against(self, victim: Side) -> bool {
        match self {
            Hostility::All => true,
            Hostility::Attackers => matches!(victim, Side::Attackers),
            Hostility::None => false,
        }
    }
}

impl KingArmed {
    /// The king captures as the moving piece.
    pub const fn hammer(self) -> bool {
        matches!(self, KingArmed::Yes | KingArmed::Hammer)
    }
    /// The king serves as the far jaw of a capture.
    pub const fn anvil(self) -> bool {
        matches!(self, KingArmed::Yes | KingArmed::Anvil)
    }
}

/// The `corners` knob: no refuge squares, the four board corners, or a list of squares.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CornersSpec {
    /// `"none"` or `"corners"`.
    Word(String),
    /// Explicit squares, such as the 2x2 blocks of Alea Evangelii.
    Squares(Vec<String>),
}

/// The file format of a ruleset: every knob of `RULES.md` is required.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// Short id used on the command line (`brandubh`).
    pub id: String,
    /// Display name (`Brandubh`).
    pub name: String,
    /// Board side, odd, 7..=19.
    pub size: usize,
    /// Who moves first.
    pub first: Side,
    /// Restricted refuge squares.
    pub corners: CornersSpec,
    /// Whether the centre is a restricted throne.
    pub throne: ThroneKind,
    /// Who may stop on the throne.
    pub throne_stop: ThroneStop,
    /// Who may slide through the empty throne.
    pub throne_pass: ThronePass,
    /// Corners as capturing jaws.
    pub corner_hostile: Hostility,
    /// The empty throne as a capturing jaw.
    pub empty_throne_hostile: Hostility,
    /// The king-occupied throne as a jaw against attackers.
    pub occupied_throne_hostile_to_attackers: YesNo,
    /// Whether the king captures.
    pub king_armed: KingArmed,
    /// How the king is captured.
    pub king_capture: KingCapture,
    /// Where the king escapes.
    pub escape: Escape,
    /// Copenhagen shieldwall captures.
    pub shieldwall: Shieldwall,
    /// Copenhagen exit fort win.
    pub exit_fort: YesNo,
    /// Copenhagen encirclement win.
    pub encirclement: YesNo,
    /// Third occurrence of a position.
    pub repetition: Repetition,
    /// A side with no legal move.
    pub no_moves: NoMoves,
    /// Linnaean capture (Tablut as OpenTafl plays it, `linc:y`): with the king on the throne
    /// and attackers on three of its sides, a defender on the fourth is captured by an attacker
    /// moving to the square beyond it, the occupied throne serving as the far jaw. Optional
    /// (`no` when absent), since few rulesets have it.
    #[serde(default = "YesNo::no", skip_serializing_if = "YesNo::is_no")]
    pub linnaean_capture: YesNo,
    /// A house rule of some servers (hnefatafl.org's is 141): a game still undecided when
    /// this ply has been played ends with [`RulesFile::turn_limit_result`]. Plies count from
    /// the position the game was set up from (a host's position, else the start). 0 (the
    /// default, when absent): no limit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub turn_limit: u32,
    /// The result of a game that reaches `turn_limit` (default `draw`).
    #[serde(
        default = "TurnLimitResult::draw",
        skip_serializing_if = "TurnLimitResult::is_draw"
    )]
    pub turn_limit_result: TurnLimitResult,
    /// Start position as a diagram, top rank first (`A`, `D`, `K`, `.`, `#`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    /// Start position as an OpenTafl position record, rank 1 first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

/// A validated ruleset: the file's knobs plus the squares they name and the start position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Ruleset {
    /// The knobs as written.
    pub file: RulesFile,
    /// Restricted refuge squares.
    pub corners: Vec<Sq>,
    /// The throne square, if any.
    pub throne: Option<Sq>,
    /// The start position's pieces.
    pub start: Vec<(Sq, Piece)>,
}

/// The parser's message, led by the field it concerns when the error points into a
/// `key = value` line, so the user reads `field `escape`: unknown variant ...` first.
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    // The parser shows the offending line: cut it, so that a file of garbage on one line
    // does not make an error message as long as the file.
    let full = crate::input::printable(e.to_string().trim_end(), true, 160);
    let Some(span) = e.span() else { return full };
    let line_start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    match line.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() && !key.contains('[') => {
            format!(
                "field `{}`: {}\n{full}",
                crate::input::quote(key.trim()),
                crate::input::printable(e.message().trim_end(), false, 240)
            )
        }
        _ => full,
    }
}

macro_rules! builtins {
    ($($id:literal),+ $(,)?) => {
        /// The ids of the rulesets embedded in the binary.
        pub const BUILTIN_IDS: &[&str] = &[$($id),+];
        fn builtin_text(id: &str) -> Option<&'static str> {
            match id {
                $($id => Some(include_str!(concat!("../rules/", $id, ".toml"))),)+
                _ => None,
            }
        }
    };
}

builtins!(
    "brandubh",
    "tablut",
    "hnefatafl",
    "copenhagen",
    "fetlar",
    "brandubh-traditional",
    "tablut-traditional",
    "tawlbwrdd",
    "alea-evangelii",
    "copenhagen-hnefatafl-org",
);

impl Ruleset {
    /// A built-in ruleset by id, or a rules file by path: TOML, an OpenTafl rules string or
    /// an OpenTafl game record (see [`crate::formats::ruleset_from_text`]).
    pub fn load(spec: &str) -> Result<Ruleset, RulesError> {
        if let Some(text) = builtin_text(spec) {
            return Ruleset::from_toml(text, spec);
        }
        let path = Path::new(spec);
        if spec.ends_with(".toml") || path.exists() {
            let text = crate::input::read_text(path).map_err(|message| RulesError {
                file: spec.to_string(),
                message,
            })?;
            // TOML, or an OpenTafl rules string or game record (`.otg`).
            return crate::opentafl::ruleset_from_text(&text, spec);
        }
        Err(RulesError {
            file: spec.to_string(),
            message: format!(
                "no such built-in ruleset or file; built-in rulesets: {}",
                BUILTIN_IDS.join(", ")
            ),
        })
    }

    /// A built-in ruleset; panics only if the embedded files are broken, which a test rules out.
    pub fn builtin(id: &str) -> Ruleset {
        match Ruleset::load(id) {
            Ok(r) => r,
            Err(e) => panic!("built-in ruleset {id} is broken: {e}"),
        }
    }

    /// Parses and validates a rules file's text; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<Ruleset, RulesError> {
        let parsed: RulesFile = toml::from_str(text).map_err(|e| RulesError {
            file: file.to_string(),
            message: describe_toml_error(text, &e),
        })?;
        Ruleset::from_file(parsed).map_err(|message| RulesError {
            file: file.to_string(),
            message,
        })
    }

    /// Validates the knobs of a parsed file; the error names the field and what is allowed.
    pub fn from_file(file: RulesFile) -> Result<Ruleset, String> {
        let n = file.size;
        if !(7..=MAX_SIZE).contains(&n) || n.is_multiple_of(2) {
            return Err(format!(
                "field `size`: {n} is not allowed; allowed values: odd numbers 7..={MAX_SIZE}"
            ));
        }
        if file.id.is_empty()
            || !file
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "field `id`: `{}` is not allowed; allowed: letters, digits, `-` and `_`",
                crate::input::quote(&file.id)
            ));
        }
        let corners = match &file.corners {
            CornersSpec::Word(w) if w == "none" => vec![],
            CornersSpec::Word(w) if w == "corners" => {
                vec![square(n, 0, 0), square(n, n - 1, 0), square(n, 0, n - 1), square(n, n - 1, n - 1)]
            }
            CornersSpec::Word(w) => {
                return Err(format!(
                    "field `corners`: `{}` is not allowed; allowed values: none, corners, or a list of squares such as [\"a1\", \"b1\"]",
                    crate::input::quote(w)
                ))
            }
            CornersSpec::Squares(list) => {
                let mut v = Vec::new();
                for s in list {
                    let sq = parse_square(n, s).map_err(|e| format!("field `corners`: {e}"))?;
                    if v.contains(&sq) {
                        return Err(format!(
                            "field `corners`: `{}` is listed twice",
                            crate::input::quote(s)
                        ));
                    }
                    v.push(sq);
                }
                v.sort_unstable();
                v
            }
        };
        let throne = match file.throne {
            ThroneKind::None => None,
            ThroneKind::Centre => Some(square(n, n / 2, n / 2)),
        };
        if let (Some(t), true) = (throne, corners.contains(&square(n, n / 2, n / 2))) {
            return Err(format!(
                "field `corners`: the throne square {} cannot also be a corner",
                crate::square::square_name(n, t)
            ));
        }
        if file.linnaean_capture == YesNo::Yes && throne.is_none() {
            return Err(
                "field `linnaean_capture`: `yes` needs a throne (the king on it is the far jaw), but `throne` is `none`".into(),
            );
        }
        if file.escape == Escape::Corners && corners.is_empty() {
            return Err(
                "field `escape`: `corners` needs corner squares, but `corners` is `none`; allowed values here: edge".into(),
            );
        }
        let (layout, (start, marked)) = match (&file.setup, &file.position) {
            (Some(d), None) => (
                "setup",
                parse_setup(n, d, false).map_err(|e| format!("field `setup`: {e}"))?,
            ),
            (None, Some(p)) => (
                "position",
                parse_setup(n, p, true).map_err(|e| format!("field `position`: {e}"))?,
            ),
            _ => {
                return Err(
                    "exactly one of the fields `setup` (a diagram) and `position` (an OpenTafl position record) must be given".into(),
                )
            }
        };
        let name = |sq: Sq| crate::square::square_name(n, sq);
        // `#` marks a special square; on any other square it would silently read as empty.
        if let Some(&sq) = marked
            .iter()
            .find(|&&sq| !corners.contains(&sq) && throne != Some(sq))
        {
            return Err(format!(
                "field `{layout}`: `#` on {}, which is neither a corner nor the throne under these rules; use `.` for an empty square",
                name(sq)
            ));
        }
        // A start position that is already decided: the king on a square where he escapes.
        for &(sq, p) in &start {
            if p != Piece::King {
                continue;
            }
            if corners.contains(&sq) {
                let field = if matches!(file.corners, CornersSpec::Squares(_)) {
                    "corners"
                } else {
                    layout
                };
                return Err(format!(
                    "field `{field}`: the king starts on {}, a corner square; the game would start decided",
                    name(sq)
                ));
            }
            let (f, r) = (sq as usize % n, sq as usize / n);
            if file.escape == Escape::Edge && (f == 0 || r == 0 || f == n - 1 || r == n - 1) {
                return Err(format!(
                    "field `{layout}`: the king starts on {}, an edge square, where he escapes under `escape = \"edge\"`; the game would start decided",
                    name(sq)
                ));
            }
        }
        let rs = Ruleset {
            file,
            corners,
            throne,
            start,
        };
        rs.check_pieces(&rs.start)
            .map_err(|e| format!("start position: {e}"))?;
        Ok(rs)
    }

    /// Checks that a set of pieces is a position these rules can hold: one king, no soldier on a
    /// restricted square, every square on the board, no square twice.
    pub fn check_pieces(&self, pieces: &[(Sq, Piece)]) -> Result<(), String> {
        let n = self.size();
        let kings = pieces.iter().filter(|(_, p)| *p == Piece::King).count();
        if kings == 0 {
            // The board a game shows after the king's capture: the game is over, and no game
            // goes on from it (a position always has its king's square).
            return Err(
                "a position needs exactly one king, found none (a board without its king is a game the attackers have won, with nothing left to play)"
                    .into(),
            );
        }
        if kings != 1 {
            return Err(format!("a position needs exactly one king, found {kings}"));
        }
        let mut seen = vec![false; n * n];
        for &(sq, p) in pieces {
            let i = sq as usize;
            if i >= n * n {
                return Err(format!("square index {sq} is off the board"));
            }
            if seen[i] {
                return Err(format!("{} holds two pieces", crate::square::square_name(n, sq)));
            }
            seen[i] = true;
            if p != Piece::King && self.is_restricted(sq) {
                return Err(format!(
                    "a soldier stands on the restricted square {}",
                    crate::square::square_name(n, sq)
                ));
            }
        }
        Ok(())
    }

    /// The ruleset's id.
    pub fn id(&self) -> &str {
        &self.file.id
    }
    /// Board side length.
    pub fn size(&self) -> usize {
        self.file.size
    }
    /// True for corner and throne squares.
    pub fn is_restricted(&self, sq: Sq) -> bool {
        self.corners.contains(&sq) || self.throne == Some(sq)
    }

    /// The rules file text of this ruleset (with the start position as a diagram).
    pub fn to_toml(&self) -> String {
        let mut f = self.file.clone();
        f.position = None;
        f.setup = Some(crate::diagram::setup_diagram(self));
        toml::to_string(&f).unwrap_or_default()
    }

    /// The value of a knob with a fixed set of values, as written in rules files
    /// (`Some("strong")` for `king_capture`); `None` for an unknown knob or one that takes a
    /// number (`turn_limit`).
    pub fn knob(&self, key: &str) -> Option<&'static str> {
        let f = &self.file;
        Some(match key {
            "first" => match f.first {
                Side::Attackers => "attackers",
                Side::Defenders => "defenders",
            },
            "throne_stop" => f.throne_stop.as_str(),
            "throne_pass" => f.throne_pass.as_str(),
            "corner_hostile" => f.corner_hostile.as_str(),
            "empty_throne_hostile" => f.empty_throne_hostile.as_str(),
            "occupied_throne_hostile_to_attackers" => f.occupied_throne_hostile_to_attackers.as_str(),
            "king_armed" => f.king_armed.as_str(),
            "king_capture" => f.king_capture.as_str(),
            "escape" => f.escape.as_str(),
            "shieldwall" => f.shieldwall.as_str(),
            "linnaean_capture" => f.linnaean_capture.as_str(),
            "turn_limit_result" => f.turn_limit_result.as_str(),
            "exit_fort" => f.exit_fort.as_str(),
            "encirclement" => f.encirclement.as_str(),
            "repetition" => f.repetition.as_str(),
            "no_moves" => f.no_moves.as_str(),
            _ => return None,
        })
    }

    /// Every value a knob with a fixed set of values may take, in file order; `None` for an
    /// unknown knob or one that takes a number.
    pub fn knob_values(key: &str) -> Option<Vec<&'static str>> {
        fn all<T: Copy>(values: &[T], text: fn(T) -> &'static str) -> Vec<&'static str> {
            values.iter().map(|v| text(*v)).collect()
        }
        Some(match key {
            "first" => vec!["attackers", "defenders"],
            "throne_stop" => all(ThroneStop::ALL, ThroneStop::as_str),
            "throne_pass" => all(ThronePass::ALL, ThronePass::as_str),
            "corner_hostile" | "empty_throne_hostile" => all(Hostility::ALL, Hostility::as_str),
            "occupied_throne_hostile_to_attackers" | "linnaean_capture" | "exit_fort" | "encirclement" => {
                all(YesNo::ALL, YesNo::as_str)
            }
            "king_armed" => all(KingArmed::ALL, KingArmed::as_str),
            "king_capture" => all(KingCapture::ALL, KingCapture::as_str),
            "escape" => all(Escape::ALL, Escape::as_str),
            "shieldwall" => all(Shieldwall::ALL, Shieldwall::as_str),
            "turn_limit_result" => all(TurnLimitResult::ALL, TurnLimitResult::as_str),
            "repetition" => all(Repetition::ALL, Repetition::as_str),
            "no_moves" => all(NoMoves::ALL, NoMoves::as_str),
            _ => return None,
        })
    }

    /// Sets one knob by name from its text, as `--set repetition=draw` does.
    pub fn set_knob(&mut self, key: &str, value: &str) -> Result<(), String> {
        let f = &mut self.file;
        fn p<T>(key: &str, value: &str, parse: fn(&str) -> Option<T>, allowed: String) -> Result<T, String> {
            parse(value)
                .ok_or_else(|| format!("knob `{key}`: `{value}` is not allowed; allowed values: {allowed}"))
        }
        match key {
            "first" => {
                f.first = match value {
                    "attackers" => Side::Attackers,
                    "defenders" => Side::Defenders,
                    _ => return Err(format!("knob `first`: `{value}` is not allowed; allowed values: attackers, defenders")),
                }
            }
            "throne_stop" => f.throne_stop = p(key, value, ThroneStop::parse, ThroneStop::allowed())?,
            "throne_pass" => f.throne_pass = p(key, value, ThronePass::parse, ThronePass::allowed())?,
            "corner_hostile" => f.corner_hostile = p(key, value, Hostility::parse, Hostility::allowed())?,
            "empty_throne_hostile" => f.empty_throne_hostile = p(key, value, Hostility::parse, Hostility::allowed())?,
            "occupied_throne_hostile_to_attackers" => {
                f.occupied_throne_hostile_to_attackers = p(key, value, YesNo::parse, YesNo::allowed())?
            }
            "king_armed" => f.king_armed = p(key, value, KingArmed::parse, KingArmed::allowed())?,
            "king_capture" => f.king_capture = p(key, value, KingCapture::parse, KingCapture::allowed())?,
            "escape" => f.escape = p(key, value, Escape::parse, Escape::allowed())?,
            "shieldwall" => f.shieldwall = p(key, value, Shieldwall::parse, Shieldwall::allowed())?,
            "linnaean_capture" => f.linnaean_capture = p(key, value, YesNo::parse, YesNo::allowed())?,
            "turn_limit" => {
                f.turn_limit = value
                    .parse()
                    .map_err(|_| format!("knob `turn_limit`: `{}` is not a number of plies (0: none)", crate::input::quote(value)))?
            }
            "turn_limit_result" => {
                f.turn_limit_result = p(key, value, TurnLimitResult::parse, TurnLimitResult::allowed())?
            }
            "exit_fort" => f.exit_fort = p(key, value, YesNo::parse, YesNo::allowed())?,
            "encirclement" => f.encirclement = p(key, value, YesNo::parse, YesNo::allowed())?,
            "repetition" => f.repetition = p(key, value, Repetition::parse, Repetition::allowed())?,
            "no_moves" => f.no_moves = p(key, value, NoMoves::parse, NoMoves::allowed())?,
            _ => {
                return Err(format!(
                    "unknown knob `{key}`; knobs that can be set: first, throne_stop, throne_pass, corner_hostile, empty_throne_hostile, occupied_throne_hostile_to_attackers, king_armed, king_capture, escape, shieldwall, exit_fort, encirclement, repetition, no_moves, linnaean_capture, turn_limit, turn_limit_result"
                ))
            }
        }
        let file = self.file.clone();
        *self = Ruleset::from_file(file)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads() {
        for id in BUILTIN_IDS {
            let r = Ruleset::load(id).unwrap();
            assert_eq!(r.id(), *id);
        }
    }

    #[test]
    fn bad_values_name_the_field_and_allowed_values() {
        let text = builtin_text("brandubh")
            .unwrap()
            .replace("king_capture = \"strong\"", "king_capture = \"stronk\"");
        let e = Ruleset::from_toml(&text, "bad.toml").unwrap_err().to_string();
        assert!(
            e.contains("bad.toml") && e.contains("king_capture") && e.contains("strong_near_throne"),
            "{e}"
        );
        let text = format!("{}\nbogus = 1\n", builtin_text("brandubh").unwrap());
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
        let text = builtin_text("brandubh").unwrap().replace("size = 7", "size = 8");
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("size") && e.contains("odd"), "{e}");
    }

    #[test]
    fn rules_that_start_decided_are_refused() {
        let brandubh = builtin_text("brandubh").unwrap();
        // The king on a corner of the layout.
        let text = brandubh
            .replace("# . . A . . #\n. . . A", "K . . A . . #\n. . . A")
            .replace("A A D K D A A", "A A D . D A A");
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(
            e.contains("field `setup`") && e.contains("a7") && e.contains("corner"),
            "{e}"
        );
        // A corner listed under the king.
        let text = brandubh
            .replace("corners = \"corners\"", "corners = [\"a1\", \"d4\"]")
            .replace("throne = \"centre\"", "throne = \"none\"")
            .replace("# . . A . . #\n. . . A", ". . . A . . .\n. . . A")
            .replace("# . . A . . #\n\"\"\"", "# . . A . . .\n\"\"\"");
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("field `corners`") && e.contains("d4"), "{e}");
        // The king on the edge where he escapes on any edge square.
        let text = brandubh
            .replace("escape = \"corners\"", "escape = \"edge\"")
            .replace("# . . A . . #\n. . . A", "# K . A . . #\n. . . A")
            .replace("A A D K D A A", "A A D . D A A");
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(
            e.contains("field `setup`") && e.contains("b7") && e.contains("edge"),
            "{e}"
        );
    }

    #[test]
    fn a_hash_on_an_ordinary_square_is_refused() {
        let text = builtin_text("brandubh")
            .unwrap()
            .replace(". . . D . . .\nA A D K", ". # . D . . .\nA A D K");
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("field `setup`") && e.contains("`#` on b5"), "{e}");
    }

    #[test]
    fn garbage_in_a_rules_file_makes_a_short_message() {
        let text = format!("id = \"x\"\nname = {}\n", "\u{1b}[2J".repeat(200_000));
        let e = Ruleset::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.len() < 2000, "{} bytes", e.len());
        assert!(!e.contains('\u{1b}'), "{e}");
        let e = Ruleset::from_toml(&format!("{}\n", "z".repeat(1_000_000)), "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.len() < 2000, "{} bytes", e.len());
    }

    #[test]
    fn set_knob_rejects_unknown_knobs_and_values() {
        let mut r = Ruleset::builtin("hnefatafl");
        r.set_knob("repetition", "defenders_lose").unwrap();
        assert_eq!(r.file.repetition, Repetition::DefendersLose);
        assert!(r
            .set_knob("repetition", "sometimes")
            .unwrap_err()
            .contains("mover_loses"));
        assert!(r.set_knob("knights", "yes").unwrap_err().contains("unknown knob"));
    }

    #[test]
    fn every_listed_knob_value_can_be_set_and_read_back() {
        let base = Ruleset::builtin("copenhagen");
        for key in [
            "first",
            "king_armed",
            "king_capture",
            "escape",
            "corner_hostile",
            "shieldwall",
            "repetition",
            "no_moves",
        ] {
            let values = Ruleset::knob_values(key).unwrap();
            assert!(values.contains(&base.knob(key).unwrap()), "{key}");
            for v in values {
                let mut r = base.clone();
                r.set_knob(key, v).unwrap();
                assert_eq!(r.knob(key), Some(v), "{key}");
            }
        }
        assert_eq!(Ruleset::knob_values("turn_limit"), None);
        assert_eq!(base.knob("knights"), None);
    }

    #[test]
    fn to_toml_round_trips() {
        for id in BUILTIN_IDS {
            let r = Ruleset::builtin(id);
            let back = Ruleset::from_toml(&r.to_toml(), "round-trip").unwrap();
            assert_eq!(back.start.len(), r.start.len());
            assert_eq!(back.corners, r.corners);
            let mut a = r.start.clone();
            let mut b = back.start.clone();
            a.sort_by_key(|x| x.0);
            b.sort_by_key(|x| x.0);
            assert_eq!(a, b);
        }
    }
}
