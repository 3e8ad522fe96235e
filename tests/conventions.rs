//! The field's conventions on the command lines: Anserini's single-dash
//! spellings do what they say, a single-dash long word never falls into
//! `-h` (help, exit 0, nothing done), one name per concept across the three
//! binaries (old spellings still work, hidden from help), and errors and
//! progress lines a newcomer can read.

use std::path::Path;

use crate::pipeline::{build, run};
use crate::util::{Dir, fails, fixture, ok};

sieve_test!(anserini_hits_is_not_help, |dir| {
    let index = dir.join("ix");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(fixture("trec"))
        .arg("--index")
        .arg(&index));
    let topics = dir.write("topics.txt", b"1:computer program\n");
    let run = ok(dir
        .cmd("sieve-search")
        .arg("run")
        .arg("-index")
        .arg(&index)
        .arg("-topics")
        .arg(&topics)
        .args(["-bm25", "-bm25.k1", "0.9", "-bm25.b", "0.4", "-hits", "2"]));
    assert_eq!(run.lines().count(), 2, "{run}");
    assert!(!run.contains("Usage"), "{run}");
});

sieve_test!(single_dash_long_flag_is_refused_naming_ours, |dir| {
    for (bin, words) in [
        ("sieve-search", &["run", "-hitz", "3"][..]),
        ("sieve-index", &["build", "-input", "x"][..]),
        ("sieve-filter", &["build", "-help-me"][..]),
    ] {
        let out = fails(dir.cmd(bin).args(words));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("`-{}`", words[1])), "{bin}: {err}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("Usage"));
    }
});

/// Does `help` list `word` as a whole word (so that `--out` is not found
/// inside `--output`, nor `stats` inside `global-stats`)?
fn lists(help: &str, word: &str) -> bool {
    let part =
        |c: Option<char>| matches!(c, Some(c) if c.is_ascii_alphanumeric() || c == '-' || c == '_');
    help.match_indices(word).any(|(i, _)| {
        !part(help[i + word.len()..].chars().next()) && !part(help[..i].chars().next_back())
    })
}

/// The `--help` text of `bin` with `words`.
fn help(dir: &Dir, bin: &str, words: &[&str]) -> String {
    ok(dir.cmd(bin).args(words).arg("--help"))
}

/// A `--help` check: binary, subcommand words, names it must list, old
/// names it must not list.
type HelpCase<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);

sieve_test!(help_shows_one_name_per_concept, |dir| {
    let cases: &[HelpCase] = &[
        (
            "sieve-filter",
            &["build"],
            &[
                "--min-spam-percentile",
                "--unscored",
                "--index",
                "--doc-stats",
                "--output",
            ],
            &["--min-percentile", "--stats", "--out"],
        ),
        ("sieve-filter", &["utf8"], &["--output"], &["--out"]),
        (
            "sieve-index",
            &["merge"],
            &["--shards", "--index"],
            &["--out", "--output"],
        ),
        (
            "sieve-index",
            &["report"],
            &["--index", "--output-dir"],
            &["--out"],
        ),
        (
            "sieve-index",
            &["docids"],
            &["--index", "--doc-stats"],
            &["--stats"],
        ),
        (
            "sieve-index",
            &["build"],
            &["--threads", "--progress-every", "--resume", "--json"],
            &[],
        ),
        (
            "sieve-index",
            &["build-shard"],
            &["--index", "--record"],
            &["--threads", "--resume", "--json", "--progress-every"],
        ),
        (
            "sieve-search",
            &["run"],
            &[
                "--index",
                "--unscored",
                "--collection-stats",
                "--min-spam-percentile",
                "--output",
            ],
            &["--drop-unscored", "--stats", "--out"],
        ),
        (
            "sieve-search",
            &["global-stats"],
            &["--index", "--output"],
            &["--out"],
        ),
        ("sieve-search", &["sum-stats"], &["--output"], &["--out"]),
        ("sieve-search", &["merge-runs"], &["--output"], &["--out"]),
        (
            "sieve-search",
            &["fuse"],
            &[
                "--method",
                "--weights",
                "--min-max",
                "--output",
                "--output-dir",
            ],
            &["--out"],
        ),
        (
            "sieve-search",
            &["compare"],
            &["P_10", "--measure", "--html", "--index"],
            &["P@10"],
        ),
        (
            "sieve-search",
            &["sweep"],
            &[
                "--index",
                "--unscored",
                "--collection-stats",
                "--min-spam-percentile",
                "--max-invalid-456-per-kb",
                "--max-rate",
                "--cross",
                "--output-dir",
                "--runs",
                "--html",
                "--measure",
                "--threads",
            ],
            &["--drop-unscored", "--stats", "--out", "--output"],
        ),
        ("sieve-search", &["eval"], &["--measure"], &[]),
        (
            "sieve-search",
            &[],
            &["global-stats", "sum-stats"],
            &["stats"],
        ),
    ];
    for (bin, words, new, old) in cases {
        let h = help(&dir, bin, words);
        for n in *new {
            assert!(lists(&h, n), "{bin} {words:?} --help lacks {n}:\n{h}");
        }
        for o in *old {
            assert!(!lists(&h, o), "{bin} {words:?} --help shows {o}:\n{h}");
        }
    }
    assert!(
        !help(&dir, "sieve-index", &["build-shard"]).contains("single-threaded, written"),
        "build-shard's help still says single-threaded beside --threads"
    );
});

