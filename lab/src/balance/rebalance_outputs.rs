//! What `tafl rebalance` writes: `rebalance.md` (the best variant, the before/after in seed
//! 000's columns, the finalists against strength, every variant ranked, the games spent),
//! `rebalance.csv` and `rebalance.json` (every measurement), `rebalance-vs-strength.png`, and
//! the best variant as `best.toml` (ready for `--rules`) with its rules panel in
//! `best-rules.md`. Each is written to a temporary name and renamed into place.

use super::rebalance::{
    best, defenders_share, half_width, worst_distance, DropReason, RebalancePlan, RebalanceState, Variant,
};
use super::table::{markdown_table, pct, share_cell, RowShares};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::json;
use std::path::Path;
use tafl_engine::board::GameTally;

use crate::work::write_atomic;
use tafl_trainer::plot::{BASE_GREY, BLUE, GREEN, MAGENTA, ORANGE, RED, TEAL};

/// Writes every output for the state so far (the best variant's files once there are finalists).
pub fn write_all(dir: &Path, plan: &RebalancePlan, state: &RebalanceState) -> Result<(), String> {
    write_atomic(&dir.join("rebalance.md"), markdown(plan, state).as_bytes())?;
    write_atomic(&dir.join("rebalance.csv"), csv(plan, state).as_bytes())?;
    write_atomic(&dir.join("rebalance.json"), json(plan, state)?.as_bytes())?;
    if state.finalists.is_some() {
        let b = &plan.variants[best(state)];
        write_atomic(&dir.join("best.toml"), best_rules(plan, b).to_toml().as_bytes())?;
        write_atomic(
            &dir.join("best-rules.md"),
            format!(
                "# {}\n\n```text\n{}\n```\n",
                best_rules(plan, b).file.name,
                tafl_engine::rules::rules_panel(&best_rules(plan, b)).trim_end()
            )
            .as_bytes(),
        )?;
    }
    write_png(&dir.join("rebalance-vs-strength.png"), plan, state)
}

/// The best variant as a ruleset of its own: id `BASE-rebalanced`, its changes in the name.
pub fn best_rules(plan: &RebalancePlan, v: &Variant) -> tafl_engine::Ruleset {
    let mut rs = v.ruleset.clone();
    if !v.sets.is_empty() {
        rs.file.id = format!("{}-rebalanced", plan.base.id());
        rs.file.name = format!("{} rebalanced ({})", plan.base.file.name, v.label());
    }
    rs
}

/// A variant's status in the ranking.
fn status(plan: &RebalancePlan, state: &RebalanceState, v: usize) -> String {
    let finalists = state.finalists.as_deref().unwrap_or_default();
    if let Some(d) = state.dropped[v] {
        let why = match d.reason {
            DropReason::FarFromEven => "far from even".to_string(),
            DropReason::Undecided => "mostly undecided".to_string(),
            DropReason::PlaysLike(u) => format!(
                "plays like {} (its {} games move for move the same)",
                plan.variants.get(u).map_or("?".into(), Variant::label),
                state.prints[v].get(d.player).map_or(0, Vec::len)
            ),
        };
        return format!(
            "dropped by {}'s race after round {}: {why}",
            plan.settings.players.get(d.player).map_or("?", String::as_str),
            d.round
        );
    }
    let status = if state.finalists.is_some() && v == best(state) {
        "best"
    } else if finalists.contains(&v) {
        "finalist"
    } else if state.finalists.is_some() {
        "raced to the end"
    } else {
        "racing"
    };
    // Only a search that drops nothing (the exhaustive baseline) keeps such twins racing.
    match state.plays_like(v, 0) {
        Some(u) => format!(
            "{status}; plays like {} (its {} games with {} move for move the same)",
            plan.variants[u].label(),
            state.prints[v][0].len(),
            plan.settings.players[0]
        ),
        None => status.into(),
    }
}

/// `52.10% [47.2, 57.0] of 412`: the defenders' share of decided games.
fn decided_cell(t: &GameTally) -> String {
    if t.decisive() == 0 {
        return if t.games == 0 {
            "—".into()
        } else {
            "no decided game".into()
        };
    }
    format!("{} of {}", share_cell(&defenders_share(t)), t.decisive())
}

