//! Expanding input specs (files, directories, glob patterns) into the list
//! of crawl files, each file once.
//!
//! [`expand`] walks directories recursively, following symbolic links, but
//! walks each directory once per (device, inode): a link back into a
//! directory being walked is a `symlink loop`, a second way into a directory
//! already walked a `duplicate of <path>`. A file reached by several paths
//! (named twice, hard or symbolic links) is listed once, under the first of
//! its paths in sorted order; the others are `duplicate of <path>`. Special
//! files met in a directory or matched by a pattern (FIFOs, sockets,
//! devices), broken links and entries that cannot be read are skipped. Every
//! skipped entry is returned with its path and reason ([`SkippedInput`]);
//! nothing is dropped silently.
//!
//! The files are returned sorted by path. A spec that is neither a file nor
//! a directory nor a pattern matching a file is an error naming it; a
//! special file named directly is an error saying what it is.

pub use sieve_types::SkippedInput;
use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The result of [`expand`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The files to read, sorted, each once.
    pub files: Vec<PathBuf>,
    /// What was skipped, in the order met (then duplicates, sorted).
    pub skipped: Vec<SkippedInput>,
}

/// Identity of a file or directory: (device, inode) on Unix, the canonical
/// path elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

fn key(path: &Path, md: &Metadata) -> Key {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        Key::Inode(md.dev(), md.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = md;
        Key::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// What a path that is neither a file nor a directory is, if special.
fn special_kind(md: &Metadata) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = md.file_type();
        if t.is_fifo() {
            return Some("fifo");
        }
        if t.is_socket() {
            return Some("socket");
        }
        if t.is_block_device() {
            return Some("block device");
        }
        if t.is_char_device() {
            return Some("character device");
        }
    }
    (!md.is_file() && !md.is_dir()).then_some("special file")
}

/// The walk in progress.
#[derive(Default)]
struct Walk {
    /// Candidate files with their identity.
    found: Vec<(PathBuf, Key)>,
    /// Directories walked, with the path they were walked under.
    dirs: HashMap<Key, PathBuf>,
    skipped: Vec<SkippedInput>,
}

impl Walk {
    fn skip(&mut self, path: &Path, reason: impl Into<String>) {
        self.skipped.push(SkippedInput {
            path: path.to_string_lossy().into_owned(),
            reason: reason.into(),
        });
    }

    /// Classifies one entry met in a directory or matched by a pattern.
    /// `ancestors` are the directories being walked (for loops).
    fn entry(&mut self, path: PathBuf, ancestors: &mut Vec<Key>, into_dirs: bool) -> Result<()> {
        let md = match std::fs::metadata(&path) {
            Ok(md) => md,
            Err(e) => {
                let broken = std::fs::symlink_metadata(&path)
                    .is_ok_and(|m| m.file_type().is_symlink())
                    && e.kind() == std::io::ErrorKind::NotFound;
                let why = if broken {
                    "broken symlink".to_string()
                } else {
                    format!("unreadable: {e}")
                };
                self.skip(&path, why);
                return Ok(());
            }
        };
        if md.is_file() {
            if path.extension().is_some_and(|e| e == "open") {
                // A crawler's file still being written (`.warc.gz.open`).
                self.skip(&path, "still being written (name ends in .open)");
                return Ok(());
            }
            let k = key(&path, &md);
            self.found.push((path, k));
        } else if md.is_dir() {
            if into_dirs {
                self.dir(&path, &md, ancestors)?;
            }
        } else if let Some(kind) = special_kind(&md) {
            self.skip(&path, kind);
        }
        Ok(())
    }

