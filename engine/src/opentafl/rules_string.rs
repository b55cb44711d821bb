//! OpenTafl rules strings, as specified in OpenTafl's `opentafl-notation-spec.txt` (section 3).
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
//! | `swf` | `shieldwall` | `y` (default): only a bracketing move captures; `n`: `relaxed` |
//! | `linc` | `linnaean_capture` | `n` (default), `y` |
//! | `efe` | `exit_fort` | `n` (default), `y` |
//! | `start`, `starti` | start position | position record, rank 1 first (`starti`: top rank first) |
//!
//! `tfr:w`: OpenTafl's engine gives the game to the side to move after the third occurrence,
//! so the side that made it loses (`mover_loses`); OpenTafl approximates Copenhagen's rule that
//! way. Knobs OpenTafl cannot express travel in entries of our own, which OpenTafl ignores:
//! `tafl-id:copenhagen`, `tafl-repetition:defenders_lose` (or `defenders_may_not_repeat`),
//! `tafl-no_moves:draw`, `tafl-turn_limit:141`, `tafl-turn_limit_result:draw`.
//!
//! An entry is refused only when it changes the game as played; entries that mean nothing for
//! the pieces and squares of these rules are read and accepted. Refused, by name: knights,
//! commanders, mercenaries and guards in the start position, king jumps (`kj`), berserk
//! (`ber`), speed limits shorter than the board (`spd`), fortress squares (`afor`, `dfor`),
//! weak shieldwalls (`sw:w`) where corners could close one, the middleweight king
//! (`ks:m`) unless the king escapes to the edge, `tfr:l`, soldiers stopping on restricted
//! squares, slides through corner squares onto the squares beyond, and other centre squares.
//! Accepted because they change nothing: any jump rule for knights, commanders, mercenaries
//! and guards (`nj`, `cj`, `mj`, `gj`: there are none), fortress options without fortresses,
//! throne options without a throne (`cen:`), corner options without corners (`cor:`),
//! `swf:n` without shieldwalls, `linc:y` without a throne, and limits no slide reaches.
//! Read as knobs: `linc:y` (`linnaean_capture = "yes"`) and `swf:n` with a shieldwall
//! (`shieldwall = "relaxed"`).

use crate::error::{ParseError, RulesError};
use crate::pieces_text::parse_position_record;
use crate::ruleset::{
    CornersSpec, Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, RulesFile, Ruleset,
    Shieldwall, ThroneKind, ThronePass, ThroneStop, TurnLimitResult, YesNo,
};
use crate::side::Side;
use crate::square::{parse_square, square, square_name, Sq, MAX_SIZE};

