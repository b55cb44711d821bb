//! OpenTafl interchange: rules strings and `.otg` game records, as specified in OpenTafl's
//! `opentafl-notation-spec.txt` (sections 3 and 4).
//!
//! A rules string is `key:value` entries separated by spaces, board size first and start
//! position last:
//! ```text
//! dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t5/11/t4T4t/.../
//! ```
//! Missing entries take OpenTafl's defaults. The entries map onto the knobs of `RULES.md`:
//!
//! | key | knob | values |
//! |---|---|---|
//! | `dim` | `size` | odd, 7..=19 |
//! | `name` | `name` | `_` for spaces |
//! | `atkf` | `first` | `y` attackers (default), `n` defenders |
//! | `esc` | `escape` | `c` corners (default), `e` edge |
//! | `surf` | `encirclement` | `y` (default), `n` |
//! | `tfr` | `repetition` | `d` draw (default), `i` ignore, `w` mover_loses |
//! | `ka` | `king_armed` | `y` (default), `h` hammer, `a` anvil, `n` |
//! | `ks` | `king_capture` | `s`/`y` strong (default), `c` strong_near_throne, `w`/`n` weak |
//! | `cor` | `corners` | the four corners (default), empty for none, or a square list |
//! | `cen` | `throne` | the centre (default), or empty for none |
//! | `cenp` | `throne_pass` | all pieces (default), `K` king, empty nobody |
//! | `cens`, `cenre` | `throne_stop` | `K` in both: king (default); otherwise nobody |
//! | `corh` | `corner_hostile` | all (default), `t...` attackers, empty none |
//! | `cenhe` | `empty_throne_hostile` | as `corh` |
//! | `cenh` | `occupied_throne_hostile_to_attackers` | `t...` yes (default), empty no |
//! | `sw` | `shieldwall` | `n` (default), `s` yes (corners may close it) |
//! | `efe` | `exit_fort` | `n` (default), `y` |
//! | `start`, `starti` | start position | position record, rank 1 first (`starti`: top rank first) |
//!
//! `tfr:w`: OpenTafl's engine gives the game to the side to move after the third occurrence,
//! so the side that made it loses (`mover_loses`); OpenTafl approximates Copenhagen's rule that
//! way. Knobs OpenTafl cannot express travel in entries of our own, which OpenTafl ignores:
//! `tafl-id:copenhagen`, `tafl-repetition:defenders_lose`, `tafl-no_moves:draw`.
//!
//! An entry is refused only when it changes the game as played; entries that mean nothing for
//! the pieces and squares of these rules are read and accepted. Refused, by name: knights,
//! commanders, mercenaries and guards in the start position, king jumps (`kj`), berserk
//! (`ber`), speed limits shorter than the board (`spd`), fortress squares (`afor`, `dfor`),
//! Linnaean capture (`linc:y`) where there is a throne, weak shieldwalls (`sw:w`) where corners
//! could close one, shieldwalls without a flanking move (`swf:n`), the middleweight king
//! (`ks:m`) unless the king escapes to the edge, `tfr:l`, soldiers stopping on restricted
//! squares, slides through corner squares onto the squares beyond, and other centre squares.
//! Accepted because they change nothing: any jump rule for knights, commanders, mercenaries
//! and guards (`nj`, `cj`, `mj`, `gj`: there are none), fortress options without fortresses,
//! throne options without a throne (`cen:`), corner options without corners (`cor:`),
//! `swf:n` without shieldwalls, and limits no slide reaches.

use crate::bitset::BitSet;
use crate::error::{ParseError, RulesError};
use crate::game::Game;
use crate::game_record::GameRecord;
use crate::notation::position_record;
use crate::outcome::Reason;
use crate::pieces_text::parse_position_record;
use crate::position::Position;
use crate::rules::Rules;
use crate::ruleset::{
    CornersSpec, Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, RulesFile, Ruleset,
    ThroneKind, ThronePass, ThroneStop, YesNo,
};
use crate::side::{Piece, Side};
use crate::square::{parse_square, parse_square_prefix, square, square_name, Sq, MAX_SIZE};

