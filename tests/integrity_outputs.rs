//! No output destroys an input or a previous result, and every file sieve
//! writes is complete or absent: an output that is one of the inputs (by
//! any path) is refused; a write that fails (a full disk, a file-size
//! limit) or a process killed with `SIGKILL` leaves the previous file at
//! the output name byte for byte; two sweeps into one directory both
//! finish; a reader of stdout that stops early (`| head -1`) ends the
//! command quietly with exit 0.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use crate::util::{Dir, fixture, ok, repo_root};

/// CACM indexed with the made-up spam percentiles, built once for the
/// tests of this module, under Cargo's temporary directory for
/// integration tests (rebuilt on each run of the test binary).
fn cacm() -> &'static Path {
    static INDEX: OnceLock<PathBuf> = OnceLock::new();
    INDEX.get_or_init(|| {
        let ix = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("integrity-outputs-cacm");
        let _ = std::fs::remove_dir_all(&ix);
        ok(Command::new(crate::util::bin("sieve-index"))
            .args(["build", "--input"])
            .arg(fixture("cacm/cacm.trec.gz"))
            .arg("--index")
            .arg(&ix)
            .arg("--spam")
            .arg(fixture("spam/made-up-cacm-spam.txt")));
        ix
    })
}

fn topics() -> PathBuf {
    repo_root().join("topics/topics.cacm.txt")
}

fn qrels() -> PathBuf {
    fixture("eval/qrels.cacm.txt")
}

/// A command of one of the binaries run in `dir`, with its arguments.
fn cmd(dir: &Dir, bin: &str, args: &[&std::ffi::OsStr]) -> Command {
    let mut c = dir.cmd(bin);
    c.args(args);
    c
}

/// `sieve-search run` over CACM, every topic, 1000 hits: about 2.5 MB.
fn run_cmd(dir: &Dir, topics: &Path, out: &Path) -> Command {
    let ix = cacm();
    cmd(
        dir,
        "sieve-search",
        &[
            "run".as_ref(),
            "--hits".as_ref(),
            "1000".as_ref(),
            "--index".as_ref(),
            ix.as_os_str(),
            "--topics".as_ref(),
            topics.as_os_str(),
            "--output".as_ref(),
            out.as_os_str(),
        ],
    )
}

/// `sieve-filter build` from spam rankings.
fn filter_cmd(dir: &Dir, spam: &Path, out: &Path) -> Command {
    cmd(
        dir,
        "sieve-filter",
        &[
            "build".as_ref(),
            "--spam".as_ref(),
            spam.as_os_str(),
            "--min-spam-percentile".as_ref(),
            "70".as_ref(),
            "--output".as_ref(),
            out.as_os_str(),
        ],
    )
}

/// `sieve-filter utf8 INPUT --output OUT`.
fn utf8_cmd(dir: &Dir, input: &Path, out: &Path) -> Command {
    cmd(
        dir,
        "sieve-filter",
        &[
            "utf8".as_ref(),
            input.as_os_str(),
            "--output".as_ref(),
            out.as_os_str(),
        ],
    )
}

/// `sieve-search global-stats` over CACM.
fn stats_cmd(dir: &Dir, topics: &Path, out: &Path) -> Command {
    cmd(
        dir,
        "sieve-search",
        &[
            "global-stats".as_ref(),
            "--index".as_ref(),
            cacm().as_os_str(),
            "--topics".as_ref(),
            topics.as_os_str(),
            "--output".as_ref(),
            out.as_os_str(),
        ],
    )
}

/// `sieve-search sweep` over CACM with two spam thresholds, run files
/// included, into `out`.
fn sweep_cmd(dir: &Dir, out: &Path) -> Command {
    sweep_judged_by(dir, out, &qrels())
}

/// [`sweep_cmd`] with the qrels file `q`.
fn sweep_judged_by(dir: &Dir, out: &Path, q: &Path) -> Command {
    let t = topics();
    cmd(
        dir,
        "sieve-search",
        &[
            "sweep".as_ref(),
            "--index".as_ref(),
            cacm().as_os_str(),
            "--topics".as_ref(),
            t.as_os_str(),
            "--qrels".as_ref(),
            q.as_os_str(),
            "--min-spam-percentile".as_ref(),
            "50,70".as_ref(),
            "--runs".as_ref(),
            "--output-dir".as_ref(),
            out.as_os_str(),
        ],
    )
}

