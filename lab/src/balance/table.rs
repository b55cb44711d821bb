//! The study's table in the seed's columns, with intervals on the win shares, and the
//! before/after table of a `--compare` run.

use super::intervals::{Change, Share};
use super::{BalancePlan, Row};
use tafl_engine::board::GameTally;

/// The shares of one row's games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowShares {
    /// Won by the defenders.
    pub defenders: Share,
    /// Won by the attackers.
    pub attackers: Share,
    /// Won by either side.
    pub decisive: Share,
    /// Drawn by the rules.
    pub draws: Share,
    /// Stopped by the ply limit.
    pub no_result: Share,
}

impl RowShares {
    /// The shares of a tally, each of all its games.
    pub fn of(s: &GameTally) -> RowShares {
        RowShares {
            defenders: Share::new(s.defender_wins, s.games),
            attackers: Share::new(s.attacker_wins, s.games),
            decisive: Share::new(s.decisive(), s.games),
            draws: Share::new(s.draws, s.games),
            no_result: Share::new(s.no_result, s.games),
        }
    }
}

/// A row as given next to the same row with the changed rules.
#[derive(Clone, Copy, Debug)]
pub struct Comparison {
    /// The rules as given.
    pub before: Row,
    /// The changed rules.
    pub after: Row,
}

impl Comparison {
    /// The changes in the defenders', attackers', decisive, drawn and no-result shares.
    pub fn changes(&self) -> [(&'static str, Change); 5] {
        let (b, a) = (
            RowShares::of(&self.before.stats),
            RowShares::of(&self.after.stats),
        );
        [
            ("defenders_win", Change::between(&b.defenders, &a.defenders)),
            ("attackers_win", Change::between(&b.attackers, &a.attackers)),
            ("decisive", Change::between(&b.decisive, &a.decisive)),
            ("draws", Change::between(&b.draws, &a.draws)),
            ("no_result", Change::between(&b.no_result, &a.no_result)),
        ]
    }
}

/// Pairs of finished rows (as given, changed) of the same ruleset and play kind.
pub fn comparisons(rows: &[Row]) -> Vec<Comparison> {
    rows.iter()
        .filter(|r| !r.spec.changed)
        .filter_map(|before| {
            rows.iter()
                .find(|a| {
                    a.spec.changed && a.spec.variant == before.spec.variant && a.spec.play == before.spec.play
                })
                .map(|after| Comparison {
                    before: *before,
                    after: *after,
                })
        })
        .collect()
}

/// `32.15%`.
pub fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// `32.15% [31.65, 32.66]`: a share with its 95% interval, in percent.
pub fn share_cell(s: &Share) -> String {
    format!(
        "{:.2}% [{:.2}, {:.2}]",
        100.0 * s.share,
        100.0 * s.low,
        100.0 * s.high
    )
}

/// `+3.21 pp [+2.50, +3.90] significant`: a change in percentage points with its interval.
pub fn change_cell(c: &Change) -> String {
    format!(
        "{:+.2} pp [{:+.2}, {:+.2}] {}",
        100.0 * c.delta,
        100.0 * c.low,
        100.0 * c.high,
        if c.excludes_zero() { "significant" } else { "n.s." }
    )
}

/// A Markdown table with padded columns, readable as text too.
pub fn markdown_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(headers.iter().map(|h| h.to_string()).collect());
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect()));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

/// The main table: the seed's columns, plus `Draws` when some game was drawn by the rules.
pub fn results_table(plan: &BalancePlan, rows: &[Row]) -> String {
    let with_draws = rows.iter().any(|r| r.stats.draws > 0);
    let mut headers = vec![
        "Variant",
        "Play",
        "Defenders win",
        "Attackers win",
        "Decisive games",
    ];
    if with_draws {
        headers.push("Draws");
    }
    headers.extend(["No result", "Avg length"]);
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let s = RowShares::of(&r.stats);
            let mut cells = vec![
                plan.variant_label(&r.spec),
                r.spec.play.name().to_string(),
                share_cell(&s.defenders),
                share_cell(&s.attackers),
                pct(s.decisive.share),
            ];
            if with_draws {
                cells.push(pct(s.draws.share));
            }
            cells.push(pct(s.no_result.share));
            cells.push(format!("{:.1}", r.stats.avg_decided_length()));
            cells
        })
        .collect();
    markdown_table(&headers, &body)
}

