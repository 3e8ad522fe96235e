//! `sieve-index report` end to end: Figure 5's options, the files each
//! mode writes, the warning on stderr for an empty figure, and the
//! near-duplicate rate per spam bin.

use std::path::{Path, PathBuf};

use crate::pipeline::build;
use crate::util::{fixture, ok};

sieve_test!(report_warns_on_stderr_when_figure5_is_empty, |dir| {
    // Built without spam scores: nothing to draw.
    let ix = build(&dir, "ix", &[]);
    let out = dir.join("report");
    let got = dir
        .cmd("sieve-index")
        .args(["report", "--index"])
        .arg(&ix)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("spawn");
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(got.status.success(), "{stderr}");
    let want = "Figure 5 is empty: none of the 49 documents has a spam score \
                (the index holds no spam scores and no spam rankings were given).";
    assert!(
        stderr.contains(&format!("sieve-index report: warning: {want}")),
        "{stderr}"
    );
    let md = std::fs::read_to_string(out.join("table1.md")).expect("table1.md");
    assert!(md.contains(want), "{md}");
    assert!(
        std::fs::read_to_string(out.join("figure5.svg"))
            .expect("svg")
            .contains("Figure 5 is empty:")
    );
});

sieve_test!(report_cumulative_deciles_log_y_names_files_by_mode, |dir| {
    // Spam scores are MADE UP (tests/data/SOURCES.md).
    let spam = fixture("spam/made-up-spam.txt");
    let ix = build(&dir, "ix", &["--spam", spam.to_str().unwrap()]);
    let out = dir.join("report");
    let got = dir
        .cmd("sieve-index")
        .args(["report", "--cumulative", "--deciles", "--log-y", "--index"])
        .arg(&ix)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("spawn");
    let stdout = String::from_utf8_lossy(&got.stdout);
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(got.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    for f in [
        "by-decile.tsv",
        "cumulative-by-decile.tsv",
        "figure5-cumulative-deciles.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
        assert!(stdout.contains(f), "{stdout}");
    }
    for f in ["by-percentile.tsv", "figure5.svg", "figure5-deciles.svg"] {
        assert!(!out.join(f).exists(), "{f}");
    }
    let svg = std::fs::read_to_string(out.join("figure5-cumulative-deciles.svg")).unwrap();
    assert!(svg.contains("Cumulative percentage of each UTF-8 error class"));
    assert!(svg.contains("by spam decile"));
    assert!(svg.contains("(log scale)"));
});

sieve_test!(report_adds_the_near_duplicate_rate_per_spam_bin, |dir| {
    // Made-up copies with known clusters (`made_up_copies`: D00-D09 and
    // E10-E19 are the 20 near-duplicates) and MADE-UP spam percentiles
    // (tests/data/SOURCES.md: percentile 5 holds 11 documents, 10 of them
    // near-duplicates; 55 holds 10, 9 of them; E19 is unscored).
    let (input, _) = crate::near_duplicates::made_up_copies(&dir);
    let spam = fixture("spam/made-up-copies-spam.txt");
    let build = |name: &str, extra: &[&str]| {
        let ix = dir.join(name);
        ok(dir
            .cmd("sieve-index")
            .arg("build")
            .args(extra)
            .arg("--input")
            .arg(&input)
            .arg("--index")
            .arg(&ix)
            .arg("--spam")
            .arg(&spam));
        ix
    };
    let report = |ix: &Path, name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let stdout = ok(dir
            .cmd("sieve-index")
            .args(["report", "--index"])
            .arg(ix)
            .arg("--output-dir")
            .arg(&out)
            .args(extra));
        (out, stdout)
    };
    let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    // The last two columns of a bin's row.
    let tail = |tsv: &str, bin: usize| -> String {
        let cells: Vec<&str> = tsv.lines().nth(1 + bin).unwrap().split('\t').collect();
        assert_eq!(cells[0], bin.to_string());
        cells[cells.len() - 2..].join("\t")
    };
    let ix = build("idx", &[]);
    let (out, stdout) = report(&ix, "report", &[]);
    let bp = read(out.join("by-percentile.tsv"));
    assert!(
        bp.lines()
            .next()
            .unwrap()
            .ends_with("\tnear_duplicates\tnear_duplicate_rate"),
        "{bp}"
    );
    assert_eq!(tail(&bp, 5), "10\t0.909091");
    assert_eq!(tail(&bp, 55), "9\t0.900000");
    assert_eq!(tail(&bp, 50), "0\t0.000000");
    assert_eq!(tail(&bp, 15), "0\t0.000000");
    assert_eq!(tail(&bp, 6), "0\tNA");
    let line = "Near-duplicates (members of a near-duplicate cluster other than its representative): \
                20 of the 40 documents (50.00%); 19 of the 39 with a spam score (48.72%); \
                by spam decile (0 spammiest): 0: 90.91%, 1: 0.00%, 2: 0.00%, 3: 0.00%, 4: 0.00%, \
                5: 45.00%, 6: 0.00%, 7: 0.00%, 8: 0.00%, 9: 0.00%.";
    assert!(read(out.join("table1.md")).contains(line));
    assert!(stdout.contains(line), "{stdout}");
    // The separate file agrees with the columns.
    let nd = read(out.join("near-duplicates-by-percentile.tsv"));
    assert_eq!(nd.lines().nth(1 + 55).unwrap(), "55\t10\t9\t0.900000");
    // By decile.
    let (out, _) = report(&ix, "deciles", &["--deciles"]);
    let bd = read(out.join("by-decile.tsv"));
    assert_eq!(bd.lines().count(), 11);
    assert_eq!(tail(&bd, 0), "10\t0.909091");
    assert_eq!(tail(&bd, 5), "9\t0.450000");
    assert_eq!(tail(&bd, 3), "0\t0.000000");
    // An index without cluster columns: the report is written and says so.
    let bare = build("bare", &["--no-near-duplicates"]);
    let (out, stdout) = report(&bare, "bare-report", &[]);
    let bp = read(out.join("by-percentile.tsv"));
    assert_eq!(tail(&bp, 5), "NA\tNA");
    let says = "Near-duplicates: the index has no near-duplicate clusters";
    assert!(read(out.join("table1.md")).contains(says));
    assert!(stdout.contains(says), "{stdout}");
    assert!(!out.join("near-duplicates-by-percentile.tsv").exists());
    assert!(out.join("figure5.svg").is_file());
});
