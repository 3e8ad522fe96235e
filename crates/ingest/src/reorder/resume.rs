//! The work directory of a reorder, and resuming one that was killed.
//!
//! A reorder writes into `.<output name>.reorder-tmp` beside its output,
//! locked ([`DirLock`]) while a reorder works in it, and renamed to the
//! output at the end. The directory holds a journal (`reorder.json`,
//! sealed) naming the input's segments (id and document count, in order)
//! and every option that changes the output, and tantivy's `meta.json`,
//! written again after each new segment (and its cluster column) is
//! complete: so the segments it lists are whole.
//!
//! A reorder that finds the directory unlocked (its writer was killed)
//! and the same journal keeps the segments `meta.json` lists, removes
//! the files of any segment it does not list (one being written at the
//! kill), and bisects only the rest. The output is the same as an
//! uninterrupted reorder's: each segment's order depends only on that
//! segment and the options. Another journal, or a directory that cannot
//! be read back, is emptied and the reorder starts over, saying why. A
//! locked directory (a reorder to the same output under way) is refused.
//! A reorder that fails with an error removes the directory.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sieve_format::index::create_private_dir;
use sieve_format::jsonfile::{read_json, write_json};
use sieve_format::lock::{DirLock, LOCK};
use sieve_format::manifest::{Manifest, analyzer_config};
use sieve_format::schema::register_analyzers;
use tantivy::index::SegmentMeta;
use tantivy::{Index, SegmentReader};

use super::ReorderOptions;
use crate::error::io_err as io;
use crate::{Error, Result};

/// The journal's file name in the work directory (removed before the
/// rename: an output never holds it).
pub(super) const JOURNAL: &str = "reorder.json";

/// The journal's format version.
const JOURNAL_VERSION: u32 = 1;

/// What a reorder's output depends on: two reorders with equal journals
/// write the same segments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Journal {
    version: u32,
    /// The version number of the sieve release that wrote the segments
    /// (another release may bisect otherwise).
    sieve: String,
    /// The input's segments in order: id and document count.
    input_segments: Vec<(String, u32)>,
    max_iters: usize,
    min_partition: usize,
    min_df: u32,
    by_spam: bool,
    drop_band_keys: bool,
}

impl Journal {
    pub(super) fn new(opts: &ReorderOptions, segments: &[SegmentReader]) -> Journal {
        Journal {
            version: JOURNAL_VERSION,
            sieve: env!("CARGO_PKG_VERSION").to_string(),
            input_segments: segments
                .iter()
                .map(|s| (s.segment_id().uuid_string(), s.max_doc()))
                .collect(),
            max_iters: opts.bp.max_iters,
            min_partition: opts.bp.min_partition,
            min_df: opts.min_df,
            by_spam: opts.by_spam,
            drop_band_keys: opts.drop_band_keys,
        }
    }
}

/// The locked work directory and the index being written in it.
pub(super) struct WorkDir {
    pub(super) path: PathBuf,
    pub(super) index: Index,
    /// The new segments an interrupted reorder left whole, in input
    /// segment order (the first `done.len()` input segments are done).
    pub(super) done: Vec<SegmentMeta>,
    /// Why an earlier reorder's directory was emptied, if one was.
    pub(super) discarded: Option<String>,
    _lock: DirLock,
}

impl WorkDir {
    /// Locks (creating it if need be) the work directory of `output`,
    /// and resumes what it holds if its journal is `journal` (see the
    /// module docs).
    pub(super) fn open(
        output: &Path,
        journal: &Journal,
        input: &Index,
        manifest: &Manifest,
    ) -> Result<WorkDir> {
        let path = work_dir_of(output);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir(parent)?;
        }
        let existed = path.exists();
        if !existed {
            create_private_dir(&path)?;
        }
        let lock = DirLock::acquire(&path).map_err(|e| locked(output, e))?;
        let mut discarded = None;
        if existed {
            match resumable(&path, journal, manifest) {
                Ok((index, done)) => {
                    remove_unlisted(&path, &done)?;
                    return Ok(WorkDir {
                        path,
                        index,
                        done,
                        discarded,
                        _lock: lock,
                    });
                }
                Err(why) => {
                    empty_dir(&path)?;
                    discarded = Some(why);
                }
            }
        }
        write_json(&path.join(JOURNAL), journal)?;
        let index = Index::builder()
            .schema(input.schema())
            .settings(input.settings().clone())
            .create_in_dir(&path)?;
        register_analyzers(&index, analyzer_config(manifest));
        Ok(WorkDir {
            path,
            index,
            done: Vec::new(),
            discarded,
            _lock: lock,
        })
    }
}

/// `.<output name>.reorder-tmp` beside `output`.
pub(super) fn work_dir_of(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map_or("reordered".into(), |n| n.to_string_lossy().into_owned());
    output.with_file_name(format!(".{name}.reorder-tmp"))
}

/// A lock held by another process, as the reorder's error.
fn locked(output: &Path, e: sieve_format::Error) -> Error {
    match e {
        sieve_format::Error::Locked { path, holder } => Error::Input {
            path: output.to_path_buf(),
            detail: format!(
                "another reorder to this output is under way in {} ({holder}); nothing was changed",
                path.display()
            ),
        },
        e => e.into(),
    }
}

/// The index in `dir` and its whole segments, when `dir`'s journal is
/// `journal` and the segments are a prefix of the input's; else why not.
fn resumable(
    dir: &Path,
    journal: &Journal,
    manifest: &Manifest,
) -> std::result::Result<(Index, Vec<SegmentMeta>), String> {
    let found: Journal =
        read_json(&dir.join(JOURNAL)).map_err(|e| format!("its journal cannot be read ({e})"))?;
    if &found != journal {
        return Err(
            "it was written for another input, other options or another sieve release".into(),
        );
    }
    let index = Index::open_in_dir(dir).map_err(|e| format!("its index cannot be opened ({e})"))?;
    register_analyzers(&index, analyzer_config(manifest));
    let done = index
        .load_metas()
        .map_err(|e| format!("its meta.json cannot be read ({e})"))?
        .segments;
    let prefix = done.len() <= journal.input_segments.len()
        && done
            .iter()
            .zip(&journal.input_segments)
            .all(|(m, (_, docs))| m.max_doc() == *docs);
    if !prefix {
        return Err("its segments are not those of the input".into());
    }
    Ok((index, done))
}

/// Removes the files of segments `done` does not list (a segment, or its
/// cluster column, being written when the reorder was killed).
fn remove_unlisted(dir: &Path, done: &[SegmentMeta]) -> Result<()> {
    let keep: HashSet<String> = done.iter().map(|m| m.id().uuid_string()).collect();
    for sub in [dir.to_path_buf(), dir.join(sieve_format::dups::DUPS_DIR)] {
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        for e in entries {
            let e = e.map_err(io(&sub))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.split('.').next().unwrap_or("");
            let segment_file = id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
            if segment_file && !keep.contains(id) {
                std::fs::remove_file(e.path()).map_err(io(&e.path()))?;
            }
        }
    }
    Ok(())
}

/// Removes everything in `dir` but its lock file.
fn empty_dir(dir: &Path) -> Result<()> {
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let e = e.map_err(io(dir))?;
        let p = e.path();
        if e.file_name() == LOCK {
            continue;
        }
        let removed = if e.file_type().map_err(io(&p))?.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        removed.map_err(io(&p))?;
    }
    Ok(())
}
