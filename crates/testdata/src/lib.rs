//! # sieve-testdata
//!
//! Where tests, benchmarks and examples find their data: the repository root
//! (committed fixtures under `tests/data/`) and the shared data directory (large
//! samples that are not committed). The one place that resolves the shared data
//! directory; every Rust user (unit and integration tests, benches, examples)
//! calls [`shared_data`] or [`shared_file`].

use std::path::{Path, PathBuf};

/// The environment variable that names the shared data directory.
pub const SHARED_DATA_ENV: &str = "SIEVE_SHARED_DATA";

/// The repository root, found at compile time: two folders above this
/// crate's `CARGO_MANIFEST_DIR` (`crates/testdata`).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// A committed fixture: `<repository root>/tests/data/<rel>` (not checked for
/// existence).
pub fn fixture(rel: &str) -> PathBuf {
    repo_root().join("tests/data").join(rel)
}

/// The shared data directory, by one rule: `$SIEVE_SHARED_DATA` if it is set
/// (and then only it, so setting it to a missing path forces every skip), else
/// `../shared/data` beside the checkout (relative to [`repo_root`]). `None` when
/// the chosen directory does not exist; prints nothing (see [`shared_file`]).
pub fn shared_data() -> Option<PathBuf> {
    let dir = match std::env::var_os(SHARED_DATA_ENV) {
        Some(v) => PathBuf::from(v),
        None => repo_root().join("../shared/data"),
    };
    dir.is_dir().then_some(dir)
}

/// `<shared data directory>/<rel>` when it exists (`rel` may be empty for the
/// directory itself). Otherwise `None`, after one line on stderr naming `what`:
/// `SKIPPED: <what>: shared data not found (set SIEVE_SHARED_DATA)` when the
/// directory is absent, or `SKIPPED: <what>: <path> absent (set SIEVE_SHARED_DATA)`
/// when only `rel` is missing.
pub fn shared_file(rel: &str, what: &str) -> Option<PathBuf> {
    let Some(root) = shared_data() else {
        eprintln!("SKIPPED: {what}: shared data not found (set {SHARED_DATA_ENV})");
        return None;
    };
    let path = if rel.is_empty() { root } else { root.join(rel) };
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {what}: {} absent (set {SHARED_DATA_ENV})",
            path.display()
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_root_holds_the_workspace_manifest_and_fixtures() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(fixture("SOURCES.md").is_file());
    }

    /// The resolved directory, when there is one, is the variable's value or
    /// the directory beside the checkout, never anything else.
    #[test]
    fn shared_data_follows_the_one_rule() {
        let expected = match std::env::var_os(SHARED_DATA_ENV) {
            Some(v) => PathBuf::from(v),
            None => repo_root().join("../shared/data"),
        };
        match shared_data() {
            Some(p) => assert_eq!(p, expected),
            None => assert!(!expected.is_dir()),
        }
    }

    #[test]
    fn shared_file_refuses_a_missing_entry() {
        assert_eq!(shared_file("no/such/file-3f9c", "missing entry"), None);
    }
}
