//! `sieve-index report` end to end: Figure 5's options, the files each
//! mode writes, and the warning on stderr for an empty figure.

use crate::pipeline::build;
use crate::util::fixture;

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
