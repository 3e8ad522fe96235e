//! Integrity of a build under faults: an output directory is
//! locked for the whole build, a directory or file sieve did not create is
//! never written over, only the last component of `--index` is created, and
//! the exit status follows the one scheme of `sieve_cli::exit`.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use crate::util::{Dir, code, fails, fixture, ok};

/// Every file of `dir` (recursively) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn build_cmd(dir: &Dir, input: &Path, index: &Path) -> std::process::Command {
    let mut c = dir.cmd("sieve-index");
    c.args(["build", "--threads", "1", "--input"])
        .arg(input)
        .arg("--index")
        .arg(index);
    c
}

/// Holds `DIR/sieve.lock` from this process, as a running build would.
fn hold_lock(index: &Path) -> File {
    std::fs::create_dir_all(index).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(index.join("sieve.lock"))
        .unwrap();
    f.try_lock().expect("the test takes the lock");
    f.set_len(0).unwrap();
    use std::io::Write;
    writeln!(f, "pid={} host=the-test started=0", std::process::id()).unwrap();
    f
}

sieve_test!(
    racing_builds_loser_changes_nothing_and_names_the_holder,
    |dir| {
        let input = fixture("warc/jwarc__cc.warc.gz");
        // A finished index, then a "racing" build holds its lock: a resume and a
        // fresh build into it both fail and leave every file as it was.
        let ix = dir.join("ix");
        ok(&mut build_cmd(&dir, &input, &ix));
        let before = snapshot(&ix);
        let lock = hold_lock(&ix);
        let held = snapshot(&ix);
        for extra in [&["--resume"][..], &[][..]] {
            let out = fails(build_cmd(&dir, &input, &ix).args(extra));
            assert_eq!(out.status.code(), Some(1), "{extra:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("host=the-test"), "{err}");
            assert!(
                err.contains(&format!("pid={}", std::process::id())),
                "{err}"
            );
            assert_eq!(snapshot(&ix), held, "{extra:?} changed the index");
        }
        drop(lock);
        let after: Vec<_> = snapshot(&ix).into_keys().collect();
        assert_eq!(after, before.into_keys().collect::<Vec<_>>());
        // A new directory whose lock is held: the loser creates nothing in it.
        let fresh = dir.join("fresh");
        let _lock = hold_lock(&fresh);
        let out = fails(&mut build_cmd(&dir, &input, &fresh));
        assert!(String::from_utf8_lossy(&out.stderr).contains("host=the-test"));
        let names: Vec<_> = std::fs::read_dir(&fresh)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["sieve.lock"]);
        // Two real builds started together into one new directory: at most one
        // succeeds, and the result is a whole index (the loser changed nothing).
        let raced = dir.join("raced");
        let a = build_cmd(&dir, &fixture("warc"), &raced).output_async();
        let b = build_cmd(&dir, &fixture("warc"), &raced).output().unwrap();
        let a = a.wait_with_output().unwrap();
        let codes = [a.status.code(), b.status.code()];
        assert!(codes.contains(&Some(1)), "{codes:?}");
        assert!(codes.contains(&Some(3)), "{codes:?}");
    }
);

/// `Command::spawn` with captured output.
trait SpawnCaptured {
    fn output_async(&mut self) -> std::process::Child;
}

impl SpawnCaptured for std::process::Command {
    fn output_async(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}

sieve_test!(
    users_files_in_index_or_quarantine_dir_are_never_overwritten,
    |dir| {
        let input = fixture("warc/resiliparse__clipped.warc.gz");
        // An index directory holding the user's own stats.json and losses.jsonl.
        let ix = dir.join("mine");
        dir.write("mine/stats.json", b"my stats\n");
        dir.write("mine/losses.jsonl", b"my losses\n");
        let before = snapshot(&ix);
        let out = fails(&mut build_cmd(&dir, &input, &ix));
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("stats.json") && err.contains("losses.jsonl"),
            "{err}"
        );
        assert_eq!(snapshot(&ix), before, "the user's directory was changed");
        // A quarantine directory holding a file named like sieve's.
        let q = dir.join("q");
        dir.write("q/f0000-000000000000.rec", b"mine\n");
        let before = snapshot(&q);
        let out = fails(
            build_cmd(&dir, &input, &dir.join("ix"))
                .arg("--quarantine")
                .arg(&q),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("f0000-000000000000.rec"), "{err}");
        assert_eq!(
            snapshot(&q),
            before,
            "the user's quarantine dir was changed"
        );
    }
);

