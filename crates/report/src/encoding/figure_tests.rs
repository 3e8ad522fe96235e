//! Tests of Figure 5 and its per-bin files: names, titles and axes per
//! mode, markers, lines broken at empty bins, palette and dashes, the
//! legend's notes on coinciding classes, the log axis, the cumulative
//! form, the empty-figure warning, and a PNG rendering that is not blank.

use std::path::Path;

use resvg::tiny_skia;
use sieve_filters::spam::{SpamMap, SpamMapBuilder};
use sieve_filters::utf8::{ErrorClass, Utf8Counts};
use sieve_format::document::IndexDoc;

use super::figure::{COLOURS, DASHES, MARKERS, notes};
use super::tally::CLASSES;
use super::tests::{assert_well_formed, build_index, doc, hand_built, line, read};
use super::*;

/// Builds an index of `docs` (one segment) and writes its report with
/// `opts`; returns the output directory (inside `tmp`) and the summary.
fn report(tmp: &Path, docs: Vec<IndexDoc>, opts: &ReportOptions) -> (PathBuf, ReportSummary) {
    let (idx, out) = (tmp.join("idx"), tmp.join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    build_index(&idx, vec![docs]);
    let summary = write_report(&idx, &out, opts).expect("report");
    (out, summary)
}

fn names(s: &ReportSummary) -> Vec<String> {
    s.files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn uc(n: u64) -> Utf8Counts {
    Utf8Counts {
        unexpected_continuation: n,
        ..Default::default()
    }
}

/// The lines of `svg` that draw class `key`'s series lines.
fn series_lines<'a>(svg: &'a str, key: &str) -> Vec<&'a str> {
    let class = format!("class=\"series s-{key}\"");
    svg.lines().filter(|l| l.contains(&class)).collect()
}

/// The `points` of a polyline as pairs.
fn points(polyline: &str) -> Vec<(f64, f64)> {
    let at = polyline.find("points=\"").expect("points") + 8;
    let rest = &polyline[at..];
    rest[..rest.find('"').expect("end")]
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().expect("x"), y.parse().expect("y"))
        })
        .collect()
}

