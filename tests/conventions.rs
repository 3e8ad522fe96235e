//! The field's conventions on the command lines: Anserini's single-dash
//! spellings do what they say, and a single-dash long word never falls into
//! `-h` (help, exit 0, nothing done).

use crate::util::{fails, fixture, ok};

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
