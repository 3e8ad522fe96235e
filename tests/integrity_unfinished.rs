//! An index whose build did not finish (killed part way, or being resumed)
//! is never searched silently: `sieve.json` records the build's state, every
//! reader refuses an unfinished index naming it and the ways out
//! (`--resume`, or `--allow-unfinished`, which warns on every run), and
//! `verify` names an unfinished build and every missing file.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::determinism::many_inputs;
use crate::util::{Dir, ok};

/// The build of `index` over `inputs`: one thread, a commit after every
/// file, each file named on stderr as it starts (`file [i/n] PATH`).
fn build_cmd(dir: &Dir, inputs: &[PathBuf], index: &str) -> Command {
    let mut c = dir.cmd("sieve-index");
    c.args(["build", "--threads", "1", "--commit-every-mb", "0"]);
    c.args(["--progress-every", "0.01", "--index", index]);
    for p in inputs {
        c.arg("--input").arg(p);
    }
    c
}

/// Starts `c` and returns it once it has named file `n` or a later one on
/// stderr (the progress line is printed every 10 ms, naming the file being
/// written: every file before it is committed); the rest of its stderr is
/// drained by a thread.
fn start_until_file(c: &mut Command, n: usize) -> Child {
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let at = |line: &str| {
        line.split_once("file [")
            .and_then(|(_, r)| r.split_once('/'))
            .and_then(|(i, _)| i.parse::<usize>().ok())
    };
    loop {
        match lines.next() {
            Some(Ok(line)) if at(&line).is_some_and(|i| i >= n) => break,
            Some(Ok(_)) => {}
            _ => panic!("the build ended before file {n}"),
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    child
}

/// Builds `index` over `inputs` and kills it (SIGKILL) once it writes its
/// third file or a later one: at least two files are committed, and the
/// build did not finish. Returns the documents committed.
fn interrupted(dir: &Dir, inputs: &[PathBuf], index: &str) -> u64 {
    let mut child = start_until_file(&mut build_cmd(dir, inputs, index), 3);
    let _ = child.kill();
    let _ = child.wait();
    assert!(!dir.join(index).join("stats.json").exists());
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(index).join("meta.json")).unwrap()).unwrap();
    let docs: u64 = meta["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["max_doc"].as_u64().unwrap())
        .sum();
    assert!(
        docs >= 46 && docs.is_multiple_of(23),
        "{docs} documents committed"
    );
    docs
}

/// The `state` recorded in `index`'s `sieve.json`.
fn state(index: &Path) -> String {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index.join("sieve.json")).unwrap()).unwrap();
    m["state"].as_str().unwrap_or("(none)").to_string()
}

/// Runs `cmd`, asserts it exits 1 refusing the unfinished index `index`
/// with one error line naming it and the resume; returns that line.
fn refused(cmd: &mut Command, index: &str) -> String {
    let out = cmd.output().expect("spawn");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{cmd:?}\n{err}");
    assert_eq!(err.lines().count(), 1, "{cmd:?}: not one line:\n{err}");
    for want in [index, "unfinished", "--resume"] {
        assert!(err.contains(want), "{cmd:?}: no {want:?}:\n{err}");
    }
    err
}