sieve_test!(build_into_a_missing_parent_is_refused_naming_it, |dir| {
    let input = fixture("warc/jwarc__cc.warc.gz");
    let out = fails(&mut build_cmd(&dir, &input, &dir.join("no/such/ix")));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&dir.join("no/such").display().to_string()),
        "{err}"
    );
    assert!(!dir.join("no").exists(), "a parent was created");
});

sieve_test!(
    exit_codes_say_partial_and_empty_and_name_the_file_once,
    |dir| {
        let clipped = fixture("warc/resiliparse__clipped.warc.gz");
        // Read only in part: done, exit 3; the file is named once per message,
        // and its file-level error is in losses.jsonl as well as stats.json.
        let ix = dir.join("ix");
        let stdout = code(&mut build_cmd(&dir, &clipped, &ix), 3);
        let out = build_cmd(&dir, &clipped, &dir.join("ix2"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let name = clipped.display().to_string();
        for line in stdout
            .lines()
            .chain(err.lines())
            .filter(|l| l.contains(&name))
        {
            assert_eq!(line.matches(&name).count(), 1, "{line}");
        }
        assert!(stdout.contains("FAILED"), "{stdout}");
        let losses = std::fs::read_to_string(ix.join("losses.jsonl")).unwrap();
        assert!(losses.contains(r#""reason":"file_error""#), "{losses}");
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(ix.join("stats.json")).unwrap()).unwrap();
        assert_eq!(
            stats["failed_files"][0]
                .as_str()
                .unwrap()
                .matches(&name)
                .count(),
            1
        );
        // scan: part of the input unreadable is 3, nothing readable is 4.
        code(
            dir.cmd("sieve-index")
                .args(["scan", "--input"])
                .arg(&clipped),
            3,
        );
        let junk = dir.write("junk.bin", b"\x00\x01 not a crawl at all");
        code(
            dir.cmd("sieve-index").args(["scan", "--input"]).arg(&junk),
            4,
        );
        code(
            dir.cmd("sieve-index")
                .args(["scan", "--input"])
                .arg(fixture("warc/jwarc__cc.warc.gz")),
            0,
        );
        // build: empty or useless input is 4; a usage error is clap's 2.
        let empty = dir.write("empty.warc", b"");
        code(&mut build_cmd(&dir, &empty, &dir.join("e")), 4);
        code(&mut build_cmd(&dir, &junk, &dir.join("j")), 4);
        code(dir.cmd("sieve-index").args(["build", "--no-such-flag"]), 2);
        code(dir.cmd("sieve-search").arg("--no-such-flag"), 2);
        code(dir.cmd("sieve-filter").arg("--no-such-flag"), 2);
    }
);

sieve_test!(
    foreign_quarantine_refused_before_the_index_is_created,
    |dir| {
        let input = fixture("warc/jwarc__cc.warc.gz");
        dir.write("q/notes.txt", b"the user's notes\n");
        // A directory of the user's, and one whose parent is missing.
        for (n, q) in [dir.join("q"), dir.join("missing/q")].iter().enumerate() {
            let before = snapshot(dir.path());
            let index = dir.join(&format!("new{n}"));
            let out = fails(build_cmd(&dir, &input, &index).arg("--quarantine").arg(q));
            let err = String::from_utf8_lossy(&out.stderr);
            let named = if n == 0 {
                q.clone()
            } else {
                dir.join("missing")
            };
            assert!(err.contains(&named.display().to_string()), "{err}");
            assert!(!index.exists(), "{} was created: {err}", index.display());
            assert_eq!(
                snapshot(dir.path()),
                before,
                "the refused run changed files"
            );
        }
    }
);

sieve_test!(refused_spam_build_writes_nothing_beside_the_index, |dir| {
    let input = fixture("warc/jwarc__cc.warc.gz");
    let spam = fixture("spam/made-up-spam.txt");
    let index = dir.join("idx");
    // A user's file named like the old temporary spam map, and a build
    // holding the index's lock.
    dir.write("idx.spam.fst.tmp", b"the user's file\n");
    let _held = hold_lock(&index);
    let before = snapshot(dir.path());
    let out = fails(build_cmd(&dir, &input, &index).arg("--spam").arg(&spam));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        snapshot(dir.path()),
        before,
        "the refused run changed files"
    );
    // Without the lock, the build succeeds and still leaves the file alone.
    drop(_held);
    ok(build_cmd(&dir, &input, &dir.join("idx2"))
        .arg("--spam")
        .arg(&spam));
    assert_eq!(
        std::fs::read(dir.join("idx.spam.fst.tmp")).unwrap(),
        b"the user's file\n"
    );
    assert!(!dir.join("idx2.spam.fst.tmp").exists());
});

/// `bytes` with the first digit after `"key": ` changed.
fn flip_value(bytes: &[u8], key: &str) -> Vec<u8> {
    let pat = format!("\"{key}\": ");
    let at = bytes
        .windows(pat.len())
        .position(|w| w == pat.as_bytes())
        .unwrap_or_else(|| panic!("no {key}"))
        + pat.len();
    let mut out = bytes.to_vec();
    let i = (at..out.len()).find(|&i| out[i].is_ascii_digit()).unwrap();
    out[i] = if out[i] == b'7' { b'8' } else { b'7' };
    out
}

sieve_test!(
    damaged_or_edited_index_json_is_refused_naming_the_file,
    |dir| {
        let input = fixture("warc/jwarc__cc.warc.gz");
        let shard = dir.join("s1");
        ok(dir
            .cmd("sieve-index")
            .args(["build-shard", "--input"])
            .arg(&input)
            .arg("--index")
            .arg(&shard));
        let topics = dir.write("t.txt", b"1:common\n");
        for (file, key) in [("sieve.json", "schema_version"), ("stats.json", "indexed")] {
            let path = shard.join(file);
            let good = std::fs::read(&path).unwrap();
            let value: serde_json::Value = serde_json::from_slice(&good).unwrap();
            assert!(value.get("sieve_seal").is_some(), "{file} has no seal");
            // A flipped byte inside a value, and the file re-serialised by hand
            // (same values, other bytes).
            let rewritten = serde_json::to_vec_pretty(&value).unwrap();
            for (what, bad) in [
                ("flipped", flip_value(&good, key)),
                ("rewritten", rewritten),
            ] {
                std::fs::write(&path, &bad).unwrap();
                let mut cmds = vec![{
                    let mut c = dir.cmd("sieve-index");
                    c.args(["merge", "--out", "merged", "--shards"]).arg(&shard);
                    c
                }];
                if file == "sieve.json" {
                    let mut run = dir.cmd("sieve-search");
                    run.args(["run", "--topics"])
                        .arg(&topics)
                        .arg("--index")
                        .arg(&shard);
                    let mut resume = build_cmd(&dir, &input, &shard);
                    resume.arg("--resume");
                    cmds.extend([run, resume]);
                }
                for mut c in cmds {
                    let out = fails(&mut c);
                    let err = String::from_utf8_lossy(&out.stderr);
                    assert_eq!(out.status.code(), Some(1), "{what} {file}: {c:?}\n{err}");
                    assert!(
                        err.contains(&path.display().to_string()) && err.contains("seal"),
                        "{what} {file}: {c:?}\n{err}"
                    );
                    assert!(!err.contains("panicked"), "{err}");
                }
                assert!(!dir.join("merged").exists());
            }
            std::fs::write(&path, &good).unwrap();
        }
    }
);