/// The legend's notes and the log-axis note, line by line as wrapped,
/// joined by spaces.
fn note_text(svg: &str) -> String {
    svg.lines()
        .filter(|l| l.starts_with("<text class=\"note\""))
        .map(|l| {
            let start = l.find('>').expect(">") + 1;
            &l[start..l.rfind("</text>").expect("</text>")]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

#[test]
fn deciles_mode_names_files_title_and_axis_by_decile() {
    let tmp = tempfile::tempdir().expect("tmp");
    let opts = ReportOptions {
        deciles: true,
        ..Default::default()
    };
    let (out, s) = report(tmp.path(), hand_built().concat(), &opts);
    assert_eq!(
        names(&s),
        [
            "table1.tsv",
            "table1.md",
            "by-decile.tsv",
            "figure5-deciles.svg",
            "significance.tsv",
            "charsets.tsv"
        ]
    );
    assert!(!out.join("by-percentile.tsv").exists());
    assert!(!out.join("figure5.svg").exists());
    let svg = read(&out, "figure5-deciles.svg");
    assert_well_formed(svg.trim());
    assert!(svg.contains(&figure_title(true, false)), "{svg}");
    assert!(svg.contains("by spam decile</text>"));
    assert!(svg.contains("Spam decile (0 = percentiles 0"));
    assert!(!svg.contains("by spam percentile"));
    assert!(!svg.contains("Spam percentile"));
    // Ten x ticks, 0 to 9.
    assert!(svg.contains("text-anchor=\"middle\">9</text>"));
    assert!(!svg.contains("text-anchor=\"middle\">10</text>"));

    let tmp = tempfile::tempdir().expect("tmp");
    let (out, _) = report(tmp.path(), hand_built().concat(), &Default::default());
    let svg = read(&out, "figure5.svg");
    assert!(svg.contains(FIGURE5_TITLE));
    assert_eq!(FIGURE5_TITLE, figure_title(false, false));
    assert!(!svg.contains("decile"));
    assert!(svg.contains("text-anchor=\"middle\">99</text>"));
}

#[test]
fn empty_bins_break_the_lines() {
    // Unexpected continuation bytes at percentiles 10, 11 and 13; 12 has
    // no document. One line joins 10 and 11; 13 stands alone.
    let tmp = tempfile::tempdir().expect("tmp");
    let docs = vec![
        doc("a", uc(1), 0, Some(10)),
        doc("b", uc(1), 0, Some(11)),
        doc("c", uc(1), 0, Some(13)),
        doc("d", Utf8Counts::default(), 0, Some(13)),
    ];
    let (out, _) = report(tmp.path(), docs, &Default::default());
    let svg = read(&out, "figure5.svg");
    let lines = series_lines(&svg, "unexpected_continuation");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let pts = points(lines[0]);
    assert_eq!(pts.len(), 2, "{pts:?}");
    // Markers on all three data points (and one in the legend).
    assert_eq!(count(&svg, "class=\"marker m-unexpected_continuation\""), 4);
    // The markers' x positions: bins 10, 11, 13 (x grows with the bin).
    assert!(pts[0].0 < pts[1].0);
    // Every other class is 0 at those bins: the same break.
    for class in &ErrorClass::ALL[1..] {
        assert_eq!(series_lines(&svg, class.key()).len(), 1, "{}", class.key());
        assert_eq!(
            count(&svg, &format!("class=\"marker m-{}\"", class.key())),
            4
        );
    }
}

#[test]
fn classes_have_distinct_colours_dashes_and_markers() {
    for (set, name) in [
        (
            COLOURS.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>(),
            "colours",
        ),
        (DASHES.iter().map(|d| format!("{d:?}")).collect(), "dashes"),
        (MARKERS.iter().map(|m| m.to_string()).collect(), "markers"),
    ] {
        let mut sorted = set.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), set.len(), "{name} repeat: {set:?}");
    }
    // Okabe–Ito: every colour is one of its eight.
    const OKABE_ITO: [(u8, u8, u8); 8] = [
        (0, 0, 0),
        (230, 159, 0),
        (86, 180, 233),
        (0, 158, 115),
        (240, 228, 66),
        (0, 114, 178),
        (213, 94, 0),
        (204, 121, 167),
    ];
    assert!(COLOURS.iter().all(|c| OKABE_ITO.contains(c)));
    // The drawn lines carry them.
    let tmp = tempfile::tempdir().expect("tmp");
    let docs = vec![doc("a", uc(1), 0, Some(0)), doc("b", uc(0), 0, Some(1))];
    let (out, _) = report(tmp.path(), docs, &Default::default());
    let svg = read(&out, "figure5.svg");
    for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
        let l = series_lines(&svg, class.key());
        assert_eq!(l.len(), 1);
        match DASHES[c] {
            Some(d) => assert!(
                l[0].contains(&format!("stroke-dasharray=\"{d}\"")),
                "{}",
                l[0]
            ),
            None => assert!(!l[0].contains("stroke-dasharray"), "{}", l[0]),
        }
    }
}

#[test]
fn coinciding_classes_are_named_in_the_legend() {
    // hand_built: among scored documents, four classes are 0 in every bin
    // (invalid 4/5/6 and over-long NUL occur only in the unscored d3), and
    // missing continuation and surrogate occur together in d1 only.
    let tmp = tempfile::tempdir().expect("tmp");
    let (out, _) = report(tmp.path(), hand_built().concat(), &Default::default());
    let svg = read(&out, "figure5.svg");
    let notes_drawn = note_text(&svg);
    assert_eq!(
        count(
            &notes_drawn,
            "0 in every bin, as are 3 other classes: lines overlap"
        ),
        4,
        "{notes_drawn}"
    );
    for other in [1, 2] {
        let want = format!("same values as {}", ErrorClass::ALL[other].label());
        assert!(notes_drawn.contains(&want), "{want}: {notes_drawn}");
    }
    // Identical non-zero series, and a class with nothing to draw.
    let s = vec![
        vec![Some(0.5), None, Some(0.25)],
        vec![Some(0.5), None, Some(0.25)],
        vec![Some(0.0), None, Some(0.0)],
        vec![None, None, None],
        vec![Some(0.5), None, Some(0.3)],
        vec![Some(0.5), None, Some(0.25)],
    ];
    let n = notes(&s, false);
    let uc = ErrorClass::ALL[0].label();
    let mc = ErrorClass::ALL[1].label();
    assert_eq!(
        n[0].as_deref(),
        Some(format!("same values as {mc} and 1 more").as_str())
    );
    assert_eq!(
        n[1].as_deref(),
        Some(format!("same values as {uc} and 1 more").as_str())
    );
    assert_eq!(n[2].as_deref(), Some("0 in every bin"));
    assert_eq!(
        n[3].as_deref(),
        Some("nothing to draw: no document has a spam score")
    );
    assert_eq!(
        notes(&s, true)[3].as_deref(),
        Some("no occurrence in a scored document: no curve")
    );
    assert_eq!(n[4], None);
}

