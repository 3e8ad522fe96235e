//! Index access, below every other module that touches an index directory:
//! the file names in it, opening an index with its analyser (and refusing
//! one whose build did not finish, unless asked), its docid column, listing
//! its docids, and the small file helpers (private directories, buffered
//! files, atomic JSON, I/O errors naming a path).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use tantivy::schema::{Schema, Value};
use tantivy::{Index, TantivyDocument};

use crate::manifest::{MANIFEST, Manifest, analyzer_config, build_finished, read_manifest};
use crate::schema::{self, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION, register_analyzers};
use crate::{Error, Result};

/// Name of the losses log in the index directory.
pub const LOSSES: &str = "losses.jsonl";

// Where every reader of an index finds the sealed-JSON helpers and the
// name of `stats.json`.
pub use crate::jsonfile::{read_json, write_json};
pub use crate::stats::STATS;

/// Creates `dir` (and parents) readable only by its owner on Unix.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o750)
            .create(dir)
            .map_err(io)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir).map_err(io)
    }
}

/// Checks that `dir` looks like an index: an existing directory holding
/// `sieve.json`; otherwise [`Error::NotAnIndex`] saying which of the three it
/// is not. (The manifest itself is read and checked by whoever opens it.)
pub fn check_index_dir(dir: &Path) -> Result<()> {
    let why = match std::fs::metadata(dir) {
        Err(_) => "no such directory",
        Ok(m) if !m.is_dir() => "a file, not a directory",
        Ok(_) if !dir.join(MANIFEST).is_file() => "no sieve.json",
        Ok(_) => return Ok(()),
    };
    Err(Error::NotAnIndex {
        path: dir.to_path_buf(),
        why,
    })
}

/// What a reader does with an index whose build did not finish (killed,
/// failed, or being resumed: see [`crate::manifest::BuildState`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unfinished {
    /// Refuse it with [`Error::Unfinished`], naming `--allow-unfinished`
    /// as a way out (the readers that offer it).
    #[default]
    Refuse,
    /// Read what is committed (the caller warns, see
    /// [`unfinished_warning`]).
    Allow,
}

impl Unfinished {
    /// [`Unfinished::Allow`] when `allow` (an `--allow-unfinished` flag).
    pub fn allow_if(allow: bool) -> Self {
        if allow {
            Unfinished::Allow
        } else {
            Unfinished::Refuse
        }
    }
}

/// Opens an index built by the build (`sieve_ingest::build`), registering its
/// analyser. An index whose build did not finish is refused, with finishing
/// it (`--resume`) as the only way out: for whatever writes from an index
/// (a merge, a filter, sidecars). Readers that can read what is committed
/// use [`open_index_with`].
pub fn open_index(dir: &Path) -> Result<(Index, Manifest)> {
    open_checked(dir, None)
}

/// Opens an index as [`open_index`] does; an unfinished one is refused
/// naming `--allow-unfinished` too ([`Unfinished::Refuse`]), or opened
/// ([`Unfinished::Allow`]).
pub fn open_index_with(dir: &Path, unfinished: Unfinished) -> Result<(Index, Manifest)> {
    open_checked(dir, Some(unfinished))
}

/// The one place an index is opened: the directory, the manifest (its
/// seal), the schema version, whether the build finished (`unfinished`:
/// `None` refuses without offering the flag), then tantivy's index.
fn open_checked(dir: &Path, unfinished: Option<Unfinished>) -> Result<(Index, Manifest)> {
    check_index_dir(dir)?;
    let manifest = read_manifest(dir)?;
    if !(OLDEST_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&manifest.schema_version) {
        return Err(Error::Schema {
            expected: "the schema version of this sieve",
            detail: format!(
                "{} has schema version {}, this sieve reads {OLDEST_SCHEMA_VERSION} to {}",
                dir.display(),
                manifest.schema_version,
                SCHEMA_VERSION
            ),
        });
    }
    if unfinished != Some(Unfinished::Allow) && !build_finished(dir, &manifest) {
        return Err(Error::Unfinished {
            path: dir.to_path_buf(),
            committed: committed_docs(dir),
            flag: unfinished.is_some(),
        });
    }
    let index = Index::open_in_dir(dir)?;
    register_analyzers(&index, analyzer_config(&manifest));
    Ok((index, manifest))
}

/// The documents committed in the index in `dir` (from its `meta.json`),
/// if it can be read.
pub fn committed_docs(dir: &Path) -> Option<u64> {
    let metas = Index::open_in_dir(dir).ok()?.load_metas().ok()?;
    Some(metas.segments.iter().map(|s| u64::from(s.num_docs())).sum())
}

/// The warning a reader allowed an unfinished index ([`Unfinished::Allow`])
/// gives on every use: the index, that its build did not finish, the
/// documents read, and how to finish it. `None` when the build finished
/// (or the index cannot be read: opening it says why).
pub fn unfinished_warning(dir: &Path) -> Option<String> {
    let manifest = read_manifest(dir).ok()?;
    if build_finished(dir, &manifest) {
        return None;
    }
    let docs = committed_docs(dir).map_or_else(String::new, |n| format!("{n} "));
    Some(format!(
        "{}: unfinished index: its build did not finish; reading only the {docs}documents committed so far \
         (results change once it is finished with `sieve-index build --resume --index {}`)",
        dir.display(),
        dir.display()
    ))
}

