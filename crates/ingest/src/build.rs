//! The index build: crawl files in, a tantivy index and `stats.json` out.
//!
//! # Pipeline
//!
//! Files are processed one after another, in the order given (inputs are
//! expanded and sorted by [`sieve_crawl::inputs::expand_inputs`]). For each file a reader thread
//! parses records ([`sieve_crawl`]) and hands batches of documents to the
//! worker pool (`threads` rayon workers), which decodes the charset
//! ([`sieve_text::charset`]), cleans UTF-8 and counts errors, extracts text
//! ([`sieve_text::html`]) and analyses it ([`sieve_analysis`]). Results are put
//! back in record order and added to one tantivy writer, so the index holds
//! the same documents in the same order, and `stats.json` is the same, for
//! any `threads`. Merges keep that order and the final segment list is
//! written in it ([`crate::order`]): the index order is input order.
//!
//! # Nothing lost silently
//!
//! Every record that is not indexed is counted by reason in the per-file
//! statistics and written to `losses.jsonl` in the index directory with its
//! file, offset and record id; every framing anomaly too. A file that cannot
//! be opened, or fails part way, is named in [`sieve_format::stats::FileStats::error`].
//!
//! # Resume
//!
//! The writer commits after a group of whole files: once the files indexed
//! since the last commit hold at least [`BuildOptions::commit_bytes`] bytes
//! of input (their sizes on disk), and after the last file (0: after every
//! file); also before the last file once a quarter of the mark is pending,
//! so that the final commit, which nothing overlaps, writes one file's
//! segment. The commit payload records the statistics of every file completed
//! so far and the lengths of `losses.jsonl` and the quarantine index. A
//! build killed at any point and rerun with `resume` starts from the last
//! commit: uncommitted documents (of the files since that commit) were never
//! visible, `losses.jsonl` is cut back to its committed length, and those
//! files are read again from their start. So every document is indexed
//! exactly once, and a kill costs at most the work of one group of files
//! (about `commit_bytes` of input, plus the file that crossed the mark).
//! Fewer commits mean fewer, larger segments (a segment ends at a commit or
//! when the writer heap is full, instead of one per file) and fewer merges; the index holds the same
//! documents in the same order, with the same terms, postings and fields,
//! for any cadence, since segments are ordered by their first document
//! ([`crate::order`]). `sieve.json` (the manifest) records the options, the tool version
//! and each input's size and modification time; a resume with different
//! options or changed inputs is refused.
//!
//! `sieve.json` also records whether the build finished
//! ([`sieve_format::manifest::BuildState`]): `building` is written before the
//! first document (and at the start of every resume, before anything else
//! is written but the lock), `finished` only as the very last step, after
//! `stats.json`, the block-max bounds and the near-duplicate columns. Every
//! reader passes through [`sieve_format::index`], which refuses an unfinished
//! index unless told to read what is committed.
//!
//! # Caps
//!
//! Every cap that fires is counted per file in [`sieve_format::stats::FileStats::caps`] under its
//! [`crate::options::Cap::key`] and logged in `losses.jsonl` with file, offset and record id
//! (`"reason":"cap","cap":"<key>"`, and `"indexed"` saying whether the
//! document was still indexed, cut):
//!
//! * `record_bytes`: a body longer than `max_record_bytes` (stored, or once
//!   de-chunked or gunzipped) was cut; the rest was streamed past.
//! * `decompression_ratio`: a gzip input inflated more than
//!   `max_decompression_ratio` times (a gzip bomb); the rest of the file is
//!   not read (and the file's [`sieve_format::stats::FileStats::error`] says so).
//! * `html_depth`, `text_bytes`: the HTML caps of [`sieve_text::html::HtmlOptions`].
//! * `time_budget`: decoding and extracting one document took longer than
//!   [`BuildOptions::max_doc_time`]. **Off by default**, because it is the one
//!   cap whose effect depends on the machine's speed and load: with it on,
//!   the same input can give a different index on another machine or under
//!   another `--threads`. With [`crate::options::DocTimeout::Skip`] the document is not
//!   indexed (skip reason `time_budget`); with [`crate::options::DocTimeout::Truncate`] the
//!   text extracted before the deadline is indexed (at least the first
//!   [`sieve_text::html::DEADLINE_STEPS`] steps of the HTML scan: decoding is not
//!   interrupted) and analysed in full. The clock is read every
//!   [`sieve_text::html::DEADLINE_STEPS`] steps of the HTML scan, and in skip
//!   mode also after decoding and after analysis.
//!
//! # Quarantine
//!
//! With [`BuildOptions::quarantine`], everything not indexed, and every
//! document that hit a cap, is also written to that directory by ordinal
//! and offset (see the `quarantine` module). A resume must name the same
//! directory (or none, if the interrupted build had none); its items are
//! cut back to the last commit, as `losses.jsonl` is.
//!
//! # Layout
//!
//! This module drives the build: opening or resuming the index, the
//! per-file loop with its commits, and the final statistics. The options
//! are in [`crate::options`], the manifest and resume checks in
//! [`sieve_format::manifest`], what `build` shares with `extract` (the
//! manifest of a run, claiming its directory, the losses log and the
//! quarantine) in `run`, the per-file and per-document work in `pipeline`
//! and `readahead`, the statistics in [`sieve_format::stats`], the losses
//! log in `losses` and index access in [`sieve_format::index`].

