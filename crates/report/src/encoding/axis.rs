//! Geometry of Figure 5: the page and plot area, the y axis (linear with
//! round ticks, or logarithmic with a tick per power of ten and a separate
//! baseline for zeros), the axes and the empty-figure message.

use std::fmt::Write as _;

use super::figure::wrap;

/// Page width in pixels.
pub(super) const WIDTH: u32 = 1000;
/// Page height in pixels.
pub(super) const HEIGHT: u32 = 640;
/// Left edge of the legend.
pub(super) const LEGEND_X: u32 = 712;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 690.0;
const TOP: f64 = 50.0;
/// The x axis.
const BOTTOM: f64 = 565.0;
/// On a log axis: the lowest power of ten is drawn here, and zeros on
/// [`ZERO_Y`] below it.
const LOG_BOTTOM: f64 = 530.0;
/// On a log axis: the baseline of zero values.
pub(super) const ZERO_Y: f64 = 552.0;

/// The y axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Axis {
    /// From 0 to `top`, a tick every `step`.
    Linear { top: f64, step: f64 },
    /// From `10^lo` to `10^hi`, a tick per power of ten.
    Log { lo: i32, hi: i32 },
}

impl Axis {
    /// The axis for these values: cumulative percentages always span
    /// 0–100 (linear) or up to 100 (log); proportions reach a round value
    /// at or above the largest. A log axis spans the powers of ten around
    /// the positive values (a default range when there are none).
    pub(super) fn new(series: &[Vec<Option<f64>>], cumulative: bool, log: bool) -> Axis {
        let values = || series.iter().flatten().flatten().copied();
        let max = values().fold(0.0f64, f64::max);
        if log {
            let min = values().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
            if !min.is_finite() {
                return if cumulative {
                    Axis::Log { lo: -1, hi: 2 }
                } else {
                    Axis::Log { lo: -3, hi: 0 }
                };
            }
            let lo = min.log10().floor() as i32;
            let hi = (max.log10().ceil() as i32).max(lo + 1);
            return Axis::Log { lo, hi };
        }
        if cumulative {
            return Axis::Linear {
                top: 100.0,
                step: 20.0,
            };
        }
        if max <= 0.0 {
            return Axis::Linear {
                top: 1.0,
                step: 0.2,
            };
        }
        let raw = max / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * mag)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * mag);
        Axis::Linear {
            top: (max / step).ceil() * step,
            step,
        }
    }

    /// `(value, label)` of every tick, bottom up.
    pub(super) fn ticks(&self) -> Vec<(f64, String)> {
        match *self {
            Axis::Linear { top, step } => {
                let decimals = (-step.log10().floor()).max(0.0) as usize;
                let n = (top / step).round() as i64;
                (0..=n)
                    .map(|i| {
                        let v = i as f64 * step;
                        (v, format!("{v:.decimals$}"))
                    })
                    .collect()
            }
            Axis::Log { lo, hi } => (lo..=hi)
                .map(|e| {
                    let v = 10f64.powi(e);
                    let label = match e {
                        0.. => format!("{v:.0}"),
                        -4..0 => format!("{v:.*}", e.unsigned_abs() as usize),
                        _ => format!("1e{e}"),
                    };
                    (v, label)
                })
                .collect(),
        }
    }
}

/// The plot of `bins` bins on an [`Axis`].
pub(super) struct Frame {
    bins: usize,
    axis: Axis,
}

impl Frame {
    pub(super) fn new(bins: usize, axis: Axis) -> Frame {
        Frame {
            bins: bins.max(1),
            axis,
        }
    }

    fn x(&self, bin: usize) -> f64 {
        LEFT + (bin as f64 + 0.5) / self.bins as f64 * (RIGHT - LEFT)
    }