/// Bytes with every kind of UTF-8 damage, `n` long (seeded, the same
/// every time).
fn damaged_bytes(n: usize) -> Vec<u8> {
    let mut rng = Rng(0x005e_ed0f_u64);
    (0..n).map(|_| (rng.next() >> 24) as u8).collect()
}

/// xorshift64*: the seeded delays of the kill tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The ways of naming the file `input` again: itself, a symlink to it, a
/// hard link to it, and `sub/../NAME`.
fn same_file_names(dir: &Dir, input: &Path, tag: &str) -> Vec<PathBuf> {
    let name = input.file_name().unwrap().to_string_lossy().into_owned();
    let link = dir.join(&format!("{tag}-symlink"));
    std::os::unix::fs::symlink(input, &link).unwrap();
    let hard = dir.join(&format!("{tag}-hardlink"));
    std::fs::hard_link(input, &hard).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let dotdot = input.parent().unwrap().join("sub/..").join(&name);
    vec![input.to_path_buf(), link, hard, dotdot]
}

/// Runs `c`, asserts exit 1 with an error naming the output as an input,
/// and that `input` still holds `before`.
fn assert_refused(mut c: Command, input: &Path, before: &[u8]) {
    let out = c.output().expect("spawn");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{c:?}\n{err}");
    assert!(err.contains("the output is the input"), "{c:?}\n{err}");
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "{c:?} changed its input"
    );
}

sieve_test!(output_that_is_an_input_is_refused_through_any_path, |dir| {
    let text = dir.write("a.txt", b"caf\xc3\xa9 \xff bytes\n");
    let spam = dir.write(
        "s.txt",
        &std::fs::read(fixture("spam/made-up-cacm-spam.txt")).unwrap(),
    );
    let t = dir.write("t.txt", &std::fs::read(topics()).unwrap());
    type Make = fn(&Dir, &Path, &Path) -> Command;
    let cases: [(&Path, &str, Make); 4] = [
        (&text, "utf8", utf8_cmd),
        (&spam, "filter", filter_cmd),
        (&t, "run", run_cmd),
        (&t, "stats", stats_cmd),
    ];
    for (input, tag, make) in cases {
        let before = std::fs::read(input).unwrap();
        for out in same_file_names(&dir, input, tag) {
            assert_refused(make(&dir, input, &out), input, &before);
        }
    }
    // compare --html and sweep --html onto the qrels.
    let q = dir.write("q.txt", &std::fs::read(qrels()).unwrap());
    let before = std::fs::read(&q).unwrap();
    let run = fixture("eval/anserini__cacm-bm25.run.txt");
    let mut c = dir.cmd("sieve-search");
    c.args(["compare", "--qrels"]).arg(&q).arg(&run).arg(&run);
    c.arg("--html").arg(&q);
    assert_refused(c, &q, &before);
    let mut c = sweep_judged_by(&dir, &dir.join("sweep"), &q);
    c.arg("--html").arg(dir.path().join("sub/../q.txt"));
    assert_refused(c, &q, &before);
    assert!(
        !dir.join("sweep").exists(),
        "a refused sweep created its directory"
    );
    // sum-stats and merge-runs onto their own input.
    let stats = dir.join("g.json");
    ok(&mut stats_cmd(&dir, &topics(), &stats));
    let before = std::fs::read(&stats).unwrap();
    let mut c = dir.cmd("sieve-search");
    c.arg("sum-stats").arg(&stats).arg("--output").arg(&stats);
    assert_refused(c, &stats, &before);
    let r = dir.write("r.txt", &std::fs::read(&run).unwrap());
    let before = std::fs::read(&r).unwrap();
    let mut c = dir.cmd("sieve-search");
    c.arg("merge-runs")
        .arg(&r)
        .arg("--output")
        .arg(dir.path().join("sub/../r.txt"));
    assert_refused(c, &r, &before);
});

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

sieve_test!(
    failed_run_leaves_the_previous_output_and_no_partial_file,
    |dir| {
        let out = dir.write("out/run.txt", b"the previous run\n");
        // A file-size limit of 64 blocks: the 2.5 MB run cannot be written.
        let c = run_cmd(&dir, &topics(), &out);
        let mut sh = Command::new("sh");
        sh.current_dir(dir.path())
            .arg("-c")
            .arg("ulimit -f 64; trap '' XFSZ; exec \"$@\"")
            .arg("sh")
            .arg(c.get_program())
            .args(c.get_args());
        let o = sh.output().expect("spawn");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("File too large"), "{err}");
        assert_eq!(std::fs::read(&out).unwrap(), b"the previous run\n");
        assert_eq!(names(&dir.join("out")), ["run.txt"], "{err}");
    }
);

