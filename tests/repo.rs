//! Checks on the repository itself rather than on the binaries: no tracked
//! file names a directory of one particular machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::repo_root;

/// The machine-specific prefix that must not appear; built at run time so
/// that this file does not contain it.
fn machine_prefix() -> String {
    ["", "work", ""].join("/")
}

/// Tracked files (`git ls-files`), or every file under the root (skipping
/// `.git`, `target` and the local virtualenvs and caches) when git is absent
/// or the tree is not a checkout.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(out) = listed {
        return out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect();
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read repository dir")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if path.is_dir() {
                let skip = name == ".git" || name == "target" || name.starts_with(".venv");
                if !skip && name != ".cache" && name != ".work" {
                    stack.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// A binary fixture (a NUL byte in its first 8000 bytes, git's rule).
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0)
}

#[test]
fn no_absolute_machine_paths_in_tracked_files() {
    let root = repo_root();
    let needle = machine_prefix();
    let files = repository_files(&root);
    assert!(files.len() > 50, "only {} files found", files.len());
    let mut hits = Vec::new();
    for path in &files {
        // a tracked file deleted in the working tree is not content
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if is_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                hits.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "machine-specific paths (write `../shared/data` or `$SIEVE_SHARED_DATA`):\n{}",
        hits.join("\n")
    );
}

/// The check itself finds a planted path (so an empty result above means
/// something).
#[test]
fn machine_prefix_is_detected_in_text() {
    let planted = format!("see {}shared/data/warc", machine_prefix());
    assert!(planted.contains(&machine_prefix()));
    assert!(!"see ../shared/data/warc".contains(&machine_prefix()));
    assert!(is_binary(b"gz\0data") && !is_binary(b"text"));
}

/// The first directory on this process's PATH holding `name`.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `scripts/setup-system.sh --check` names the Debian packages for what is
/// missing (here: python3 and its venv and pip, absent from a PATH holding
/// only perl) and exits non-zero; with nothing on PATH, perl is named too.
#[test]
fn setup_check_names_missing_python_and_perl() {
    let bash = on_path("bash").expect("bash on PATH");
    let script = repo_root().join("scripts/setup-system.sh");
    let tools = tempfile::tempdir().expect("temp dir");
    let empty = tempfile::tempdir().expect("temp dir");
    let check = |path: &Path| {
        let out = Command::new(&bash)
            .arg(&script)
            .arg("--check")
            .env("PATH", path)
            .env_remove("PYTHON")
            .output()
            .expect("run bash");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let none = check(empty.path());
    assert!(
        none.contains("missing: python3 python3-venv python3-pip perl"),
        "{none}"
    );
    if let Some(perl) = on_path("perl") {
        std::os::unix::fs::symlink(perl, tools.path().join("perl")).expect("symlink perl");
        let no_python = check(tools.path());
        assert!(
            no_python.contains("missing: python3 python3-venv python3-pip")
                && !no_python.contains("perl"),
            "{no_python}"
        );
    }
}
