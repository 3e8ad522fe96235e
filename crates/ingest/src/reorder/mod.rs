//! Document reordering: an index written again with each segment's
//! documents in recursive-graph-bisection order ([`bp`]), so that
//! documents sharing terms are neighbours: posting lists get small gaps
//! (a smaller index) and block-max bounds get tight (faster top-k).
//!
//! [`reorder`] reads a finished index and writes a new one beside it,
//! through a hidden temporary directory renamed into place at the end (the
//! input is never touched; the output is whole or absent). Per segment, in
//! the index's segment order: the `body` postings are read back per
//! document ([`forward`]), bisected, and the segment is written again in
//! that order ([`rewrite`]); segments keep their documents (one new
//! segment per old one), so memory stays bounded by the build's merge cap.
//! Each new segment gets the old one's near-duplicate cluster column,
//! permuted ([`dups`]). Then the block-max bounds are written for the new
//! index, `stats.json` and `losses.jsonl` are carried over, and the
//! manifest says `order: bp` with the parameters
//! ([`sieve_format::manifest::DocOrder`]).
//!
//! With [`ReorderOptions::drop_band_keys`] the new segments have no
//! `minhash` band keys (128 bytes per document, about a fifth of an
//! index); the clusters stay, and the manifest's `band_keys_dropped` makes
//! `merge` refuse the index (it clusters shards again from their keys).
//!
//! What stays the same: every document with every field (terms,
//! frequencies, positions, field lengths, columns, stored values), so
//! every score; and since ties are broken by docid (never by index order)
//! and near-duplicate representatives are each cluster's smallest docid, a
//! run on the reordered index is the run on the input, byte for byte. The
//! order is deterministic for any thread count.
//!
//! What changes: a reordered index is not in input order, so it cannot be
//! resumed, and shards merge only with shards of the same order.
//!
//! A reorder killed part way is resumed by the next reorder to the same
//! output, if it has the same input and options: the segments already
//! written are kept and only the rest are bisected, and the output is the
//! same as an uninterrupted reorder's ([`resume`]).

pub mod bp;
mod dups;
mod forward;
mod resume;
mod rewrite;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sieve_format::index::{LOSSES, STATS, open_index, write_json};
use sieve_format::manifest::{BuildState, DocOrder, MANIFEST};
use sieve_format::schema::{Fields, RuleColumns};
use tantivy::index::SegmentMeta;
use tantivy::schema::Field;
use tantivy::{Index, SegmentReader};

use self::bp::{BpParams, bp_order_parts};
use self::forward::Forward;
use self::resume::{JOURNAL, Journal, WorkDir};
use crate::error::io_err as io;
use crate::{Error, Result};

/// What [`reorder`] is asked to do.
#[derive(Debug, Clone)]
pub struct ReorderOptions {
    /// The finished index to read.
    pub input: PathBuf,
    /// The index to write (must not exist).
    pub output: PathBuf,
    /// Worker threads of the bisection.
    pub threads: usize,
    /// The bisection's parameters.
    pub bp: BpParams,
    /// Terms held by fewer documents of a segment are not read by the
    /// bisection (they are all written again).
    pub min_df: u32,
    /// Documents by spam percentile first, highest first (unscored ones
    /// before all), each percentile's documents bisected on their own: a
    /// spam threshold's documents are then a prefix of every segment, and
    /// a sweep or a filtered run leaves the rest of the segment out of its
    /// pruning (see `sieve_searcher`'s membership block summaries).
    pub by_spam: bool,
    /// Leave the `minhash` band keys out of the new segments (128 bytes
    /// per document). The near-duplicate clusters stay (their columns are
    /// carried over); what is lost is clustering again: the reordered
    /// index cannot be given to `merge`, which clusters all shards'
    /// documents anew from their keys.
    pub drop_band_keys: bool,
}

impl ReorderOptions {
    /// Reorders `input` into `output` with the default parameters.
    pub fn new(input: PathBuf, output: PathBuf) -> Self {
        ReorderOptions {
            input,
            output,
            threads: 1,
            bp: BpParams::default(),
            min_df: 2,
            by_spam: false,
            drop_band_keys: false,
        }
    }
}