#[test]
fn log_y_draws_zeros_on_a_separate_baseline() {
    // Proportions at percentiles 0..=3: 0.5, 0, 0.01, 0.02.
    let tmp = tempfile::tempdir().expect("tmp");
    let mut docs = vec![doc("a0", uc(1), 0, Some(0)), doc("a1", uc(0), 0, Some(0))];
    docs.push(doc("b", uc(0), 0, Some(1)));
    for p in 2..4u8 {
        for i in 0..100 {
            let errs = uc(u64::from(i < p - 1));
            docs.push(doc(&format!("c{p}-{i}"), errs, 0, Some(p)));
        }
    }
    let opts = ReportOptions {
        log_y: true,
        ..Default::default()
    };
    let (out, _) = report(tmp.path(), docs, &opts);
    let svg = read(&out, "figure5.svg");
    assert!(svg.contains("(log scale)"), "{svg}");
    // Powers of ten from 0.01 to 1, and the separate 0 line.
    for tick in ["0.01", "0.1", "1"] {
        assert!(
            svg.contains(&format!("text-anchor=\"end\">{tick}</text>")),
            "{tick}"
        );
    }
    assert!(!svg.contains("text-anchor=\"end\">0.001</text>"));
    assert_eq!(count(&svg, "class=\"zero-line\""), 1);
    assert!(svg.contains("text-anchor=\"end\">0</text>"));
    // The class's one zero (percentile 1) is a hollow marker; the line
    // joins only 2 and 3 (0 and 2 are not neighbours once 1 is left out).
    let key = "unexpected_continuation";
    assert_eq!(count(&svg, &format!("m-{key} zero\"")), 1);
    let lines = series_lines(&svg, key);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(points(lines[0]).len(), 2);
    // Classes that are 0 everywhere: four hollow markers each, no line.
    assert_eq!(count(&svg, "m-overlong_nul zero\""), 4);
    assert!(series_lines(&svg, "overlong_nul").is_empty());
    assert!(
        note_text(&svg).contains(
            "Log axis: zeros are hollow markers on the 0 line below the axis, not joined."
        )
    );
    // On a linear axis the zero is a point like any other.
    let tmp = tempfile::tempdir().expect("tmp");
    let docs = vec![doc("a", uc(1), 0, Some(0)), doc("b", uc(0), 0, Some(1))];
    let (out, _) = report(tmp.path(), docs, &Default::default());
    let svg = read(&out, "figure5.svg");
    assert_eq!(count(&svg, " zero\""), 0);
    assert_eq!(points(series_lines(&svg, key)[0]).len(), 2);
}

