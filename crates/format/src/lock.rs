//! Exclusive ownership of an output directory (an index, a quarantine) for
//! the length of one build, and the checks that keep sieve from writing
//! into a directory it did not create.
//!
//! [`DirLock::acquire`] takes an advisory exclusive lock (`flock` on Unix,
//! through std's [`File::try_lock`]) on [`LOCK`] (`sieve.lock`) in the
//! directory, then writes the holder line into it: `pid=<pid>
//! host=<hostname> started=<seconds since the epoch>`. The lock is held
//! until the [`DirLock`] is dropped (and released by the kernel if the
//! process dies); the file itself stays, emptied on release (a process
//! that died leaves its line, but not the lock). A
//! second build on the same directory does not wait: it fails with
//! [`Error::Locked`] quoting the holder line, having changed nothing.
//!
//! [`create_last_dir`] creates only the last component of a path, so a
//! mistyped parent is an error rather than a new tree. [`foreign_files`]
//! lists what a directory holds besides the lock file.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Name of the lock file in a locked directory.
pub const LOCK: &str = "sieve.lock";

/// An exclusive lock on a directory, held until dropped.
#[derive(Debug)]
pub struct DirLock {
    file: File,
    path: PathBuf,
}

impl DirLock {
    /// Locks `dir` (which must exist): creates or opens `dir/sieve.lock`,
    /// takes the exclusive lock without waiting and writes the holder line.
    /// Fails with [`Error::Locked`] (and writes nothing) if another process
    /// holds it.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(Error::Locked {
                    path: dir.to_path_buf(),
                    holder: if holder.is_empty() {
                        "another process (no holder line yet)".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let line = format!(
            "pid={} host={} started={started}\n",
            std::process::id(),
            hostname()
        );
        file.set_len(0).map_err(io)?;
        file.write_all(line.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(DirLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DirLock {
    /// Empties the holder line while the lock is still held, so that a
    /// finished build leaves an empty `sieve.lock` (the same bytes whoever
    /// built).
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

/// The machine's host name (Linux: `/proc/sys/kernel/hostname`; else the
/// `HOSTNAME` variable), or `unknown`.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Creates `dir` (mode 0750 on Unix) if it does not exist, but not its
/// parents: a missing parent is [`Error::Input`] naming it, and so is a
/// file (or anything but a directory) at `dir`. A directory
/// that already exists (or was created meanwhile by another process) is
/// fine.
pub fn create_last_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if dir.exists() {
        return Err(Error::Input {
            path: dir.to_path_buf(),
            detail: "a file, not a directory: give a new or empty directory, or an index".into(),
        });
    }
    missing_parent(dir)?;
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o750);
    }
    match b.create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(source) => Err(Error::Io {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

/// Refuses a `dir` whose parent does not exist (only the last component
/// of an output directory is ever created).
fn missing_parent(dir: &Path) -> Result<()> {
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) if !parent.is_dir() => Err(Error::Input {
            path: parent.to_path_buf(),
            detail: format!(
                "the parent directory of {} does not exist (only the last component is created)",
                dir.display()
            ),
        }),
        _ => Ok(()),
    }
}

/// Checks, without creating or writing anything, that [`claim_dir`] could
/// claim `dir`: its parent exists (if `dir` does not), and a directory
/// without a lock file holds nothing that `ours` does not accept. Lets a
/// build refuse a later output directory before it creates an earlier one.
pub fn check_claimable(dir: &Path, ours: impl Fn(&[String]) -> bool) -> Result<()> {
    if !dir.is_dir() {
        return missing_parent(dir);
    }
    if dir.join(LOCK).exists() {
        return Ok(());
    }
    let found = foreign_files(dir)?;
    if found.is_empty() || ours(&found) {
        return Ok(());
    }
    Err(Error::Foreign {
        path: dir.to_path_buf(),
        found,
    })
}

/// Claims the output directory `dir` for one build: creates it (last
/// component only, [`create_last_dir`]) and locks it ([`DirLock::acquire`]).
/// A non-empty directory whose entries (besides [`LOCK`]) `ours` does not
/// accept is refused with [`Error::Foreign`] naming them: before anything
/// is written into it when it has no lock file, and again once the lock is
/// held (the contents cannot change under a holder).
pub fn claim_dir(dir: &Path, ours: impl Fn(&[String]) -> bool) -> Result<DirLock> {
    create_last_dir(dir)?;
    let check = |found: Vec<String>| -> Result<()> {
        if found.is_empty() || ours(&found) {
            return Ok(());
        }
        Err(Error::Foreign {
            path: dir.to_path_buf(),
            found,
        })
    };
    if !dir.join(LOCK).exists() {
        check(foreign_files(dir)?)?;
    }
    let lock = DirLock::acquire(dir)?;
    check(foreign_files(dir)?)?;
    Ok(lock)
}

/// The names of the entries of `dir` other than [`LOCK`], sorted.
pub fn foreign_files(dir: &Path) -> Result<Vec<String>> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let name = entry
            .map_err(io)?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name != LOCK {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_on_a_directory_fails_naming_the_holder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let first = DirLock::acquire(tmp.path()).expect("first lock");
        let e = DirLock::acquire(tmp.path()).expect_err("second lock");
        match e {
            Error::Locked { holder, .. } => {
                assert!(
                    holder.contains(&format!("pid={}", std::process::id())),
                    "{holder}"
                );
            }
            e => panic!("{e:?}"),
        }
        drop(first);
        DirLock::acquire(tmp.path()).expect("lock again after release");
    }

    #[test]
    fn create_last_dir_refuses_a_missing_parent() {
        let tmp = tempfile::tempdir().expect("tmp");
        let deep = tmp.path().join("a/b");
        let e = create_last_dir(&deep).expect_err("missing parent");
        assert!(
            e.to_string()
                .contains(&tmp.path().join("a").display().to_string()),
            "{e}"
        );
        assert!(!tmp.path().join("a").exists());
    }
}
