//! Checking every file of an index against its checksum, without
//! searching it: `sieve-index verify`.
//!
//! sieve's own files are sealed and checked whenever they are read
//! (`sieve.json`, `stats.json`: a CRC-32 seal member; see
//! [`crate::jsonfile`]). tantivy's segment files end with a footer holding
//! a CRC-32 of the file, but tantivy does not check it when it opens an
//! index (checking means reading every byte), so a flipped byte in a
//! segment file is read as data: a search may then return wrong docids, fail
//! with an error, or make tantivy panic (which the binaries turn into an
//! error line, see `sieve_cli::exit::run_guarded`). [`verify_index`] reads
//! every file the index's `meta.json` lists and compares each footer's
//! checksum with the bytes, and reports every file missing or damaged, by
//! name. It reads the whole index once: about as long as copying it.
//!
//! It also says whether the build finished ([`crate::manifest::BuildState`]):
//! an unfinished build is reported as such (it is not damage: `sieve-index
//! build --resume` finishes it), and the files only a finished build has
//! (`stats.json`, the near-duplicate columns) are then not expected.

use std::path::{Path, PathBuf};

use crate::Result;
use crate::index::check_index_dir;
use crate::manifest::{Manifest, build_finished, read_manifest};
use crate::stats::{BuildStats, STATS};

/// What [`verify_index`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Files checked (sieve's sealed files and every segment file).
    pub files: u64,
    /// Bytes read to check them.
    pub bytes: u64,
    /// Each file that is missing or damaged, with what is wrong with it.
    pub problems: Vec<(PathBuf, String)>,
    /// What is absent but not damage: a segment without a block-max
    /// bounds sidecar (searches are exact without it, only slower;
    /// `sieve-index bounds` writes it).
    pub notes: Vec<(PathBuf, String)>,
    /// Why the index is unfinished, when its build did not finish (killed,
    /// failed or being resumed).
    pub unfinished: Option<String>,
}

impl VerifyReport {
    /// True when the build finished and every file is present and matches
    /// its checksum.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty() && self.unfinished.is_none()
    }
}

/// Checks every file of the index in `dir`: whether its build finished,
/// the seals of `sieve.json` and `stats.json` (missing from a finished
/// build is a problem), the footer checksum of every file of every segment
/// `meta.json` lists (a listed file that is missing is a problem too), and
/// then, if those are sound, every segment's block-max bounds sidecar
/// ([`crate::bounds`]: its seal, version and fingerprint against the
/// segment; a missing one is a note, not a problem) and near-duplicate
/// cluster column ([`crate::dups`]).
/// Errors only when the directory is not an index or `meta.json` cannot be
/// parsed; every missing or damaged file is listed in the report instead.
pub fn verify_index(dir: &Path) -> Result<VerifyReport> {
    check_index_dir(dir)?;
    let mut report = VerifyReport::default();
    // sieve's sealed files: reading them checks their seal.
    let manifest = check_manifest(dir, &mut report);
    let finished = manifest.as_ref().is_some_and(|m| build_finished(dir, m));
    if manifest.is_some() && !finished {
        report.unfinished = Some(unfinished_note(dir));
    }
    let with_dups = finished && manifest.is_some_and(|m| m.options.minhash.is_some());
    check_stats(dir, finished, &mut report);
    if !dir.join("meta.json").is_file() {
        report
            .problems
            .push((dir.join("meta.json"), "missing".into()));
        return Ok(report);
    }
    let index = tantivy::Index::open_in_dir(dir)?;
    check_segment_files(dir, &index, &mut report)?;
    if !report.problems.is_empty() {
        return Ok(report);
    }
    let searcher = index.reader()?.searcher();
    check_bounds(dir, &searcher, &index.schema(), &mut report);
    if with_dups {
        check_dups(dir, &searcher, &mut report);
    }
    Ok(report)
}

/// What [`VerifyReport::unfinished`] says of the unfinished index in `dir`.
fn unfinished_note(dir: &Path) -> String {
    format!(
        "unfinished build: it was killed, failed, or is being resumed{}; \
         `sieve-index build --resume --index {}` (same inputs and options) finishes it",
        crate::index::committed_docs(dir)
            .map(|n| format!(" ({n} documents committed)"))
            .unwrap_or_default(),
        dir.display()
    )
}