/// Every piece type of OpenTafl, in its preferred order: taflman, commander, knight, king,
/// mercenary, guard; attackers lower case, defenders upper case.
const ALL_TYPES: &str = "tcnkmgTCNKMG";

/// The piece types of a `corh:`-style list that the engine knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Types {
    attacker: bool,
    defender: bool,
    king: bool,
}

fn types(key: &str, value: &str) -> Result<Types, ParseError> {
    if let Some(c) = value.chars().find(|c| !ALL_TYPES.contains(*c)) {
        return Err(ParseError::new(format!(
            "`{key}:{value}`: `{c}` is not a piece type; allowed letters: {ALL_TYPES}"
        )));
    }
    Ok(Types {
        attacker: value.contains('t'),
        defender: value.contains('T'),
        king: value.contains('K'),
    })
}

/// The hostility of a `corh:`-style list; `matters` is false when the board has no such
/// squares, and then any list is accepted.
fn hostility(key: &str, value: &str, matters: bool) -> Result<Hostility, ParseError> {
    let t = types(key, value)?;
    match (t.attacker, t.defender) {
        (true, true) => Ok(Hostility::All),
        (true, false) => Ok(Hostility::Attackers),
        (false, false) => Ok(Hostility::None),
        (false, true) if !matters => Ok(Hostility::None),
        (false, true) => Err(ParseError::new(format!(
            "`{key}:{value}`: squares hostile to defenders but not to attackers are not supported"
        ))),
    }
}

/// Checks `spd`: a speed limit changes the game only where it is shorter than the longest
/// slide on the board (`n - 1` squares) for a piece the engine plays (`t`, `T`, `K`). OpenTafl
/// writes one limit for every piece, two (attackers, defenders), or one per piece type in
/// `tcnk[m][g]TCNK[M][G]` order (8, 10 or 12 values); `-1` is no limit.
fn check_speed_limits(n: usize, value: &str) -> Result<(), ParseError> {
    let v: Vec<&str> = value.split(',').filter(|s| !s.is_empty()).collect();
    let mut limits = Vec::with_capacity(v.len());
    for s in &v {
        let x: i64 = s
            .parse()
            .map_err(|_| ParseError::new(format!("`spd:{value}`: `{s}` is not a number (-1 is no limit)")))?;
        limits.push(x);
    }
    // Indexes of the attackers' taflman, the defenders' taflman and the king.
    let (t, d, k) = match limits.len() {
        1 => (0, 0, 0),
        2 => (0, 1, 1),
        8 => (0, 4, 7),
        10 => (0, 5, 8),
        12 => (0, 6, 9),
        len => {
            return Err(ParseError::new(format!(
                "`spd:{value}`: {len} limits; OpenTafl gives 1, 2, 8, 10 or 12"
            )))
        }
    };
    let binding = |x: i64| x >= 0 && x < n as i64 - 1;
    if [t, d, k].iter().any(|&i| binding(limits[i])) {
        return Err(unsupported("spd", value, "speed limits"));
    }
    Ok(())
}

/// Whether a piece allowed through corner squares could end a slide on an ordinary square
/// beyond them: a slide that enters corner squares from an ordinary square and finds another
/// ordinary square past them. Where every such slide meets the board edge first (the board's
/// own corners, Alea Evangelii's 2x2 blocks), passing adds only moves onto corner squares,
/// which the king already has by stopping at the first, and both win.
fn passing_corners_matters(n: usize, corners: &[Sq]) -> bool {
    let at = |f: i64, r: i64| -> Option<Sq> {
        (0..n as i64)
            .contains(&f)
            .then_some(())
            .filter(|_| (0..n as i64).contains(&r))
            .map(|_| square(n, f as usize, r as usize))
    };
    corners.iter().any(|&c| {
        let (cf, cr) = ((c as usize % n) as i64, (c as usize / n) as i64);
        [(1, 0), (-1, 0), (0, 1), (0, -1)].into_iter().any(|(df, dr)| {
            let Some(before) = at(cf - df, cr - dr) else {
                return false;
            };
            if corners.contains(&before) {
                return false;
            }
            let (mut f, mut r) = (cf, cr);
            while at(f, r).is_some_and(|s| corners.contains(&s)) {
                f += df;
                r += dr;
            }
            at(f, r).is_some()
        })
    })
}

