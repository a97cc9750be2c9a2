//! `bench --plot FILE.png`: the run's latencies as a histogram, its figures in the title.
//! Labels are drawn with a TrueType font the system has (DejaVu or Liberation Sans on Linux,
//! Arial on macOS and Windows), or the one `OXMCP_PLOT_FONT` names.

use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;
use plotters::style::FontStyle;

use super::Report;

/// Where fonts usually are, in the order tried.
const FONTS: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];
/// The font family the plot's text asks for.
const FAMILY: &str = "sans-serif";
/// Bars of the histogram.
const BUCKETS: usize = 50;

/// Draws `latencies` (sorted) as a histogram into the PNG at `path`.
pub fn plot(path: &Path, report: &Report, latencies: &[Duration]) -> Result<(), String> {
    register_font()?;
    let micros: Vec<f64> = latencies.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    // Up to the 99.9th percentile: a few stragglers would squash the rest into one bar.
    let high = micros
        .get(micros.len().saturating_sub(1).min(micros.len() * 999 / 1000))
        .copied()
        .unwrap_or(1.0)
        .max(1.0);
    let width = high / BUCKETS as f64;
    let mut counts = [0u32; BUCKETS];
    for value in &micros {
        counts[((value / width) as usize).min(BUCKETS - 1)] += 1;
    }
    let tallest = counts.iter().copied().max().unwrap_or(1).max(1);
    let drawn = |e: DrawingAreaErrorKind<_>| format!("cannot draw {}: {e}", path.display());
    let root = BitMapBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(drawn)?;
    let caption = format!(
        "{} over {}: {:.0} calls/s, p50 {:.0} µs, p90 {:.0} µs, p99 {:.0} µs",
        report.server, report.transport, report.calls_per_s, report.p50_us, report.p90_us, report.p99_us
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, (FAMILY, 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..high, 0u32..tallest + tallest / 10)
        .map_err(drawn)?;
    chart
        .configure_mesh()
        .x_desc("latency (µs)")
        .y_desc("calls")
        .label_style((FAMILY, 14))
        .draw()
        .map_err(drawn)?;
    let bars = counts.iter().enumerate().map(|(i, count)| {
        let left = i as f64 * width;
        Rectangle::new([(left, 0), (left + width, *count)], BLUE.mix(0.7).filled())
    });
    chart.draw_series(bars).map_err(drawn)?;
    root.present().map_err(drawn)
}

/// Makes the first font found the plot's.
fn register_font() -> Result<(), String> {
    let chosen = std::env::var("OXMCP_PLOT_FONT").ok();
    let candidates = chosen.iter().map(String::as_str).chain(FONTS);
    for candidate in candidates {
        if let Ok(bytes) = std::fs::read(candidate) {
            // The font lives as long as the process: plotters keeps it.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            return plotters::style::register_font(FAMILY, FontStyle::Normal, bytes)
                .map_err(|_| format!("{candidate} is not a TrueType font"));
        }
    }
    Err("no font for the plot's labels: set OXMCP_PLOT_FONT to a .ttf file".into())
}