/// A small tmpfs mounted at a new directory, unmounted when dropped; `None`
/// (the test prints `SKIPPED`) where mounting is not permitted.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: PathBuf, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(&at).unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .output()
            .ok()?;
        if !o.status.success() {
            println!(
                "SKIPPED: cannot mount a tmpfs: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            );
            return None;
        }
        Some(Tmpfs(at))
    }

    /// Fills the file system with `filler` to the last byte.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.write_all(&block[..1]);
        let _ = f.sync_all();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

sieve_test!(full_disk_fails_clearly_and_keeps_the_previous_file, |dir| {
    let Some(fs) = Tmpfs::mount(dir.join("full"), "256k") else {
        return;
    };
    let big = dir.write("big.bin", &damaged_bytes(1 << 20));
    let spam = fixture("spam/made-up-cacm-spam.txt");
    let prev = b"previous\n";
    let out = |name: &str| {
        let p = fs.0.join(name);
        std::fs::write(&p, prev).unwrap();
        p
    };
    let cases = vec![
        ("run", run_cmd(&dir, &topics(), &out("run.txt"))),
        ("filter", filter_cmd(&dir, &spam, &out("filter.fst"))),
        ("utf8", utf8_cmd(&dir, &big, &out("clean.bin"))),
        ("stats", stats_cmd(&dir, &topics(), &out("stats.json"))),
    ];
    let sweep_dir = fs.0.join("sweep");
    std::fs::create_dir_all(sweep_dir.join("runs")).unwrap();
    std::fs::write(sweep_dir.join("sweep.tsv"), prev).unwrap();
    let mut cases = cases;
    cases.push(("sweep", sweep_cmd(&dir, &sweep_dir)));
    fs.fill();
    let before = names(&fs.0);
    for (what, mut c) in cases {
        let o = c.output().expect("spawn");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "{what}: succeeded on a full disk\n{err}"
        );
        assert!(err.contains("No space left"), "{what}: {err}");
        assert_eq!(names(&fs.0), before, "{what}: left a file behind\n{err}");
        assert_eq!(names(&sweep_dir), ["runs", "sweep.tsv"], "{what}: {err}");
        assert_eq!(
            names(&sweep_dir.join("runs")),
            Vec::<String>::new(),
            "{what}"
        );
        for name in ["run.txt", "filter.fst", "clean.bin", "stats.json"] {
            assert_eq!(
                std::fs::read(fs.0.join(name)).unwrap(),
                prev,
                "{what}: {name}"
            );
        }
        assert_eq!(std::fs::read(sweep_dir.join("sweep.tsv")).unwrap(), prev);
    }
});

/// Starts a writing command in a directory, writing into another.
type Start = dyn Fn(&Dir, &Path) -> Command;

/// One writing command for the kill test: how to start it writing into a
/// directory, and the files it writes there (relative names).
struct Writer {
    what: &'static str,
    start: Box<Start>,
    files: Vec<&'static str>,
}

fn writers(big: PathBuf) -> Vec<Writer> {
    let spam = fixture("spam/made-up-cacm-spam.txt");
    vec![
        Writer {
            what: "run",
            start: Box::new(|d, o| run_cmd(d, &topics(), &o.join("run.txt"))),
            files: vec!["run.txt"],
        },
        Writer {
            what: "sweep",
            start: Box::new(sweep_cmd),
            files: vec![
                "sweep.tsv",
                "sweep.svg",
                "runs/sieve.run",
                "runs/sieve_spam70.run",
            ],
        },
        Writer {
            what: "filter build",
            start: Box::new(move |d, o| filter_cmd(d, &spam, &o.join("filter.fst"))),
            files: vec!["filter.fst"],
        },
        Writer {
            what: "utf8",
            start: Box::new(move |d, o| utf8_cmd(d, &big, &o.join("clean.bin"))),
            files: vec!["clean.bin"],
        },
        Writer {
            what: "global-stats",
            start: Box::new(|d, o| stats_cmd(d, &topics(), &o.join("stats.json"))),
            files: vec!["stats.json"],
        },
    ]
}