/// Variants in ranking order: the survivors by their worst distance from even over the
/// players that measured them, then the dropped ones, later drops first, each by the racing
/// player's distance.
fn ranking(state: &RebalanceState) -> Vec<usize> {
    let mut order: Vec<usize> = (0..state.tallies.len()).collect();
    let key = |v: usize| match state.dropped[v] {
        None => {
            let measured: Vec<GameTally> = state.tallies[v].iter().copied().filter(|t| t.games > 0).collect();
            ((0, 0, 0), worst_distance(&measured))
        }
        Some(d) => (
            (1, usize::MAX - d.player, u32::MAX - d.round),
            super::rebalance::rank_distance(&state.tallies[v][0]),
        ),
    };
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    order
}

/// Games played with the skilled players, in all.
fn games_spent(state: &RebalanceState) -> u64 {
    state.tallies.iter().flatten().map(|t| t.games).sum()
}

/// The report.
pub fn markdown(plan: &RebalancePlan, state: &RebalanceState) -> String {
    let s = &plan.settings;
    let mut out = format!("# Rebalancing `{}`\n\n", s.rules_id);
    out.push_str(&format!(
        "Which changes of the rules make skilled play even? {} variants of `{}`: every combination of at most {} of the levers {}.\n\
         Skilled play is {} against itself ({}), each side making a uniformly random move with probability {}, games cut at {} plies.\n\
         Figures are the defenders' share of decided games with its 95% Wilson interval; even means {}-{}%.\n\n",
        plan.variants.len(),
        s.rules_id,
        s.max_changes,
        s.levers.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", "),
        s.players[0],
        if s.players.len() > 1 {
            format!("the survivors race again with {}", s.players[1..].join(", "))
        } else {
            "one strength only".to_string()
        },
        s.exploration,
        s.ply_limit.map_or("no limit".to_string(), |p| p.to_string()),
        pct_whole(0.5 - s.band),
        pct_whole(0.5 + s.band),
    ));
    if let Some(finalists) = &state.finalists {
        let b = best(state);
        let v = &plan.variants[b];
        let even = state.tallies[b]
            .iter()
            .all(|t| t.decisive() > 0 && (defenders_share(t).share - 0.5).abs() <= s.band);
        out.push_str("## The best variant\n\n");
        if v.sets.is_empty() {
            out.push_str("No variant came closer to even than the base rules.\n\n");
        } else {
            out.push_str(&format!(
                "`{}` (`tafl balance --rules {} {} --compare`), written as `best.toml` (rules panel in `best-rules.md`): {} at every strength measured; the farthest from even it lies is {:.1} points.\n\n",
                v.label(),
                s.rules,
                v.set_flags(),
                if even { "within the even band" } else { "**not** within the even band" },
                100.0 * worst_distance(&state.tallies[b])
            ));
        }
        out.push_str("## Before and after\n\n");
        out.push_str(&before_after(plan, state, b));
        out.push_str("\n## Against strength\n\n");
        let mut headers = vec!["Variant".to_string()];
        headers.extend(s.players.iter().cloned());
        let mut rows = Vec::new();
        let mut shown = vec![0];
        shown.extend(finalists.iter().copied().filter(|&v| v != 0));
        for v in shown {
            let mut cells = vec![plan.variants[v].label()];
            cells.extend(state.tallies[v].iter().map(decided_cell));
            rows.push(cells);
        }
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        out.push_str(&markdown_table(&headers, &rows));
        out.push('\n');
    } else {
        out.push_str(&format!(
            "The race with {} is in round {} ({} games so far).\n\n",
            s.players[state.stage.min(s.players.len() - 1)],
            state.rounds,
            games_spent(state)
        ));
    }
    out.push_str("## Every variant\n\n");
    let rows: Vec<Vec<String>> = ranking(state)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let t = &state.tallies[v][0];
            let und = if t.games == 0 {
                "—".to_string()
            } else {
                pct((t.games - t.decisive()) as f64 / t.games as f64)
            };
            let mut cells = vec![(i + 1).to_string(), plan.variants[v].label()];
            cells.extend(state.tallies[v].iter().map(decided_cell));
            cells.extend([
                und,
                format!("{:.1}", t.avg_decided_length()),
                state.tallies[v].iter().map(|t| t.games).sum::<u64>().to_string(),
                status(plan, state, v),
            ]);
            cells
        })
        .collect();
    let mut headers = vec!["#".to_string(), "Variant (--set against the base)".to_string()];
    headers.extend(s.players.iter().map(|p| format!("Defenders win, {p}")));
    headers.extend([
        format!("Undecided, {}", s.players[0]),
        format!("Avg length, {}", s.players[0]),
        "Games".to_string(),
        "Status".to_string(),
    ]);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    out.push_str(&markdown_table(&headers, &rows));
    let spent = games_spent(state);
    out.push_str(&format!(
        "\n## Games spent\n\n{spent} skilled games in all ({} in the race with {}), plus {} random games.",
        state.tallies.iter().map(|t| t[0].games).sum::<u64>(),
        s.players[0],
        state.random.iter().flatten().map(|t| t.games).sum::<u64>()
    ));
    if s.exhaustive {
        out.push_str(
            " This was the exhaustive baseline: every variant played to the precision, none dropped.",
        );
    } else {
        out.push_str(&format!(
            " Each player races in turn, the survivors of one racing with the next: rounds grow by half from {} games; after each, a variant whose worst distance from even over the players so far is, at 99% confidence, larger than {} others' is dropped, as is one whose undecided share is surely above {}. The race plays its survivors to ±{:.1} points, enough to rank them; only the closest are played on to the precision, ranked again until the finalists all are (the base is measured too), so a variant raced to the end keeps the interval it reached, up to that wider one.",
            s.first_round,
            s.finalists,
            pct(s.max_undecided),
            100.0 * s.race_precision
        ));
        if s.same_games > 0 {
            out.push_str(&format!(
                " Every variant plays the same seeds; one whose first {} games (at least) were move for move those of a variant with some of its changes is dropped as playing like it.",
                s.same_games
            ));
        }
    }
    out.push_str(&format!(
        " Measurements stop at ±{:.1} points (95%) or {} games.\n\n## Reproduce\n\n```sh\n{}\n```\n",
        100.0 * s.precision,
        s.max_games,
        plan.command_line()
    ));
    out
}