use std::path::Path;
use std::time::Instant;

use sieve_analysis::EnglishAnalyzer;
use sieve_format::document::SieveDocument;
use sieve_format::index::{STATS, write_json};
use sieve_format::manifest::{BuildState, Checkpoint, MANIFEST, Manifest, write_state};
use sieve_format::schema::{Fields, build_schema_with, register_analyzers};
use sieve_format::stats::{BuildStats, FileStats};
use sieve_format::unique::Duplicate;
use tantivy::{Index, IndexWriter};

use crate::Result;
use crate::dedup::EarlyKeys;
use crate::manifest::manifest_options;
use crate::options::{BuildOptions, Progress, check_threads};
use crate::order::{SegmentOrder, seal_order};
use crate::pipeline::Pipeline;
use crate::readahead::for_each_file;
use crate::run::{
    Outputs, claim_output, final_stats, inputs_to_do, precheck_quarantine, resumed_manifest,
    run_manifest, worker_pool,
};
use crate::unique::{DupSink, count_duplicate, log_duplicate, remove_duplicates};

/// Builds (or, with `resume`, continues) the index. Returns the statistics
/// also written to `stats.json`.
pub fn build(opts: &BuildOptions, progress: &dyn Progress) -> Result<BuildStats> {
    let started = Instant::now();
    let threads = check_threads(opts.threads)?;
    let tool = format!("sieve {}", env!("CARGO_PKG_VERSION"));
    let manifest = run_manifest(opts, tool, manifest_options(opts))?;
    // Refuse a quarantine directory before creating the index directory.
    precheck_quarantine(opts)?;
    let (index, checkpoint, mut manifest, _lock) = open_or_create(opts, &manifest)?;
    register_analyzers(&index, opts.analyzer);
    let fields = Fields::from_schema(&index.schema())?;
    let mut writing = Writing {
        writer: open_writer(&index, opts)?,
        order: SegmentOrder::new(&opts.inputs, opts.max_merge_docs),
        out: Outputs::open(opts, &checkpoint)?,
        completed: checkpoint.completed,
        early: Background::default(),
        early_keys: Background::default(),
    };
    let pool = worker_pool(opts, threads)?;
    let analyzer = EnglishAnalyzer::new(opts.analyzer);
    let pipeline = Pipeline {
        opts,
        analyzer: &analyzer,
        fields: &fields,
        progress,
        extract: None,
    };
    writing.index_files(&pool, &pipeline, &index, &manifest, threads.get())?;
    let stats = writing.finish(&pool, &index, opts, started)?;
    write_json(&opts.index.join(STATS), &stats)?;
    // The very last step: the index is whole.
    write_state(&opts.index, &mut manifest, BuildState::Finished)?;
    Ok(stats)
}

/// A writer of tantivy documents into `index`, with `opts.writer_heap`
/// (at least 15 MB), one indexing thread and no merge policy: merges keep
/// the input order (see [`crate::order`]); tantivy's own policy would not.
fn open_writer(index: &Index, opts: &BuildOptions) -> Result<IndexWriter<SieveDocument>> {
    let writer: IndexWriter<SieveDocument> =
        index.writer_with_num_threads(1, opts.writer_heap.max(15 << 20))?;
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    Ok(writer)
}

/// The writer's side of a build: the index writer, the segment order, the
/// outputs beside the index, the files completed, and the threads that
/// write sidecars early.
struct Writing {
    writer: IndexWriter<SieveDocument>,
    order: SegmentOrder,
    out: Outputs,
    completed: Vec<FileStats>,
    early: Background<()>,
    early_keys: Background<Option<EarlyKeys>>,
}