/// Runs `cmd` and returns its stdout, which must equal `want`'s.
fn same_output(dir: &Dir, bin: &str, new: &[&str], old: &[&str]) -> String {
    let a = ok(dir.cmd(bin).args(new));
    let b = ok(dir.cmd(bin).args(old));
    assert_eq!(a, b, "{bin} {new:?} vs {old:?}");
    a
}

/// The path of `p` as a command-line word.
fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

sieve_test!(old_spellings_still_work_as_hidden_aliases, |dir| {
    let spam = fixture("spam/made-up-spam.txt");
    let ix = build(&dir, "ix", &["--spam", s(&spam)]);
    let ix = s(&ix);
    // sieve-filter build: --stats/--min-percentile/--out = --index/--min-spam-percentile/--output
    let (f_new, f_old) = (dir.join("new.filter"), dir.join("old.filter"));
    ok(dir.cmd("sieve-filter").args([
        "build",
        "--index",
        ix,
        "--min-spam-percentile",
        "70",
        "--output",
        s(&f_new),
    ]));
    ok(dir.cmd("sieve-filter").args([
        "build",
        "--stats",
        ix,
        "--min-percentile",
        "70",
        "--out",
        s(&f_old),
    ]));
    let counts = |f: &Path| {
        let v: serde_json::Value =
            serde_json::from_str(&ok(dir.cmd("sieve-filter").arg("inspect").arg(f))).unwrap();
        v["counts"].clone()
    };
    assert_eq!(counts(&f_new), counts(&f_old));
    assert!(counts(&f_new)["kept"].as_u64().unwrap() > 0);
    // docids --doc-stats = --stats; a TSV goes to sieve-filter --doc-stats
    let tsv = same_output(
        &dir,
        "sieve-index",
        &["docids", "--index", ix, "--doc-stats"],
        &["docids", "--index", ix, "--stats"],
    );
    let tsv = dir.write("docs.tsv", tsv.as_bytes());
    let f_tsv = dir.join("tsv.filter");
    ok(dir.cmd("sieve-filter").args([
        "build",
        "--doc-stats",
        s(&tsv),
        "--min-spam-percentile",
        "70",
        "--output",
        s(&f_tsv),
    ]));
    assert_eq!(counts(&f_tsv), counts(&f_new));
    // run: --unscored drop = --drop-unscored; --collection-stats = --stats;
    // --index A B = --index A --index B
    let a = run(
        &dir,
        &[Path::new(ix)],
        &[
            "--min-spam-percentile",
            "70",
            "--unscored",
            "drop",
            "--collection-stats",
            "filtered",
        ],
    );
    let b = run(
        &dir,
        &[Path::new(ix)],
        &[
            "--min-spam-percentile",
            "70",
            "--drop-unscored",
            "--stats",
            "filtered",
        ],
    );
    assert_eq!(a, b);
    assert_ne!(
        a,
        run(&dir, &[Path::new(ix)], &["--min-spam-percentile", "70"]),
        "--unscored drop changed nothing"
    );
    let topics = dir.write("t.txt", b"1:web page\n");
    let t = s(&topics);
    let shard = dir.join("shard");
    ok(dir
        .cmd("sieve-index")
        .args(["build-shard", "--input"])
        .arg(fixture("trec"))
        .args(["--index", s(&shard)]));
    // build-shard's flags that build only honours are still accepted.
    let out = ok(dir
        .cmd("sieve-index")
        .args([
            "build-shard",
            "--threads",
            "2",
            "--resume",
            "--json",
            "--input",
        ])
        .arg(fixture("trec"))
        .args(["--index", s(&shard)]));
    assert!(out.starts_with("already built"), "{out}");
    let sh = s(&shard);
    same_output(
        &dir,
        "sieve-search",
        &["run", "--index", ix, sh, "--topics", t],
        &["run", "--index", ix, "--index", sh, "--topics", t],
    );
    // global-stats --output = stats --out
    let (g_new, g_old) = (dir.join("g-new.json"), dir.join("g-old.json"));
    ok(dir.cmd("sieve-search").args([
        "global-stats",
        "--index",
        ix,
        "--topics",
        t,
        "--output",
        s(&g_new),
    ]));
    ok(dir
        .cmd("sieve-search")
        .args(["stats", "--index", ix, "--topics", t, "--out", s(&g_old)]));
    assert_eq!(
        std::fs::read(&g_new).unwrap(),
        std::fs::read(&g_old).unwrap()
    );
    // sieve-filter utf8 --out = --output
    let (c_new, c_old) = (dir.join("c-new"), dir.join("c-old"));
    let sample = fixture("utf8/every-class.html");
    same_output(
        &dir,
        "sieve-filter",
        &["utf8", s(&sample), "--output", s(&c_new)],
        &["utf8", s(&sample), "--out", s(&c_old)],
    );
    assert_eq!(
        std::fs::read(&c_new).unwrap(),
        std::fs::read(&c_old).unwrap()
    );
    // merge --index = --out
    ok(dir.cmd("sieve-index").args([
        "merge",
        "--shards",
        s(&shard),
        "--index",
        s(&dir.join("m1")),
    ]));
    ok(dir
        .cmd("sieve-index")
        .args(["merge", "--shards", s(&shard), "--out", s(&dir.join("m2"))]));
    assert_eq!(
        crate::pipeline::docids(&dir, &dir.join("m1")),
        crate::pipeline::docids(&dir, &dir.join("m2"))
    );
});

