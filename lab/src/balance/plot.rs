//! `balance.png`: the defenders' share of each row with its 95% interval. The text is drawn with
//! DejaVu Sans, embedded in the binary (`assets/fonts`, by the trainer crate), so no system
//! font is needed.

use super::table::RowShares;
use super::{BalancePlan, Play, Row};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use tafl_trainer::plot::{BLUE, DARK_BLUE, DARK_ORANGE, ORANGE};

/// Colour of a row: blue for random play, orange for skilled play; darker for changed rules.
fn colour(play: Play, changed: bool) -> RGBColor {
    match (play, changed) {
        (Play::Random, false) => BLUE,
        (Play::Random, true) => DARK_BLUE,
        (Play::Skilled, false) => ORANGE,
        (Play::Skilled, true) => DARK_ORANGE,
    }
}

/// Draws the chart into `path` (through a temporary file and a rename).
pub fn write_png(path: &Path, plan: &BalancePlan, rows: &[Row]) -> Result<(), String> {
    tafl_trainer::plot::write_png(path, |tmp| draw(tmp, plan, rows))
}

fn draw(path: &Path, plan: &BalancePlan, rows: &[Row]) -> Result<(), Box<dyn std::error::Error>> {
    let n = rows.len().max(1);
    let per_row = if plan.settings.compare { 200 } else { 150 };
    let width = (120 + per_row * n as u32).max(640);
    let root = BitMapBackend::new(path, (width, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let (area, legend) = root.split_vertically(520);
    let title = if rows.is_empty() {
        "Defenders win: no finished rows".to_string()
    } else {
        "Defenders win, % of games (95% Wilson interval)".to_string()
    };
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}", plan.variant_label(&r.spec), r.spec.play.name()))
        .collect();
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..100f64)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels.get(*i).cloned().unwrap_or_default(),
            SegmentValue::Last => String::new(),
        })
        .x_label_style(("sans-serif", 14))
        .light_line_style(TRANSPARENT)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("defenders win (%)")
        .y_label_style(("sans-serif", 14))
        .draw()?;
    let kinds = [
        (Play::Random, false, "random play"),
        (Play::Random, true, "random play, changed rules"),
        (Play::Skilled, false, "skilled play"),
        (Play::Skilled, true, "skilled play, changed rules"),
    ];
    let mut legend_x = 80;
    let skilled_note = format!(
        ": {}, exploration {}",
        plan.settings.skilled_player, plan.settings.exploration
    );
    for (play, changed, name) in kinds {
        let name = if play == Play::Skilled {
            format!("{name}{skilled_note}")
        } else {
            name.to_string()
        };
        let mine: Vec<(usize, RowShares)> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.spec.play == play && r.spec.changed == changed)
            .map(|(i, r)| (i, RowShares::of(&r.stats)))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let c = colour(play, changed);
        let value_style = ("sans-serif", 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        legend.draw(&Circle::new((legend_x, 20), 5, c.filled()))?;
        legend.draw(&Text::new(
            name.clone(),
            (legend_x + 12, 20),
            ("sans-serif", 15)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        legend_x += 40 + 9 * name.len() as i32;
        chart.draw_series(mine.iter().map(|(i, s)| {
            let d = &s.defenders;
            ErrorBar::new_vertical(
                SegmentValue::CenterOf(*i),
                100.0 * d.low,
                100.0 * d.share,
                100.0 * d.high,
                c.stroke_width(2),
                14,
            )
        }))?;
        chart.draw_series(mine.iter().map(|(i, s)| {
            Circle::new(
                (SegmentValue::CenterOf(*i), 100.0 * s.defenders.share),
                5,
                c.filled(),
            )
        }))?;
        chart.draw_series(mine.iter().map(|(i, s)| {
            Text::new(
                format!("   {:.1}%", 100.0 * s.defenders.share),
                (SegmentValue::CenterOf(*i), 100.0 * s.defenders.share),
                value_style.clone(),
            )
        }))?;
    }
    root.present()?;
    Ok(())
}