impl Writing {
    /// Indexes the files not completed yet. They are read and processed
    /// ahead of the writer ([`crate::readahead`]); the writer (this
    /// thread) takes them in order and commits after each group of files
    /// of `commit_bytes` (see the module docs, "Resume").
    fn index_files(
        &mut self,
        pool: &rayon::ThreadPool,
        pipeline: &Pipeline<'_>,
        index: &Index,
        manifest: &Manifest,
        threads: usize,
    ) -> Result<()> {
        let opts = pipeline.opts;
        let todo = inputs_to_do(opts, &self.completed);
        let total = opts.inputs.len();
        let last = todo.last().map(|(i, _)| *i);
        let before_last = todo.len().checked_sub(2).map(|k| todo[k].0);
        let mut group = CommitGroup::new(opts.commit_bytes);
        for_each_file(pool, pipeline, &todo, threads, |i, path, feed, room| {
            pipeline.progress.file(path, i, total);
            let name = path.to_string_lossy().into_owned();
            let fs = (self.out).index_file(pipeline, feed, &mut self.writer, &name, i)?;
            self.completed.push(fs);
            if group.add(manifest.inputs[i].size, Some(i) == before_last) || Some(i) == last {
                // The next files are read and processed on meanwhile.
                room.widened(|| commit(&self.out, &mut self.writer, &self.completed))?;
                self.order.after_commit(index, &mut self.writer)?;
                if Some(i) != last {
                    start_early_bounds(&mut self.early, &opts.index, index);
                }
                if Some(i) == before_last && opts.near_duplicates {
                    let settled = self.order.settled(index)?;
                    start_early_keys(&mut self.early_keys, &opts.index, index, settled);
                }
            }
            Ok(())
        })
    }

    /// After the last file: later copies of a docid removed, then the
    /// sidecars written; returns the build's statistics.
    fn finish(
        mut self,
        pool: &rayon::ThreadPool,
        index: &Index,
        opts: &BuildOptions,
        started: Instant,
    ) -> Result<BuildStats> {
        self.writer.wait_merging_threads()?;
        seal_order(index, &mut self.order)?;
        // Later copies of a docid go (crate::unique), before any sidecar is
        // written: the early bounds may be of segments this replaces.
        self.early.take();
        let mut sink = BuildDups {
            out: &mut self.out,
            files: &mut self.completed,
            log: Vec::new(),
        };
        remove_duplicates(index, &opts.index, &mut sink)?;
        seal_order(index, &mut self.order)?;
        let dups = write_sidecars(pool, index, opts, &mut self.early, &mut self.early_keys)?;
        let mut stats = final_stats(opts, &self.completed, started);
        stats.near_duplicates = dups;
        stats.unique_docids = true;
        Ok(stats)
    }
}

/// The sidecars: block-max bounds and near-duplicate clusters, side by
/// side on the otherwise idle pool (their sorts use it too). The clusters
/// need no bounds, so they start while the last early bounds are still
/// being written (the final bounds pass waits for those). Returns what
/// the clustering found.
fn write_sidecars(
    pool: &rayon::ThreadPool,
    index: &Index,
    opts: &BuildOptions,
    early: &mut Background<()>,
    early_keys: &mut Background<Option<EarlyKeys>>,
) -> Result<Option<sieve_format::stats::ClusterSummary>> {
    let (bounds, dups) = pool.install(|| {
        rayon::join(
            || {
                early.take();
                sieve_format::bounds::write_index_bounds(&opts.index, index)
            },
            || {
                opts.near_duplicates
                    .then(|| {
                        crate::dedup::write_index_dups_from(
                            &opts.index,
                            index,
                            crate::dedup::RUN_LINES,
                            early_keys.take().flatten(),
                        )
                    })
                    .transpose()
            },
        )
    });
    bounds?;
    dups
}

/// A thread of the build's own beside the pool, whose result (when it
/// ended without a panic) is taken at the end. Dropping it waits for the
/// thread, so nothing is written into the index after the build ends.
struct Background<T> {
    thread: Option<std::thread::JoinHandle<T>>,
}

impl<T> Default for Background<T> {
    fn default() -> Self {
        Background { thread: None }
    }
}

impl<T: Send + 'static> Background<T> {
    /// Whether a thread was started and has not ended yet.
    fn busy(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Waits for the thread started before (its result is dropped), then
    /// runs `f` on a new thread named `name` (none when the system refuses
    /// one: the final pass does the work).
    fn start(&mut self, name: &str, f: impl FnOnce() -> T + Send + 'static) {
        drop(self.take());
        self.thread = std::thread::Builder::new().name(name.into()).spawn(f).ok();
    }

    /// Waits for the thread and takes its result.
    fn take(&mut self) -> Option<T> {
        self.thread.take().and_then(|t| t.join().ok())
    }
}

