//! Reading and processing ahead of the writer: the files of a build are
//! read by reader threads, several files at once, and their documents are
//! processed by the worker pool as soon as they are read; the writer (the
//! build's own thread) takes the results file by file, batch by batch, in
//! input order.
//!
//! Before issue 18 each file had one reader thread and the writer waited
//! for every batch: the workers idled while the writer added a batch's
//! documents, while a file was committed and while the next file's first
//! batch was read (1.66 of 2 cores busy at `--threads 2`). Now:
//!
//! * a reader thread per file reads and parses records ([`crate::crawl`])
//!   into batches of at most [`BATCH_DOCS`] documents or [`BATCH_BYTES`]
//!   bytes, spawns one pool job per batch that processes its documents
//!   ([`crate::pipeline::process`]), and queues the batch with the pending
//!   result of its job;
//! * up to [`Plan::files`] files are read at once: the file being written
//!   and the ones after it, so the pool has work while a file is committed
//!   and the reader (gunzip and WARC parsing) is not one serial stage;
//! * each file's queue holds at most [`Plan::queue`] batches, so memory is
//!   bounded: at most `files × (queue + 1)` batches are read and not yet
//!   written, `4 × threads + 8` or so (see [`Plan::new`]).
//!
//! Nothing about the output changes: the writer takes every event of
//! every file in record order, exactly as before, so the index, its
//! statistics and the losses log are the same for any `--threads` (the
//! order rules of [`crate::order`] and the commits after whole files of
//! [`crate::build`] are kept).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::crawl::{CrawlEvent, CrawlReader, RawDoc};
use crate::pipeline::{FileSink, Pipeline, Processed, event_bytes, process};
use crate::{Error, Result};

/// Documents per batch (one pool job).
pub(crate) const BATCH_DOCS: usize = 64;
/// Record bytes per batch. Processing a document holds its body and its
/// extracted and analysed text (a few bytes per byte of text), so a batch
/// of text-heavy records takes a few times this much memory at most.
pub(crate) const BATCH_BYTES: usize = 2 << 20;

/// How far to read ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Files read at once (the one being written included).
    pub(crate) files: usize,
    /// Batches queued per file.
    pub(crate) queue: usize,
}

impl Plan {
    /// The plan for `threads` workers: `2 + threads / 4` files at once
    /// (one reader keeps about four workers busy), and `4 × threads + 4`
    /// batches queued in all, shared among them (at least 2 per file).
    pub(crate) fn new(threads: usize) -> Self {
        let files = 2 + threads / 4;
        let queue = (4 * threads + 4).div_ceil(files).max(2);
        Plan { files, queue }
    }
}

/// One batch of a file: its events in record order (documents taken out)
/// and the pending results of its documents.
pub(crate) struct Batch {
    /// The events, `None` where a document was (in `docs` order).
    pub(crate) order: Vec<Option<CrawlEvent>>,
    /// (offset, docid) of each document.
    pub(crate) docs: Vec<(u64, String)>,
    /// The processed documents, in order, once the pool job is done.
    pub(crate) results: Receiver<Vec<Processed>>,
}

impl Batch {
    /// Waits for the batch's documents to be processed.
    pub(crate) fn wait(&self) -> Result<Vec<Processed>> {
        self.results.recv().map_err(|_| Error::Input {
            path: PathBuf::from("(worker pool)"),
            detail: "a worker stopped before finishing a batch".into(),
        })
    }
}

/// What a reader sends the writer, per file.
pub(crate) enum Feed {
    /// The file could not be opened.
    Open(Error),
    /// The next batch.
    Batch(Batch),
    /// Reading stopped part way (after the batches before it).
    Stopped(Error),
}

