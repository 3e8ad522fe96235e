//! Helpers for the end-to-end test binary in `tests/integration.rs`.
//!
//! Modelled on ripgrep's harness: each test gets a fresh temporary directory
//! ([`Dir`]) and runs the real binaries ([`Dir::cmd`]), which Cargo builds
//! before the tests and names in `CARGO_BIN_EXE_*`, so `cargo test` alone
//! works.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Declares an end-to-end test that receives a fresh [`Dir`].
///
/// ```ignore
/// sieve_test!(utf8_counts, |dir| { /* dir: crate::util::Dir */ });
/// ```
macro_rules! sieve_test {
    ($name:ident, |$dir:ident| $body:block) => {
        #[test]
        fn $name() {
            let $dir = $crate::util::Dir::new(stringify!($name));
            $body
        }
    };
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A committed fixture under `tests/data/`.
pub fn fixture(rel: &str) -> PathBuf {
    let p = repo_root().join("tests/data").join(rel);
    assert!(p.exists(), "fixture {} is missing", p.display());
    p
}

/// The path of one of the `sieve` package's binaries (built by Cargo for
/// this test binary).
pub fn bin(name: &str) -> PathBuf {
    PathBuf::from(match name {
        "sieve-index" => env!("CARGO_BIN_EXE_sieve-index"),
        "sieve-search" => env!("CARGO_BIN_EXE_sieve-search"),
        "sieve-filter" => env!("CARGO_BIN_EXE_sieve-filter"),
        other => panic!("no binary named {other}"),
    })
}

/// A fresh temporary directory for one test, removed when dropped.
pub struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    /// Creates the directory; `name` is used as its prefix.
    pub fn new(name: &str) -> Self {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("sieve-{name}-"))
            .tempdir()
            .expect("create temp dir");
        Self { tmp }
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// `path()/rel`.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// Writes `bytes` to `rel` and returns its path.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&p, bytes).expect("write file");
        p
    }

    /// A command for workspace binary `name`, run inside this directory.
    pub fn cmd(&self, name: &str) -> Command {
        let mut c = Command::new(bin(name));
        c.current_dir(self.path());
        c
    }
}

/// Runs `cmd`, asserts it succeeded, and returns stdout as a string.
pub fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("spawn");
    assert!(
        out.status.success(),
        "{cmd:?} failed with {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs `cmd`, asserts it exited with `code` (see
/// `sieve_cli::exit`), and returns stdout as a string.
pub fn code(cmd: &mut Command, code: i32) -> String {
    let out = cmd.output().expect("spawn");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}: expected exit code {code}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs a build over input that includes the committed truncated gzip
/// (`tests/data/warc/resiliparse__clipped.warc.gz`), asserts exit code 3
/// (done, part of the input lost at file level), and returns stdout.
pub fn partial(cmd: &mut Command) -> String {
    code(cmd, 3)
}

/// Runs `cmd`, asserts it failed, and returns its output.
pub fn fails(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("spawn");
    assert!(
        !out.status.success(),
        "{cmd:?} unexpectedly succeeded\nstdout:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

/// Parses each non-empty line of `s` as JSON.
pub fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}
