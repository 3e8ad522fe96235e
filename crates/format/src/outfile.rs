//! Output files that are complete or absent, and never one of the inputs.
//!
//! Every file sieve writes where a user named it (a run, a filter, cleaned
//! bytes, a statistics file, a page, a figure) goes through [`OutFile`]: the
//! bytes go to a hidden temporary file beside the target (same directory,
//! so the rename is atomic; a unique name per process and call, so two
//! commands writing into one directory never share one), which
//! [`OutFile::commit`] flushes, syncs, renames over the target and makes
//! durable by syncing the directory. An `OutFile` dropped without a commit
//! (an error, a panic) removes its temporary file: the previous file at the
//! target stays exactly as it was. A process killed with `SIGKILL` may
//! leave the temporary file beside the target, never a partial file at it.
//!
//! [`refuse_same_file`] is called before anything is opened for writing: an
//! output that is one of the command's inputs (same device and inode,
//! reached through any path: a symlink, a hard link, `a/../a`) is refused
//! with [`Error::SameFile`] naming both.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A file being written at a temporary name beside its target; see the
/// module documentation.
pub struct OutFile {
    /// The path the file will have once committed (a symlink's target).
    target: PathBuf,
    /// The temporary file (removed when dropped uncommitted).
    tmp: BufWriter<tempfile::NamedTempFile>,
}

impl OutFile {
    /// Creates the temporary file for `target` in `target`'s directory. A
    /// `target` that is a symlink is resolved: the file it points to is
    /// replaced, the link stays.
    pub fn create(target: &Path) -> Result<OutFile> {
        let target = resolve_link(target);
        let dir = parent_dir(&target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .permissions(default_permissions())
            .tempfile_in(&dir)
            .map_err(|source| Error::Io {
                path: target.clone(),
                source,
            })?;
        Ok(OutFile {
            target,
            tmp: BufWriter::with_capacity(1 << 16, tmp),
        })
    }

    /// The path the file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file's path (where the bytes are until the commit).
    pub fn temp_path(&self) -> &Path {
        self.tmp.get_ref().path()
    }

    /// Flushes and syncs the temporary file, renames it over the target and
    /// syncs the directory: the target is now the complete new file.
    pub fn commit(self) -> Result<()> {
        let target = self.target;
        let io = |source| Error::Io {
            path: target.clone(),
            source,
        };
        let tmp = self.tmp.into_inner().map_err(|e| io(e.into_error()))?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&target).map_err(|e| io(e.error))?;
        sync_dir(&parent_dir(&target)).map_err(io)
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.tmp.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

/// Writes `bytes` to `path` through an [`OutFile`]: complete or absent.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = OutFile::create(path)?;
    out.write_all(bytes).map_err(|source| Error::Io {
        path: out.target().to_path_buf(),
        source,
    })?;
    out.commit()
}

/// Refuses an `output` that is the same file as one of `inputs`, or one of
/// the files under an input that is a directory (an index): same device
/// and inode, however reached. An output that does not exist yet is no
/// input. Call it before opening anything for writing.
pub fn refuse_same_file<P: AsRef<Path>>(output: &Path, inputs: &[P]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(());
    };
    let id = (out.dev(), out.ino());
    for input in inputs {
        let input = input.as_ref();
        let Ok(m) = std::fs::metadata(input) else {
            continue;
        };
        let same = if m.is_dir() {
            dir_holds(input, id, 0)
        } else {
            (m.dev(), m.ino()) == id
        };
        if same {
            return Err(Error::SameFile {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Whether the directory `dir` (or one below it, to a few levels) holds
/// the file `(device, inode)`.
fn dir_holds(dir: &Path, id: (u64, u64), depth: usize) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| match e.metadata() {
        Ok(m) if m.is_dir() => depth < 4 && dir_holds(&e.path(), id, depth + 1),
        Ok(m) => (m.dev(), m.ino()) == id,
        Err(_) => false,
    })
}

/// `path`, or the file it points to if it is a symlink (so that the link
/// survives the rename); `path` itself if that cannot be resolved.
fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// The directory `path` is in (`.` for a bare name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The mode a file created with `File::create` gets (0666 less the umask,
/// which the kernel applies), instead of the temporary file's 0600.
fn default_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o666)
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn dropped_without_commit_leaves_the_previous_file_and_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.run");
        std::fs::write(&p, b"previous").unwrap();
        {
            let mut o = OutFile::create(&p).unwrap();
            o.write_all(b"new but unfinished").unwrap();
            o.flush().unwrap();
            assert!(o.temp_path().exists());
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"previous");
        assert_eq!(names(d.path()), ["a.run"]);
    }

    #[test]
    fn commit_replaces_the_file_and_two_writers_do_not_share_a_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.run");
        let mut a = OutFile::create(&p).unwrap();
        let mut b = OutFile::create(&p).unwrap();
        assert_ne!(a.temp_path(), b.temp_path());
        a.write_all(b"from a").unwrap();
        b.write_all(b"from b").unwrap();
        a.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"from a");
        b.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"from b");
        assert_eq!(names(d.path()), ["a.run"]);
    }

    #[test]
    fn a_symlinked_output_replaces_the_file_and_keeps_the_link() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.tsv");
        let link = d.path().join("link.tsv");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn same_file_is_refused_through_any_path() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.txt");
        std::fs::write(&a, b"input").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        let dotdot = d.path().join("sub/../a.txt");
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let hard = d.path().join("hard");
        std::fs::hard_link(&a, &hard).unwrap();
        for out in [&a, &dotdot, &link, &hard] {
            let e = refuse_same_file(out, &[&a]).unwrap_err();
            assert!(matches!(e, Error::SameFile { .. }), "{e}");
            assert!(e.to_string().contains("a.txt"), "{e}");
        }
        let other = d.path().join("b.txt");
        refuse_same_file(&other, &[&a]).unwrap();
        std::fs::write(&other, b"x").unwrap();
        refuse_same_file(&other, &[&a]).unwrap();
        // A file inside an input directory (an index) is an input too.
        refuse_same_file(&a, &[d.path()]).unwrap_err();
    }
}
