//! Unique docids: an index holds each docid once.
//!
//! # The rule
//!
//! The first record with a docid, in index order (which is input order:
//! the expanded, sorted input list, file by file, record by record; see
//! [`crate::order`]), is the one indexed. Every later record with the same
//! docid is removed from the index and counted as a loss: skip reason
//! `duplicate_docid` in its file's statistics (`indexed` one less), and a
//! line in `losses.jsonl` naming both places:
//! `{"file":..,"offset":..,"record_id":<docid>,"reason":"duplicate_docid","kept_file":..,"kept_offset":..}`.
//! This holds within a file, across files, across `--resume` (the check
//! runs over the whole index at the end of every build) and across shards
//! merged by `sieve-index merge` (the check runs over the merged index).
//!
//! # Why after the build, not while writing
//!
//! A check while writing would need, for every document, either a set of
//! every docid seen so far (500 million at ClueWeb scale) or a lookup in the
//! committed index (not possible for the uncommitted segment). Instead
//! [`remove_duplicates`] runs once over the finished index, after the last
//! commit and before the block-max bounds and near-duplicate sidecars:
//!
//! 1. every live document's docid (the docid field's terms, streamed per
//!    segment with their postings) is hashed to 128 bits and written with
//!    its place in index order (segment ordinal, document) as a record of
//!    three integers to sorted runs ([`sieve_format::extsort`]);
//! 2. the runs are merged: records with one hash are adjacent, in index
//!    order ([`DupFinder`](sieve_format::unique::DupFinder)). The docids of such a group are read from the
//!    document store and compared as strings, so a hash collision removes
//!    nothing: the check is exact;
//! 3. the later copies are logged, deleted with a query over their exact
//!    segment doc ids, committed (in a build, with the corrected statistics
//!    and losses length as the resume checkpoint), and every segment with
//!    deleted documents is merged by itself, so no deleted document is left
//!    anywhere: tantivy counts deleted documents in `doc_freq`, the
//!    document count and the field norms until a merge drops them, and BM25
//!    statistics must equal those of an index built without the copies.
//!    One figure the merge does not make exact: tantivy recomputes the
//!    token total of a merged segment that had deleted documents from the
//!    quantised field norms. So a search of an index from which copies
//!    were removed (its `stats.json` counts `duplicate_docid` skips) sums
//!    the exact per-document token counts instead
//!    ([`check_unique`](sieve_format::unique::check_unique),
//!    [`exact_token_totals`](sieve_format::unique::exact_token_totals)): one pass over two fast fields, only for
//!    such an index.
//!
//! # Memory
//!
//! At most [`RUN_RECORDS`] records (24 bytes each: 96 MiB) are held, plus
//! a read buffer (8 KiB) per run file when they are merged (about 60 files
//! per billion documents), one group of equal hashes, and 4 bytes per later
//! copy until the deletion is committed. Nothing grows with the number of
//! distinct docids. The run files (24 bytes per document) go to a temporary
//! directory inside the index directory.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sieve_format::extsort::{SortedRuns, merge_sorted_lines};
use sieve_format::stats::FileStats;
use sieve_format::unique::{
    DUPLICATE_DOCID, Duplicate, Place, RUN_RECORDS, address, find_duplicates, hash128,
};
use tantivy::index::SegmentId;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{DocId, Index, Score, SegmentReader};

use crate::losses::{LossLine, log_loss};
use crate::{Error, Result};

/// What a build or merge does with each later copy found, and what it
/// commits with the deletion.
pub(crate) trait DupSink {
    /// One later copy (log it, count it).
    fn skipped(&mut self, d: &Duplicate) -> Result<()>;
    /// The commit payload once every copy has been seen (the checkpoint),
    /// or `None` to keep none.
    fn payload(&mut self) -> Result<Option<String>>;
}

/// Removes every later copy of a docid from `index` (see the module docs),
/// telling `sink` about each; sorts in a temporary directory inside `dir`.
/// Returns the number of copies removed. The caller rewrites the segment
/// order afterwards (a merged segment is new).
pub(crate) fn remove_duplicates(index: &Index, dir: &Path, sink: &mut dyn DupSink) -> Result<u64> {
    remove_duplicates_with(index, dir, RUN_RECORDS, sink)
}