/// Starts readers for the files of a build ahead of the writer.
pub(crate) struct ReadAhead<'s, 'e, 'env> {
    threads: &'s std::thread::Scope<'s, 'e>,
    pool: &'s rayon::Scope<'env>,
    pipeline: &'env Pipeline<'env>,
    files: &'env [(usize, PathBuf)],
    plan: Plan,
    started: usize,
    queues: VecDeque<Receiver<Feed>>,
}

impl<'s, 'e, 'env: 's> ReadAhead<'s, 'e, 'env> {
    /// Readers for `files` (input position, path), in order.
    pub(crate) fn new(
        threads: &'s std::thread::Scope<'s, 'e>,
        pool: &'s rayon::Scope<'env>,
        pipeline: &'env Pipeline<'env>,
        files: &'env [(usize, PathBuf)],
        plan: Plan,
    ) -> Self {
        ReadAhead {
            threads,
            pool,
            pipeline,
            files,
            plan,
            started: 0,
            queues: VecDeque::new(),
        }
    }

    /// The feed of the next file (files are taken in order), with readers
    /// started for the files after it, up to the plan.
    pub(crate) fn next_file(&mut self) -> Option<Receiver<Feed>> {
        while self.started < self.files.len() && self.queues.len() < self.plan.files {
            let (_, path) = &self.files[self.started];
            let (tx, rx) = sync_channel(self.plan.queue);
            let (pipeline, pool) = (self.pipeline, self.pool);
            let name = path.to_string_lossy().into_owned();
            std::thread::Builder::new()
                .name(format!("sieve-read-{}", self.started))
                .spawn_scoped(self.threads, move || {
                    read_file(pipeline, pool, path, name, &tx);
                })
                .ok()?;
            self.queues.push_back(rx);
            self.started += 1;
        }
        self.queues.pop_front()
    }
}

/// Hands the feed of every file of `files` (input position, path) to
/// `write`, in order, on this thread, with the files read and processed
/// ahead by reader threads and `pool` ([`ReadAhead`], planned for
/// `threads` workers). `build` and `extract` both run their files through
/// it, so they read, process and order documents the same way.
pub(crate) fn for_each_file<'env>(
    pool: &rayon::ThreadPool,
    pipeline: &'env Pipeline<'env>,
    files: &'env [(usize, PathBuf)],
    threads: usize,
    mut write: impl FnMut(usize, &std::path::Path, Receiver<Feed>) -> Result<()>,
) -> Result<()> {
    let plan = Plan::new(threads);
    pool.in_place_scope(|jobs| {
        std::thread::scope(|readers| -> Result<()> {
            let mut ahead = ReadAhead::new(readers, jobs, pipeline, files, plan);
            for (i, path) in files {
                let feed = ahead.next_file().ok_or_else(|| Error::Input {
                    path: path.clone(),
                    detail: "could not start a reader thread".into(),
                })?;
                write(*i, path, feed)?;
            }
            Ok(())
        })
    })
}

/// A reader thread: reads `path` into batches, starts a pool job for each,
/// and sends them to the writer; stops when the writer hangs up.
fn read_file<'env>(
    pipeline: &'env Pipeline<'env>,
    pool: &rayon::Scope<'env>,
    path: &std::path::Path,
    name: String,
    tx: &SyncSender<Feed>,
) {
    let mut crawl_opts = pipeline.opts.crawl.clone();
    crawl_opts.keep_skipped |= pipeline.opts.quarantine.is_some();
    crawl_opts.keep_heads |= pipeline.extract.is_some_and(|x| x.full);
    let reader: CrawlReader = match crate::crawl::open(path, &crawl_opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Feed::Open(e));
            return;
        }
    };
    let name: Arc<str> = name.into();
    let mut batch = Vec::new();
    let (mut docs, mut bytes) = (0usize, 0usize);
    for ev in reader {
        match ev {
            Ok(ev) => {
                docs += usize::from(matches!(ev, CrawlEvent::Doc(_)));
                bytes += event_bytes(&ev);
                batch.push(ev);
                if docs >= BATCH_DOCS || bytes >= BATCH_BYTES {
                    if !send_batch(pipeline, pool, &name, std::mem::take(&mut batch), tx) {
                        return;
                    }
                    (docs, bytes) = (0, 0);
                }
            }
            Err(e) => {
                if send_batch(pipeline, pool, &name, batch, tx) {
                    let _ = tx.send(Feed::Stopped(e));
                }
                return;
            }
        }
    }
    send_batch(pipeline, pool, &name, batch, tx);
}

