//! What every chart of the program shares (the run's learning curve, and the balance,
//! strength-sweep and rebalance charts of `tafl-lab`): the embedded font, one palette, the
//! grid's grey, grey dashed reference levels, and writing a PNG through a temporary file and a
//! rename, so that a reader never sees half a chart.

use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Blue: the first series; random play in the balance chart.
pub const BLUE: RGBColor = RGBColor(66, 133, 244);
/// Dark blue: random play under changed rules.
pub const DARK_BLUE: RGBColor = RGBColor(20, 60, 140);
/// Orange: the defenders' share of skilled play, wherever it is drawn.
pub const ORANGE: RGBColor = RGBColor(240, 140, 30);
/// Dark orange: skilled play under changed rules.
pub const DARK_ORANGE: RGBColor = RGBColor(150, 70, 0);
/// Green.
pub const GREEN: RGBColor = RGBColor(52, 168, 83);
/// Red.
pub const RED: RGBColor = RGBColor(219, 68, 55);
/// Purple: games without a result.
pub const PURPLE: RGBColor = RGBColor(110, 80, 170);
/// Brown.
pub const BROWN: RGBColor = RGBColor(120, 90, 60);
/// Magenta.
pub const MAGENTA: RGBColor = RGBColor(170, 60, 160);
/// Teal.
pub const TEAL: RGBColor = RGBColor(0, 150, 150);
/// The grey of a base line that the coloured series are compared with.
pub const BASE_GREY: RGBColor = RGBColor(120, 120, 120);
/// The light grey of the grid's bold lines.
pub const GRID: RGBColor = RGBColor(225, 225, 225);

/// Series colours in order: one per series of a chart, repeating after the last.
pub const SERIES: [RGBColor; 8] = [BLUE, ORANGE, GREEN, RED, PURPLE, BROWN, MAGENTA, TEAL];

/// The colour of the `k`-th series.
pub fn series_colour(k: usize) -> RGBColor {
    SERIES[k % SERIES.len()]
}

/// The grey of reference lines (and of their legend entries).
pub const LEVEL_GREY: RGBAColor = RGBAColor(0, 0, 0, 0.45);

/// A horizontal reference line at height `y` from `x0` to `x1`, grey and dashed (40 dashes), so
/// that it reads as a level to compare against rather than as a data series.
pub fn dashed_level(x0: f64, x1: f64, y: f64) -> impl Iterator<Item = PathElement<(f64, f64)>> {
    let dash = (x1 - x0) / 80.0;
    (0..80).step_by(2).map(move |i| {
        let a = x0 + dash * i as f64;
        PathElement::new(vec![(a, y), (a + dash, y)], LEVEL_GREY.stroke_width(2))
    })
}

/// Registers the embedded DejaVu Sans as plotters' `sans-serif`, once (plotters has no
/// system fonts in this build).
pub fn register_font() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| "the embedded font cannot be read".to_string())
    })
    .clone()
}

/// Draws a chart into the PNG `path`: `draw` paints a temporary file beside it
/// (`.NAME.tmp.png`: the bitmap backend picks the format from the extension), which is then
/// renamed over `path`.
pub fn write_png(
    path: &Path,
    draw: impl FnOnce(&Path) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), String> {
    register_font()?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{stem}.tmp.png"));
    draw(&tmp).map_err(|e| format!("cannot draw `{}`: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}