/// [`remove_duplicates`] with runs of `run_records` records.
pub(crate) fn remove_duplicates_with(
    index: &Index,
    dir: &Path,
    run_records: usize,
    sink: &mut dyn DupSink,
) -> Result<u64> {
    let searcher = index.reader()?.searcher();
    let tmp = tempfile::Builder::new()
        .prefix(".docids-")
        .tempdir_in(dir)
        .map_err(crate::error::io_err(dir))?;
    let mut doomed: HashMap<SegmentId, Vec<DocId>> = HashMap::new();
    let mut removed = 0u64;
    find_duplicates(&searcher, tmp.path(), run_records, |d| {
        sink.skipped(&d)?;
        let a = address(d.at);
        let seg = searcher.segment_reader(a.segment_ord).segment_id();
        doomed.entry(seg).or_default().push(a.doc_id);
        removed += 1;
        Ok::<(), Error>(())
    })?;
    let with_deletes = searcher
        .segment_readers()
        .iter()
        .any(SegmentReader::has_deletes);
    if removed == 0 && !with_deletes {
        return Ok(0);
    }
    let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15 << 20)?;
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    if removed > 0 {
        for docs in doomed.values_mut() {
            docs.sort_unstable();
            docs.dedup();
        }
        writer.delete_query(Box::new(Docs(Arc::new(doomed))))?;
        let payload = sink.payload()?;
        let mut prepared = writer.prepare_commit()?;
        if let Some(p) = payload {
            prepared.set_payload(&p);
        }
        prepared.commit()?;
    }
    for meta in index.searchable_segment_metas()? {
        if meta.has_deletes() {
            writer.merge(&[meta.id()]).wait()?;
        }
    }
    writer.wait_merging_threads()?;
    Ok(removed)
}

/// Appends the `losses.jsonl` line of the later copy `d` to `log`.
pub(crate) fn log_duplicate(log: &mut Vec<u8>, d: &Duplicate) {
    log_loss(log, &duplicate_line(d));
}

/// The `losses.jsonl` line of the later copy `d`: both places named.
fn duplicate_line(d: &Duplicate) -> LossLine<'_> {
    LossLine {
        kept_file: Some(&d.kept.file),
        kept_offset: Some(d.kept.offset),
        ..LossLine::new(
            &d.skipped.file,
            d.skipped.offset,
            Some(&d.docid),
            DUPLICATE_DOCID,
        )
    }
}

/// Counts the later copy `d` in its file's statistics among `files`: one
/// document less indexed, one skipped as `duplicate_docid`.
pub(crate) fn count_duplicate(files: &mut [FileStats], d: &Duplicate) {
    if let Some(f) = files.iter_mut().find(|f| f.path == d.skipped.file) {
        f.indexed = f.indexed.saturating_sub(1);
        f.skip(DUPLICATE_DOCID);
    }
}

/// Folder of `extract`'s docid lists (one per input:
/// `NNNNN.tsv.gz`, `offset<TAB>docid` per document written).
pub const EXTRACT_DOCIDS_DIR: &str = "docids";

/// Lines per sorted run of `extract`'s duplicate check (about 100 bytes
/// each: some 60 MB).
const EXTRACT_RUN_LINES: usize = 500_000;

/// The docid list of input number `i` of the extract in `dir`.
pub(crate) fn extract_docids_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(EXTRACT_DOCIDS_DIR).join(format!("{i:05}.tsv.gz"))
}

/// `extract`: finds every document written whose docid an earlier one
/// (in input order) already had, from the docid lists of the extract in
/// `dir` (so across a resume too): each is a `duplicate_docid` line in
/// `log` naming both places, and counted in its file's
/// [`FileStats::duplicate_docids`] among `files`. They stay in the output:
/// each output file is final once its input is done, and a later copy may
/// be in a file written long before. Exact (docids compared as strings
/// within a hash), bounded memory (an external sort of lines). Returns the
/// copies found.
pub(crate) fn extract_duplicates(
    dir: &Path,
    inputs: &[PathBuf],
    files: &mut [FileStats],
    log: &mut Vec<u8>,
) -> Result<u64> {
    let tmp = tempfile::Builder::new()
        .prefix(".docids-")
        .tempdir_in(dir)
        .map_err(crate::error::io_err(dir))?;
    let sorted = sort_extract_docids(dir, inputs.len(), tmp.path())?;
    let mut copies = ExtractCopies {
        names: inputs
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        files,
        log,
        group: Vec::new(),
        found: 0,
    };
    let mut hash = String::new();
    merge_sorted_lines(&sorted, |line| {
        let mut parts = line.splitn(4, '\t');
        let (Some(h), Some(i), Some(offset), Some(docid)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Ok::<(), Error>(());
        };
        if h != hash {
            copies.flush();
            hash = h.to_string();
        }
        copies.group.push((
            i.parse().unwrap_or(0),
            offset.parse().unwrap_or(0),
            docid.to_string(),
        ));
        Ok(())
    })?;
    copies.flush();
    for p in &sorted {
        let _ = std::fs::remove_file(p);
    }
    Ok(copies.found)
}

