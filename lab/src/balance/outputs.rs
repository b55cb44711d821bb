//! `balance.md`, `balance.csv`, `balance.json` and `balance.png`, each written to a temporary
//! name and renamed into place, so a reader never sees half a file.

use super::table::{self, comparisons, RowShares};
use super::{BalancePlan, BalanceSettings, Row};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use tafl_engine::board::GameTally;

pub use crate::work::write_atomic;

/// Writes all four outputs for the finished `rows`.
pub fn write_all(dir: &Path, plan: &BalancePlan, rows: &[Row]) -> Result<(), String> {
    write_atomic(&dir.join("balance.md"), table::markdown(plan, rows).as_bytes())?;
    write_atomic(&dir.join("balance.csv"), csv(plan, rows).as_bytes())?;
    write_atomic(&dir.join("balance.json"), json(plan, rows)?.as_bytes())?;
    super::plot::write_png(&dir.join("balance.png"), plan, rows)
}

/// One line per finished row: raw counts, then shares and their 95% intervals.
pub fn csv(plan: &BalancePlan, rows: &[Row]) -> String {
    let mut out = String::from(
        "variant,changes,play,player,exploration,games,defender_wins,attacker_wins,decisive,draws,no_result,\
         decided_plies,total_plies,avg_length,defender_share,defender_low,defender_high,\
         attacker_share,attacker_low,attacker_high",
    );
    for r in GameTally::REASONS {
        out.push_str(&format!(",ended_{}", r.name().replace(' ', "_")));
    }
    out.push('\n');
    for row in rows {
        let s = &row.stats;
        let sh = RowShares::of(s);
        let (player, exploration) = match row.spec.play {
            super::Play::Random => ("random".to_string(), String::new()),
            super::Play::Skilled => (
                plan.settings.skilled_spec.clone(),
                plan.settings.exploration.to_string(),
            ),
        };
        let changes = if row.spec.changed {
            plan.settings.set.join(" ")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
            plan.variants[row.spec.variant].id,
            changes,
            row.spec.play.name(),
            quote(&player),
            exploration,
            s.games,
            s.defender_wins,
            s.attacker_wins,
            s.decisive(),
            s.draws,
            s.no_result,
            s.decided_plies,
            s.total_plies,
            s.avg_decided_length(),
            sh.defenders.share,
            sh.defenders.low,
            sh.defenders.high,
            sh.attackers.share,
            sh.attackers.low,
            sh.attackers.high,
        ));
        for n in s.by_reason {
            out.push_str(&format!(",{n}"));
        }
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma or a quote.
pub(super) fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A share with its interval, as the JSON outputs write it.
#[derive(Serialize)]
pub(super) struct JsonShare {
    count: u64,
    share: f64,
    low: f64,
    high: f64,
}

impl From<&super::Share> for JsonShare {
    fn from(s: &super::Share) -> Self {
        JsonShare {
            count: s.count,
            share: s.share,
            low: s.low,
            high: s.high,
        }
    }
}

/// A row's or a sweep point's games as the JSON outputs write them: the counts, the endings
/// and each share with its 95% interval (flattened into the row or point that holds them).
#[derive(Serialize)]
pub(super) struct JsonTally {
    games: u64,
    defender_wins: u64,
    attacker_wins: u64,
    draws: u64,
    no_result: u64,
    decided_plies: u64,
    total_plies: u64,
    avg_length: f64,
    endings: BTreeMap<String, u64>,
    defenders_win: JsonShare,
    attackers_win: JsonShare,
    decisive: JsonShare,
    no_result_share: JsonShare,
}

impl JsonTally {
    /// The JSON form of `s`.
    pub(super) fn of(s: &GameTally) -> Self {
        let sh = RowShares::of(s);
        JsonTally {
            games: s.games,
            defender_wins: s.defender_wins,
            attacker_wins: s.attacker_wins,
            draws: s.draws,
            no_result: s.no_result,
            decided_plies: s.decided_plies,
            total_plies: s.total_plies,
            avg_length: s.avg_decided_length(),
            endings: GameTally::REASONS
                .iter()
                .map(|reason| (reason.name().to_string(), s.by_reason[*reason as usize]))
                .collect(),
            defenders_win: (&sh.defenders).into(),
            attackers_win: (&sh.attackers).into(),
            decisive: (&sh.decisive).into(),
            no_result_share: (&sh.no_result).into(),
        }
    }
}

#[derive(Serialize)]
struct JsonRow {
    variant: String,
    changed: bool,
    play: super::Play,
    seed: u64,
    #[serde(flatten)]
    tally: JsonTally,
}

#[derive(Serialize)]
struct JsonChange {
    delta: f64,
    low: f64,
    high: f64,
    excludes_zero: bool,
}

#[derive(Serialize)]
struct JsonComparison {
    variant: String,
    play: super::Play,
    changes: BTreeMap<String, JsonChange>,
    avg_length_change: f64,
}

#[derive(Serialize)]
struct JsonRuleset {
    id: String,
    rules: String,
    changed_rules: Option<String>,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    program: &'static str,
    version: &'static str,
    command: String,
    settings: &'a BalanceSettings,
    interval: &'static str,
    change_interval: &'static str,
    complete: bool,
    rows_planned: usize,
    rows_finished: usize,
    rulesets: Vec<JsonRuleset>,
    rows: Vec<JsonRow>,
    comparisons: Vec<JsonComparison>,
}

/// Everything: settings, the seed of each row, raw counts, shares, intervals, the rules played.
pub fn json(plan: &BalancePlan, rows: &[Row]) -> Result<String, String> {
    let doc = JsonDoc {
        program: "tafl",
        version: env!("CARGO_PKG_VERSION"),
        command: plan.command_line(),
        settings: &plan.settings,
        interval: "95% Wilson score interval",
        change_interval: "95% Newcombe hybrid score interval, independent samples",
        complete: rows.len() == plan.rows.len(),
        rows_planned: plan.rows.len(),
        rows_finished: rows.len(),
        rulesets: plan
            .variants
            .iter()
            .map(|v| JsonRuleset {
                id: v.id.clone(),
                rules: v.baseline.to_toml(),
                changed_rules: v.changed.as_ref().map(|c| c.to_toml()),
            })
            .collect(),
        rows: rows
            .iter()
            .map(|r| JsonRow {
                variant: plan.variants[r.spec.variant].id.clone(),
                changed: r.spec.changed,
                play: r.spec.play,
                seed: plan.row_seed(&r.spec),
                tally: JsonTally::of(&r.stats),
            })
            .collect(),
        comparisons: comparisons(rows)
            .iter()
            .map(|c| JsonComparison {
                variant: plan.variants[c.before.spec.variant].id.clone(),
                play: c.before.spec.play,
                changes: c
                    .changes()
                    .iter()
                    .map(|(name, ch)| {
                        (
                            name.to_string(),
                            JsonChange {
                                delta: ch.delta,
                                low: ch.low,
                                high: ch.high,
                                excludes_zero: ch.excludes_zero(),
                            },
                        )
                    })
                    .collect(),
                avg_length_change: c.after.stats.avg_decided_length() - c.before.stats.avg_decided_length(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| format!("cannot encode balance.json: {e}"))
}