sieve_test!(compare_prints_the_measure_names_it_documents, |dir| {
    let qrels = dir.write("q", b"1 0 a 1\n1 0 b 0\n2 0 c 1\n");
    let ra = dir.write("a.run", b"1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 1 x\n");
    let rb = dir.write("b.run", b"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n2 Q0 c 1 1 y\n");
    let out = ok(dir
        .cmd("sieve-search")
        .args(["compare", "--qrels", s(&qrels), s(&ra), s(&rb)]));
    assert!(out.contains("P_10") && !out.contains("P@10"), "{out}");
    // The old spelling of a measure is still read, and printed as documented.
    let old = ok(dir.cmd("sieve-search").args([
        "compare",
        "--qrels",
        s(&qrels),
        "-m",
        "P@10",
        s(&ra),
        s(&rb),
    ]));
    assert!(old.contains("P_10") && !old.contains("P@10"), "{old}");
});

/// Runs `cmd` with Rust's backtrace variables set, asserts exit code 1 and
/// that stderr is one line, without a backtrace or a repeated cause, and
/// returns that line.
fn one_line_error(cmd: &mut std::process::Command) -> String {
    let out = cmd
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LIB_BACKTRACE", "1")
        .output()
        .expect("spawn");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{cmd:?}\n{err}");
    assert_eq!(err.lines().count(), 1, "{cmd:?}: not one line:\n{err}");
    for bad in ["stack backtrace", "caused by", "panicked"] {
        assert!(!err.to_lowercase().contains(bad), "{cmd:?}: {bad}:\n{err}");
    }
    err
}