/// Opens (creating if needed) a file for writing, naming it in errors.
pub fn create_file(path: &Path) -> Result<BufWriter<File>> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// A gzip file being written (`Compression::fast`), through a 64 KB buffer
/// before the compressor, which would otherwise run (and update its CRC)
/// once per write, however small (a line's end, one field).
pub type GzFile = BufWriter<flate2::write::GzEncoder<File>>;

/// Creates `path` as a [`GzFile`].
pub fn create_gz(path: &Path) -> Result<GzFile> {
    let f = File::create(path).map_err(io_err(path))?;
    Ok(BufWriter::with_capacity(
        1 << 16,
        flate2::write::GzEncoder::new(f, flate2::Compression::fast()),
    ))
}

/// Flushes `w` (written to `path`) and ends its gzip stream: the file, not
/// yet synced.
pub fn end_gz(w: GzFile, path: &Path) -> Result<File> {
    let gz = w.into_inner().map_err(|e| io_err(path)(e.into_error()))?;
    gz.finish().map_err(io_err(path))
}

/// Ends `w` (written to `tmp`), syncs it and renames it to `path`.
pub fn commit_gz(w: GzFile, tmp: &Path, path: &Path) -> Result<()> {
    end_gz(w, tmp)?.sync_all().map_err(io_err(tmp))?;
    std::fs::rename(tmp, path).map_err(io_err(path))
}

/// Every docid of an index, sorted (for scripts and tests; this holds them
/// all in memory). An unfinished index is read as `unfinished` says.
pub fn list_docids(dir: &Path, unfinished: Unfinished) -> Result<Vec<String>> {
    let (index, _) = open_index_with(dir, unfinished)?;
    let searcher = index.reader()?.searcher();
    let mut out = Vec::new();
    for seg in searcher.segment_readers() {
        let ids = docid_column(seg, dir)?;
        let mut buf = String::new();
        for doc in 0..seg.max_doc() {
            if let Some(ord) = ids.term_ords(doc).next() {
                buf.clear();
                ids.ord_to_str(ord, &mut buf).map_err(|source| Error::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
                out.push(buf.clone());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The docid fast field of a segment of the index in `dir`.
pub fn docid_column(
    seg: &tantivy::SegmentReader,
    dir: &Path,
) -> Result<tantivy::columnar::StrColumn> {
    seg.fast_fields()
        .str(schema::DOCID)?
        .ok_or_else(|| Error::Schema {
            expected: "docid as a fast field",
            detail: dir.display().to_string(),
        })
}

/// The docid of document `doc` of a segment of the index in `dir`, read
/// from the docid fast field (every schema version has it; from version 5
/// the docid is not stored); empty for a document without one.
pub fn docid_of(seg: &tantivy::SegmentReader, doc: tantivy::DocId, dir: &Path) -> Result<String> {
    let ids = docid_column(seg, dir)?;
    let mut docid = String::new();
    read_docid(&ids, doc, &mut docid).map_err(io_err(dir))?;
    Ok(docid)
}

/// The docid of document `doc` from its segment's docid column
/// ([`docid_column`], opened once for many documents), into `buf`; left
/// empty for a document without one.
pub fn read_docid(
    ids: &tantivy::columnar::StrColumn,
    doc: tantivy::DocId,
    buf: &mut String,
) -> std::io::Result<()> {
    buf.clear();
    if let Some(ord) = ids.term_ords(doc).next() {
        ids.ord_to_str(ord, buf)?;
    }
    Ok(())
}

/// Maps an I/O error to [`Error::Io`] naming `path`.
pub fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The first value of the stored field `name` of `doc` as text; `None`
/// when the schema or the document has none.
pub fn stored_str(schema: &Schema, doc: &TantivyDocument, name: &str) -> Option<String> {
    let field = schema.get_field(name).ok()?;
    doc.get_first(field)?.as_str().map(str::to_string)
}

/// The first value of the stored field `name` of `doc` as a `u64`; `None`
/// when the schema or the document has none.
pub fn stored_u64(schema: &Schema, doc: &TantivyDocument, name: &str) -> Option<u64> {
    let field = schema.get_field(name).ok()?;
    doc.get_first(field)?.as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing path, a file and a directory without `sieve.json` are each
    /// "not a sieve index", saying which, in one line without a
    /// "No such file or directory" cause.
    #[test]
    fn not_a_sieve_index_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        for (path, why) in [
            (tmp.path().join("missing"), "no such directory"),
            (file, "a file, not a directory"),
            (tmp.path().to_path_buf(), "no sieve.json"),
        ] {
            let Err(e) = open_index(&path) else {
                panic!("{} opened as an index", path.display());
            };
            assert!(
                matches!(e, Error::NotAnIndex { why: w, .. } if w == why),
                "{e:?}"
            );
            assert_eq!(
                e.to_string(),
                format!("{} is not a sieve index ({why})", path.display())
            );
            assert!(std::error::Error::source(&e).is_none());
        }
    }
}