    /// Page position of value `v` in `bin`; `None` for a value a log axis
    /// cannot place (zero or negative).
    pub(super) fn point(&self, bin: usize, v: f64) -> Option<(f64, f64)> {
        let y = match self.axis {
            Axis::Linear { top, .. } => BOTTOM - v / top * (BOTTOM - TOP),
            Axis::Log { lo, hi } if v > 0.0 => {
                let f = (v.log10() - f64::from(lo)) / f64::from(hi - lo);
                LOG_BOTTOM - f * (LOG_BOTTOM - TOP)
            }
            Axis::Log { .. } => return None,
        };
        Some((self.x(bin), y))
    }

    /// Page position of a zero in `bin` on a log axis's zero baseline.
    pub(super) fn zero_point(&self, bin: usize) -> (f64, f64) {
        (self.x(bin), ZERO_Y)
    }

    /// The frame, grid, ticks, tick labels and axis labels.
    pub(super) fn draw_axes(&self, s: &mut String, deciles: bool, x_label: &str, y_label: &str) {
        let _ = writeln!(s, "<g class=\"axes\" font-size=\"12\">");
        for (v, label) in self.axis.ticks() {
            let Some((_, y)) = self.point(0, v) else {
                continue;
            };
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{RIGHT}\" y2=\"{y:.1}\" \
                 stroke=\"#E0E0E0\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" \
                 text-anchor=\"end\">{label}</text>",
                LEFT - 6.0,
                y + 4.0
            );
        }
        if matches!(self.axis, Axis::Log { .. }) {
            let _ = writeln!(
                s,
                "<line class=\"zero-line\" x1=\"{LEFT}\" y1=\"{ZERO_Y}\" x2=\"{RIGHT}\" \
                 y2=\"{ZERO_Y}\" stroke=\"#999999\" stroke-dasharray=\"2 3\"/>\n\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>",
                LEFT - 6.0,
                ZERO_Y + 4.0
            );
        }
        let step = if deciles { 1 } else { 10 };
        let mut xs: Vec<usize> = (0..self.bins).step_by(step).collect();
        if !deciles && self.bins > 1 {
            xs.push(self.bins - 1);
        }
        for b in xs {
            let x = self.x(b);
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{BOTTOM}\" x2=\"{x:.1}\" y2=\"{:.1}\" \
                 stroke=\"#000000\"/>\n<text x=\"{x:.1}\" y=\"{:.1}\" \
                 text-anchor=\"middle\">{b}</text>",
                BOTTOM + 5.0,
                BOTTOM + 19.0
            );
        }
        let _ = writeln!(
            s,
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" \
             stroke=\"#000000\"/>",
            RIGHT - LEFT,
            BOTTOM - TOP
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"14\" text-anchor=\"middle\">{}</text>\n\
             <text font-size=\"14\" text-anchor=\"middle\" \
             transform=\"translate(28,{:.1}) rotate(-90)\">{}</text>\n</g>",
            (LEFT + RIGHT) / 2.0,
            BOTTOM + 44.0,
            crate::svg::escape(x_label),
            (TOP + BOTTOM) / 2.0,
            crate::svg::escape(y_label)
        );
    }

    /// `text` in a box in the middle of the plot area.
    pub(super) fn draw_message(&self, s: &mut String, text: &str) {
        let lines = wrap(text, 70);
        let height = 16.0 + 19.0 * lines.len() as f64;
        let mid = (TOP + BOTTOM) / 2.0;
        let _ = writeln!(
            s,
            "<g class=\"warning\">\n<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" \
             height=\"{height:.1}\" fill=\"#FFF4D6\" stroke=\"#A06000\"/>",
            LEFT + 10.0,
            mid - height / 2.0,
            RIGHT - LEFT - 20.0
        );
        for (i, line) in lines.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
                (LEFT + RIGHT) / 2.0,
                mid - height / 2.0 + 22.0 + 19.0 * i as f64,
                crate::svg::escape(line)
            );
        }
        let _ = writeln!(s, "</g>");
    }
}
