//! Figure 5 of the report as SVG: the proportion of documents with each
//! error class by spam percentile (or decile).

use sieve_filters::utf8::ErrorClass;

use super::tables::Bin;
use super::tally::CLASSES;

/// Title of Figure 5.
pub const FIGURE5_TITLE: &str =
    "Proportion of documents with each UTF-8 error class by spam percentile";

/// Series colours (Okabe–Ito, readable by colour-blind readers).
pub(super) const COLOURS: [(u8, u8, u8); CLASSES] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (0, 0, 0),
];

pub(super) fn figure5_svg(bins: &[Bin], deciles: bool) -> std::result::Result<String, String> {
    use plotters::prelude::*;
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let series: Vec<Vec<(f64, f64)>> = (0..CLASSES)
        .map(|c| {
            bins.iter()
                .enumerate()
                .filter(|(_, b)| b.docs > 0)
                .map(|(i, b)| (i as f64, b.with[c] as f64 / b.docs as f64))
                .collect()
        })
        .collect();
    let y_max = series.iter().flatten().map(|p| p.1).fold(0.0f64, f64::max);
    let y_top = if y_max > 0.0 { y_max * 1.1 } else { 1.0 };
    let x_max = (bins.len().max(2) - 1) as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(FIGURE5_TITLE, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..x_max, 0f64..y_top)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(if deciles {
                "Spam decile (0 = spammiest)"
            } else {
                "Spam percentile (0 = spammiest, 99 = least spammy)"
            })
            .y_desc("Proportion of documents containing the error")
            .x_labels(if deciles { 10 } else { 11 })
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.3}"))
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()
            .map_err(|x| e(&x))?;
        for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
            let (r, g, b) = COLOURS[c];
            let colour = RGBColor(r, g, b);
            chart
                .draw_series(LineSeries::new(
                    series[c].iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(|x| e(&x))?
                .label(class.label())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(|x| e(&x))?;
        root.present().map_err(|x| e(&x))?;
    }
    Ok(svg)
}