impl<T> Drop for Background<T> {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writes the block-max bounds of the segments committed so far on the
/// thread `early` while the build goes on (so that the final pass has only
/// the last segment left; see [`sieve_format::bounds::write_committed_bounds`]).
/// At most one such thread runs; a commit that finds it still busy starts
/// none (the next one, or the final pass, does those segments). Errors are
/// left to the final pass, which checks every sidecar.
fn start_early_bounds(early: &mut Background<()>, dir: &Path, index: &Index) {
    if early.busy() {
        return;
    }
    let (dir, index) = (dir.to_path_buf(), index.clone());
    early.start("sieve-bounds", move || {
        let _ = sieve_format::bounds::write_committed_bounds(&dir, &index);
    });
}

/// Reads the near-duplicate band keys of `segments` (those committed with
/// the files before the last one, see [`SegmentOrder::settled`]) on the
/// thread `early` while the last file is indexed and committed (in the
/// final commit the pool is otherwise idle), so that the final pass reads
/// only the last segments' keys (see
/// [`crate::dedup::write_index_dups_from`], which reads them all again if
/// a merge has changed those segments). Started once; a failed read leaves
/// the keys to the final pass. The keys read hold temporary files inside
/// the index directory, removed when they are dropped.
fn start_early_keys(
    early: &mut Background<Option<EarlyKeys>>,
    dir: &Path,
    index: &Index,
    segments: Vec<tantivy::index::SegmentMeta>,
) {
    if early.thread.is_some() || segments.is_empty() {
        return;
    }
    let (dir, index) = (dir.to_path_buf(), index.clone());
    early.start("sieve-keys", move || {
        EarlyKeys::read(&dir, &index, &segments, crate::dedup::RUN_LINES).ok()
    });
}

/// When to commit: after a group of whole files holding at least `bytes`
/// bytes of input (their sizes when the build started, from the manifest,
/// so the groups are a function of the input alone).
struct CommitGroup {
    bytes: u64,
    pending: u64,
}

impl CommitGroup {
    fn new(bytes: u64) -> Self {
        CommitGroup { bytes, pending: 0 }
    }

    /// Adds a file of `size` bytes; true when the group is due for a commit
    /// (then a new group starts). Before the last file (`before_last`) a
    /// group of a quarter of the mark is due too: the final commit, which
    /// no reading or processing can overlap, then writes the last file's
    /// segment only, while this one is overlapped by the last file's work.
    fn add(&mut self, size: u64, before_last: bool) -> bool {
        self.pending = self.pending.saturating_add(size);
        let due = self.pending >= self.bytes || (before_last && self.pending >= self.bytes / 4);
        if due {
            self.pending = 0;
        }
        due
    }
}

/// Opens the index to resume (checking the manifest and reading the last
/// checkpoint), or creates it with its manifest; either way the manifest
/// (returned) then says `building`, before anything else is written.
fn open_or_create(
    opts: &BuildOptions,
    manifest: &Manifest,
) -> Result<(Index, Checkpoint, Manifest, sieve_format::lock::DirLock)> {
    let lock = claim_output(opts, MANIFEST)?;
    if !opts.index.join("meta.json").exists() {
        let mut manifest = manifest.clone();
        write_state(&opts.index, &mut manifest, BuildState::Building)?;
        let index = Index::builder()
            .schema(build_schema_with(opts.contents))
            .settings(sieve_format::schema::index_settings())
            .create_in_dir(&opts.index)?;
        return Ok((index, Checkpoint::default(), manifest, lock));
    }
    let mut old = resumed_manifest(opts, MANIFEST, manifest, |_| Ok(()))?;
    let index = Index::open_in_dir(&opts.index)?;
    let payload = index.load_metas()?.payload.unwrap_or_default();
    let checkpoint = Checkpoint::from_payload(&payload, &opts.index.join("meta.json"))?;
    // Whatever it said before, the index is unfinished from here until
    // this resume ends.
    write_state(&opts.index, &mut old, BuildState::Building)?;
    Ok((index, checkpoint, old, lock))
}

/// Commits `writer` with the checkpoint of `completed` (the lengths of
/// `out`'s losses log and quarantine with them) as payload.
fn commit(
    out: &Outputs,
    writer: &mut IndexWriter<SieveDocument>,
    completed: &[FileStats],
) -> Result<()> {
    let payload = serde_json::to_string(&out.checkpoint(completed)).unwrap_or_default();
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(&payload);
    prepared.commit()?;
    Ok(())
}

/// Where a build's later copies of a docid go: a `duplicate_docid` line
/// in `losses.jsonl` and in the skipped file's statistics, committed with
/// the deletion (see [`crate::unique`]).
struct BuildDups<'a> {
    out: &'a mut Outputs,
    files: &'a mut Vec<FileStats>,
    log: Vec<u8>,
}

