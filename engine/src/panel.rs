//! The rules panel: a summary written from the ruleset's data alone, so that it can never
//! drift from what the engine enforces.

use crate::diagram::write_diagram;
use crate::ruleset::{
    Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, Ruleset, Shieldwall, ThronePass,
    ThroneStop, TurnLimitResult, YesNo,
};
use crate::side::Piece;
use crate::square::square_name;

fn hostile_text(h: Hostility) -> &'static str {
    match h {
        Hostility::All => "hostile to both sides",
        Hostility::Attackers => "hostile to attackers only",
        Hostility::None => "not hostile",
    }
}

/// The rules summary and start diagram of a ruleset, as printed by `tafl rules`.
pub fn rules_panel(rs: &Ruleset) -> String {
    let f = &rs.file;
    let n = rs.size();
    let count = |p: Piece| rs.start.iter().filter(|(_, q)| *q == p).count();
    let mut lines: Vec<String> = Vec::new();
    lines.push(format!("{} ({}), {n}x{n} board", f.name, f.id));
    lines.push(format!(
        "Armies: {} attackers against {} defenders and the king. The {} move first.",
        count(Piece::Attacker),
        count(Piece::Defender),
        f.first
    ));
    lines.push("Movement: every piece, the king included, slides like a rook over empty squares.".into());
    let corner_names: Vec<String> = rs
        .corners
        .iter()
        .map(|&s| square_name(n, s).to_string())
        .collect();
    if rs.corners.is_empty() {
        lines.push("Corners: no restricted corner squares.".into());
    } else {
        lines.push(format!(
            "Corners ({}): only the king may stop there; nobody passes through them; {} as capturing jaws.",
            corner_names.join(" "),
            hostile_text(f.corner_hostile)
        ));
    }
    match rs.throne {
        None => lines.push("Throne: none.".into()),
        Some(t) => {
            let stop = match f.throne_stop {
                ThroneStop::King => "only the king may stop on it (and return to it)",
                ThroneStop::Nobody => "nobody may stop on it once the king has left",
            };
            let pass = match f.throne_pass {
                ThronePass::All => "every piece may pass through it when empty",
                ThronePass::King => "only the king may pass through it",
                ThronePass::Nobody => "nobody may pass through it",
            };
            let occupied = if f.occupied_throne_hostile_to_attackers == YesNo::Yes {
                "with the king on it, hostile to attackers"
            } else {
                "with the king on it, not hostile"
            };
            lines.push(format!(
                "Throne ({}): {stop}; {pass}; when empty {}; {occupied}.",
                square_name(n, t),
                hostile_text(f.empty_throne_hostile)
            ));
        }
    }
    lines.push(
        "Capture: a soldier between the moving piece and a hostile piece or square, on a rank or file, is removed; \
         only the mover captures, so moving between two enemies is safe; the board edge is never hostile."
            .into(),
    );
    lines.push(
        match f.king_armed {
            KingArmed::Yes => "The king is armed: he captures as the moving piece and serves as the far jaw.",
            KingArmed::Hammer => "The king captures only as the moving piece.",
            KingArmed::Anvil => "The king serves only as the far jaw of a capture.",
            KingArmed::No => "The king takes no part in captures.",
        }
        .into(),
    );
    lines.push(
        match f.king_capture {
            KingCapture::Strong => {
                "King capture: attackers on all four sides (an empty throne next to him counts as one); never on the board edge."
            }
            KingCapture::StrongNearThrone => {
                "King capture: on or next to the throne, attackers on all four sides (the empty throne counts as one); elsewhere like a soldier."
            }
            KingCapture::Weak => "King capture: like a soldier, between two attackers or an attacker and a hostile square.",
        }
        .into(),
    );
    match f.shieldwall {
        Shieldwall::No => {}
        Shieldwall::Yes => lines.push(
            "Shieldwall: a row of two or more pieces on the edge, each with an enemy in front, is captured when the mover \
             brackets it at one end and a piece of his or a corner closes the other; a king in the row stays."
                .into(),
        ),
        Shieldwall::Relaxed => lines.push(
            "Shieldwall (relaxed): a row of two or more pieces on the edge, each with an enemy in front and bracketed at \
             both ends by enemies or corners, is captured by any move of that enemy, whatever moved; a king in the row stays."
                .into(),
        ),
    }
    if f.linnaean_capture == YesNo::Yes {
        lines.push(
            "Linnaean capture: with the king on the throne and attackers on three of its sides, a defender on the fourth \
             is captured by an attacker moving to the square beyond him."
                .into(),
        );
    }
    lines.push(format!(
        "Defenders win when the king reaches {}.",
        match f.escape {
            Escape::Corners => "a corner square",
            Escape::Edge => "any edge square",
        }
    ));
    if f.exit_fort == YesNo::Yes {
        lines.push(
            "Exit fort: defenders also win when the king stands on the edge, can move, and his defenders form a fort the attackers cannot break."
                .into(),
        );
    }
    lines.push("Attackers win by capturing the king.".into());
    if f.encirclement == YesNo::Yes {
        lines.push(
            "Encirclement: attackers also win when no defender and not the king can reach the edge.".into(),
        );
    }
    lines.push(match f.repetition {
        Repetition::DefendersMayNotRepeat => {
            "Repetition: the defenders may not make a move that recreates an earlier \
             position of the game; the attackers may."
                .to_string()
        }
        other => format!(
            "Repetition (third occurrence of a position): {}.",
            match other {
                Repetition::Ignore => "no effect",
                Repetition::Draw => "the game is drawn",
                Repetition::DefendersLose => "the defenders lose, whoever repeated",
                _ => "the side that repeated loses",
            }
        ),
    });
    if f.turn_limit > 0 {
        lines.push(format!(
            "Turn limit: a game still undecided after its {} plies {}.",
            f.turn_limit,
            match f.turn_limit_result {
                TurnLimitResult::Draw => "is drawn",
                TurnLimitResult::Attackers => "is won by the attackers",
                TurnLimitResult::Defenders => "is won by the defenders",
            }
        ));
    }
    lines.push(format!(
        "A side with no legal move on its turn {}.",
        match f.no_moves {
            NoMoves::Loses => "loses",
            NoMoves::Draw => "draws",
        }
    ));
    let mut out = lines.join("\n");
    out.push_str("\n\nStart position:\n");
    out.push_str(&write_diagram(rs, &rs.start, &[]));
    out
}