sieve_test!(
    killed_writer_leaves_the_previous_or_the_complete_file,
    |dir| {
        let big = dir.write("big.bin", &damaged_bytes(8 << 20));
        let mut rng = Rng(20261128);
        let prev = b"previous output\n";
        for w in writers(big) {
            // The complete output, and how long it takes.
            let reference = dir.join(&format!("ref-{}", w.what.replace(' ', "-")));
            std::fs::create_dir_all(reference.join("runs")).unwrap();
            let started = Instant::now();
            ok(&mut (w.start)(&dir, &reference));
            let took = started.elapsed();
            for point in 0..4 {
                let out = dir.join(&format!("kill-{}-{point}", w.what.replace(' ', "-")));
                std::fs::create_dir_all(out.join("runs")).unwrap();
                for f in &w.files {
                    std::fs::write(out.join(f), prev).unwrap();
                }
                let delay = took.mul_f64((rng.next() % 1000) as f64 / 1000.0 * 1.2);
                let mut child = (w.start)(&dir, &out)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn");
                std::thread::sleep(delay);
                let _ = child.kill(); // SIGKILL
                let _ = child.wait();
                for f in &w.files {
                    let got = std::fs::read(out.join(f)).unwrap();
                    let want = std::fs::read(reference.join(f)).unwrap();
                    assert!(
                        got == prev || got == want,
                        "{}: {f} killed after {delay:?} (of {took:?}) is neither the previous \
                     file nor the complete one ({} bytes, complete {})",
                        w.what,
                        got.len(),
                        want.len()
                    );
                }
            }
        }
    }
);

sieve_test!(two_sweeps_into_one_directory_both_finish_complete, |dir| {
    let reference = dir.join("reference");
    ok(&mut sweep_cmd(&dir, &reference));
    let shared = dir.join("shared");
    let mut a = sweep_cmd(&dir, &shared)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut b = sweep_cmd(&dir, &shared)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (oa, ob) = (a.wait().unwrap(), b.wait().unwrap());
    let err = |c: &mut std::process::Child| {
        let mut s = String::new();
        std::io::Read::read_to_string(c.stderr.as_mut().unwrap(), &mut s).unwrap();
        s
    };
    assert!(oa.success(), "first sweep: {}", err(&mut a));
    assert!(ob.success(), "second sweep: {}", err(&mut b));
    for f in [
        "sweep.tsv",
        "sweep.svg",
        "runs/sieve.run",
        "runs/sieve_spam50.run",
        "runs/sieve_spam70.run",
    ] {
        assert_eq!(
            std::fs::read(shared.join(f)).unwrap(),
            std::fs::read(reference.join(f)).unwrap(),
            "{f}"
        );
    }
    assert_eq!(names(&shared.join("runs")), names(&reference.join("runs")));
    assert_eq!(names(&shared), names(&reference));
});

/// Runs `c` with its stdout read one line and then closed (as `| head
/// -1`); asserts exit 0 and nothing on stderr.
fn assert_quiet_when_stdout_closes(mut c: Command) {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut line = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut line).unwrap();
    assert!(!line.is_empty());
    drop(out);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{c:?}: {err}");
    assert_eq!(err, "", "{c:?}");
}

sieve_test!(closed_stdout_ends_quietly_with_exit_0, |dir| {
    // 4,000 documents with 60-byte docids: the list is 240 KB, more than a
    // pipe holds, so the write really fails.
    let mut trec = String::new();
    for i in 0..4000 {
        trec.push_str(&format!(
            "<DOC>\n<DOCNO>a-document-identifier-long-enough-to-fill-a-pipe-{i:08}</DOCNO>\n<TEXT>word{i} text</TEXT>\n</DOC>\n"
        ));
    }
    let input = dir.write("many.trec", trec.as_bytes());
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(&input)
        .args(["--index", "many"]));
    let mut c = dir.cmd("sieve-index");
    c.args(["docids", "--index", "many"]);
    assert_quiet_when_stdout_closes(c);
    let mut c = dir.cmd("sieve-search");
    c.args(["run", "--hits", "1000", "--index"])
        .arg(cacm())
        .arg("--topics")
        .arg(topics());
    assert_quiet_when_stdout_closes(c);
    let mut c = dir.cmd("sieve-index");
    c.args(["docids", "--doc-stats", "--index", "many"]);
    assert_quiet_when_stdout_closes(c);
    let big = dir.write("big.bin", &damaged_bytes(1 << 20));
    let mut c = dir.cmd("sieve-filter");
    c.arg("utf8").arg(&big).args(["--output", "-"]);
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
});
