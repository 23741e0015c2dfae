// SPDX-License-Identifier: GPL-2.0

//! The picture: an `enqueue_to_dispatch_time` histogram per CPU (and one
//! for all CPUs together when there are several), log-scaled bins, with the
//! p50 and p99 marked. SVG through plotters; text is written as SVG text,
//! so no font files are involved.

use crate::stats::{ticks_to_us, Group, Summary};
use plotters::prelude::*;
use std::error::Error;
use std::path::Path;

/// Histogram bins per octave (doubling) of latency.
pub const BINS_PER_OCTAVE: u32 = 4;

const PANEL_W: u32 = 460;
const PANEL_H: u32 = 300;
const TITLE_H: u32 = 40;
const MAX_COLS: usize = 3;
const BAR: RGBColor = RGBColor(70, 130, 180);
const P50: RGBColor = RGBColor(230, 140, 0);
const P99: RGBColor = RGBColor(200, 30, 30);

/// The bin of a latency of `ticks`: bin `k` holds `2^(k/4) <= ticks <
/// 2^((k+1)/4)` (4 bins per octave); 0 and 1 tick are in bin 0. Exact: `k`
/// is `floor(log2(ticks^4))`, computed on integers.
pub fn bin_of(ticks: u32) -> usize {
    let t = u128::from(ticks.max(1));
    t.pow(BINS_PER_OCTAVE).ilog2() as usize
}

/// The lower edge of bin `k`, in ticks.
fn edge(k: usize) -> f64 {
    2f64.powf(k as f64 / f64::from(BINS_PER_OCTAVE))
}

/// Entries per bin, bins 0 to the highest occupied one.
pub fn histogram(values: &[u32]) -> Vec<usize> {
    let mut h = Vec::new();
    for &v in values {
        let k = bin_of(v);
        if h.len() <= k {
            h.resize(k + 1, 0);
        }
        h[k] += 1;
    }
    h
}

/// An axis label in microseconds: up to 3 decimals, no trailing zeros.
fn us_label(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The legend goes to the upper corner away from the bulk of the entries:
/// the left one when the median lies right of the middle of the (log) x
/// axis.
fn legend_side(x: &std::ops::Range<f64>, p50: f64) -> SeriesLabelPosition {
    if p50 * p50 > x.start * x.end {
        SeriesLabelPosition::UpperLeft
    } else {
        SeriesLabelPosition::UpperRight
    }
}

/// Panels: each CPU, and all CPUs first when there are several.
fn panels(s: &Summary) -> Vec<(String, &Group)> {
    let mut v = Vec::new();
    if s.cpus.len() > 1 {
        v.push(("all CPUs".to_string(), &s.all));
    }
    v.extend(s.cpus.iter().map(|(c, g)| (format!("CPU {c}"), g)));
    v
}

/// Draws the picture for `s` into `path`. `source` names the input in the
/// title; `tb_freq` is the timebase frequency in Hz.
pub fn write_svg(path: &Path, s: &Summary, source: &str, tb_freq: u64) -> Result<(), String> {
    draw(path, s, source, tb_freq).map_err(|e| format!("{}: {e}", path.display()))
}

fn draw(path: &Path, s: &Summary, source: &str, tb_freq: u64) -> Result<(), Box<dyn Error>> {
    let groups = panels(s);
    let cols = groups.len().clamp(1, MAX_COLS);
    let rows = groups.len().div_ceil(cols).max(1);
    let size = (PANEL_W * cols as u32, PANEL_H * rows as u32 + TITLE_H);
    let us = |ticks: f64| ticks * 1e6 / tb_freq as f64;
    // One x range for every panel: the occupied bins of all CPUs.
    let lo = s.all.enqueue.first().map_or(0, |&v| bin_of(v));
    let hi = s.all.enqueue.last().map_or(0, |&v| bin_of(v)) + 1;
    let x_range = us(edge(lo))..us(edge(hi));

    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "{source}: enqueue_to_dispatch_time ({BINS_PER_OCTAVE} bins per octave, timebase {tb_freq} Hz)"
    );
    let root = root.titled(&title, ("sans-serif", 18))?;
    for ((label, g), area) in groups.iter().zip(root.split_evenly((rows, cols))) {
        let counts = histogram(&g.enqueue);
        let top = counts.iter().copied().max().unwrap_or(0);
        // Headroom for the legend.
        let y_max = top + top / 4 + 1;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("{label}: {} entries", g.entries),
                ("sans-serif", 15),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(x_range.clone().log_scale(), 0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("enqueue_to_dispatch_time, us (log scale)")
            .y_desc("entries")
            .x_label_formatter(&|v| us_label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        chart.draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(k, &n)| {
                    Rectangle::new([(us(edge(k)), 0), (us(edge(k + 1)), n)], BAR.filled())
                }),
        )?;
        if let Some(l) = g.latency() {
            for (name, ticks, color) in [("p50", l.p50, P50), ("p99", l.p99, P99)] {
                // On the log axis, 0 ticks is drawn at 1 tick (bin 0).
                let x = us(f64::from(ticks.max(1)));
                let style = color.stroke_width(2);
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, 0), (x, y_max)],
                        style,
                    )))?
                    .label(format!("{name} {:.2} us", ticks_to_us(ticks, tb_freq)))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
            }
            chart
                .configure_series_labels()
                .position(legend_side(&x_range, us(f64::from(l.p50.max(1)))))
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK.mix(0.3))
                .label_font(("sans-serif", 12))
                .draw()?;
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests;
