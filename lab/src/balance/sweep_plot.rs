//! `balance-vs-strength.png`: the defenders' share of each point with its 95% interval (bars
//! and a band), the no-result share as a second series and a 50% line, against the training
//! iteration, step, Elo or level. Same font and colours as `balance.png`.

use super::sweep::{SweepPlan, XAxis};
use super::table::RowShares;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use tafl_engine::board::GameTally;
use tafl_trainer::plot::{dashed_level, GRID, LEVEL_GREY, ORANGE, PURPLE};

/// The skilled rows' orange of `balance.png`: the defenders' share of skilled play.
const DEFENDERS: RGBColor = ORANGE;
/// The no-result share.
const NO_RESULT: RGBColor = PURPLE;

/// Draws the chart into `path` (through a temporary file and a rename).
pub fn write_png(path: &Path, plan: &SweepPlan, done: &[GameTally]) -> Result<(), String> {
    tafl_trainer::plot::write_png(path, |tmp| draw(tmp, plan, done))
}

/// The x range: every planned point (so the axis holds still while points finish), padded.
fn x_range(plan: &SweepPlan, axis: XAxis) -> (f64, f64) {
    let xs: Vec<f64> = plan.points.iter().filter_map(|p| p.x(axis)).collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let pad = if hi - lo < 1e-9 { 1.0 } else { 0.05 * (hi - lo) };
    (lo - pad, hi + pad)
}

/// A tick label: whole numbers without decimals.
fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn draw(path: &Path, plan: &SweepPlan, done: &[GameTally]) -> Result<(), Box<dyn std::error::Error>> {
    let axis = plan.settings.x_axis;
    let (x0, x1) = x_range(plan, axis);
    // Finished points in x order, so that the lines and the band run left to right.
    let mut pts: Vec<(f64, RowShares)> = plan
        .points
        .iter()
        .zip(done)
        .filter_map(|(p, s)| Some((p.x(axis)?, RowShares::of(s))))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let root = BitMapBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    // The legend has its own strip below the chart, so that it never hides a point.
    let (area, legend) = root.split_vertically(556);
    let title = if pts.is_empty() {
        format!("{}: no finished points", plan.settings.rules)
    } else {
        format!(
            "{}: defenders win as the players get stronger ({} games per point)",
            plan.settings.rules, plan.settings.games
        )
    };
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(56)
        // A little room above 100% and below 0%, so that points there are whole.
        .build_cartesian_2d(x0..x1, -2f64..102f64)?;
    // Whole-number axes get at most one tick per whole number.
    let ticks = match axis {
        XAxis::Elo => 10,
        _ => ((x1 - x0).floor() as usize + 1).clamp(2, 12),
    };
    chart
        .configure_mesh()
        .x_labels(ticks)
        .y_labels(11)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc(axis.title())
        .y_desc("% of games")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .draw()?;
    // The 50% line, dashed: an even split between the sides.
    chart.draw_series(dashed_level(x0, x1, 50.0))?;
    if pts.len() >= 2 {
        let band: Vec<(f64, f64)> = pts
            .iter()
            .map(|(x, s)| (*x, 100.0 * s.defenders.high))
            .chain(pts.iter().rev().map(|(x, s)| (*x, 100.0 * s.defenders.low)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(band, DEFENDERS.mix(0.18).filled())))?;
    }
    chart.draw_series(pts.iter().map(|(x, s)| {
        let d = &s.defenders;
        ErrorBar::new_vertical(
            *x,
            100.0 * d.low,
            100.0 * d.share,
            100.0 * d.high,
            DEFENDERS.stroke_width(2),
            10,
        )
    }))?;
    chart.draw_series(std::iter::once(PathElement::new(
        pts.iter()
            .map(|(x, s)| (*x, 100.0 * s.defenders.share))
            .collect::<Vec<_>>(),
        DEFENDERS.stroke_width(2),
    )))?;
    chart.draw_series(
        pts.iter()
            .map(|(x, s)| Circle::new((*x, 100.0 * s.defenders.share), 5, DEFENDERS.filled())),
    )?;
    chart.draw_series(std::iter::once(PathElement::new(
        pts.iter()
            .map(|(x, s)| (*x, 100.0 * s.no_result.share))
            .collect::<Vec<_>>(),
        NO_RESULT.stroke_width(2),
    )))?;
    chart.draw_series(
        pts.iter()
            .map(|(x, s)| TriangleMarker::new((*x, 100.0 * s.no_result.share), 6, NO_RESULT.filled())),
    )?;
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let text = |t: &str, x: i32| {
        Text::new(
            t.to_string(),
            (x, 20),
            font.pos(Pos::new(HPos::Left, VPos::Center)),
        )
    };
    let width = |t: &str| {
        legend
            .estimate_text_size(t, &font)
            .map_or(8 * t.len() as i32, |(w, _)| w as i32)
    };
    let defenders = format!(
        "defenders win, 95% interval (bars, band); {}",
        match plan.settings.source {
            super::sweep::Source::Checkpoints => format!(
                "mcts:model=CHECKPOINT:{} on both sides",
                plan.settings.simulations.unwrap_or(0)
            ),
            super::sweep::Source::Levels => "the level on both sides".to_string(),
        }
    );
    let mut at = 72;
    legend.draw(&Circle::new((at, 20), 5, DEFENDERS.filled()))?;
    legend.draw(&text(&defenders, at + 12))?;
    at += 12 + width(&defenders) + 36;
    legend.draw(&TriangleMarker::new((at, 20), 6, NO_RESULT.filled()))?;
    legend.draw(&text("no result", at + 12))?;
    at += 12 + width("no result") + 36;
    for i in 0..3 {
        legend.draw(&PathElement::new(
            vec![(at - 6 + 10 * i, 20), (at + 10 * i, 20)],
            LEVEL_GREY.stroke_width(2),
        ))?;
    }
    legend.draw(&text("50%: even", at + 28))?;
    root.present()?;
    Ok(())
}