/// The docid lists of the `inputs` inputs of the extract in `dir` as
/// sorted runs in `tmp`: one line per document, `hash<TAB>input<TAB>
/// offset<TAB>docid` (the hash in hexadecimal, input and offset padded),
/// so that equal docids are adjacent and in input order. Returns the run
/// files.
fn sort_extract_docids(dir: &Path, inputs: usize, tmp: &Path) -> Result<Vec<PathBuf>> {
    let mut runs = SortedRuns::new(tmp, "docids", EXTRACT_RUN_LINES);
    for i in 0..inputs {
        let p = extract_docids_path(dir, i);
        if !p.is_file() {
            continue;
        }
        let f = std::fs::File::open(&p).map_err(crate::error::io_err(&p))?;
        for line in BufReader::new(flate2::read::GzDecoder::new(f)).lines() {
            let line = line.map_err(crate::error::io_err(&p))?;
            let (offset, docid) = line.split_once('\t').ok_or_else(|| Error::Input {
                path: p.clone(),
                detail: format!("expected offset<TAB>docid, found {line:?}"),
            })?;
            let h = hash128(docid.as_bytes());
            runs.push(format!(
                "{:016x}{:016x}\t{i:010}\t{offset:0>20}\t{docid}",
                h[0], h[1]
            ))?;
        }
    }
    Ok(runs.finish()?)
}

/// The later copies of docids in an extract, found group by group of
/// documents with one docid hash (input ordinal, offset, docid; in input
/// order).
struct ExtractCopies<'a> {
    /// The inputs, as given.
    names: Vec<String>,
    files: &'a mut [FileStats],
    log: &'a mut Vec<u8>,
    group: Vec<(usize, u64, String)>,
    found: u64,
}

impl ExtractCopies<'_> {
    /// Logs and counts every document of the group whose docid one before
    /// it has (hashes may collide: docids are compared), then starts a
    /// new group.
    fn flush(&mut self) {
        if self.group.len() > 1 {
            let mut firsts: Vec<&(usize, u64, String)> = Vec::new();
            for g in &self.group {
                match firsts.iter().find(|f| f.2 == g.2) {
                    Some(k) => {
                        let d = Duplicate {
                            docid: g.2.clone(),
                            kept: Place {
                                file: self.names[k.0].clone(),
                                offset: k.1,
                            },
                            skipped: Place {
                                file: self.names[g.0].clone(),
                                offset: g.1,
                            },
                            at: 0,
                        };
                        let line = LossLine {
                            detail: Some(
                                "extract writes every copy: this one is in the output too",
                            ),
                            ..duplicate_line(&d)
                        };
                        log_loss(self.log, &line);
                        if let Some(f) = self.files.iter_mut().find(|f| f.path == d.skipped.file) {
                            f.duplicate_docids += 1;
                        }
                        self.found += 1;
                    }
                    None => firsts.push(g),
                }
            }
        }
        self.group.clear();
    }
}

/// A query matching exactly the given doc ids of the given segments (the
/// later copies to delete).
#[derive(Clone, Debug)]
struct Docs(Arc<HashMap<SegmentId, Vec<DocId>>>);