#[test]
fn cumulative_is_the_percentage_of_occurrences_at_or_below_each_bin() {
    // Unexpected continuation: 3 occurrences at percentile 10, 1 at 20,
    // none at 50; 5 in an unscored document (left out).
    let docs = vec![
        doc("a", uc(3), 0, Some(10)),
        doc("b", uc(1), 0, Some(20)),
        doc("c", uc(0), 0, Some(50)),
        doc("d", uc(5), 0, None),
    ];
    let tmp = tempfile::tempdir().expect("tmp");
    let opts = ReportOptions {
        cumulative: true,
        ..Default::default()
    };
    let (out, s) = report(tmp.path(), docs.clone(), &opts);
    assert_eq!(
        names(&s)[2..5],
        [
            "by-percentile.tsv",
            "cumulative-by-percentile.tsv",
            "figure5-cumulative.svg"
        ]
    );
    let t = read(&out, "cumulative-by-percentile.tsv");
    assert!(t.starts_with(
        "percentile\tdocuments\tunexpected_continuation_occurrences\t\
         unexpected_continuation_cumulative_percent\t"
    ));
    let cols = |p: &str| {
        line(&t, p)
            .split('\t')
            .take(5)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(cols("9"), "9 0 0 0.000000 0");
    assert_eq!(cols("10"), "10 1 3 75.000000 0");
    assert_eq!(cols("19"), "19 0 0 75.000000 0");
    assert_eq!(cols("20"), "20 1 1 100.000000 0");
    assert_eq!(cols("99"), "99 0 0 100.000000 0");
    // A class without occurrences has no cumulative percentage.
    assert!(line(&t, "99").ends_with("\t0\tNA"), "{t}");
    let svg = read(&out, "figure5-cumulative.svg");
    assert!(svg.contains(&figure_title(false, true)));
    assert!(svg.contains("Cumulative percentage"));
    // Points only where documents are (10, 20, 50): two lines? No: 10,
    // 20 and 50 are not neighbours, so markers only.
    assert_eq!(count(&svg, "class=\"marker m-unexpected_continuation\""), 4);
    assert!(series_lines(&svg, "unexpected_continuation").is_empty());
    assert!(note_text(&svg).contains("no occurrence in a scored document: no curve"));

    let tmp = tempfile::tempdir().expect("tmp");
    let opts = ReportOptions {
        cumulative: true,
        deciles: true,
        ..Default::default()
    };
    let (out, s) = report(tmp.path(), docs, &opts);
    assert!(names(&s).contains(&"figure5-cumulative-deciles.svg".to_string()));
    let t = read(&out, "cumulative-by-decile.tsv");
    let cols = |p: &str| {
        line(&t, p)
            .split('\t')
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(cols("0"), "0 0 0 0.000000");
    assert_eq!(cols("1"), "1 1 3 75.000000");
    assert_eq!(cols("2"), "2 1 1 100.000000");
    assert_eq!(cols("5"), "5 1 0 100.000000");
    let svg = read(&out, "figure5-cumulative-deciles.svg");
    // Deciles 1, 2 neighbour: one line; 5 stands alone.
    let lines = series_lines(&svg, "unexpected_continuation");
    assert_eq!(lines.len(), 1);
    assert_eq!(points(lines[0]).len(), 2);
}

fn spam_map(entries: &[(&str, u8)]) -> SpamMap<Vec<u8>> {
    let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
    for (k, v) in entries {
        b.insert(k, *v).expect("insert");
    }
    SpamMap::new(b.finish().expect("finish")).expect("map")
}

#[test]
fn empty_figure_warns_why() {
    let cases: Vec<(Vec<IndexDoc>, ReportOptions, &str)> = vec![
        (
            vec![doc("a", uc(1), 0, None), doc("b", uc(0), 0, None)],
            ReportOptions::default(),
            "Figure 5 is empty: none of the 2 documents has a spam score (the index holds \
             no spam scores and no spam rankings were given).",
        ),
        (
            vec![doc("a", uc(1), 0, Some(3)), doc("b", uc(1), 0, Some(5))],
            ReportOptions {
                spam: Some(spam_map(&[("zz", 4)])),
                ..Default::default()
            },
            "Figure 5 is empty: none of the 2 documents has a spam score (no docid of the \
             index is in the spam rankings given).",
        ),
        (
            vec![
                doc("a", uc(0), 0, Some(3)),
                doc("b", uc(0), 0, Some(4)),
                doc("c", uc(1), 0, None),
            ],
            ReportOptions {
                cumulative: true,
                ..Default::default()
            },
            "Figure 5 is empty: none of the 2 documents with a spam score contains a UTF-8 \
             error, so every class is 0 in every bin.",
        ),
        (
            Vec::new(),
            ReportOptions::default(),
            "Figure 5 is empty: the index has no documents.",
        ),
    ];
    for (docs, opts, want) in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        let (out, s) = report(tmp.path(), docs, &opts);
        assert_eq!(s.warnings, [want]);
        assert!(read(&out, "table1.md").contains(&format!("**Warning:** {want}")));
        let name = if opts.cumulative {
            "figure5-cumulative.svg"
        } else {
            "figure5.svg"
        };
        let svg = read(&out, name);
        assert!(svg.contains("class=\"warning\""), "{svg}");
        assert!(svg.contains("Figure 5 is empty:"));
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let (out, s) = report(tmp.path(), hand_built().concat(), &Default::default());
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert!(!read(&out, "figure5.svg").contains("class=\"warning\""));
    assert!(!read(&out, "table1.md").contains("Warning"));
}

/// Renders `svg` to an RGBA pixmap, without its text (the tests' resvg
/// has no font shaping): the checks below are of shapes and colours.
fn render(svg: &str) -> tiny_skia::Pixmap {
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("parse svg");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
}

/// `(fraction of pixels that are not the white background, number of
/// 30-degree hue sectors holding at least 40 clearly coloured pixels)`.
fn ink_and_hues(p: &tiny_skia::Pixmap) -> (f64, usize) {
    let mut ink = 0usize;
    let mut sectors = [0usize; 12];
    for px in p.pixels() {
        let c = px.demultiply();
        let (r, g, b) = (
            f64::from(c.red()),
            f64::from(c.green()),
            f64::from(c.blue()),
        );
        let (max, min) = (r.max(g).max(b), r.min(g).min(b));
        if c.alpha() > 0 && min < 245.0 {
            ink += 1;
        }
        if max - min < 60.0 {
            continue; // grey: no hue
        }
        let d = max - min;
        let h = if max == r {
            ((g - b) / d).rem_euclid(6.0)
        } else if max == g {
            (b - r) / d + 2.0
        } else {
            (r - g) / d + 4.0
        } * 60.0;
        sectors[((h / 30.0) as usize).min(11)] += 1;
    }
    let hues = sectors.iter().filter(|&&n| n >= 40).count();
    (ink as f64 / p.pixels().len() as f64, hues)
}

/// Documents with made-up error rates falling with the spam percentile,
/// every percentile but a few holding documents.
fn synthetic() -> Vec<IndexDoc> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const RATES: [u64; CLASSES] = [300, 200, 40, 60, 8, 15, 0];
    (0..3000u64)
        .filter_map(|i| {
            let p = (i % 100) as u8;
            if (40..43).contains(&p) {
                return None; // empty bins
            }
            let mut counts = Utf8Counts::default();
            for (k, class) in ErrorClass::ALL.into_iter().enumerate() {
                if (next() & 1023) * 99 < RATES[k] * (198 - u64::from(p)) {
                    *counts.get_mut(class) = 1 + (next() & 3);
                }
            }
            Some(doc(&format!("s{i}"), counts, 0, Some(p)))
        })
        .collect()
}

#[test]
fn figure5_renders_to_a_png_that_is_not_blank() {
    // The check itself: a blank page fails it.
    let blank = render(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\
         <rect width=\"100\" height=\"100\" fill=\"#FFFFFF\"/></svg>",
    );
    assert_eq!(ink_and_hues(&blank), (0.0, 0));
    let keep = std::env::var_os("SIEVE_FIGURE_PNG").map(PathBuf::from);
    let modes = [
        (false, false, false),
        (true, false, false),
        (false, true, false),
        (true, true, false),
        (false, false, true),
        (true, true, true),
    ];
    let tmp = tempfile::tempdir().expect("tmp");
    let idx = tmp.path().join("idx");
    std::fs::create_dir(&idx).expect("mkdir");
    build_index(&idx, vec![synthetic()]);
    for (deciles, cumulative, log_y) in modes {
        let opts = ReportOptions {
            deciles,
            cumulative,
            log_y,
            ..Default::default()
        };
        let out = tmp
            .path()
            .join(format!("out-{deciles}-{cumulative}-{log_y}"));
        let s = write_report(&idx, &out, &opts).expect("report");
        assert!(s.warnings.is_empty());
        let name = super::figure::figure_name(super::figure::FigureOptions {
            deciles,
            cumulative,
            log_y,
        });
        let png = render(&read(&out, name));
        let (ink, hues) = ink_and_hues(&png);
        assert!(ink > 0.02, "{name} (log {log_y}): {ink:.4} of pixels drawn");
        assert!(hues >= 4, "{name} (log {log_y}): {hues} hue sectors");
        if let Some(dir) = &keep {
            std::fs::create_dir_all(dir).expect("mkdir");
            let file = format!(
                "{}{}.png",
                name.trim_end_matches(".svg"),
                if log_y { "-log" } else { "" }
            );
            png.save_png(dir.join(file)).expect("png");
        }
    }
}

/// The guide's sample (`docs/figure5-sample.svg`, shown in GUIDE.md) and an empty figure
/// with its warning also render to pictures that are not blank
/// (`SIEVE_FIGURE_PNG=DIR` keeps the PNGs).
#[test]
fn sample_and_empty_figures_render_to_pngs_that_are_not_blank() {
    let keep = std::env::var_os("SIEVE_FIGURE_PNG").map(PathBuf::from);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/figure5-sample.svg");
    let sample = std::fs::read_to_string(&sample).expect("docs/figure5-sample.svg");
    assert!(sample.contains(&figure_title(true, true)));
    let tmp = tempfile::tempdir().expect("tmp");
    let docs = vec![doc("a", uc(1), 0, None)];
    let (out, s) = report(tmp.path(), docs, &Default::default());
    assert_eq!(
        s.warnings,
        [
            "Figure 5 is empty: the index's one document has no spam score (the index \
          holds no spam scores and no spam rankings were given)."
        ]
    );
    let empty = read(&out, "figure5.svg");
    for (name, svg, min_hues) in [("sample", sample, 3), ("empty", empty, 1)] {
        let png = render(&svg);
        let (ink, hues) = ink_and_hues(&png);
        assert!(ink > 0.02, "{name}: {ink:.4} of pixels drawn");
        assert!(hues >= min_hues, "{name}: {hues} hue sectors");
        if let Some(dir) = &keep {
            std::fs::create_dir_all(dir).expect("mkdir");
            png.save_png(dir.join(format!("{name}.png"))).expect("png");
        }
    }
}