/// What [`reorder`] did, with its time by phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReorderStats {
    /// Segments written again (by this run: see `resumed_segments`).
    pub segments: usize,
    /// Documents written again.
    pub documents: u64,
    /// Body postings read back.
    pub postings: u64,
    /// Seconds reading postings back.
    pub read_seconds: f64,
    /// Seconds bisecting.
    pub bp_seconds: f64,
    /// Seconds writing segments.
    pub write_seconds: f64,
    /// Seconds writing the sidecars.
    pub sidecar_seconds: f64,
    /// Segments an earlier reorder of the same input with the same
    /// options wrote before it was killed, kept (not counted above).
    pub resumed_segments: usize,
}

/// What [`reorder`] tells its caller as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress<'a> {
    /// At the start: an earlier reorder of the same input with the same
    /// options was killed after writing some segments, which are kept.
    Resumed {
        /// The segments kept.
        kept: usize,
        /// The input's segments.
        total: usize,
    },
    /// At the start: what an earlier reorder to the same output left was
    /// removed.
    Discarded {
        /// Why it could not be resumed.
        why: &'a str,
    },
    /// After each segment written.
    Segment {
        /// The segments written so far, with those kept.
        done: usize,
        /// The input's segments.
        total: usize,
    },
}

/// Writes `opts.input` again as `opts.output` in bisection order (see the
/// module docs), resuming a reorder of the same input with the same
/// options that was killed part way ([`resume`]), and telling `progress`
/// where it is.
pub fn reorder(opts: &ReorderOptions, progress: &dyn Fn(Progress<'_>)) -> Result<ReorderStats> {
    let threads = crate::options::check_threads(opts.threads)?;
    let (input, mut manifest) = open_index(&opts.input)?;
    if opts.output.exists() {
        return Err(Error::Input {
            path: opts.output.clone(),
            detail: "the reordered index's directory already exists".into(),
        });
    }
    let searcher = input.reader()?.searcher();
    let journal = Journal::new(opts, searcher.segment_readers());
    let parent = opts.output.parent().filter(|p| !p.as_os_str().is_empty());
    remove_abandoned(
        parent.unwrap_or(Path::new(".")),
        &legacy_prefix(&opts.output),
    );
    let work = WorkDir::open(&opts.output, &journal, &input, &manifest)?;
    let result = (|| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.get())
            .build()
            .map_err(|e| Error::Input {
                path: opts.output.clone(),
                detail: format!("cannot start {threads} threads: {e}"),
            })?;
        let fields = Fields::from_schema(&input.schema())?;
        let job = Job {
            work: &work,
            opts,
            pool: &pool,
            body: fields.body,
            dropped: opts.drop_band_keys.then_some(fields.minhash),
            clusters: manifest.options.minhash.is_some(),
        };
        let mut stats = rewrite_segments(&input, searcher.segment_readers(), &job, progress)?;
        let tmp = &work.path;
        let started = Instant::now();
        let build_stats = crate::shard::read_stats(&opts.input)?;
        sieve_format::bounds::write_index_bounds(tmp, &work.index)?;
        stats.sidecar_seconds += started.elapsed().as_secs_f64();
        if opts.input.join(LOSSES).exists() {
            std::fs::copy(opts.input.join(LOSSES), tmp.join(LOSSES)).map_err(io(tmp))?;
        }
        write_json(&tmp.join(STATS), &build_stats)?;
        manifest.order = Some(DocOrder::Bp {
            max_iters: opts.bp.max_iters,
            min_partition: opts.bp.min_partition,
            min_df: opts.min_df,
            by_spam: opts.by_spam,
        });
        manifest.band_keys_dropped |= opts.drop_band_keys && job.clusters;
        manifest.state = Some(BuildState::Finished);
        write_json(&tmp.join(MANIFEST), &manifest)?;
        std::fs::remove_file(tmp.join(JOURNAL)).map_err(io(tmp))?;
        std::fs::rename(tmp, &opts.output).map_err(io(&opts.output))?;
        Ok(stats)
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&work.path);
    }
    result
}

/// The name prefix of the temporary directories of earlier versions of
/// reorder (`.<name>.reorder-tmp-PID-NANOS`), which could not be resumed.
fn legacy_prefix(out: &Path) -> String {
    let work = resume::work_dir_of(out);
    let name = work.file_name().map(|n| n.to_string_lossy());
    format!("{}-", name.unwrap_or_default())
}