/// `45` for 0.45.
fn pct_whole(x: f64) -> String {
    format!("{:.0}", 100.0 * x)
}

/// Seed 000's columns for the base and the best variant: random play, then skilled play at
/// each strength.
fn before_after(plan: &RebalancePlan, state: &RebalanceState, b: usize) -> String {
    let mut rows = Vec::new();
    let mut variants = vec![0];
    if b != 0 {
        variants.push(b);
    }
    for v in variants {
        let name = if v == 0 {
            format!("{} (as given)", plan.settings.rules_id)
        } else {
            format!("{} ({})", plan.settings.rules_id, plan.variants[v].label())
        };
        let mut plays: Vec<(String, GameTally)> = Vec::new();
        if let Some(t) = state.random[v] {
            plays.push(("random".into(), t));
        }
        for (p, t) in state.tallies[v].iter().enumerate() {
            if t.games > 0 {
                plays.push((format!("skilled ({})", plan.settings.players[p]), *t));
            }
        }
        for (play, t) in plays {
            let sh = RowShares::of(&t);
            rows.push(vec![
                name.clone(),
                play,
                share_cell(&sh.defenders),
                share_cell(&sh.attackers),
                pct(sh.decisive.share),
                pct(sh.draws.share),
                pct(sh.no_result.share),
                format!("{:.1}", t.avg_decided_length()),
                decided_cell(&t),
            ]);
        }
    }
    markdown_table(
        &[
            "Variant",
            "Play",
            "Defenders win",
            "Attackers win",
            "Decisive games",
            "Draws",
            "No result",
            "Avg length",
            "Defenders, of decided",
        ],
        &rows,
    )
}

/// One line per measurement (variant and player), raw counts first.
pub fn csv(plan: &RebalancePlan, state: &RebalanceState) -> String {
    let mut out = String::from(
        "rank,variant,changes,player,games,defender_wins,attacker_wins,draws,no_result,decided_plies,defenders_of_decided,low,high,half_width,status\n",
    );
    for (rank, v) in ranking(state).into_iter().enumerate() {
        for (p, t) in state.tallies[v].iter().enumerate() {
            if t.games == 0 {
                continue;
            }
            let sh = defenders_share(t);
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{}\n",
                rank + 1,
                super::outputs::quote(&plan.variants[v].label()),
                plan.variants[v].sets.len(),
                super::outputs::quote(&plan.settings.players[p]),
                t.games,
                t.defender_wins,
                t.attacker_wins,
                t.draws,
                t.no_result,
                t.decided_plies,
                sh.share,
                sh.low,
                sh.high,
                half_width(t),
                super::outputs::quote(&status(plan, state, v))
            ));
        }
    }
    out
}

