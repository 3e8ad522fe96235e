//! Reading and processing ahead of the writer: the files of a build are
//! read by reader threads, several files at once, and their documents are
//! processed by the worker pool as soon as they are read; the writer (the
//! build's own thread) takes the results file by file, batch by batch, in
//! input order.
//!
//! With one reader thread per file and a writer that waits for every
//! batch, the workers idled while the writer added a batch's
//! documents, while a file was committed and while the next file's first
//! batch was read (1.66 of 2 cores busy at `--threads 2`). Instead:
//!
//! * a reader thread per file reads and parses records ([`sieve_crawl`])
//!   into batches of at most [`BATCH_DOCS`] documents or [`BATCH_BYTES`]
//!   bytes, spawns one pool job per batch that processes its documents
//!   ([`crate::pipeline::process`]), and queues the batch with the pending
//!   result of its job;
//! * up to [`Plan::files`] files are read at once: the file being written
//!   and the ones after it, so the pool has work while a file is committed
//!   and the reader (gunzip and WARC parsing) is not one serial stage;
//! * each file's queue holds at most [`Plan::queue`] batches, so memory is
//!   bounded: at most `files × (queue + 1)` batches are read and not yet
//!   written, `4 × threads + 8` or so (see [`Plan::new`]);
//! * while the writer commits (`build`: tantivy's one indexing thread
//!   writes its segment, a third of a second per 256 MB of input, and
//!   takes no document), each queue may grow to [`Plan::wide`] batches
//!   ([`Room::widened`]): before, the queues were full when a commit began,
//!   so the readers and the pool stopped and one of two cores idled for the
//!   whole commit. Memory is then at most `files × (wide + 1)` batches,
//!   less than five times the bound above.
//!
//! Nothing about the output changes: the writer takes every event of
//! every file in record order, exactly as before, so the index, its
//! statistics and the losses log are the same for any `--threads` (the
//! order rules of [`crate::order`] and the commits after whole files of
//! [`crate::build`] are kept).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use sieve_crawl::{CrawlEvent, CrawlReader, RawDoc};

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
    /// Batches queued per file while the writer commits.
    pub(crate) wide: usize,
}

impl Plan {
    /// The plan for `threads` workers: `3 + threads / 4` files at once
    /// (one reader keeps about four workers busy; a commit comes after a
    /// file is written, and the two files after it are then read on), and
    /// `4 × threads + 4` batches queued in all, shared among them (at
    /// least 2 per file); five times as many during a commit.
    pub(crate) fn new(threads: usize) -> Self {
        let files = 3 + threads / 4;
        let queue = (4 * threads + 4).div_ceil(files).max(2);
        Plan {
            files,
            queue,
            wide: 5 * queue,
        }
    }
}

/// How many batches each file's reader may queue: [`Plan::queue`], or
/// [`Plan::wide`] while the writer runs [`Room::widened`].
pub(crate) struct Room {
    wide: Mutex<bool>,
    changed: Condvar,
    plan: Plan,
}

/// One file's queue: the batches in it, and whether the writer dropped it.
#[derive(Default)]
struct Queue {
    batches: AtomicUsize,
    closed: AtomicBool,
}

impl Room {
    fn new(plan: Plan) -> Self {
        Room {
            wide: Mutex::new(false),
            changed: Condvar::new(),
            plan,
        }
    }

    /// Runs `f` (a commit) with every queue allowed to grow to
    /// [`Plan::wide`] batches.
    pub(crate) fn widened<R>(&self, f: impl FnOnce() -> R) -> R {
        self.set_wide(true);
        let r = f();
        self.set_wide(false);
        r
    }

    fn set_wide(&self, wide: bool) {
        *self.wide.lock().unwrap_or_else(PoisonError::into_inner) = wide;
        self.changed.notify_all();
    }