use super::otg::OtgRecord;

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
        Repetition::DefendersMayNotRepeat => e.push("tfr:i".into()),
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
    match f.shieldwall {
        Shieldwall::No => {}
        Shieldwall::Yes => e.push("sw:s".into()),
        Shieldwall::Relaxed => {
            e.push("sw:s".into());
            e.push("swf:n".into());
        }
    }
    if f.linnaean_capture == YesNo::Yes {
        e.push("linc:y".into());
    }
    if f.exit_fort == YesNo::Yes {
        e.push("efe:y".into());
    }
    e.push(format!("tafl-id:{}", f.id));
    if matches!(
        f.repetition,
        Repetition::DefendersLose | Repetition::DefendersMayNotRepeat
    ) {
        e.push(format!("tafl-repetition:{}", f.repetition));
    }
    if f.turn_limit > 0 {
        e.push(format!("tafl-turn_limit:{}", f.turn_limit));
        if f.turn_limit_result != TurnLimitResult::Draw {
            e.push(format!("tafl-turn_limit_result:{}", f.turn_limit_result));
        }
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

/// An entry's reader: sets the knobs of one `key:value` entry, or says why it cannot.
type Reader = fn(&mut Import, &str, &str) -> Result<(), ParseError>;

/// A rules string being read: the file it fills and what later entries depend on.
struct Import {
    /// Board size.
    n: usize,
    /// The rules file being filled.
    f: RulesFile,
    /// The corner squares, sorted (the board's corners unless `cor` says otherwise).
    corners: Vec<Sq>,
    /// `cor` as written, in its order.
    cor_given: Option<Vec<Sq>>,
    /// Whether the board has a throne (`cen`).
    throne: bool,
    /// `sw`: `n` none, `s` strong, `w` weak.
    shieldwall: char,
    /// Whether the king may stop on (`cens`) and re-enter (`cenre`) the throne.
    cens: bool,
    cenre: bool,
    /// Who may stop on, re-enter and pass through corner squares, when given.
    cors: Option<Types>,
    corre: Option<Types>,
    corp: Option<Types>,
}

/// One value of an entry that names a choice: what it sets, or the rule it would need that
/// the engine does not play.
#[derive(Clone, Copy)]
enum Choice<T> {
    Is(T),
    Refused(&'static str),
}

/// The value `v` of entry `k` looked up in its table of choices.
fn choose<T: Copy>(k: &str, v: &str, table: &[(&str, Choice<T>)]) -> Result<T, ParseError> {
    match table.iter().find(|(value, _)| *value == v) {
        Some((_, Choice::Is(t))) => Ok(*t),
        Some((_, Choice::Refused(what))) => Err(unsupported(k, v, what)),
        None => Err(ParseError::new(format!(
            "`{k}:{v}` is not an allowed value of `{k}`"
        ))),
    }
}

/// Entries read by `ruleset_from_opentafl` itself, before any table: the board size, the
/// start position and the names.
const READ_FIRST: &[&str] = &["dim", "start", "starti", "name", "tafl-id"];

/// The squares and modes that decide whether other entries matter (an entry about the throne
/// means nothing on a board without one, and so on): read before [`ENTRIES`].
const LAYOUT: &[(&str, Reader)] = &[
    ("esc", |i, k, v| {
        i.f.escape = choose(
            k,
            v,
            &[
                ("c", Choice::Is(Escape::Corners)),
                ("e", Choice::Is(Escape::Edge)),
            ],
        )?;
        Ok(())
    }),
    ("cor", |i, k, v| {
        let list = square_list(i.n, k, v)?;
        i.corners = list.clone();
        i.corners.sort_unstable();
        i.cor_given = Some(list);
        Ok(())
    }),
    ("cen", |i, k, v| {
        let n = i.n;
        let list = square_list(n, k, v)?;
        i.throne = if list.is_empty() {
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
        i.f.throne = if i.throne {
            ThroneKind::Centre
        } else {
            ThroneKind::None
        };
        Ok(())
    }),
    ("sw", |i, k, v| {
        i.shieldwall = choose(
            k,
            v,
            &[
                ("n", Choice::Is('n')),
                ("s", Choice::Is('s')),
                ("w", Choice::Is('w')),
            ],
        )?;
        Ok(())
    }),
];

/// Every other entry OpenTafl writes, and the `tafl-*` entries of knobs it cannot express.
const ENTRIES: &[(&str, Reader)] = &[
    ("atkf", |i, k, v| {
        i.f.first = if yes_no(k, v)? {
            Side::Attackers
        } else {
            Side::Defenders
        };
        Ok(())
    }),
    ("surf", |i, k, v| {
        i.f.encirclement = yn(yes_no(k, v)?);
        Ok(())
    }),
    ("tfr", |i, k, v| {
        i.f.repetition = choose(
            k,
            v,
            &[
                ("d", Choice::Is(Repetition::Draw)),
                ("i", Choice::Is(Repetition::Ignore)),
                ("w", Choice::Is(Repetition::MoverLoses)),
                (
                    "l",
                    Choice::Refused("wins for the side that makes the third repetition"),
                ),
            ],
        )?;
        Ok(())
    }),
    ("ka", |i, k, v| {
        i.f.king_armed = choose(
            k,
            v,
            &[
                ("y", Choice::Is(KingArmed::Yes)),
                ("h", Choice::Is(KingArmed::Hammer)),
                ("a", Choice::Is(KingArmed::Anvil)),
                ("n", Choice::Is(KingArmed::No)),
            ],
        )?;
        Ok(())
    }),
    ("ks", |i, k, v| {
        // A middleweight king is a strong one that the edge helps to capture; where reaching
        // the edge wins, he never stands there.
        let middleweight = if i.f.escape == Escape::Edge {
            Choice::Is(KingCapture::Strong)
        } else {
            Choice::Refused(
                "middleweight kings (captured against the edge) where the king escapes to corners",
            )
        };
        i.f.king_capture = choose(
            k,
            v,
            &[
                ("s", Choice::Is(KingCapture::Strong)),
                ("y", Choice::Is(KingCapture::Strong)),
                ("c", Choice::Is(KingCapture::StrongNearThrone)),
                ("w", Choice::Is(KingCapture::Weak)),
                ("n", Choice::Is(KingCapture::Weak)),
                ("m", middleweight),
            ],
        )?;
        Ok(())
    }),
    ("kj", |_, k, v| {
        let jumps = Choice::Refused("king jumps");
        choose(
            k,
            v,
            &[("n", Choice::Is(())), ("r", jumps), ("j", jumps), ("c", jumps)],
        )
    }),
    // Knights, commanders, mercenaries and guards are refused in the start position, so how
    // they would jump changes nothing.
    ("nj", any_jump),
    ("cj", any_jump),
    ("mj", any_jump),
    ("gj", any_jump),
    ("spd", |i, _, v| check_speed_limits(i.n, v)),
    ("ber", |_, k, v| {
        let berserk = Choice::Refused("berserk moves");
        choose(k, v, &[("n", Choice::Is(())), ("c", berserk), ("m", berserk)])
    }),
    // Without a throne there is nothing to capture against: accepted as changing nothing.
    ("linc", |i, k, v| {
        i.f.linnaean_capture = yn(yes_no(k, v)? && i.throne);
        Ok(())
    }),
    ("afor", no_fortress),
    ("dfor", no_fortress),
    ("aforh", fortress_option),
    ("dforh", fortress_option),
    ("aforp", fortress_option),
    ("dforp", fortress_option),
    ("afors", fortress_option),
    ("dfors", fortress_option),
    ("aforre", fortress_option),
    ("dforre", fortress_option),
    ("cenp", |i, k, v| {
        let t = types(k, v)?;
        i.f.throne_pass = match (t.attacker, t.defender, t.king) {
            (true, true, true) => ThronePass::All,
            (false, false, true) => ThronePass::King,
            (false, false, false) => ThronePass::Nobody,
            _ if !i.throne => ThronePass::All,
            _ => {
                return Err(unsupported(
                    k,
                    v,
                    "throne passing rules other than all pieces, the king (K) or nobody",
                ))
            }
        };
        Ok(())
    }),
    ("cens", |i, k, v| {
        let t = types(k, v)?;
        if (t.attacker || t.defender) && i.throne {
            return Err(unsupported(k, v, "soldiers stopping on the throne"));
        }
        i.cens = t.king;
        Ok(())
    }),
    ("cenre", |i, k, v| {
        i.cenre = types(k, v)?.king;
        Ok(())
    }),
    ("cors", |i, k, v| {
        i.cors = Some(types(k, v)?);
        Ok(())
    }),
    ("corre", |i, k, v| {
        i.corre = Some(types(k, v)?);
        Ok(())
    }),
    ("corp", |i, k, v| {
        i.corp = Some(types(k, v)?);
        Ok(())
    }),
    ("corh", |i, k, v| {
        i.f.corner_hostile = hostility(k, v, !i.corners.is_empty())?;
        Ok(())
    }),
    ("cenhe", |i, k, v| {
        i.f.empty_throne_hostile = hostility(k, v, i.throne)?;
        Ok(())
    }),
    ("cenh", |i, k, v| {
        let t = types(k, v)?;
        if t.defender && i.throne {
            return Err(unsupported(k, v, "occupied thrones hostile to defenders"));
        }
        i.f.occupied_throne_hostile_to_attackers = yn(t.attacker);
        Ok(())
    }),
    ("swf", |i, k, v| {
        if !yes_no(k, v)? && i.f.shieldwall == Shieldwall::Yes {
            i.f.shieldwall = Shieldwall::Relaxed;
        }
        Ok(())
    }),
    ("efe", |i, k, v| {
        i.f.exit_fort = yn(yes_no(k, v)?);
        Ok(())
    }),
    ("tafl-repetition", |i, k, v| {
        i.f.repetition = Repetition::parse(v).ok_or_else(|| {
            ParseError::new(format!(
                "`{k}:{v}` is not allowed; allowed values: {}",
                Repetition::allowed()
            ))
        })?;
        Ok(())
    }),
    ("tafl-turn_limit", |i, k, v| {
        i.f.turn_limit = v.parse().map_err(|_| {
            ParseError::new(format!(
                "`{k}:{v}` is not allowed; give a number of plies (0: none)"
            ))
        })?;
        Ok(())
    }),
    ("tafl-turn_limit_result", |i, k, v| {
        i.f.turn_limit_result = TurnLimitResult::parse(v).ok_or_else(|| {
            ParseError::new(format!(
                "`{k}:{v}` is not allowed; allowed values: {}",
                TurnLimitResult::allowed()
            ))
        })?;
        Ok(())
    }),
    ("tafl-no_moves", |i, k, v| {
        i.f.no_moves = NoMoves::parse(v).ok_or_else(|| {
            ParseError::new(format!(
                "`{k}:{v}` is not allowed; allowed values: {}",
                NoMoves::allowed()
            ))
        })?;
        Ok(())
    }),
];

/// `nj`, `cj`, `mj`, `gj`: any jump rule, for pieces the start position cannot hold.
fn any_jump(_: &mut Import, k: &str, v: &str) -> Result<(), ParseError> {
    choose(
        k,
        v,
        &[
            ("n", Choice::Is(())),
            ("r", Choice::Is(())),
            ("j", Choice::Is(())),
            ("c", Choice::Is(())),
        ],
    )
}

/// `afor`, `dfor`: fortress squares, refused unless the list is empty.
fn no_fortress(i: &mut Import, k: &str, v: &str) -> Result<(), ParseError> {
    if !square_list(i.n, k, v)?.is_empty() {
        return Err(unsupported(k, v, "fortress squares"));
    }
    Ok(())
}

/// Options of fortress squares, which there are none of: only the piece letters are checked.
fn fortress_option(_: &mut Import, k: &str, v: &str) -> Result<(), ParseError> {
    types(k, v).map(|_| ())
}

fn yn(b: bool) -> YesNo {
    if b {
        YesNo::Yes
    } else {
        YesNo::No
    }
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
    let mut i = Import {
        n,
        f: RulesFile {
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
            shieldwall: Shieldwall::No,
            exit_fort: YesNo::No,
            encirclement: YesNo::Yes,
            repetition: Repetition::Draw,
            no_moves: NoMoves::Loses,
            linnaean_capture: YesNo::No,
            turn_limit: 0,
            turn_limit_result: TurnLimitResult::Draw,
            setup: None,
            position: Some(start),
        },
        corners: board_corners(n),
        cor_given: None,
        throne: true,
        shieldwall: 'n',
        cens: true,
        cenre: true,
        cors: None,
        corre: None,
        corp: None,
    };

    // Entries are read in file order within each table, so the first bad one is the one named.
    for &(k, v) in &entries {
        if let Some((_, read)) = LAYOUT.iter().find(|(key, _)| *key == k) {
            read(&mut i, k, v)?;
        }
    }
    let has_corners = !i.corners.is_empty();
    // Weak shieldwalls differ from strong ones only where a corner could close one.
    i.f.shieldwall = match i.shieldwall {
        'n' => Shieldwall::No,
        'w' if has_corners => {
            return Err(unsupported(
                "sw",
                "w",
                "weak shieldwalls (corners may not close one) with corner squares",
            ))
        }
        _ => Shieldwall::Yes,
    };
    for &(k, v) in &entries {
        if READ_FIRST.contains(&k) || LAYOUT.iter().any(|(key, _)| *key == k) {
            continue;
        }
        let Some((_, read)) = ENTRIES.iter().find(|(key, _)| *key == k) else {
            return Err(ParseError::new(format!("unknown entry `{k}:{v}`")));
        };
        read(&mut i, k, v)?;
    }

    let mut f = i.f;
    f.throne_stop = if i.cens && i.cenre {
        ThroneStop::King
    } else {
        ThroneStop::Nobody
    };
    if has_corners {
        let stop = i.cors.unwrap_or(Types {
            attacker: false,
            defender: false,
            king: true,
        });
        if stop.attacker || stop.defender {
            return Err(ParseError::new(
                "`cors`: soldiers stopping on corner squares are not supported",
            ));
        }
        if !stop.king || i.corre.is_some_and(|t| !t.king) {
            return Err(ParseError::new(
                "`cors`/`corre`: corner squares the king may not enter are not supported",
            ));
        }
        // OpenTafl lets the king (`corp:K`, its default) slide through a corner square; the
        // engine lets nobody. That changes the game only where a slide through corner squares
        // can end on an ordinary square beyond them.
        let pass = i.corp.unwrap_or(Types {
            attacker: false,
            defender: false,
            king: true,
        });
        if (pass.attacker || pass.defender || pass.king) && passing_corners_matters(n, &i.corners) {
            return Err(ParseError::new(
                "`corp`: pieces sliding through corner squares onto the squares beyond are not supported; give `corp:` (nobody)",
            ));
        }
    }
    f.corners = match i.cor_given {
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