/// Every setting and measurement.
pub fn json(plan: &RebalancePlan, state: &RebalanceState) -> Result<String, String> {
    let variants: Vec<serde_json::Value> = ranking(state)
        .into_iter()
        .map(|v| {
            let m: Vec<serde_json::Value> = state.tallies[v]
                .iter()
                .enumerate()
                .filter(|(_, t)| t.games > 0)
                .map(|(p, t)| {
                    let sh = defenders_share(t);
                    json!({
                        "player": plan.settings.players[p],
                        "tally": t,
                        "defenders_of_decided": {"share": sh.share, "low": sh.low, "high": sh.high},
                        "average_decided_length": t.avg_decided_length(),
                    })
                })
                .collect();
            json!({
                "variant": plan.variants[v].label(),
                "set": plan.variants[v].sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "status": status(plan, state, v),
                "dropped": state.dropped[v],
                "measurements": m,
                "random": state.random[v],
            })
        })
        .collect();
    let best = state
        .finalists
        .as_ref()
        .map(|_| plan.variants[best(state)].label());
    serde_json::to_string_pretty(&json!({
        "settings": plan.settings,
        "command": plan.command_line(),
        "variants_left_out": plan.skipped,
        "rounds": state.rounds,
        "games_spent": games_spent(state),
        "best": best,
        "variants": variants,
    }))
    .map_err(|e| format!("cannot write rebalance.json: {e}"))
}

/// Line colours of the finalists; the base is grey.
const COLOURS: [RGBColor; 6] = [ORANGE, BLUE, GREEN, MAGENTA, RED, TEAL];

/// Draws the defenders' share against the players' strength for the base and each finalist.
pub fn write_png(path: &Path, plan: &RebalancePlan, state: &RebalanceState) -> Result<(), String> {
    tafl_trainer::plot::write_png(path, |tmp| draw(tmp, plan, state))
}

fn draw(path: &Path, plan: &RebalancePlan, state: &RebalanceState) -> Result<(), Box<dyn std::error::Error>> {
    let players = &plan.settings.players;
    let n = players.len();
    let mut shown = vec![0];
    shown.extend(state.finalists.iter().flatten().copied().filter(|&v| v != 0));
    let root = BitMapBackend::new(path, (960, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let (area, legend) = root.split_vertically(500);
    let mut chart = ChartBuilder::on(&area)
        .caption(
            format!(
                "{}: defenders' share of decided games as the players get stronger",
                plan.settings.rules_id
            ),
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..100f64)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(2) * 2 + 1)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                players.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_style(("sans-serif", 14))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("defenders win, % of decided games")
        .y_label_style(("sans-serif", 14))
        .draw()?;
    // The even band.
    let lo = 100.0 * (0.5 - plan.settings.band);
    let hi = 100.0 * (0.5 + plan.settings.band);
    chart.draw_series(std::iter::once(Rectangle::new(
        [(-0.5, lo), (n as f64 - 0.5, hi)],
        RGBColor(200, 230, 200).filled(),
    )))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(-0.5, 50.0), (n as f64 - 0.5, 50.0)],
        RGBColor(90, 150, 90).stroke_width(1),
    )))?;
    for (k, &v) in shown.iter().enumerate() {
        let c = if v == 0 {
            BASE_GREY
        } else {
            COLOURS[(k - 1) % COLOURS.len()]
        };
        // A small offset per variant keeps the bars apart.
        let dx = 0.04 * (k as f64 - (shown.len() as f64 - 1.0) / 2.0);
        let pts: Vec<(f64, f64, f64, f64)> = state.tallies[v]
            .iter()
            .enumerate()
            .filter(|(_, t)| t.decisive() > 0)
            .map(|(p, t)| {
                let s = defenders_share(t);
                (p as f64 + dx, 100.0 * s.low, 100.0 * s.share, 100.0 * s.high)
            })
            .collect();
        chart.draw_series(std::iter::once(PathElement::new(
            pts.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>(),
            c.stroke_width(2),
        )))?;
        chart.draw_series(
            pts.iter()
                .map(|p| ErrorBar::new_vertical(p.0, p.1, p.2, p.3, c.stroke_width(2), 10)),
        )?;
        chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.2), 5, c.filled())))?;
        let y = 16 + 22 * k as i32;
        legend.draw(&Circle::new((40, y), 5, c.filled()))?;
        legend.draw(&Text::new(
            plan.variants[v].label(),
            (52, y),
            ("sans-serif", 15)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    root.present()?;
    Ok(())
}
