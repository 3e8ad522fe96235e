//! `sieve-search fuse`: byte-identical to Anserini 1.7.1's FuseRuns on the
//! committed cases (`tests/data/fusion/cases.tsv`, outputs made by
//! `bench/peers/anserini_fuse.sh --update`), and the inputs it refuses.

use std::path::PathBuf;

use crate::util::{fails, fixture, ok};

/// The case's options as `sieve-search fuse` flags.
fn flags(options: &str) -> Vec<String> {
    let mut out = Vec::new();
    for opt in options.split_whitespace() {
        match opt.split_once('=') {
            None if opt == "min-max" => out.push("--min-max".to_string()),
            Some((key, value)) => {
                out.push(format!("--{}", key.replace('_', "-")));
                out.push(value.to_string());
            }
            _ => panic!("unknown option {opt} in cases.tsv"),
        }
    }
    out
}

sieve_test!(fuse_matches_committed_anserini_outputs, |dir| {
    let data = fixture("fusion");
    let cases = std::fs::read_to_string(data.join("cases.tsv")).unwrap();
    let mut checked = 0;
    for line in cases
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, method, runs) = (cols[0], cols[1], cols[2]);
        let out = dir.join(&format!("{name}.run"));
        ok(dir
            .cmd("sieve-search")
            .arg("fuse")
            .args(runs.split(',').map(|r| data.join(r)))
            .args(["--method", method, "--tag", "sieve.fusion", "-k", "20"])
            .args(flags(cols.get(3).copied().unwrap_or("")))
            .arg("--output")
            .arg(&out));
        let want = std::fs::read(data.join("anserini").join(format!("{name}.run"))).unwrap();
        let got = std::fs::read(&out).unwrap();
        if got != want {
            let (g, w) = (
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
            );
            let first = g.lines().zip(w.lines()).position(|(a, b)| a != b);
            panic!("{name}: sieve differs from Anserini at line {first:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 19, "every case of cases.tsv was compared");
});

const A: &[u8] = b"1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n2 Q0 a 1 1 x\n";
const B: &[u8] = b"1 Q0 d 1 3 x\n1 Q0 b 2 2 x\n1 Q0 e 3 1 x\n";

fn fuse(dir: &crate::util::Dir, args: &[&str]) -> std::process::Command {
    let mut c = dir.cmd("sieve-search");
    c.arg("fuse").args(args);
    c
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

sieve_test!(fuse_rrf_ties_missing_topics_and_depth, |dir| {
    dir.write("a.run", A);
    dir.write("b.run", B);
    let out = fuse(&dir, &["a.run", "b.run"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // b: 2/62; a and d tie at 1/61 ("a" iterates first in Java's HashMap)
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        "1 Q0 b 1 0.032258 sieve.fusion\n1 Q0 a 2 0.016393 sieve.fusion\n\
         1 Q0 d 3 0.016393 sieve.fusion\n1 Q0 c 4 0.015873 sieve.fusion\n\
         1 Q0 e 5 0.015873 sieve.fusion\n2 Q0 a 1 0.016393 sieve.fusion\n"
    );
    assert!(
        stderr(&out).contains("b.run lacks 1 of the 2 topics"),
        "{}",
        stderr(&out)
    );
    // --depth 1: only each topic's first line of each run
    let got = ok(&mut fuse(
        &dir,
        &["a.run", "b.run", "--depth", "1", "--method", "average"],
    ));
    assert_eq!(
        got,
        "1 Q0 a 1 1.500000 sieve.fusion\n1 Q0 d 2 1.500000 sieve.fusion\n\
         2 Q0 a 1 0.500000 sieve.fusion\n"
    );
});

sieve_test!(fuse_several_methods_write_one_file_each, |dir| {
    dir.write("a.run", A);
    dir.write("b.run", B);
    let out = fails(&mut fuse(
        &dir,
        &["a.run", "b.run", "--method", "rrf,average"],
    ));
    assert!(stderr(&out).contains("--output-dir"), "{}", stderr(&out));
    ok(&mut fuse(
        &dir,
        &[
            "a.run",
            "b.run",
            "--method",
            "rrf,weighted",
            "--weights",
            "1,2",
            "--output-dir",
            "out",
        ],
    ));
    let weighted = std::fs::read_to_string(dir.join("out/sieve.fusion_weighted.run")).unwrap();
    // b (2 + 2 x 2) and d (3 x 2) tie at 6: b iterates first in Java's HashMap
    assert!(
        weighted.starts_with("1 Q0 b 1 6.000000 sieve.fusion_weighted\n1 Q0 d 2 6.000000"),
        "{weighted}"
    );
    assert!(dir.join("out/sieve.fusion_rrf.run").exists());
});

sieve_test!(fuse_refusals, |dir| {
    dir.write("a.run", A);
    dir.write("empty.run", b"\n");
    dir.write("bad.run", b"1 Q0 a 1 3 x\n1 Q0 b 2 x\n");
    dir.write("dup.run", b"1 Q0 a 1 3 x\n2 Q0 a 1 3 x\n1 Q0 a 2 3 x\n");
    dir.write("nan.run", b"1 Q0 a 1 NaN x\n");
    let refused = |args: &[&str], want: &[&str]| {
        let out = fails(&mut fuse(&dir, args));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        for w in want {
            assert!(
                stderr(&out).contains(w),
                "{args:?}: {w:?} not in {}",
                stderr(&out)
            );
        }
    };
    refused(&["a.run", "empty.run"], &["empty.run", "empty"]);
    refused(&["a.run", "bad.run"], &["bad.run", "line 2"]);
    refused(
        &["a.run", "dup.run"],
        &["dup.run", "lines 1 and 3", "\"1\"", "\"a\""],
    );
    refused(&["a.run", "nan.run"], &["nan.run", "line 1", "finite"]);
    refused(&["a.run"], &["at least 2 runs"]);
    refused(
        &["a.run", "a.run", "--method", "weighted", "--weights", "1"],
        &["1 weights for 2 runs"],
    );
    refused(
        &[
            "a.run",
            "a.run",
            "--method",
            "weighted",
            "--weights",
            "1,nan",
        ],
        &["finite"],
    );
    refused(
        &[
            "a.run",
            "a.run",
            "--method",
            "interpolation",
            "--alpha",
            "inf",
        ],
        &["alpha"],
    );
    refused(
        &["a.run", "a.run", "a.run", "--method", "interpolation"],
        &["exactly 2 runs"],
    );
    refused(
        &["a.run", "a.run", "--weights", "1,1"],
        &["--weights applies only"],
    );
    // an output that is an input: refused, the input untouched
    refused(&["a.run", "empty.run", "--output", "a.run"], &["a.run"]);
    assert_eq!(std::fs::read(dir.join("a.run")).unwrap(), A);
    let p: PathBuf = dir.join("fused.run");
    refused(
        &["a.run", "bad.run", "--output", p.to_str().unwrap()],
        &["line 2"],
    );
    assert!(!p.exists(), "nothing written on an error");
});