/// Spawns the job that processes the documents of `events` and queues the
/// batch; false when the writer has hung up.
fn send_batch<'env>(
    pipeline: &'env Pipeline<'env>,
    pool: &rayon::Scope<'env>,
    name: &Arc<str>,
    events: Vec<CrawlEvent>,
    tx: &SyncSender<Feed>,
) -> bool {
    let mut raws: Vec<RawDoc> = Vec::new();
    let mut order = Vec::with_capacity(events.len());
    for ev in events {
        match ev {
            CrawlEvent::Doc(d) => {
                order.push(None);
                raws.push(d);
            }
            other => order.push(Some(other)),
        }
    }
    let docs = raws.iter().map(|d| (d.offset, d.docid.clone())).collect();
    let (rtx, results) = sync_channel(1);
    let (p, name) = (pipeline, Arc::clone(name));
    pool.spawn(move |_| {
        let out: Vec<Processed> = raws.into_iter().map(|d| process(d, &name, p)).collect();
        let _ = rtx.send(out);
    });
    tx.send(Feed::Batch(Batch {
        order,
        docs,
        results,
    }))
    .is_ok()
}

/// Writes the batches of one file, read and processed ahead, into `sink`,
/// in record order. A file that cannot be opened or read to its end is
/// named in [`crate::stats::FileStats::error`], not an error.
pub(crate) fn write_file(
    pipeline: &Pipeline<'_>,
    feed: Receiver<Feed>,
    sink: &mut FileSink<'_>,
) -> Result<()> {
    for msg in feed {
        match msg {
            Feed::Open(e) => return sink.open_error(&e),
            Feed::Stopped(e) => {
                sink.stream_error(&e)?;
                break;
            }
            Feed::Batch(batch) => {
                let indexed = write_batch(batch, sink)?;
                pipeline.progress.docs(indexed);
            }
        }
    }
    Ok(())
}

/// Hands every event of a batch to `sink` in order, the documents once
/// processed; returns the documents indexed.
fn write_batch(batch: Batch, sink: &mut FileSink<'_>) -> Result<u64> {
    let outcomes = batch.wait()?;
    let mut outcomes = outcomes.into_iter().zip(batch.docs);
    let mut indexed = 0;
    for ev in batch.order {
        match ev {
            None => {
                let Some((p, (offset, docid))) = outcomes.next() else {
                    break;
                };
                indexed += sink.doc(p, offset, &docid)?;
            }
            Some(CrawlEvent::Skip(s)) => sink.skip(&s)?,
            Some(CrawlEvent::Anomaly(a)) => sink.anomaly(&a)?,
            Some(CrawlEvent::Doc(_)) => {}
        }
    }
    Ok(indexed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_bounds_the_batches_in_flight() {
        assert_eq!(Plan::new(1), Plan { files: 2, queue: 4 });
        assert_eq!(Plan::new(2), Plan { files: 2, queue: 6 });
        assert_eq!(
            Plan::new(16),
            Plan {
                files: 6,
                queue: 12
            }
        );
        assert_eq!(
            Plan::new(48),
            Plan {
                files: 14,
                queue: 14
            }
        );
        for t in 1..200 {
            let p = Plan::new(t);
            // Batches read and not yet written: queued, plus one being
            // read per file.
            assert!(p.files * (p.queue + 1) <= 5 * t + 24, "{t}: {p:?}");
            assert!(p.files >= 2 && p.queue >= 2);
        }
    }
}