/// The size of the file at `p`, 0 when it cannot be read.
fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// Every file of every segment `meta.json` lists, sorted (tantivy lists a
/// delete file for every segment; only a segment with deletes has one).
fn listed_segment_files(metas: &tantivy::IndexMeta) -> Vec<PathBuf> {
    let deletes: std::collections::HashSet<PathBuf> = metas
        .segments
        .iter()
        .map(|s| s.relative_path(tantivy::index::SegmentComponent::Delete))
        .collect();
    let with_deletes: std::collections::HashSet<PathBuf> = metas
        .segments
        .iter()
        .filter(|s| s.has_deletes())
        .map(|s| s.relative_path(tantivy::index::SegmentComponent::Delete))
        .collect();
    let mut listed: Vec<PathBuf> = metas
        .list_segment_files()
        .into_iter()
        .filter(|p| !deletes.contains(p) || with_deletes.contains(p))
        .collect();
    listed.sort();
    listed
}

/// Checks the footer checksum of every segment file `meta.json` lists,
/// counting each; a missing, unreadable or damaged one is a problem.
fn check_segment_files(
    dir: &Path,
    index: &tantivy::Index,
    report: &mut VerifyReport,
) -> Result<()> {
    let listed = listed_segment_files(&index.load_metas()?);
    let directory = index.directory();
    for rel in listed {
        let path = dir.join(&rel);
        report.files += 1;
        match std::fs::metadata(&path) {
            Ok(m) => report.bytes += m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                report
                    .problems
                    .push((path, "missing (listed in meta.json)".into()));
                continue;
            }
            Err(e) => {
                report
                    .problems
                    .push((path, format!("listed in meta.json but unreadable: {e}")));
                continue;
            }
        }
        match directory.validate_checksum(&rel) {
            Ok(true) => {}
            Ok(false) => report.problems.push((
                path,
                "checksum mismatch: the bytes differ from the CRC-32 in the file's footer".into(),
            )),
            Err(e) => report
                .problems
                .push((path, format!("no readable footer: {e}"))),
        }
    }
    Ok(())
}

/// Checks the block-max bounds sidecar of every segment (seal, version,
/// fingerprint against the segment); a missing one is a note.
fn check_bounds(
    dir: &Path,
    searcher: &tantivy::Searcher,
    schema: &tantivy::schema::Schema,
    report: &mut VerifyReport,
) {
    for seg in searcher.segment_readers() {
        let path = crate::bounds::bounds_path(dir, seg);
        match crate::bounds::SegmentBounds::open(dir, seg, schema) {
            Ok(Some(_)) => {
                report.files += 1;
                report.bytes += size(&path);
            }
            Ok(None) => report.notes.push((
                path,
                "no block-max bounds sidecar: searches are exact without it, but slower; \
                 `sieve-index bounds --index DIR` writes it"
                    .into(),
            )),
            Err(e) => {
                report.files += 1;
                report.bytes += size(&path);
                report.problems.push((path, e.to_string()));
            }
        }
    }
}

/// Checks the near-duplicate cluster column of every segment (gzip CRC
/// and length, header, one line per document).
fn check_dups(dir: &Path, searcher: &tantivy::Searcher, report: &mut VerifyReport) {
    for seg in searcher.segment_readers() {
        let path = crate::dups::dups_path(dir, seg);
        report.files += 1;
        report.bytes += size(&path);
        if let Err(e) = crate::dups::read_segment_dups(dir, seg, |_, _| {}) {
            report.problems.push((path, e.to_string()));
        }
    }
}

/// Reads (and so checks the seal of) `sieve.json`, counting it; a missing
/// or damaged one is a problem (`None`).
fn check_manifest(dir: &Path, report: &mut VerifyReport) -> Option<Manifest> {
    let path = dir.join(crate::manifest::MANIFEST);
    report.files += 1;
    report.bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
    match read_manifest(dir) {
        Ok(m) => Some(m),
        Err(e) => {
            report.problems.push((path, e.to_string()));
            None
        }
    }
}

/// Checks the seal of `stats.json`, counting it; a missing one is a
/// problem when the build `finished` (the last file but `sieve.json` it
/// writes), and expected otherwise.
fn check_stats(dir: &Path, finished: bool, report: &mut VerifyReport) {
    let stats = dir.join(STATS);
    if !stats.exists() {
        if finished {
            report.problems.push((
                stats,
                "missing: every finished build writes it (the build statistics)".into(),
            ));
        }
        return;
    }
    report.files += 1;
    report.bytes += std::fs::metadata(&stats).map_or(0, |m| m.len());
    if let Err(e) = crate::jsonfile::read_json::<BuildStats>(&stats) {
        report.problems.push((stats, e.to_string()));
    }
}