/// The before/after table: the change in each share, changed minus as given.
pub fn change_table(plan: &BalancePlan, comps: &[Comparison]) -> String {
    let headers = [
        "Variant",
        "Play",
        "Δ Defenders win",
        "Δ Attackers win",
        "Δ Decisive games",
        "Δ Draws",
        "Δ No result",
        "Δ Avg length",
    ];
    let body: Vec<Vec<String>> = comps
        .iter()
        .map(|c| {
            let ch = c.changes();
            let mut cells = vec![
                plan.variants[c.before.spec.variant].id.clone(),
                c.before.spec.play.name().to_string(),
            ];
            cells.extend(ch.iter().map(|(_, x)| change_cell(x)));
            cells.push(format!(
                "{:+.1}",
                c.after.stats.avg_decided_length() - c.before.stats.avg_decided_length()
            ));
            cells
        })
        .collect();
    markdown_table(&headers, &body)
}

/// The whole report as Markdown: what was played, the table, the before/after, how to rerun.
pub fn markdown(plan: &BalancePlan, rows: &[Row]) -> String {
    let s = &plan.settings;
    let ids: Vec<&str> = plan.variants.iter().map(|v| v.id.as_str()).collect();
    let mut out = format!("# Balance study: {}\n\n", ids.join(", "));
    out.push_str(&format!(
        "`tafl balance`, tafl {}. Seed {}. Games end with no result after {}.\n\n",
        env!("CARGO_PKG_VERSION"),
        s.seed,
        match s.ply_limit {
            Some(l) => format!("{l} plies"),
            None => "no ply limit (never)".to_string(),
        }
    ));
    if rows.len() < plan.rows.len() {
        out.push_str(&format!(
            "**Incomplete:** the run was interrupted; {} of {} rows finished and are shown.\n\n",
            rows.len(),
            plan.rows.len()
        ));
    }
    if s.random_games > 0 {
        out.push_str(&format!(
            "- random: {} games per row; each legal move equally likely.\n",
            s.random_games
        ));
    }
    if s.skilled_games > 0 {
        out.push_str(&format!(
            "- skilled: {} games per row; both sides are {}, temperature {}; each ply, with probability {}, \
             the side to move plays a uniformly random legal move instead (exploration).\n",
            s.skilled_games, s.skilled_player, s.skilled_temperature, s.exploration
        ));
    }
    if !plan.sets.is_empty() {
        out.push_str(&format!(
            "- changed: the rules with {}.\n",
            super::knobs::label(&plan.sets)
        ));
    }
    out.push_str(
        "- Shares are of all games of the row, with 95% Wilson score intervals in brackets; \
         avg length is in plies over decided games.\n\n",
    );
    out.push_str(&results_table(plan, rows));
    let comps = comparisons(rows);
    if s.compare {
        out.push_str("\n## Before/after (changed − as given)\n\n");
        if comps.is_empty() {
            out.push_str("No pair of rows finished.\n");
        } else {
            out.push_str(&change_table(plan, &comps));
            out.push_str(
                "\nChanges in percentage points with 95% intervals (Newcombe's hybrid score interval for \
                 two independent samples); significant: the interval excludes zero.\n",
            );
        }
    }
    out.push_str(&format!("\nRerun: `{}`\n", plan.command_line()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_show_shares_and_intervals_in_percent() {
        let s = Share::new(81, 263);
        assert_eq!(share_cell(&s), "30.80% [25.53, 36.62]");
        let c = Change::between(&Share::new(48, 80), &Share::new(56, 70));
        assert_eq!(change_cell(&c), "+20.00 pp [+5.24, +33.39] significant");
        let c = Change::between(&Share::new(30, 100), &Share::new(31, 100));
        assert!(change_cell(&c).ends_with("n.s."));
    }

    #[test]
    fn table_columns_are_padded() {
        let t = markdown_table(&["A", "Bee"], &[vec!["long cell".into(), "x".into()]]);
        assert_eq!(
            t,
            "| A         | Bee |\n| --------- | --- |\n| long cell | x   |\n"
        );
    }

    #[test]
    fn shares_add_up() {
        let mut s = GameTally::default();
        use tafl_engine::{Outcome, Reason, Side};
        for _ in 0..6 {
            s.add(Outcome::win(Side::Defenders, Reason::Escape), 100);
        }
        for _ in 0..3 {
            s.add(Outcome::win(Side::Attackers, Reason::KingCaptured), 50);
        }
        s.add(Outcome::no_result(), 400);
        let r = RowShares::of(&s);
        assert_eq!(
            (
                r.defenders.count,
                r.attackers.count,
                r.decisive.count,
                r.no_result.count
            ),
            (6, 3, 9, 1)
        );
        assert!((r.defenders.share + r.attackers.share + r.no_result.share - 1.0).abs() < 1e-12);
        assert!((s.avg_decided_length() - 750.0 / 9.0).abs() < 1e-9);
    }
}