impl Query for Docs {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for Docs {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(match self.0.get(&reader.segment_id()) {
            Some(docs) => {
                let mut set = tantivy::BitSet::with_max_value(reader.max_doc());
                for &d in docs {
                    set.insert(d);
                }
                Box::new(ConstScorer::new(BitSetDocSet::from(set), boost))
            }
            None => Box::new(EmptyScorer),
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let hit = self
            .0
            .get(&reader.segment_id())
            .is_some_and(|d| d.binary_search(&doc).is_ok());
        Ok(Explanation::new(
            "a later copy of a docid",
            if hit { 1.0 } else { 0.0 },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sieve_format::schema::{DOCID, OFFSET, SOURCE};
    use sieve_format::unique::{DupFinder, check_unique};
    use tantivy::TantivyDocument;

    /// The synthetic docid of item `i` among `n`: every 1000th item (from
    /// 999) repeats the docid of the item 997 before it (so 1 in 1000 is a
    /// later copy).
    fn synthetic(i: u64) -> String {
        let j = if i % 1000 == 999 { i - 997 } else { i };
        format!(
            "clueweb22-en{:04}-{:02}-{:05}",
            j / 1_000_000,
            (j / 10_000) % 100,
            j % 10_000
        )
    }

    /// Feeds `n` synthetic docids through the finder with runs of
    /// `run_records` and checks that exactly the planted copies are found,
    /// with the first copy first. Returns the copies found.
    fn find_planted(n: u64, run_records: usize) -> u64 {
        let tmp = tempfile::tempdir().unwrap();
        let mut f = DupFinder::new(tmp.path(), run_records);
        for i in 0..n {
            f.push(synthetic(i).as_bytes(), i).unwrap();
        }
        let mut found = 0u64;
        let seen = f
            .finish(|group| {
                // No hash collision among these: every group is one docid.
                assert_eq!(group.len(), 2, "{group:?}");
                let (first, later) = (group[0], group[1]);
                assert_eq!(later % 1000, 999);
                assert_eq!(first, later - 997);
                assert_eq!(synthetic(first), synthetic(later));
                found += 1;
                Ok::<(), Error>(())
            })
            .unwrap();
        assert_eq!(seen, n);
        // The run files are gone.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        found
    }

    #[test]
    fn duplicate_docids_are_found_across_sorted_runs_on_disk() {
        // 200,000 docids in runs of 16,384 records: 13 runs, 12 on disk.
        assert_eq!(find_planted(200_000, 1 << 14), 200);
    }

    /// An index with `docs` (docid, source, offset) in one segment each
    /// committed group, as an index built before duplicates were removed.
    fn old_index(dir: &Path, groups: &[&[(&str, &str, u64)]]) -> Index {
        index_with(dir, sieve_format::schema::build_schema(), groups)
    }

    /// The fields `unique` reads as schema version 4 had them: the docid
    /// stored as well, the exact fields with fieldnorms.
    fn version4_schema() -> tantivy::schema::Schema {
        use tantivy::schema::{FAST, STORED, STRING};
        let mut b = tantivy::schema::Schema::builder();
        b.add_text_field(DOCID, STRING | STORED | FAST);
        b.add_text_field(SOURCE, STRING | STORED | FAST);
        b.add_u64_field(OFFSET, STORED);
        b.build()
    }

    /// [`old_index`] with `schema`.
    fn index_with(
        dir: &Path,
        schema: tantivy::schema::Schema,
        groups: &[&[(&str, &str, u64)]],
    ) -> Index {
        let index = Index::create_in_dir(dir, schema).unwrap();
        let analyzer = crate::options::BuildOptions::new(Vec::new(), dir.to_path_buf()).analyzer;
        sieve_format::schema::register_analyzers(&index, analyzer);
        let schema = index.schema();
        let f = |n| schema.get_field(n).unwrap();
        let mut w: tantivy::IndexWriter = index.writer_with_num_threads(1, 15 << 20).unwrap();
        for group in groups {
            for (docid, source, offset) in group.iter() {
                let mut d = TantivyDocument::default();
                d.add_text(f(DOCID), docid);
                d.add_text(f(SOURCE), source);
                d.add_u64(f(OFFSET), *offset);
                w.add_document(d).unwrap();
            }
            w.commit().unwrap();
        }
        index
    }

    #[test]
    fn duplicates_are_named_alike_whether_the_docid_is_stored_or_not() {
        use tantivy::schema::Value;
        // One segment: the order of several is tantivy's, not the input's
        // (a build fixes it, `crate::order`; this index is made directly).
        let groups: &[&[(&str, &str, u64)]] = &[&[
            ("D1", "a.warc", 0),
            ("D2", "a.warc", 10),
            ("D3", "b.warc", 3),
            ("D2", "b.warc", 7),
        ]];
        let mut named = Vec::new();
        for (schema, stored) in [
            (sieve_format::schema::build_schema(), false),
            (version4_schema(), true),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            let index = index_with(tmp.path(), schema, groups);
            let searcher = index.reader().unwrap().searcher();
            let doc: TantivyDocument = searcher.doc(tantivy::DocAddress::new(0, 0)).unwrap();
            let field = index.schema().get_field(DOCID).unwrap();
            assert_eq!(
                doc.get_first(field).and_then(|v| v.as_str()).is_some(),
                stored
            );
            let d = sieve_format::unique::first_duplicate(&index)
                .unwrap()
                .unwrap();
            named.push((d.docid, d.kept, d.skipped, d.at));
        }
        assert_eq!(named[0].0, "D2");
        assert_eq!(
            (named[0].1.file.as_str(), named[0].1.offset),
            ("a.warc", 10)
        );
        assert_eq!((named[0].2.file.as_str(), named[0].2.offset), ("b.warc", 7));
        assert_eq!(named[0], named[1], "version 4 and version 5 disagree");
    }

    #[test]
    fn index_built_before_the_rule_with_a_duplicate_is_refused_naming_both_places() {
        let tmp = tempfile::tempdir().unwrap();
        let index = old_index(
            tmp.path(),
            &[
                &[("D1", "a.warc", 0), ("D2", "a.warc", 10)],
                &[("D1", "b.warc", 7)],
            ],
        );
        let e = check_unique(tmp.path(), &index).unwrap_err();
        let sieve_format::Error::DuplicateDocid {
            docid,
            kept_file,
            kept_offset,
            file,
            offset,
            ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(
            (docid.as_str(), kept_file.as_str(), *kept_offset),
            ("D1", "a.warc", 0)
        );
        assert_eq!((file.as_str(), *offset), ("b.warc", 7));
        assert!(e.to_string().contains("rebuild it"), "{e}");
        // Without the copy it passes.
        let tmp = tempfile::tempdir().unwrap();
        let index = old_index(
            tmp.path(),
            &[&[("D1", "a.warc", 0)], &[("D2", "b.warc", 7)]],
        );
        assert!(!check_unique(tmp.path(), &index).unwrap());
    }

    /// A sink that records what it is told.
    #[derive(Default)]
    struct Seen(Vec<(String, u64, u64)>);

    impl DupSink for Seen {
        fn skipped(&mut self, d: &Duplicate) -> Result<()> {
            self.0
                .push((d.docid.clone(), d.kept.offset, d.skipped.offset));
            Ok(())
        }
        fn payload(&mut self) -> Result<Option<String>> {
            Ok(None)
        }
    }

    #[test]
    fn later_copies_are_removed_and_leave_no_deleted_document() {
        let tmp = tempfile::tempdir().unwrap();
        let index = old_index(
            tmp.path(),
            &[
                &[("D1", "a", 0), ("D2", "a", 1), ("D1", "a", 2)],
                &[("D3", "b", 0), ("D2", "b", 1), ("D1", "b", 2)],
            ],
        );
        let mut seen = Seen::default();
        // Runs of 2 records: several on disk.
        let removed = remove_duplicates_with(&index, tmp.path(), 2, &mut seen).unwrap();
        assert_eq!(removed, 3);
        // (Which segment comes first is tantivy's order here: a build
        // rewrites it in input order.)
        let mut docids: Vec<&str> = seen.0.iter().map(|(d, _, _)| d.as_str()).collect();
        docids.sort();
        assert_eq!(docids, ["D1", "D1", "D2"]);
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.num_docs(), 3);
        for seg in searcher.segment_readers() {
            assert!(!seg.has_deletes());
            assert_eq!(seg.max_doc(), seg.num_docs());
        }
        assert!(!check_unique(tmp.path(), &index).unwrap());
        // A second pass finds nothing and changes nothing.
        assert_eq!(
            remove_duplicates_with(&index, tmp.path(), 2, &mut Seen::default()).unwrap(),
            0
        );
    }

    /// Peak resident memory of this process in KiB (Linux).
    fn vm_hwm_kib() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// The rule at scale: 10 million docids (10,000 of them later copies)
    /// with the build's run size. Run with `cargo test -p sieve-ingest
    /// --release ten_million -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn ten_million_docids_are_checked_in_bounded_memory() {
        let started = std::time::Instant::now();
        assert_eq!(find_planted(10_000_000, RUN_RECORDS), 10_000);
        let peak = vm_hwm_kib().unwrap_or(0);
        let bound_kib = (RUN_RECORDS * 24 / 1024) as u64;
        println!(
            "10,000,000 docids: {:.1} s, peak resident {} MiB (the run bound: {} MiB of records)",
            started.elapsed().as_secs_f64(),
            peak / 1024,
            bound_kib / 1024
        );
        // The records of one run, the test's own allocations and the
        // test harness: well under twice the run bound.
        assert!(peak < 2 * bound_kib + 64 * 1024, "peak {peak} KiB");
    }
}