sieve_test!(not_a_sieve_index_is_said_plainly_everywhere, |dir| {
    let topics = dir.write("t.txt", b"1:web page\n");
    let t = s(&topics);
    std::fs::create_dir(dir.join("empty")).unwrap();
    dir.write("file", b"not an index");
    for (x, why) in [
        ("empty", "no sieve.json"),
        ("file", "a file, not a directory"),
        ("missing", "no such directory"),
    ] {
        let commands: [(&str, Vec<&str>); 6] = [
            ("sieve-search", vec!["run", "--index", x, "--topics", t]),
            (
                "sieve-search",
                vec!["global-stats", "--index", x, "--topics", t],
            ),
            ("sieve-index", vec!["docids", "--index", x]),
            (
                "sieve-index",
                vec!["report", "--index", x, "--output-dir", "rep"],
            ),
            (
                "sieve-index",
                vec!["merge", "--shards", x, "--index", "merged"],
            ),
            (
                "sieve-filter",
                vec![
                    "build",
                    "--index",
                    x,
                    "--min-spam-percentile",
                    "70",
                    "--output",
                    "f",
                ],
            ),
        ];
        for (bin, words) in commands {
            let err = one_line_error(dir.cmd(bin).args(&words));
            assert!(
                err.contains(&format!("{x} is not a sieve index ({why})")),
                "{bin} {words:?}: {err}"
            );
            assert!(!err.contains("os error"), "{bin} {words:?}: {err}");
        }
        for made in ["rep", "merged", "f"] {
            assert!(
                !dir.join(made).exists(),
                "{made} was created for a non-index"
            );
        }
    }
});

sieve_test!(empty_run_qrels_and_topics_say_they_are_empty, |dir| {
    let empty = dir.write("empty", b"");
    let blank = dir.write("blank", b"\n  \n");
    let run = dir.write("one.run", b"1 Q0 a 1 1 t\n");
    let qrels = dir.write("one.qrels", b"1 0 a 1\n");
    let err = one_line_error(dir.cmd("sieve-search").arg("eval").arg(&qrels).arg(&empty));
    assert!(err.contains("the run file is empty"), "{err}");
    let err = one_line_error(dir.cmd("sieve-search").arg("eval").arg(&empty).arg(&run));
    assert!(err.contains("the qrels file is empty"), "{err}");
    let err = one_line_error(
        dir.cmd("sieve-search")
            .args(["compare", "--qrels"])
            .arg(&qrels)
            .arg(&run)
            .arg(&empty),
    );
    assert!(err.contains("the run file is empty"), "{err}");
    for topics in [&empty, &blank] {
        let err = one_line_error(dir.cmd("sieve-search").arg("topics").arg(topics));
        assert!(err.contains("the topic file is empty or blank"), "{err}");
    }
});

sieve_test!(user_errors_print_no_backtrace_and_each_cause_once, |dir| {
    let run = dir.write("one.run", b"1 Q0 a 1 1 t\n");
    let err = one_line_error(
        dir.cmd("sieve-search")
            .args(["eval", "missing.qrels"])
            .arg(&run),
    );
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert!(err.starts_with("sieve-search: error: "), "{err}");
    let err = one_line_error(dir.cmd("sieve-filter").args(["inspect", "missing.filter"]));
    assert!(
        err.starts_with("sieve-filter: error: missing.filter"),
        "{err}"
    );
    // A file given where a new index directory is wanted.
    let file = dir.write("ix-file", b"precious");
    let err = one_line_error(
        dir.cmd("sieve-index")
            .args(["build", "--input"])
            .arg(fixture("trec"))
            .arg("--index")
            .arg(&file),
    );
    assert!(err.contains("a file, not a directory"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"precious");
});

/// The rates in plain progress lines: `(N docs/s)`.
fn rates(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.starts_with("sieve-index: progress: "))
        .map(|l| {
            let start = l.find(" (").expect("a rate") + 2;
            let end = l.find(" docs/s)").expect("docs/s");
            l[start..end].to_string()
        })
        .collect()
}