sieve_test!(
    interrupted_build_is_refused_by_every_reader_unless_allowed,
    |dir| {
        let inputs = many_inputs(&dir);
        let committed = interrupted(&dir, &inputs, "ix");
        let topics = dir.write("t.txt", b"1:web page\n2:search engine\n");
        let qrels = dir.write("q.qrels", b"1 0 x 1\n2 0 y 1\n");
        let t = topics.to_str().unwrap();
        let q = qrels.to_str().unwrap();
        let search = |words: &[&str]| {
            let mut c = dir.cmd("sieve-search");
            c.args(words);
            c
        };
        let index = |words: &[&str]| {
            let mut c = dir.cmd("sieve-index");
            c.args(words);
            c
        };
        let err = refused(&mut search(&["run", "--index", "ix", "--topics", t]), "ix");
        assert!(
            err.contains(&format!("({committed} documents committed)")),
            "{err}"
        );
        assert!(err.contains("--allow-unfinished"), "{err}");
        assert_eq!(state(&dir.join("ix")), "building");
        refused(
            &mut search(&["global-stats", "--index", "ix", "--topics", t]),
            "ix",
        );
        refused(
            &mut search(&[
                "sweep",
                "--index",
                "ix",
                "--topics",
                t,
                "--qrels",
                q,
                "--output-dir",
                "sw",
                "--min-spam-percentile",
                "50",
            ]),
            "ix",
        );
        refused(&mut index(&["docids", "--index", "ix"]), "ix");
        refused(&mut index(&["docids", "--stats", "--index", "ix"]), "ix");
        refused(&mut index(&["show", "--index", "ix", "f00-x"]), "ix");
        refused(
            &mut index(&["report", "--index", "ix", "--output-dir", "rep"]),
            "ix",
        );
        let err = refused(
            &mut index(&["merge", "--shards", "ix", "--index", "merged"]),
            "ix",
        );
        assert!(
            !err.contains("--allow-unfinished"),
            "merge has no such flag: {err}"
        );
        // Nor have the commands that write from an index.
        for words in [
            &["bounds", "--index", "ix"][..],
            &["near-duplicates", "--index", "ix"],
        ] {
            let err = refused(&mut index(words), "ix");
            assert!(!err.contains("--allow-unfinished"), "{words:?}: {err}");
        }
        let mut filter = dir.cmd("sieve-filter");
        filter.args(["build", "--index", "ix", "--min-spam-percentile", "70"]);
        let err = refused(filter.args(["--output", "f"]), "ix");
        assert!(!err.contains("--allow-unfinished"), "{err}");
        for made in ["sw", "rep", "merged", "f"] {
            assert!(!dir.join(made).exists(), "{made} was written");
        }
        // With the flag, what is committed is searched, with a warning on
        // every run.
        for _ in 0..2 {
            let out = search(&["run", "--allow-unfinished", "--index", "ix", "--topics", t])
                .arg("--output")
                .arg("a.run")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{err}");
            assert!(
                err.contains("warning") && err.contains("ix") && err.contains("unfinished"),
                "{err}"
            );
        }
        assert!(!std::fs::read(dir.join("a.run")).unwrap().is_empty());
        let html = [
            "compare", "--qrels", q, "a.run", "a.run", "--html", "c.html",
        ];
        let mut c = search(&html);
        refused(c.args(["--index", "ix"]), "ix");
        let mut c = search(&html);
        ok(c.args(["--allow-unfinished", "--index", "ix"]));
        ok(&mut index(&[
            "docids",
            "--allow-unfinished",
            "--index",
            "ix",
        ]));
        // Finished by a resume, it is searched without a word.
        ok(build_cmd(&dir, &inputs, "ix").arg("--resume"));
        assert_eq!(state(&dir.join("ix")), "finished");
        let out = search(&["run", "--index", "ix", "--topics", t])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("unfinished"));
    }
);

sieve_test!(index_being_resumed_reads_as_unfinished, |dir| {
    let inputs = many_inputs(&dir);
    interrupted(&dir, &inputs, "ix");
    // A resume under way: the index says it is building, and is refused.
    let mut resume = build_cmd(&dir, &inputs, "ix");
    let mut child = start_until_file(resume.arg("--resume"), 1);
    assert_eq!(state(&dir.join("ix")), "building");
    refused(
        dir.cmd("sieve-index").args(["docids", "--index", "ix"]),
        "ix",
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(state(&dir.join("ix")), "finished");
    ok(dir.cmd("sieve-index").args(["docids", "--index", "ix"]));
});

/// Runs `sieve-index verify` on `index`: its exit code and its output
/// (stdout and stderr).
fn verify(dir: &Dir, index: &str) -> (Option<i32>, String) {
    let out = dir
        .cmd("sieve-index")
        .args(["verify", "--index", index])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

sieve_test!(
    verify_names_an_unfinished_build_and_every_missing_file,
    |dir| {
        let inputs = many_inputs(&dir);
        interrupted(&dir, &inputs, "ix");
        let (code, text) = verify(&dir, "ix");
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains("unfinished") && text.contains("--resume"),
            "{text}"
        );
        // A finished index whose stats.json is deleted.
        ok(&mut build_cmd(&dir, &inputs[..2], "done"));
        let (code, text) = verify(&dir, "done");
        assert_eq!(code, Some(0), "{text}");
        std::fs::remove_file(dir.join("done/stats.json")).unwrap();
        let (code, text) = verify(&dir, "done");
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains("stats.json") && text.contains("missing"),
            "{text}"
        );
        // And one of its segment files.
        let seg = std::fs::read_dir(dir.join("done"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.ends_with(".idx"))
            .expect("a segment file");
        std::fs::remove_file(dir.join("done").join(&seg)).unwrap();
        let (code, text) = verify(&dir, "done");
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains(&seg) && text.contains("stats.json"), "{text}");
    }
);