fn hostility_text(h: Hostility) -> &'static str {
    match h {
        Hostility::All => "tcnkmTCNKM",
        Hostility::Attackers => "tcnkm",
        Hostility::None => "",
    }
}

fn yes_no(key: &str, value: &str) -> Result<bool, ParseError> {
    match value {
        "y" => Ok(true),
        "n" => Ok(false),
        _ => Err(ParseError::new(format!(
            "`{key}:{value}` is not allowed; allowed values: y, n"
        ))),
    }
}

fn unsupported(key: &str, value: &str, what: &str) -> ParseError {
    ParseError::new(format!("`{key}:{value}`: {what} are not supported"))
}

/// Checks the piece letters of a start position: only `t`, `T` and `K` are supported.
fn check_start_pieces(value: &str) -> Result<(), ParseError> {
    for c in value.chars() {
        let what = match c {
            'c' | 'C' => "commanders",
            'n' | 'N' => "knights",
            'm' | 'M' => "mercenaries",
            'g' | 'G' => "guards",
            'k' => "attacking kings",
            _ => continue,
        };
        return Err(ParseError::new(format!(
            "start position: `{c}`: {what} are not supported; pieces: t, T, K"
        )));
    }
    Ok(())
}

/// Board corners of an `n x n` board.
fn board_corners(n: usize) -> Vec<Sq> {
    let mut v = vec![
        square(n, 0, 0),
        square(n, n - 1, 0),
        square(n, 0, n - 1),
        square(n, n - 1, n - 1),
    ];
    v.sort_unstable();
    v
}

fn square_list(n: usize, key: &str, value: &str) -> Result<Vec<Sq>, ParseError> {
    let mut v = Vec::new();
    for s in value.split(',').filter(|s| !s.is_empty()) {
        let sq = parse_square(n, s).map_err(|e| e.at(format!("`{key}`")))?;
        if !v.contains(&sq) {
            v.push(sq);
        }
    }
    Ok(v)
}

/// An id from a display name: `Brandubh (traditional)` gives `brandubh-traditional`.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        "opentafl".into()
    } else {
        out
    }
}

