//! `RUN/learning-curve.png`: the best network's Elo against each ladder anchor by iteration,
//! with the 95% intervals as error bars, one series per anchor. Drawn after every ladder
//! from the run's history, written through a temporary file and a rename.

use crate::plot::{dashed_level, series_colour, write_png, GRID};
use crate::state::{IterationSummary, LadderResult};
use plotters::prelude::*;
use std::path::Path;
use tafl_engine::stats::Elo;

/// Elo values are drawn within plus or minus this: a match won or lost in every game
/// estimates an Elo difference without bound (about 2,400, or infinite).
pub const ELO_CLAMP: f64 = 1000.0;

/// One point of a series: (iteration, Elo, low, high), clamped to [`ELO_CLAMP`].
pub type CurvePoint = (u32, f64, f64, f64);

/// The ladder results of `history` by anchor (in order of first appearance), clamped for
/// drawing; a point whose Elo is not a number is left out, a bound that is not one becomes
/// the Elo.
pub fn series(history: &[IterationSummary]) -> Vec<(String, Vec<CurvePoint>)> {
    let clamp = |v: f64| v.clamp(-ELO_CLAMP, ELO_CLAMP);
    let mut out: Vec<(String, Vec<CurvePoint>)> = Vec::new();
    for s in history {
        for LadderResult {
            anchor,
            elo: Elo { elo, low, high },
            ..
        } in &s.ladder
        {
            if elo.is_nan() {
                continue;
            }
            let e = clamp(*elo);
            let lo = if low.is_nan() { e } else { clamp(*low).min(e) };
            let hi = if high.is_nan() { e } else { clamp(*high).max(e) };
            let i = match out.iter().position(|(a, _)| a == anchor) {
                Some(i) => i,
                None => {
                    out.push((anchor.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            out[i].1.push((s.iteration, e, lo, hi));
        }
    }
    out
}

/// Draws the chart of `history` into `path` (through a temporary file in the same folder and
/// a rename); `subtitle` says how the ladder was played.
pub fn write_learning_curve(path: &Path, history: &[IterationSummary], subtitle: &str) -> Result<(), String> {
    write_png(path, |tmp| draw(tmp, history, subtitle))
}

fn draw(path: &Path, history: &[IterationSummary], subtitle: &str) -> Result<(), Box<dyn std::error::Error>> {
    let series = series(history);
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    // The anchor's level (0) is always in view.
    let (mut y0, mut y1) = (0f64, 0f64);
    let mut clamped = false;
    for &(it, _, lo, hi) in points {
        x0 = x0.min(it as f64);
        x1 = x1.max(it as f64);
        y0 = y0.min(lo);
        y1 = y1.max(hi);
        clamped |= lo <= -ELO_CLAMP || hi >= ELO_CLAMP;
    }
    if !(x0.is_finite() && x1.is_finite()) {
        (x0, x1) = (0.0, 1.0);
    }
    let (x0, x1) = (x0 - 0.5, x1 + 0.5);
    let pad = ((y1 - y0) * 0.08).max(50.0);
    let (y0, y1) = (y0 - pad, y1 + pad);

    let root = BitMapBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let (area, footer) = root.split_vertically(566);
    let title = if series.is_empty() {
        "Learning curve: no ladder results yet".to_string()
    } else {
        "Learning curve: Elo of the best network against each ladder anchor (95% intervals)".to_string()
    };
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let ticks = ((x1 - x0).floor() as usize + 1).clamp(2, 12);
    chart
        .configure_mesh()
        .x_labels(ticks)
        .y_labels(10)
        .x_label_formatter(&|v| {
            if (v - v.round()).abs() < 1e-6 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            if v.abs() < 0.5 {
                "0".to_string()
            } else {
                format!("{v:+.0}")
            }
        })
        .x_desc("iteration")
        .y_desc("Elo against the anchor")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .draw()?;
    // Even with the anchor: a dashed line at 0.
    chart.draw_series(dashed_level(x0, x1, 0.0))?;
    let n = series.len();
    for (k, (anchor, pts)) in series.iter().enumerate() {
        let colour = series_colour(k);
        // Series side by side around each iteration, so that their bars do not hide each other.
        let dx = (k as f64 - (n as f64 - 1.0) / 2.0) * 0.08;
        chart.draw_series(pts.iter().map(|&(it, e, lo, hi)| {
            ErrorBar::new_vertical(it as f64 + dx, lo, e, hi, colour.stroke_width(2), 8)
        }))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                pts.iter()
                    .map(|&(it, e, _, _)| (it as f64 + dx, e))
                    .collect::<Vec<_>>(),
                colour.stroke_width(2),
            )))?
            .label(format!("against {anchor}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3)));
        chart.draw_series(
            pts.iter()
                .map(|&(it, e, _, _)| Circle::new((it as f64 + dx, e), 4, colour.filled())),
        )?;
    }
    if n > 0 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 14))
            .draw()?;
    }
    let note = if clamped {
        format!("{subtitle}; Elo drawn within ±{ELO_CLAMP:.0} (all games won or lost)")
    } else {
        subtitle.to_string()
    };
    footer.draw(&Text::new(
        note,
        (76, 8),
        ("sans-serif", 14).into_font().color(&BLACK),
    ))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tafl_models::run_dir::LEARNING_CURVE_FILE;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tafl-curve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn summary(iteration: u32, ladder: &[(&str, f64, f64, f64)]) -> IterationSummary {
        IterationSummary {
            iteration,
            ladder: ladder
                .iter()
                .map(|&(a, e, lo, hi)| (a.to_string(), e, lo, hi).into())
                .collect(),
            ..Default::default()
        }
    }

    /// A PNG file of the chart's size: signature, then the IHDR chunk's width and height.
    fn assert_png(path: &Path) {
        let b = std::fs::read(path).unwrap();
        assert!(b.len() > 1000, "{} bytes", b.len());
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&b[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(b[16..20].try_into().unwrap()), 960);
        assert_eq!(u32::from_be_bytes(b[20..24].try_into().unwrap()), 600);
        assert!(!path.with_file_name(".learning-curve.tmp.png").exists());
    }

    #[test]
    fn a_learning_curve_is_drawn_from_the_ladder_history() {
        let dir = temp_dir("draw");
        let history = vec![
            summary(1, &[]),
            summary(
                2,
                &[
                    ("mcts:heuristic:100", -120.0, -200.0, -40.0),
                    ("checkpoint:0", 90.0, 10.0, 170.0),
                ],
            ),
            summary(3, &[]),
            summary(
                4,
                &[
                    ("mcts:heuristic:100", 35.0, -30.0, 100.0),
                    ("checkpoint:0", 2400.0, 275.0, 2400.0),
                ],
            ),
        ];
        let path = dir.join(LEARNING_CURVE_FILE);
        write_learning_curve(&path, &history, "brandubh, 20 games, exploration 0.1").unwrap();
        assert_png(&path);
        // Drawn again over the old one, as after every ladder.
        write_learning_curve(&path, &history[..2], "again").unwrap();
        assert_png(&path);
        let s = series(&history);
        assert_eq!(s.len(), 2, "one series per anchor");
        assert_eq!(s[0].0, "mcts:heuristic:100");
        assert_eq!(s[0].1.iter().map(|p| p.0).collect::<Vec<_>>(), vec![2, 4]);
        assert_eq!(s[1].1[1], (4, ELO_CLAMP, 275.0, ELO_CLAMP));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_empty_history_and_unbounded_elo_are_drawn() {
        let dir = temp_dir("edges");
        let path = dir.join(LEARNING_CURVE_FILE);
        write_learning_curve(&path, &[], "no ladder yet").unwrap();
        assert_png(&path);
        // All wins and all losses: infinite estimates, and a NaN, must not stop the run.
        let history = vec![
            summary(2, &[("random", f64::INFINITY, 300.0, f64::INFINITY)]),
            summary(
                4,
                &[
                    ("random", f64::NEG_INFINITY, f64::NEG_INFINITY, -300.0),
                    ("heuristic", f64::NAN, 0.0, 1.0),
                    ("checkpoint:0", 10.0, f64::NAN, f64::NAN),
                ],
            ),
        ];
        write_learning_curve(&path, &history, "edges").unwrap();
        assert_png(&path);
        let s = series(&history);
        assert_eq!(
            s[0].1,
            vec![
                (2, ELO_CLAMP, 300.0, ELO_CLAMP),
                (4, -ELO_CLAMP, -ELO_CLAMP, -300.0)
            ]
        );
        assert_eq!(s[1].0, "checkpoint:0", "a point with no Elo is left out");
        assert_eq!(s[1].1, vec![(4, 10.0, 10.0, 10.0)]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
