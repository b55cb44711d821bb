//! `balance-vs-strength.md`, `.csv`, `.json` and `.png`: one line per finished point of a
//! strength sweep, each file written to a temporary name and renamed into place.

use super::outputs::{write_atomic, JsonTally};
use super::sweep::{Source, SweepPlan, SweepSettings};
use super::table::{markdown_table, pct, share_cell, RowShares};
use serde::Serialize;
use std::path::Path;
use tafl_engine::board::GameTally;

/// The outputs' common name.
pub const STEM: &str = "balance-vs-strength";

/// Writes all four outputs for the finished points (`done[i]` is point `i`'s tally).
pub fn write_all(dir: &Path, plan: &SweepPlan, done: &[GameTally]) -> Result<(), String> {
    write_atomic(&dir.join(format!("{STEM}.md")), markdown(plan, done).as_bytes())?;
    write_atomic(&dir.join(format!("{STEM}.csv")), csv(plan, done).as_bytes())?;
    write_atomic(&dir.join(format!("{STEM}.json")), json(plan, done)?.as_bytes())?;
    super::sweep_plot::write_png(&dir.join(format!("{STEM}.png")), plan, done)
}

/// `+12` or `-` when there is none.
fn elo_cell(e: Option<f64>) -> String {
    e.map_or_else(|| "-".to_string(), |e| format!("{e:+.0}"))
}

/// The table of finished points: strength, then the shares.
pub fn points_table(plan: &SweepPlan, done: &[GameTally]) -> String {
    let levels = plan.settings.source == Source::Levels;
    let with_draws = done.iter().any(|s| s.draws > 0);
    let mut headers = vec!["Point"];
    if !levels {
        headers.extend(["Step", "Elo"]);
    }
    headers.extend(["Games", "Defenders win", "Attackers win"]);
    if with_draws {
        headers.push("Draws");
    }
    headers.extend(["No result", "Avg length"]);
    let body: Vec<Vec<String>> = plan
        .points
        .iter()
        .zip(done)
        .map(|(p, s)| {
            let sh = RowShares::of(s);
            let mut cells = vec![if levels {
                p.player.label.clone()
            } else {
                p.key.clone()
            }];
            if !levels {
                cells.push(p.training_step.map_or_else(|| "-".into(), |s| s.to_string()));
                cells.push(elo_cell(p.elo.map(|e| e.elo)));
            }
            cells.push(s.games.to_string());
            cells.push(share_cell(&sh.defenders));
            cells.push(share_cell(&sh.attackers));
            if with_draws {
                cells.push(pct(sh.draws.share));
            }
            cells.push(share_cell(&sh.no_result));
            cells.push(format!("{:.1}", s.avg_decided_length()));
            cells
        })
        .collect();
    markdown_table(&headers, &body)
}

/// The whole report as Markdown: what was played, the table, how to rerun.
pub fn markdown(plan: &SweepPlan, done: &[GameTally]) -> String {
    let s = &plan.settings;
    let mut out = format!("# Balance vs strength: {}\n\n", s.rules);
    out.push_str(&format!(
        "`tafl balance --strength-sweep`, tafl {}. Seed {}. Games end with no result after {}.\n\n",
        env!("CARGO_PKG_VERSION"),
        s.seed,
        match s.ply_limit {
            Some(l) => format!("{l} plies"),
            None => "no ply limit (never)".to_string(),
        }
    ));
    if done.len() < plan.points.len() {
        out.push_str(&format!(
            "**Incomplete:** the run was interrupted; {} of {} points finished and are shown.\n\n",
            done.len(),
            plan.points.len()
        ));
    }
    match s.source {
        Source::Checkpoints => {
            out.push_str(&format!(
                "- Points: the checkpoints of the training run `{}`{}; each plays both sides as \
                 `mcts:model=CHECKPOINT:{}`, temperature 0.\n",
                s.strength_sweep,
                if s.every > 1 {
                    format!(" (one iteration in {}, from 0, and the last)", s.every)
                } else {
                    String::new()
                },
                s.simulations.unwrap_or(0)
            ));
            out.push_str(
                "- Step: optimizer steps of the checkpoint. Elo: against checkpoint 0 as the run \
                 recorded it (its ladder game against `checkpoint:0`, else its arena result added \
                 to the Elo of the network it met); `-` where the run recorded none.\n",
            );
        }
        Source::Levels => out.push_str(&format!(
            "- Points: the levels of configs/levels.toml{}; each plays both sides.\n",
            if s.every > 1 {
                format!(" (one level in {}, from level 1, and the last)", s.every)
            } else {
                String::new()
            }
        )),
    }
    out.push_str(&format!(
        "- {} games per point; each ply, with probability {}, the side to move plays a uniformly \
         random legal move instead (exploration), as in the skilled rows of `tafl balance`.\n",
        s.games, s.exploration
    ));
    out.push_str(&format!(
        "- Shares are of all games of the point, with 95% Wilson score intervals in brackets; \
         avg length is in plies over decided games. {STEM}.png draws the defenders' and the \
         no-result shares against the {}.\n\n",
        s.x_axis.title()
    ));
    out.push_str(&points_table(plan, done));
    out.push_str(&format!("\nRerun: `{}`\n", plan.command_line()));
    out
}

