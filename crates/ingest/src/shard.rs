//! Shards for scale-out: one crawl file (or a few) becomes one index, built
//! so that a retried or speculative task is harmless, and shards merge into
//! serving indexes.
//!
//! [`build_shard`] builds single-threaded into a hidden temporary directory
//! beside the destination and renames it into place. If the destination
//! already holds a finished shard (an earlier attempt, or a speculative twin
//! that won the rename) the work is discarded and the existing shard is
//! reported: the result is the same either way, because a build is
//! deterministic. Every shard records its manifest (`sieve.json`); shards are
//! searched together with global statistics by `sieve-search run --index A
//! --index B ...`, or merged by [`merge_shards`].
//!
//! With a quarantine (`opts.quarantine = Some(DIR)`), the shard's items go
//! to `DIR/<shard name>` (ordinals count the shard's own inputs), written to
//! a hidden temporary directory in `DIR` and renamed into place after the
//! shard, so that shards never share a quarantine and a retried task leaves
//! exactly one.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sieve_format::index::{LOSSES, STATS, create_private_dir, open_index, write_json};
use sieve_format::manifest::{BuildState, MANIFEST, Manifest, build_finished, read_manifest};
use sieve_format::stats::{BuildStats, ClusterSummary, FileStats};
use sieve_format::unique::Duplicate;
use tantivy::Index;
use tantivy::directory::MmapDirectory;

use crate::build;
use crate::error::io_err as io;
use crate::options::{BuildOptions, NoProgress};
use crate::unique::{DupSink, count_duplicate, log_duplicate, remove_duplicates};
use crate::{Error, Result};

/// What [`build_shard`] did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardRecord {
    /// The shard directory.
    pub shard: String,
    /// Its inputs.
    pub inputs: Vec<String>,
    /// Documents indexed.
    pub indexed: u64,
    /// False when a finished shard was already there and this build was
    /// discarded.
    pub built: bool,
}

/// Whether `dir` holds a shard whose build finished.
fn finished(dir: &Path) -> bool {
    read_manifest(dir).is_ok_and(|m| build_finished(dir, &m))
}

/// Reads the `stats.json` of a finished shard (or any index) in `dir`.
pub fn read_stats(dir: &Path) -> Result<BuildStats> {
    Ok(sieve_format::jsonfile::read_json(&dir.join(STATS))?)
}