    /// Walks directory `dir` unless it is an ancestor or was walked.
    fn dir(&mut self, dir: &Path, md: &Metadata, ancestors: &mut Vec<Key>) -> Result<()> {
        let k = key(dir, md);
        if ancestors.contains(&k) {
            let back = self.dirs.get(&k).cloned().unwrap_or_default();
            self.skip(
                dir,
                format!("symlink loop (back to {})", back.to_string_lossy()),
            );
            return Ok(());
        }
        if let Some(first) = self.dirs.get(&k) {
            let why = format!("duplicate of {}", first.to_string_lossy());
            self.skip(dir, why);
            return Ok(());
        }
        self.dirs.insert(k.clone(), dir.to_path_buf());
        let io = |source| Error::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            entries.push(entry.map_err(io)?.path());
        }
        entries.sort();
        ancestors.push(k);
        for path in entries {
            self.entry(path, ancestors, true)?;
        }
        ancestors.pop();
        Ok(())
    }

    /// Expands one spec; returns how many candidates (files, or directories
    /// already walked) it contributed.
    fn spec(&mut self, spec: &str) -> Result<usize> {
        let p = Path::new(spec);
        let before = self.found.len();
        match std::fs::metadata(p) {
            Ok(md) if md.is_dir() => {
                let walked = self.dirs.contains_key(&key(p, &md));
                self.dir(p, &md, &mut Vec::new())?;
                return Ok(self.found.len() - before + usize::from(walked));
            }
            Ok(md) if md.is_file() => {
                self.entry(p.to_path_buf(), &mut Vec::new(), false)?;
                return Ok(1);
            }
            Ok(md) => {
                let kind = match special_kind(&md) {
                    Some("fifo") => "a FIFO (named pipe)",
                    Some("socket") => "a socket",
                    Some("block device") => "a block device",
                    Some("character device") => "a character device",
                    _ => "not a regular file",
                };
                return Err(Error::Input {
                    path: p.to_path_buf(),
                    detail: format!("is {kind}, not a crawl file or directory"),
                });
            }
            Err(e) if std::fs::symlink_metadata(p).is_ok() => {
                return Err(Error::Input {
                    path: p.to_path_buf(),
                    detail: format!("cannot be followed: {e}"),
                });
            }
            Err(_) => {}
        }
        if spec.contains(['*', '?', '[']) {
            let paths = glob::glob(spec).map_err(|e| Error::Input {
                path: p.to_path_buf(),
                detail: format!("bad glob pattern: {e}"),
            })?;
            for entry in paths {
                let entry = entry.map_err(|e| Error::Input {
                    path: p.to_path_buf(),
                    detail: e.to_string(),
                })?;
                self.entry(entry, &mut Vec::new(), false)?;
            }
        }
        Ok(self.found.len() - before)
    }
}

/// The files of [`expand`] alone, for callers that do not report what was
/// skipped (examples, tests).
pub fn expand_inputs(specs: &[String]) -> Result<Vec<PathBuf>> {
    Ok(expand(specs)?.files)
}

/// Expands `specs` (see the module docs). A spec that contributes no file
/// is an error naming it ("no such file, or nothing matches").
pub fn expand(specs: &[String]) -> Result<Inputs> {
    let mut w = Walk::default();
    for spec in specs {
        if w.spec(spec)? == 0 {
            return Err(Error::Input {
                path: PathBuf::from(spec),
                detail: "no such file, or nothing matches".into(),
            });
        }
    }
    let mut found = std::mem::take(&mut w.found);
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|a, b| a.0 == b.0);
    let mut first: HashMap<Key, PathBuf> = HashMap::new();
    let mut files = Vec::with_capacity(found.len());
    let mut dups = HashSet::new();
    for (path, k) in found {
        match first.get(&k) {
            Some(f) => {
                if dups.insert(path.clone()) {
                    let why = format!("duplicate of {}", f.to_string_lossy());
                    w.skip(&path, why);
                }
            }
            None => {
                first.insert(k, path.clone());
                files.push(path);
            }
        }
    }
    Ok(Inputs {
        files,
        skipped: w.skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }

    #[test]
    fn ordinary_tree_is_listed_sorted_as_before() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        for rel in ["b/2.warc", "a.warc", "b/1.warc", "b/c/0.warc", "z.warc"] {
            touch(&t.join(rel));
        }
        let spec = t.to_string_lossy().into_owned();
        let got = expand(&[spec.clone(), format!("{spec}/*.warc")]).unwrap();
        let want: Vec<PathBuf> = ["a.warc", "b/1.warc", "b/2.warc", "b/c/0.warc", "z.warc"]
            .iter()
            .map(|r| t.join(r))
            .collect();
        assert_eq!(got.files, want);
        assert!(got.skipped.is_empty(), "{:?}", got.skipped);
        let err = expand(&[format!("{spec}/nothing*")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("no such file, or nothing matches"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn loops_and_diamonds_are_walked_once() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        touch(&t.join("d/shared/x.warc"));
        std::fs::create_dir_all(t.join("d/a")).unwrap();
        std::fs::create_dir_all(t.join("d/b")).unwrap();
        std::os::unix::fs::symlink("../shared", t.join("d/a/s")).unwrap();
        std::os::unix::fs::symlink("../shared", t.join("d/b/s")).unwrap();
        std::os::unix::fs::symlink("..", t.join("d/shared/up")).unwrap();
        let got = expand(&[t.join("d").to_string_lossy().into_owned()]).unwrap();
        assert_eq!(got.files, [t.join("d/a/s/x.warc")]);
        let reasons: Vec<(&str, &str)> = got
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.as_str()))
            .collect();
        let p = |r: &str| t.join(r).to_string_lossy().into_owned();
        assert_eq!(
            reasons,
            [
                (
                    p("d/a/s/up").as_str(),
                    format!("symlink loop (back to {})", p("d")).as_str()
                ),
                (
                    p("d/b/s").as_str(),
                    format!("duplicate of {}", p("d/a/s")).as_str()
                ),
                (
                    p("d/shared").as_str(),
                    format!("duplicate of {}", p("d/a/s")).as_str()
                ),
            ]
        );
    }
}