/// One line per finished point: strength, raw counts, then shares and their 95% intervals.
pub fn csv(plan: &SweepPlan, done: &[GameTally]) -> String {
    let mut out = String::from(
        "point,iteration,level,training_step,elo,elo_source,player,temperature,seed,games,defender_wins,\
         attacker_wins,draws,no_result,decided_plies,total_plies,avg_length,defender_share,defender_low,\
         defender_high,no_result_share,no_result_low,no_result_high\n",
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    for (p, s) in plan.points.iter().zip(done) {
        let sh = RowShares::of(s);
        let player = p.player.spec.to_string();
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            p.key,
            opt(p.iteration.map(|v| v.to_string())),
            opt(p.level.map(|v| v.to_string())),
            opt(p.training_step.map(|v| v.to_string())),
            opt(p.elo.map(|e| e.elo.to_string())),
            opt(p.elo.map(|e| e.source.name().to_string())),
            super::outputs::quote(&player),
            p.player.temperature,
            plan.point_seed(p),
            s.games,
            s.defender_wins,
            s.attacker_wins,
            s.draws,
            s.no_result,
            s.decided_plies,
            s.total_plies,
            s.avg_decided_length(),
            sh.defenders.share,
            sh.defenders.low,
            sh.defenders.high,
            sh.no_result.share,
            sh.no_result.low,
            sh.no_result.high,
        ));
    }
    out
}

#[derive(Serialize)]
struct JsonPoint {
    point: String,
    iteration: Option<u32>,
    level: Option<u32>,
    training_step: Option<u64>,
    elo: Option<f64>,
    elo_source: Option<&'static str>,
    x: Option<f64>,
    player: String,
    temperature: f32,
    seed: u64,
    #[serde(flatten)]
    tally: JsonTally,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    program: &'static str,
    version: &'static str,
    command: String,
    settings: &'a SweepSettings,
    interval: &'static str,
    rules: String,
    complete: bool,
    points_planned: usize,
    points_finished: usize,
    points: Vec<JsonPoint>,
}

/// Everything: settings, the rules, each point's strength, seed, counts, shares and intervals.
pub fn json(plan: &SweepPlan, done: &[GameTally]) -> Result<String, String> {
    let doc = JsonDoc {
        program: "tafl",
        version: env!("CARGO_PKG_VERSION"),
        command: plan.command_line(),
        settings: &plan.settings,
        interval: "95% Wilson score interval",
        rules: plan.ruleset.to_toml(),
        complete: done.len() == plan.points.len(),
        points_planned: plan.points.len(),
        points_finished: done.len(),
        points: plan
            .points
            .iter()
            .zip(done)
            .map(|(p, s)| JsonPoint {
                point: p.key.clone(),
                iteration: p.iteration,
                level: p.level,
                training_step: p.training_step,
                elo: p.elo.map(|e| e.elo),
                elo_source: p.elo.map(|e| e.source.name()),
                x: p.x(plan.settings.x_axis),
                player: p.player.spec.to_string(),
                temperature: p.player.temperature,
                seed: plan.point_seed(p),
                tally: JsonTally::of(s),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| format!("cannot encode {STEM}.json: {e}"))
}