impl DupSink for BuildDups<'_> {
    fn skipped(&mut self, d: &Duplicate) -> Result<()> {
        log_duplicate(&mut self.log, d);
        count_duplicate(self.files, d);
        if self.log.len() >= 1 << 20 {
            self.out.append_losses(&std::mem::take(&mut self.log))?;
        }
        Ok(())
    }

    fn payload(&mut self) -> Result<Option<String>> {
        self.out.append_losses(&std::mem::take(&mut self.log))?;
        Ok(serde_json::to_string(&self.out.checkpoint(self.files)).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::options::NoProgress;
    use sieve_format::manifest::read_manifest;

    #[test]
    fn commit_groups_close_at_the_byte_mark() {
        let mut g = CommitGroup::new(100);
        let due: Vec<bool> = [40, 40, 40, 100, 0, 99, 1, 250]
            .into_iter()
            .map(|s| g.add(s, false))
            .collect();
        assert_eq!(due, [false, false, true, true, false, false, true, true]);
        // 0: every file commits.
        let mut g = CommitGroup::new(0);
        assert!(g.add(0, false) && g.add(5, false));
        // Before the last file, from a quarter of the mark.
        let mut g = CommitGroup::new(100);
        assert!(!g.add(24, true));
        assert!(g.add(1, true));
        assert!(!g.add(10, false) && !g.add(14, true) && g.add(1, true));
    }

    /// A build ends `finished`; a resume says `building` from its start
    /// (before anything but the lock is written), even on a finished
    /// index, so that a resume killed at any point leaves it unfinished.
    #[test]
    fn resume_marks_the_index_building_before_writing_anything() {
        let tmp = tempfile::tempdir().expect("tmp");
        let index = tmp.path().join("idx");
        let input = sieve_testdata::fixture("warc/jwarc__cc.warc.gz");
        let mut opts = BuildOptions::new(vec![input], index.clone());
        opts.threads = 1;
        build(&opts, &NoProgress).expect("build");
        let state = || read_manifest(&index).expect("manifest").state;
        assert_eq!(state(), Some(BuildState::Finished));
        opts.resume = true;
        let before = std::fs::read(index.join(STATS)).expect("stats");
        let (_, _, m, lock) =
            open_or_create(&opts, &read_manifest(&index).expect("m")).expect("resume opens");
        assert_eq!(m.state, Some(BuildState::Building));
        assert_eq!(state(), Some(BuildState::Building));
        assert_eq!(std::fs::read(index.join(STATS)).expect("stats"), before);
        assert!(!sieve_format::manifest::build_finished(&index, &m));
        drop(lock);
        build(&opts, &NoProgress).expect("resume");
        assert_eq!(state(), Some(BuildState::Finished));
    }

    /// An index written before the state was recorded (no `state` in its
    /// manifest) counts as finished if and only if its `stats.json` is
    /// present and sound.
    #[test]
    fn index_without_a_recorded_state_is_finished_iff_its_stats_json_is_sound() {
        let tmp = tempfile::tempdir().expect("tmp");
        let index = tmp.path().join("idx");
        let input = sieve_testdata::fixture("warc/jwarc__cc.warc.gz");
        let mut opts = BuildOptions::new(vec![input], index.clone());
        opts.threads = 1;
        build(&opts, &NoProgress).expect("build");
        let mut legacy = read_manifest(&index).expect("manifest");
        legacy.state = None;
        assert!(sieve_format::manifest::build_finished(&index, &legacy));
        std::fs::write(index.join(STATS), b"{}").expect("damage");
        assert!(!sieve_format::manifest::build_finished(&index, &legacy));
        std::fs::remove_file(index.join(STATS)).expect("remove");
        assert!(!sieve_format::manifest::build_finished(&index, &legacy));
    }

    #[test]
    fn build_refuses_zero_threads_before_touching_the_index() {
        let tmp = tempfile::tempdir().expect("tmp");
        let index = tmp.path().join("idx");
        let mut opts = BuildOptions::new(Vec::new(), index.clone());
        opts.threads = 0;
        let e = build(&opts, &NoProgress).expect_err("0 threads");
        assert!(matches!(e, Error::Threads { got: 0 }), "{e:?}");
        assert!(!index.exists());
    }
}