/// Builds the shard `out` from `opts.inputs` (single-threaded; `opts.index`
/// is ignored). Idempotent: see the module docs.
pub fn build_shard(mut opts: BuildOptions, out: &Path) -> Result<ShardRecord> {
    let record = |indexed, built| ShardRecord {
        shard: out.display().to_string(),
        inputs: opts
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        indexed,
        built,
    };
    if finished(out) {
        return Ok(record(read_stats(out)?.totals.indexed, false));
    }
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "shard".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = out.with_file_name(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir(parent)?;
    }
    opts.index = tmp.clone();
    opts.threads = 1;
    opts.resume = false;
    // The quarantine: DIR/<shard name>, through a temporary directory too.
    let quarantine = opts.quarantine.take().map(|dir| {
        let tmp = dir.join(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
        (dir.join(&name), tmp)
    });
    if let Some((qdir, qtmp)) = &quarantine {
        if let Some(parent) = qdir.parent() {
            create_private_dir(parent)?;
        }
        opts.quarantine = Some(qtmp.clone());
    }
    let discard_quarantine = || {
        if let Some((_, qtmp)) = &quarantine {
            let _ = std::fs::remove_dir_all(qtmp);
        }
    };
    let stats = match build::build(&opts, &NoProgress) {
        Ok(s) => s,
        Err(e) => {
            discard_quarantine();
            return Err(e);
        }
    };
    match std::fs::rename(&tmp, out) {
        Ok(()) => {
            if let Some((qdir, qtmp)) = &quarantine {
                // A twin that lost the shard rename may still have put its
                // (identical) quarantine in place first: keep that one.
                if std::fs::rename(qtmp, qdir).is_err() && qdir.is_dir() {
                    discard_quarantine();
                } else if !qdir.is_dir() {
                    return Err(Error::Input {
                        path: qdir.clone(),
                        detail: format!("could not move the quarantine from {}", qtmp.display()),
                    });
                }
            }
            Ok(record(stats.totals.indexed, true))
        }
        Err(_) if finished(out) => {
            let _ = std::fs::remove_dir_all(&tmp);
            discard_quarantine();
            Ok(record(read_stats(out)?.totals.indexed, false))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            discard_quarantine();
            Err(io(out)(e))
        }
    }
}

/// Merges finished shards into one index at `out` (which must not exist).
/// All shards must have been built with the same options, and have
/// finished (an unfinished shard is refused,
/// [`Error::Unfinished`](sieve_format::Error::Unfinished)); the
/// merged manifest lists every input and says `finished`, and `stats.json`
/// sums the shards' figures.
pub fn merge_shards(shards: &[PathBuf], out: &Path) -> Result<BuildStats> {
    if shards.is_empty() {
        return Err(Error::Input {
            path: out.to_path_buf(),
            detail: "no shards to merge".into(),
        });
    }
    if out.exists() {
        return Err(Error::Input {
            path: out.to_path_buf(),
            detail: "the merged index directory already exists".into(),
        });
    }
    let Shards {
        manifests,
        indexes,
        mut files,
    } = open_shards(shards)?;
    let tmp = out.with_file_name(format!(
        ".{}.merge-tmp-{}",
        out.file_name()
            .map_or("merged".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    create_private_dir(&tmp)?;
    let dir = MmapDirectory::open(&tmp).map_err(|e| Error::Input {
        path: tmp.clone(),
        detail: e.to_string(),
    })?;
    let index = tantivy::indexer::merge_indices(&indexes, dir)?;
    merge_losses(shards, &tmp, &index, &mut files)?;
    sieve_format::bounds::write_index_bounds(&tmp, &index)?;
    let near_duplicates = match manifests[0].options.minhash {
        Some(_) => Some(crate::dedup::write_index_dups(
            &tmp,
            &index,
            crate::dedup::RUN_LINES,
        )?),
        None => None,
    };
    let mut merged = manifests[0].clone();
    merged.inputs = manifests.iter().flat_map(|m| m.inputs.clone()).collect();
    let stats = merged_stats(files, near_duplicates);
    write_json(&tmp.join(STATS), &stats)?;
    merged.state = Some(BuildState::Finished);
    write_json(&tmp.join(MANIFEST), &merged)?;
    std::fs::rename(&tmp, out).map_err(io(out))?;
    Ok(stats)
}

/// The finished shards of a merge: their manifests, indexes and per-file
/// statistics, in shard order.
struct Shards {
    manifests: Vec<Manifest>,
    indexes: Vec<Index>,
    files: Vec<FileStats>,
}

/// Opens the finished `shards`, refusing one built with other options or
/// another schema than the first.
fn open_shards(shards: &[PathBuf]) -> Result<Shards> {
    let mut manifests: Vec<Manifest> = Vec::new();
    let mut indexes = Vec::new();
    let mut files: Vec<FileStats> = Vec::new();
    for s in shards {
        let (index, m) = open_index(s)?;
        if m.band_keys_dropped {
            return Err(Error::Input {
                path: s.clone(),
                detail: "its band keys were dropped (reorder --drop-band-keys): merge clusters \
                         all shards' documents again from their keys; merge the shards as \
                         built, then reorder the merged index"
                    .into(),
            });
        }
        if let Some(first) = manifests.first()
            && (first.options != m.options
                || first.schema_version != m.schema_version
                || first.order != m.order)
        {
            return Err(Error::Input {
                path: s.clone(),
                detail: format!(
                    "built with other options than {}; shards must share schema, analyser, filter and document order",
                    shards[0].display()
                ),
            });
        }
        indexes.push(index);
        files.extend(read_stats(s)?.files);
        manifests.push(m);
    }
    Ok(Shards {
        manifests,
        indexes,
        files,
    })
}

/// Writes the losses log of the merged `index` (in `tmp`): the shards'
/// losses in shard order, then the later copies of docids that the
/// shards share ([`crate::unique`]), which are removed from the index and
/// counted in `files`.
fn merge_losses(
    shards: &[PathBuf],
    tmp: &Path,
    index: &Index,
    files: &mut Vec<FileStats>,
) -> Result<()> {
    let losses = tmp.join(LOSSES);
    let mut sink = MergeDups {
        losses: sieve_format::index::create_file(&losses)?,
        path: &losses,
        files,
    };
    for s in shards {
        let theirs = s.join(LOSSES);
        if theirs.is_file() {
            let mut f = std::fs::File::open(&theirs).map_err(io(&theirs))?;
            std::io::copy(&mut f, &mut sink.losses).map_err(io(&losses))?;
        }
    }
    remove_duplicates(index, tmp, &mut sink)?;
    sink.losses.flush().map_err(io(&losses))?;
    Ok(())
}

/// The statistics of a merged index: the shards' `files` and their
/// totals, with the clusters found over all of them.
fn merged_stats(files: Vec<FileStats>, near_duplicates: Option<ClusterSummary>) -> BuildStats {
    BuildStats {
        failed_files: files.iter().filter_map(FileStats::failure).collect(),
        totals: crate::run::totals(&files),
        files,
        skipped_inputs: Vec::new(),
        spam_without_doc: None,
        near_duplicates,
        unique_docids: true,
        seconds: 0.0,
    }
}

/// Where a merge's later copies of a docid go: the merged index's
/// `losses.jsonl` and the skipped file's statistics.
struct MergeDups<'a> {
    losses: std::io::BufWriter<std::fs::File>,
    path: &'a Path,
    files: &'a mut Vec<FileStats>,
}

impl DupSink for MergeDups<'_> {
    fn skipped(&mut self, d: &Duplicate) -> Result<()> {
        let mut log = Vec::new();
        log_duplicate(&mut log, d);
        self.losses.write_all(&log).map_err(io(self.path))?;
        count_duplicate(self.files, d);
        Ok(())
    }

    fn payload(&mut self) -> Result<Option<String>> {
        Ok(None)
    }
}