/// The OpenTafl rules string of a ruleset: OpenTafl's entries for every knob it can express
/// (defaults left out, as OpenTafl writes them), `tafl-*` entries for the rest, and the start
/// position last.
pub fn ruleset_to_opentafl(rs: &Ruleset) -> String {
    let f = &rs.file;
    let n = rs.size();
    let mut e: Vec<String> = vec![format!("dim:{n}"), format!("name:{}", f.name.replace(' ', "_"))];
    if f.escape == Escape::Edge {
        e.push("esc:e".into());
    }
    if f.encirclement == YesNo::No {
        e.push("surf:n".into());
    }
    e.push(format!(
        "atkf:{}",
        if f.first == Side::Attackers { "y" } else { "n" }
    ));
    match f.repetition {
        Repetition::Draw => {}
        Repetition::Ignore => e.push("tfr:i".into()),
        Repetition::MoverLoses | Repetition::DefendersLose => e.push("tfr:w".into()),
    }
    match f.king_armed {
        KingArmed::Yes => {}
        KingArmed::Hammer => e.push("ka:h".into()),
        KingArmed::Anvil => e.push("ka:a".into()),
        KingArmed::No => e.push("ka:n".into()),
    }
    match f.king_capture {
        KingCapture::Strong => {}
        KingCapture::StrongNearThrone => e.push("ks:c".into()),
        KingCapture::Weak => e.push("ks:w".into()),
    }
    match &f.corners {
        CornersSpec::Squares(list) => {
            // As the file lists them (validated squares), so the knob reads back unchanged.
            let list: Vec<String> = list.iter().map(|s| s.trim().to_ascii_lowercase()).collect();
            e.push(format!("cor:{}", list.join(",")));
        }
        CornersSpec::Word(_) if rs.corners.is_empty() => e.push("cor:".into()),
        CornersSpec::Word(_) => {}
    }
    if rs.throne.is_none() {
        e.push("cen:".into());
    }
    match f.throne_pass {
        ThronePass::All => {}
        ThronePass::King => e.push("cenp:K".into()),
        ThronePass::Nobody => e.push("cenp:".into()),
    }
    if f.throne_stop == ThroneStop::Nobody {
        e.push("cens:".into());
    }
    // Nobody slides through a corner square; that matters only where one is not a board corner.
    if rs.corners.iter().any(|s| !board_corners(n).contains(s)) {
        e.push("corp:".into());
    }
    if f.corner_hostile != Hostility::All {
        e.push(format!("corh:{}", hostility_text(f.corner_hostile)));
    }
    if f.occupied_throne_hostile_to_attackers == YesNo::No {
        e.push("cenh:".into());
    }
    if f.empty_throne_hostile != Hostility::All {
        e.push(format!("cenhe:{}", hostility_text(f.empty_throne_hostile)));
    }
    if f.shieldwall == YesNo::Yes {
        e.push("sw:s".into());
    }
    if f.exit_fort == YesNo::Yes {
        e.push("efe:y".into());
    }
    e.push(format!("tafl-id:{}", f.id));
    if f.repetition == Repetition::DefendersLose {
        e.push("tafl-repetition:defenders_lose".into());
    }
    if f.no_moves == NoMoves::Draw {
        e.push("tafl-no_moves:draw".into());
    }
    e.push(format!(
        "start:{}",
        crate::pieces_text::pieces_record(n, &rs.start)
    ));
    e.join(" ")
}