    /// Waits until `q` has room for one more batch and counts it; false
    /// when the writer has dropped the queue. (Each queue has one reader,
    /// so nothing else adds to it between the check and the count.)
    fn take(&self, q: &Queue) -> bool {
        let mut wide = self.wide.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if q.closed.load(Ordering::Acquire) {
                return false;
            }
            let limit = if *wide {
                self.plan.wide
            } else {
                self.plan.queue
            };
            if q.batches.load(Ordering::Acquire) < limit {
                q.batches.fetch_add(1, Ordering::AcqRel);
                return true;
            }
            // Woken by the writer; the timeout is only a safety net.
            wide = (self.changed)
                .wait_timeout(wide, Duration::from_millis(100))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Wakes the readers after `q` changed (under the lock, so that a
    /// reader between its check and its wait cannot miss it).
    fn notify(&self) {
        drop(self.wide.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_all();
    }
}

/// The writer's end of one file's queue.
pub(crate) struct FeedRx {
    rx: Receiver<Feed>,
    queue: Arc<Queue>,
    room: Arc<Room>,
}

impl FeedRx {
    /// The next message of the file, `None` once its reader is done.
    pub(crate) fn recv(&self) -> Option<Feed> {
        let feed = self.rx.recv().ok()?;
        if matches!(feed, Feed::Batch(_)) {
            self.queue.batches.fetch_sub(1, Ordering::AcqRel);
            self.room.notify();
        }
        Some(feed)
    }
}

impl Drop for FeedRx {
    fn drop(&mut self) {
        self.queue.closed.store(true, Ordering::Release);
        self.room.notify();
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
    room: Arc<Room>,
    started: usize,
    queues: VecDeque<FeedRx>,
}

impl<'s, 'e, 'env: 's> ReadAhead<'s, 'e, 'env> {
    /// Readers for `files` (input position, path), in order.
    pub(crate) fn new(
        threads: &'s std::thread::Scope<'s, 'e>,
        pool: &'s rayon::Scope<'env>,
        pipeline: &'env Pipeline<'env>,
        files: &'env [(usize, PathBuf)],
        room: Arc<Room>,
    ) -> Self {
        ReadAhead {
            threads,
            pool,
            pipeline,
            files,
            room,
            started: 0,
            queues: VecDeque::new(),
        }
    }

    /// The feed of the next file (files are taken in order), with readers
    /// started for the files after it, up to the plan.
    pub(crate) fn next_file(&mut self) -> Option<FeedRx> {
        while self.started < self.files.len() && self.queues.len() < self.room.plan.files {
            let (_, path) = &self.files[self.started];
            // The room, not the channel, bounds the batches; the channel
            // only holds them (and a last error).
            let (tx, rx) = sync_channel(self.room.plan.wide + 1);
            let queue = Arc::new(Queue::default());
            let (pipeline, pool) = (self.pipeline, self.pool);
            let name = path.to_string_lossy().into_owned();
            let sender = Sender {
                tx,
                queue: Arc::clone(&queue),
                room: Arc::clone(&self.room),
            };
            std::thread::Builder::new()
                .name(format!("sieve-read-{}", self.started))
                .spawn_scoped(self.threads, move || {
                    read_file(pipeline, pool, path, name, &sender);
                })
                .ok()?;
            self.queues.push_back(FeedRx {
                rx,
                queue,
                room: Arc::clone(&self.room),
            });
            self.started += 1;
        }
        self.queues.pop_front()
    }
}

/// A reader's end of its file's queue.
struct Sender {
    tx: SyncSender<Feed>,
    queue: Arc<Queue>,
    room: Arc<Room>,
}

impl Sender {
    /// Sends `feed`; false when the writer has hung up.
    fn send(&self, feed: Feed) -> bool {
        self.tx.send(feed).is_ok()
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
    mut write: impl FnMut(usize, &std::path::Path, FeedRx, &Room) -> Result<()>,
) -> Result<()> {
    let room = Arc::new(Room::new(Plan::new(threads)));
    pool.in_place_scope(|jobs| {
        std::thread::scope(|readers| -> Result<()> {
            let mut ahead = ReadAhead::new(readers, jobs, pipeline, files, Arc::clone(&room));
            for (i, path) in files {
                let feed = ahead.next_file().ok_or_else(|| Error::Input {
                    path: path.clone(),
                    detail: "could not start a reader thread".into(),
                })?;
                write(*i, path, feed, &room)?;
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
    tx: &Sender,
) {
    let mut crawl_opts = pipeline.opts.crawl.clone();
    crawl_opts.keep_skipped |= pipeline.opts.quarantine.is_some();
    crawl_opts.keep_heads |= pipeline.extract.is_some_and(|x| x.full);
    let reader: CrawlReader = match sieve_crawl::open(path, &crawl_opts) {
        Ok(r) => r,
        Err(e) => {
            tx.send(Feed::Open(e.into()));
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
                    tx.send(Feed::Stopped(e.into()));
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
    tx: &Sender,
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
    if !tx.room.take(&tx.queue) {
        return false;
    }
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
}

/// Writes the batches of one file, read and processed ahead, into `sink`,
/// in record order. A file that cannot be opened or read to its end is
/// named in [`sieve_format::stats::FileStats::error`], not an error.
pub(crate) fn write_file(
    pipeline: &Pipeline<'_>,
    feed: FeedRx,
    sink: &mut FileSink<'_>,
) -> Result<()> {
    while let Some(msg) = feed.recv() {
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
        let plan = |files, queue| Plan {
            files,
            queue,
            wide: 5 * queue,
        };
        assert_eq!(Plan::new(1), plan(3, 3));
        assert_eq!(Plan::new(2), plan(3, 4));
        assert_eq!(Plan::new(16), plan(7, 10));
        assert_eq!(Plan::new(48), plan(15, 14));
        for t in 1..200 {
            let p = Plan::new(t);
            // Batches read and not yet written: queued, plus one being
            // read per file.
            assert!(p.files * (p.queue + 1) <= 5 * t + 24, "{t}: {p:?}");
            // During a commit.
            assert!(p.files * (p.wide + 1) <= 5 * (5 * t + 24), "{t}: {p:?}");
            assert!(p.files >= 2 && p.queue >= 2 && p.wide > p.queue);
        }
    }

    /// Counts how many batches a reader thread gets room for in `queue`,
    /// taking until the room says the writer hung up.
    fn reader(room: &Arc<Room>, queue: &Arc<Queue>) -> std::thread::JoinHandle<usize> {
        let (room, queue) = (Arc::clone(room), Arc::clone(queue));
        std::thread::spawn(move || {
            let mut taken = 0;
            while room.take(&queue) {
                taken += 1;
            }
            taken
        })
    }

    fn settle(queue: &Queue, want: usize) {
        for _ in 0..500 {
            if queue.batches.load(Ordering::Acquire) == want {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(queue.batches.load(Ordering::Acquire), want);
    }

    /// A reader queues `queue` batches, `wide` while the writer commits,
    /// one more per batch taken after; and stops at once (not after its
    /// safety timeout) when the writer drops the file.
    #[test]
    fn a_commit_widens_the_queues_and_a_hang_up_frees_the_reader() {
        let room = Arc::new(Room::new(Plan {
            files: 1,
            queue: 2,
            wide: 5,
        }));
        let (tx, rx) = sync_channel(1);
        drop(tx);
        let feed = FeedRx {
            rx,
            queue: Arc::new(Queue::default()),
            room: Arc::clone(&room),
        };
        let queue = Arc::clone(&feed.queue);
        let handle = reader(&room, &queue);
        settle(&queue, 2);
        room.widened(|| settle(&queue, 5));
        // Taking batches below the narrow limit again makes no room.
        queue.batches.store(3, Ordering::Release);
        room.notify();
        settle(&queue, 3);
        queue.batches.store(1, Ordering::Release);
        room.notify();
        settle(&queue, 2);
        let hung_up = std::time::Instant::now();
        drop(feed);
        assert_eq!(handle.join().unwrap(), 5 + 1);
        assert!(hung_up.elapsed() < Duration::from_millis(90));
    }
}