sieve_test!(
    progress_is_a_plain_line_every_n_seconds_when_not_a_terminal,
    |dir| {
        let cacm = fixture("cacm/cacm.trec.gz");
        let build = |name: &str, every: &str| {
            let out = dir
                .cmd("sieve-index")
                .args(["build", "--input"])
                .arg(&cacm)
                .args(["--index", name, "--progress-every", every])
                .output()
                .expect("spawn");
            assert!(out.status.success(), "{out:?}");
            String::from_utf8_lossy(&out.stderr).into_owned()
        };
        let err = build("a", "0.01");
        let r = rates(&err);
        assert!(!r.is_empty(), "no progress line:\n{err}");
        for rate in &r {
            let digits = rate.trim_start_matches(['0', '.']).replace('.', "");
            assert!(
                digits.len() <= 3 || digits.trim_end_matches('0').len() <= 3,
                "rate {rate} not rounded:\n{err}"
            );
        }
        assert!(
            err.contains("cacm.trec.gz"),
            "the line names the file:\n{err}"
        );
        let quiet = build("b", "0");
        assert!(
            rates(&quiet).is_empty(),
            "--progress-every 0 printed:\n{quiet}"
        );
        let bad = crate::util::fails(dir.cmd("sieve-index").args([
            "build",
            "--input",
            "x",
            "--index",
            "c",
            "--progress-every",
            "-1",
        ]));
        assert!(!String::from_utf8_lossy(&bad.stderr).is_empty());
    }
);

sieve_test!(outputs_say_what_their_numbers_mean, |dir| {
    // eval: 2 of the run's 3 topics are judged; stdout stays trec_eval's.
    let qrels = dir.write("q", b"1 0 a 1\n2 0 b 1\n4 0 c 1\n");
    let run = dir.write("r", b"1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n3 Q0 c 1 1 t\n");
    let out = dir
        .cmd("sieve-search")
        .arg("eval")
        .arg(&qrels)
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 of the run's 3 topics have judgements"),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["num_q", "all", "2"]),
        "{stdout}"
    );
    assert!(!stdout.contains("judgements"), "{stdout}");
    // compare: a legend for n, win/loss/tie, t and p.
    let cmp = ok(dir
        .cmd("sieve-search")
        .args(["compare", "--qrels"])
        .arg(&qrels)
        .arg(&run)
        .arg(&run));
    assert!(cmp.contains("paired two-sided t-test"), "{cmp}");
    // build: the summary says what the counts are; the lost file is named once.
    let spam = fixture("spam/made-up-spam.txt");
    let out = crate::pipeline::build_cmd(&dir, &dir.join("ix"))
        .arg("--spam")
        .arg(&spam)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    for phrase in [
        "records not indexed, by reason:",
        "framing anomalies (damage stepped over",
        "UTF-8 errors, class=occurrences/documents",
        "charset decided by:",
        "HTTP responses",
    ] {
        assert!(stdout.contains(phrase), "{phrase}:\n{stdout}");
    }
    assert!(
        err.contains("distinct docids") && !err.contains("sorted runs"),
        "{err}"
    );
    let both = format!("{stdout}{err}");
    assert_eq!(
        both.matches("unexpected end of gzip stream").count(),
        1,
        "{both}"
    );
    assert!(
        err.contains("not read to the end: ") && err.contains("resiliparse__clipped.warc.gz"),
        "{err}"
    );
    assert!(err.contains("exit code 3"), "{err}");
    // sieve-filter build says which list the file holds and what that means.
    let filter = dir.join("f");
    let said = ok(dir
        .cmd("sieve-filter")
        .args(["build", "--min-spam-percentile", "70", "--index"])
        .arg(dir.join("ix"))
        .arg("--output")
        .arg(&filter));
    assert!(
        said.contains("the file lists the kept docids: any other docid is dropped")
            && !said.contains("Keep list"),
        "{said}"
    );
    // run: what the count of runs is.
    let topics = dir.write("t.txt", b"1:web page\n");
    let out = dir
        .cmd("sieve-search")
        .args(["run", "--topics"])
        .arg(&topics)
        .arg("--index")
        .arg(dir.join("ix"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("searched 1 topics for each of 1 run (one per model setting and filter)"),
        "{err}"
    );
});

// Found while naming flags: `run --index A --index A` failed with the run
// writer's internal "is a duplicate; call rank_hits first".
sieve_test!(same_index_twice_is_refused_naming_it, |dir| {
    let index = dir.join("ix");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(fixture("trec"))
        .arg("--index")
        .arg(&index));
    let topics = dir.write("topics.txt", b"1:computer program\n");
    let again = dir.path().join(".").join("ix");
    let out = fails(
        dir.cmd("sieve-search")
            .arg("run")
            .arg("--index")
            .arg(&index)
            .arg("--index")
            .arg(&again)
            .arg("--topics")
            .arg(&topics),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the same index as"), "{err}");
    assert!(!err.contains("rank_hits"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
});