/// Reads an OpenTafl rules string into a validated ruleset. Errors name the entry and why:
/// unknown keys, bad values, and rules the engine does not play (see the module docs).
pub fn ruleset_from_opentafl(text: &str) -> Result<Ruleset, ParseError> {
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for tok in text.split_whitespace() {
        let (k, v) = tok
            .split_once(':')
            .ok_or_else(|| ParseError::new(format!("entry `{tok}` is not `key:value`")))?;
        if entries.iter().any(|(k2, _)| *k2 == k) {
            return Err(ParseError::new(format!("entry `{k}` is given twice")));
        }
        entries.push((k, v));
    }
    let get = |k: &str| entries.iter().find(|(k2, _)| *k2 == k).map(|(_, v)| *v);
    let dim = get("dim").ok_or_else(|| ParseError::new("the entry `dim` (board size) is missing"))?;
    let n: usize = dim
        .parse()
        .ok()
        .filter(|n| (7..=MAX_SIZE).contains(n) && n % 2 == 1)
        .ok_or_else(|| {
            ParseError::new(format!(
                "`dim:{dim}` is not allowed; allowed values: odd numbers 7..={MAX_SIZE}"
            ))
        })?;
    let start =
        match (get("start"), get("starti")) {
            (Some(s), None) => {
                check_start_pieces(s)?;
                s.to_string()
            }
            (None, Some(s)) => {
                check_start_pieces(s)?;
                let inner = s
                    .strip_prefix('/')
                    .and_then(|x| x.strip_suffix('/'))
                    .ok_or_else(|| ParseError::new(format!("`starti:{s}` must start and end with `/`")))?;
                let rows: Vec<&str> = inner.split('/').rev().collect();
                format!("/{}/", rows.join("/"))
            }
            (None, None) => return Err(ParseError::new(
                "the start position is missing: give `start:` (rank 1 first) or `starti:` (top rank first)",
            )),
            (Some(_), Some(_)) => return Err(ParseError::new("give only one of `start:` and `starti:`")),
        };
    parse_position_record(n, &start).map_err(|e| e.at("start position"))?;

    let name = get("name").map_or_else(|| "Unknown Tafl".to_string(), |s| s.replace('_', " "));
    let mut f = RulesFile {
        id: get("tafl-id").map_or_else(|| slug(&name), str::to_string),
        name,
        size: n,
        first: Side::Attackers,
        corners: CornersSpec::Word("corners".into()),
        throne: ThroneKind::Centre,
        throne_stop: ThroneStop::King,
        throne_pass: ThronePass::All,
        corner_hostile: Hostility::All,
        empty_throne_hostile: Hostility::All,
        occupied_throne_hostile_to_attackers: YesNo::Yes,
        king_armed: KingArmed::Yes,
        king_capture: KingCapture::Strong,
        escape: Escape::Corners,
        shieldwall: YesNo::No,
        exit_fort: YesNo::No,
        encirclement: YesNo::Yes,
        repetition: Repetition::Draw,
        no_moves: NoMoves::Loses,
        setup: None,
        position: Some(start),
    };
    let yn = |b: bool| if b { YesNo::Yes } else { YesNo::No };
    let bad = |k: &str, v: &str| ParseError::new(format!("`{k}:{v}` is not an allowed value of `{k}`"));

    // First the squares and modes that decide whether other entries matter: an entry about
    // the throne means nothing on a board without one, and so on.
    let mut corners = board_corners(n);
    let mut cor_given: Option<Vec<Sq>> = None;
    let mut throne = true;
    let mut shieldwall = 'n';
    for &(k, v) in &entries {
        match k {
            "esc" => {
                f.escape = match v {
                    "c" => Escape::Corners,
                    "e" => Escape::Edge,
                    _ => return Err(bad(k, v)),
                }
            }
            "cor" => {
                let list = square_list(n, k, v)?;
                corners = list.clone();
                corners.sort_unstable();
                cor_given = Some(list);
            }
            "cen" => {
                let list = square_list(n, k, v)?;
                throne = if list.is_empty() {
                    false
                } else if list == [square(n, n / 2, n / 2)] {
                    true
                } else {
                    return Err(unsupported(
                        k,
                        v,
                        "centre squares other than the middle of the board",
                    ));
                };
                f.throne = if throne {
                    ThroneKind::Centre
                } else {
                    ThroneKind::None
                };
            }
            "sw" => {
                shieldwall = match v {
                    "n" | "s" | "w" => v.chars().next().unwrap_or('n'),
                    _ => return Err(bad(k, v)),
                }
            }
            _ => {}
        }
    }
    let has_corners = !corners.is_empty();
    // Weak shieldwalls differ from strong ones only where a corner could close one.
    f.shieldwall = match shieldwall {
        'n' => YesNo::No,
        'w' if has_corners => {
            return Err(unsupported(
                "sw",
                "w",
                "weak shieldwalls (corners may not close one) with corner squares",
            ))
        }
        _ => YesNo::Yes,
    };

    let (mut cens, mut cenre) = (true, true);
    let (mut cors, mut corre, mut corp) = (None, None, None);
    for &(k, v) in &entries {
        match k {
            "dim" | "start" | "starti" | "name" | "tafl-id" | "esc" | "cor" | "cen" | "sw" => {}
            "atkf" => {
                f.first = if yes_no(k, v)? {
                    Side::Attackers
                } else {
                    Side::Defenders
                }
            }
            "surf" => f.encirclement = yn(yes_no(k, v)?),
            "tfr" => {
                f.repetition = match v {
                    "d" => Repetition::Draw,
                    "i" => Repetition::Ignore,
                    "w" => Repetition::MoverLoses,
                    "l" => {
                        return Err(unsupported(
                            k,
                            v,
                            "wins for the side that makes the third repetition",
                        ))
                    }
                    _ => return Err(bad(k, v)),
                }
            }
            "ka" => {
                f.king_armed = match v {
                    "y" => KingArmed::Yes,
                    "h" => KingArmed::Hammer,
                    "a" => KingArmed::Anvil,
                    "n" => KingArmed::No,
                    _ => return Err(bad(k, v)),
                }
            }
            "ks" => {
                f.king_capture = match v {
                    "s" | "y" => KingCapture::Strong,
                    "c" => KingCapture::StrongNearThrone,
                    "w" | "n" => KingCapture::Weak,
                    // A middleweight king is a strong one that the edge helps to capture; where
                    // reaching the edge wins, he never stands there.
                    "m" if f.escape == Escape::Edge => KingCapture::Strong,
                    "m" => return Err(unsupported(
                        k,
                        v,
                        "middleweight kings (captured against the edge) where the king escapes to corners",
                    )),
                    _ => return Err(bad(k, v)),
                }
            }
            "kj" => match v {
                "n" => {}
                "r" | "j" | "c" => return Err(unsupported(k, v, "king jumps")),
                _ => return Err(bad(k, v)),
            },
            // Knights, commanders, mercenaries and guards are refused in the start position, so
            // how they would jump changes nothing.
            "nj" | "cj" | "mj" | "gj" => {
                if !["n", "r", "j", "c"].contains(&v) {
                    return Err(bad(k, v));
                }
            }
            "spd" => check_speed_limits(n, v)?,
            "ber" => match v {
                "n" => {}
                "c" | "m" => return Err(unsupported(k, v, "berserk moves")),
                _ => return Err(bad(k, v)),
            },
            "linc" => {
                if yes_no(k, v)? && throne {
                    return Err(unsupported(
                        k,
                        v,
                        "Linnaean captures (a defender taken against the king on the throne)",
                    ));
                }
            }
            "afor" | "dfor" => {
                if !square_list(n, k, v)?.is_empty() {
                    return Err(unsupported(k, v, "fortress squares"));
                }
            }
            "aforh" | "dforh" | "aforp" | "dforp" | "afors" | "dfors" | "aforre" | "dforre" => {
                types(k, v)?;
            }
            "cenp" => {
                let t = types(k, v)?;
                f.throne_pass = match (t.attacker, t.defender, t.king) {
                    (true, true, true) => ThronePass::All,
                    (false, false, true) => ThronePass::King,
                    (false, false, false) => ThronePass::Nobody,
                    _ if !throne => ThronePass::All,
                    _ => {
                        return Err(unsupported(
                            k,
                            v,
                            "throne passing rules other than all pieces, the king (K) or nobody",
                        ))
                    }
                };
            }
            "cens" => {
                let t = types(k, v)?;
                if (t.attacker || t.defender) && throne {
                    return Err(unsupported(k, v, "soldiers stopping on the throne"));
                }
                cens = t.king;
            }
            "cenre" => cenre = types(k, v)?.king,
            "cors" => cors = Some(types(k, v)?),
            "corre" => corre = Some(types(k, v)?),
            "corp" => corp = Some(types(k, v)?),
            "corh" => f.corner_hostile = hostility(k, v, has_corners)?,
            "cenhe" => f.empty_throne_hostile = hostility(k, v, throne)?,
            "cenh" => {
                let t = types(k, v)?;
                if t.defender && throne {
                    return Err(unsupported(k, v, "occupied thrones hostile to defenders"));
                }
                f.occupied_throne_hostile_to_attackers = yn(t.attacker);
            }
            "swf" => {
                if !yes_no(k, v)? && f.shieldwall == YesNo::Yes {
                    return Err(unsupported(k, v, "shieldwall captures without a flanking move"));
                }
            }
            "efe" => f.exit_fort = yn(yes_no(k, v)?),
            "tafl-repetition" => {
                f.repetition = Repetition::parse(v).ok_or_else(|| {
                    ParseError::new(format!(
                        "`{k}:{v}` is not allowed; allowed values: {}",
                        Repetition::allowed()
                    ))
                })?
            }
            "tafl-no_moves" => {
                f.no_moves = NoMoves::parse(v).ok_or_else(|| {
                    ParseError::new(format!(
                        "`{k}:{v}` is not allowed; allowed values: {}",
                        NoMoves::allowed()
                    ))
                })?
            }
            _ => return Err(ParseError::new(format!("unknown entry `{k}:{v}`"))),
        }
    }
    f.throne_stop = if cens && cenre {
        ThroneStop::King
    } else {
        ThroneStop::Nobody
    };
    if has_corners {
        let stop = cors.unwrap_or(Types {
            attacker: false,
            defender: false,
            king: true,
        });
        if stop.attacker || stop.defender {
            return Err(ParseError::new(
                "`cors`: soldiers stopping on corner squares are not supported",
            ));
        }
        if !stop.king || corre.is_some_and(|t| !t.king) {
            return Err(ParseError::new(
                "`cors`/`corre`: corner squares the king may not enter are not supported",
            ));
        }
        // OpenTafl lets the king (`corp:K`, its default) slide through a corner square; the
        // engine lets nobody. That changes the game only where a slide through corner squares
        // can end on an ordinary square beyond them.
        let pass = corp.unwrap_or(Types {
            attacker: false,
            defender: false,
            king: true,
        });
        if (pass.attacker || pass.defender || pass.king) && passing_corners_matters(n, &corners) {
            return Err(ParseError::new(
                "`corp`: pieces sliding through corner squares onto the squares beyond are not supported; give `corp:` (nobody)",
            ));
        }
    }
    f.corners = match cor_given {
        None => CornersSpec::Word("corners".into()),
        Some(list) if list.is_empty() => CornersSpec::Word("none".into()),
        Some(list) => CornersSpec::Squares(list.iter().map(|&s| square_name(n, s).to_string()).collect()),
    };
    Ruleset::from_file(f).map_err(ParseError::new)
}