/// Removes the temporary directories of earlier versions of reorder to
/// the same output (`prefix` then `PID-NANOS`) whose process is gone;
/// where processes cannot be looked up (no `/proc`), nothing.
fn remove_abandoned(dir: &Path, prefix: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The documents of `seg` by spam percentile, highest first (unscored
/// ones before all), in doc id order within one percentile, and where
/// each percentile's run ends.
fn spam_parts(seg: &SegmentReader, what: &str) -> Result<(Vec<u32>, Vec<usize>)> {
    let columns = RuleColumns::open(seg).map_err(|e| Error::Input {
        path: what.into(),
        detail: format!("the spam column cannot be read: {e}"),
    })?;
    // Unscored (`None`) above every percentile.
    let key: Vec<u16> = (0..seg.max_doc())
        .map(|d| columns.spam(d).map_or(u16::MAX, u16::from))
        .collect();
    let mut docs: Vec<u32> = (0..seg.max_doc()).collect();
    docs.sort_by_key(|&d| std::cmp::Reverse(key[d as usize]));
    let mut ends: Vec<usize> = (1..docs.len())
        .filter(|&i| key[docs[i] as usize] != key[docs[i - 1] as usize])
        .collect();
    ends.push(docs.len());
    Ok((docs, ends))
}

/// What every segment's rewrite needs.
struct Job<'a> {
    work: &'a WorkDir,
    opts: &'a ReorderOptions,
    pool: &'a rayon::ThreadPool,
    /// The field read back per document and bisected on.
    body: Field,
    /// The band-key field, when it is left out.
    dropped: Option<Field>,
    /// Whether the input has near-duplicate cluster columns to carry over.
    clusters: bool,
}

/// Every segment of `input` not already in the work directory bisected
/// and written there (with its cluster column, if any), `meta.json`
/// listing the new segments in the input's segment order written again
/// after each.
fn rewrite_segments(
    input: &Index,
    segments: &[SegmentReader],
    job: &Job<'_>,
    progress: &dyn Fn(Progress<'_>),
) -> Result<ReorderStats> {
    let total = segments.len();
    if let Some(why) = &job.work.discarded {
        progress(Progress::Discarded { why });
    }
    if !job.work.done.is_empty() {
        let kept = job.work.done.len();
        progress(Progress::Resumed { kept, total });
    }
    let mut stats = ReorderStats {
        resumed_segments: job.work.done.len(),
        ..ReorderStats::default()
    };
    let mut meta = input.load_metas()?;
    meta.segments = job.work.done.clone();
    for (i, seg) in segments.iter().enumerate().skip(meta.segments.len()) {
        meta.segments.push(rewrite_one(seg, job, &mut stats)?);
        crate::order::write_meta(&job.work.index, &meta)?;
        progress(Progress::Segment { done: i + 1, total });
    }
    Ok(stats)
}

/// One segment bisected and written into the work directory, with its
/// cluster column; its new meta.
fn rewrite_one(
    seg: &SegmentReader,
    job: &Job<'_>,
    stats: &mut ReorderStats,
) -> Result<SegmentMeta> {
    let opts = job.opts;
    let what = format!(
        "{} (segment {})",
        opts.input.display(),
        seg.segment_id().uuid_string()
    );
    if seg.has_deletes() {
        return Err(Error::Input {
            path: what.into(),
            detail: "the segment has deleted documents; a finished build has none".into(),
        });
    }
    let t = Instant::now();
    let body = Forward::read(seg, job.body, &what)?;
    stats.read_seconds += t.elapsed().as_secs_f64();
    let t = Instant::now();
    let rows = body.bp_rows(opts.min_df);
    let (docs, ends) = if opts.by_spam {
        spam_parts(seg, &what)?
    } else {
        ((0..rows.len() as u32).collect(), vec![rows.len()])
    };
    let order = job
        .pool
        .install(|| bp_order_parts(&rows, &opts.bp, docs, &ends));
    drop(rows);
    stats.bp_seconds += t.elapsed().as_secs_f64();
    let t = Instant::now();
    let fields = rewrite::Rewritten {
        body: job.body,
        dropped: job.dropped,
    };
    let meta = rewrite::rewrite_segment(&job.work.index, seg, &order, &body, fields, &what)?;
    stats.write_seconds += t.elapsed().as_secs_f64();
    let t = Instant::now();
    if job.clusters {
        let new = job.work.index.segment(meta.clone());
        dups::permute_column(&opts.input, seg, &job.work.path, &new, &order)?;
    }
    stats.sidecar_seconds += t.elapsed().as_secs_f64();
    stats.segments += 1;
    stats.documents += order.len() as u64;
    stats.postings += body.postings() as u64;
    Ok(meta)
}