/// Reads a rules file in any format the engine knows: the TOML of `configs/rules/`, an
/// OpenTafl rules string (as OpenTafl stores a variant, optionally led by `rules ` as in the
/// engine protocol), or an OpenTafl game record (`.otg`, from its `rules` tag). `file` names
/// it in errors; when no format reads it, the error says, for each format tried, why not.
pub fn ruleset_from_text(text: &str, file: &str) -> Result<Ruleset, RulesError> {
    let toml = match Ruleset::from_toml(text, file) {
        Ok(rs) => return Ok(rs),
        Err(e) => e.message,
    };
    let trimmed = text.trim();
    let string = trimmed.strip_prefix("rules ").unwrap_or(trimmed);
    let opentafl = match ruleset_from_opentafl(string) {
        Ok(rs) => return Ok(rs),
        Err(e) => e.to_string(),
    };
    let otg = match OtgRecord::parse(text) {
        Ok(rec) => return Ok(rec.ruleset),
        Err(e) => e.to_string(),
    };
    // Each message cut short, so that a file of garbage does not make an error as long as it.
    let indent = |m: &str| crate::input::printable(m.trim_end(), true, 240).replace('\n', "\n    ");
    Err(RulesError {
        file: file.to_string(),
        message: format!(
            "no rules format reads it; tried:\n  TOML rules file: {}\n  OpenTafl rules string: {}\n  OpenTafl game record (.otg): {}",
            indent(&toml),
            indent(&opentafl),
            indent(&otg)
        ),
    })
}

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
        let last = game.moves().len();
        let mut moves = Vec::with_capacity(last);
        for (i, p) in game.moves().iter().enumerate() {
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
