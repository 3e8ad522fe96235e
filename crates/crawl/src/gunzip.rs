//! Gzip input for [`super::input::Source`]: [`GzMembers`] called inline, or
//! the same decoder on a thread of its own that inflates the next chunks
//! while the parsers read the last ([`Gunzip::ahead`]).
//!
//! The thread calls [`GzMembers::read`] with chunks of a fixed size and
//! sends each chunk with what the decoder said after it: the gap found, its
//! tentative bytes, the member starts it logged, the compressed bytes read
//! so far and the error that ended it. The reading side replays them in
//! order, and [`super::input::Source`] reads gzip in chunks of that size
//! either way, so the bytes, gaps, member positions, gzip-bomb checks and
//! errors are those of the inline decoder whatever the threads' timing
//! (tested: `crawl::tests::gzip::ahead_reads_as_inline`). When at most
//! [`HEADROOM`] bytes are unread, a chunk becomes the reader's buffer
//! instead of being copied into it ([`Gunzip::swap_in`]). Memory is
//! bounded: at most [`DEPTH`] chunks wait between the threads, and the
//! thread ends at the end of the input, at an error, or when the reader is
//! dropped (its next hand-over fails). A chunk handed over in part (a read
//! shorter than the chunk; [`super::input::Source`] never asks for one)
//! holds back all its bytes until its last one is read.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::MemberPos;
use super::gzmember::{Failure, Gap, GzMembers, StartOp, Starts};
use super::input::CountingReader;

/// Chunks decoded ahead and not read yet, at most.
const DEPTH: usize = 2;
/// Room left before each chunk's bytes, for the reader's unread bytes when
/// the chunk becomes its buffer ([`Gunzip::swap_in`]).
const HEADROOM: usize = 128 * 1024;

/// Gzip decoding, inline or on its own thread (see the module docs).
pub(crate) enum Gunzip {
    /// [`GzMembers`] on the reading thread.
    Inline {
        /// The decoder.
        dec: Box<GzMembers<Box<dyn Read + Send>>>,
        /// Compressed bytes read.
        compressed: Arc<AtomicU64>,
    },
    /// [`GzMembers`] on a thread of its own.
    Ahead(Box<Ahead>),
}

/// One chunk decoded on the thread, and the decoder's state after it.
struct Chunk {
    data: Vec<u8>,
    gap: Option<Gap>,
    tentative: u64,
    ops: Vec<StartOp>,
    compressed: u64,
    failure: Option<Failure>,
    error: Option<(io::ErrorKind, String)>,
}

/// The reading side of a decoder on its own thread.
pub(crate) struct Ahead {
    rx: Receiver<Chunk>,
    /// Emptied chunk buffers go back to the thread.
    back: SyncSender<Vec<u8>>,
    /// The chunk being read (its bytes from [`HEADROOM`] on), from `at`.
    cur: Vec<u8>,
    at: usize,
    /// A chunk is being read.
    have: bool,
    /// Bytes decoded per chunk.
    chunk: usize,
    /// The gap and tentative count that follow `cur`.
    cur_gap: Option<Gap>,
    cur_tentative: u64,
    gap: Option<Gap>,
    tentative: u64,
    failure: Option<Failure>,
    starts: Starts,
    compressed: u64,
    ended: bool,
}

impl Gunzip {
    /// The decoder over `inner` on the reading thread; with `keep > 0` the
    /// first `keep` compressed bytes of a skipped span travel in its gap.
    pub(crate) fn inline(inner: Box<dyn Read + Send>, keep: usize) -> Self {
        let compressed = Arc::new(AtomicU64::new(0));
        let counting: Box<dyn Read + Send> =
            Box::new(CountingReader::new(inner, compressed.clone()));
        Gunzip::Inline {
            dec: Box::new(GzMembers::new(counting, keep)),
            compressed,
        }
    }

    /// The decoder over `inner` on a thread of its own, reading `chunk`
    /// bytes at a time. Fails only if the thread cannot be started.
    pub(crate) fn ahead(
        inner: Box<dyn Read + Send>,
        keep: usize,
        chunk: usize,
    ) -> io::Result<Self> {
        let (tx, rx) = sync_channel::<Chunk>(DEPTH);
        let (back, back_rx) = sync_channel::<Vec<u8>>(DEPTH + 2);
        std::thread::Builder::new()
            .name("sieve-gunzip".to_string())
            .spawn(move || decode(inner, keep, chunk, &tx, &back_rx))?;
        Ok(Gunzip::Ahead(Box::new(Ahead {
            rx,
            back,
            cur: Vec::new(),
            at: 0,
            have: false,
            chunk,
            cur_gap: None,
            cur_tentative: 0,
            gap: None,
            tentative: 0,
            failure: None,
            starts: Starts::default(),
            compressed: 0,
            ended: false,
        })))
    }

    /// As [`GzMembers::read`].
    pub(crate) fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        match self {
            Gunzip::Inline { dec, .. } => dec.read(dst),
            Gunzip::Ahead(a) => a.read(dst),
        }
    }

    /// For the decoder on its own thread: when at most [`HEADROOM`] bytes
    /// are unread (`buf[pos..end]`), the next chunk becomes the buffer,
    /// with those bytes moved in front of its own, instead of being copied:
    /// `pos` and `end` are set so that `end` plus the count returned is the
    /// new end, and the returned count is what [`Gunzip::read`] would have
    /// returned. `None`: read with [`Gunzip::read`] instead.
    pub(crate) fn swap_in(
        &mut self,
        buf: &mut Vec<u8>,
        pos: &mut usize,
        end: &mut usize,
    ) -> Option<io::Result<usize>> {
        match self {
            Gunzip::Inline { .. } => None,
            Gunzip::Ahead(a) => a.swap_in(buf, pos, end),
        }
    }

    /// As [`GzMembers::take_gap`].
    pub(crate) fn take_gap(&mut self) -> Option<Gap> {
        match self {
            Gunzip::Inline { dec, .. } => dec.take_gap(),
            Gunzip::Ahead(a) => a.gap.take(),
        }
    }

    /// As [`GzMembers::tentative`].
    pub(crate) fn tentative(&self) -> u64 {
        match self {
            Gunzip::Inline { dec, .. } => dec.tentative(),
            Gunzip::Ahead(a) => a.tentative,
        }
    }

    /// As [`GzMembers::failure`].
    pub(crate) fn failure(&self) -> Option<&Failure> {
        match self {
            Gunzip::Inline { dec, .. } => dec.failure(),
            Gunzip::Ahead(a) => a.failure.as_ref(),
        }
    }

    /// As [`GzMembers::member_of`].
    pub(crate) fn member_of(&self, offset: u64) -> Option<MemberPos> {
        match self {
            Gunzip::Inline { dec, .. } => dec.member_of(offset),
            Gunzip::Ahead(a) => a.starts.member_of(offset),
        }
    }

    /// As [`GzMembers::forget_before`].
    pub(crate) fn forget_before(&mut self, offset: u64) {
        match self {
            Gunzip::Inline { dec, .. } => dec.forget_before(offset),
            Gunzip::Ahead(a) => a.starts.forget_before(offset),
        }
    }

    /// Compressed bytes read when the bytes returned so far were decoded.
    pub(crate) fn compressed(&self) -> u64 {
        match self {
            Gunzip::Inline { compressed, .. } => compressed.load(Ordering::Relaxed),
            Gunzip::Ahead(a) => a.compressed,
        }
    }
}

/// The thread: decodes chunk after chunk until the end, an error, or the
/// reading side is dropped.
fn decode(
    inner: Box<dyn Read + Send>,
    keep: usize,
    chunk: usize,
    tx: &SyncSender<Chunk>,
    back: &Receiver<Vec<u8>>,
) {
    let compressed = Arc::new(AtomicU64::new(0));
    let counting: Box<dyn Read + Send> = Box::new(CountingReader::new(inner, compressed.clone()));
    let mut dec = GzMembers::new(counting, keep);
    dec.log_starts();
    loop {
        let mut data = back.try_recv().unwrap_or_default();
        data.resize(HEADROOM + chunk, 0);
        let (n, error) = match dec.read(&mut data[HEADROOM..]) {
            Ok(n) => (n, None),
            Err(e) => (0, Some((e.kind(), e.to_string()))),
        };
        data.truncate(HEADROOM + n);
        let gap = dec.take_gap();
        let last = match &error {
            Some((kind, _)) => *kind != io::ErrorKind::Interrupted,
            None => n == 0 && gap.is_none(),
        };
        let c = Chunk {
            data,
            gap,
            tentative: dec.tentative(),
            ops: dec.take_start_ops(),
            compressed: compressed.load(Ordering::Relaxed),
            failure: dec.failure().cloned(),
            error,
        };
        if tx.send(c).is_err() || last {
            return;
        }
    }
}

impl Ahead {
    /// Takes the next chunk and the decoder's state after it: false at the
    /// end.
    fn next(&mut self) -> io::Result<bool> {
        if self.ended {
            return Ok(false);
        }
        let Ok(c) = self.rx.recv() else {
            self.ended = true;
            return Err(io::Error::other("the gzip decoding thread stopped"));
        };
        for op in c.ops {
            self.starts.apply(op);
        }
        self.compressed = c.compressed;
        if c.failure.is_some() {
            self.failure = c.failure;
        }
        if let Some((kind, msg)) = c.error {
            self.ended = kind != io::ErrorKind::Interrupted;
            self.tentative = c.tentative;
            return Err(io::Error::new(kind, msg));
        }
        self.ended = c.data.len() == HEADROOM && c.gap.is_none();
        self.cur = c.data;
        self.at = HEADROOM;
        self.cur_gap = c.gap;
        self.cur_tentative = c.tentative;
        self.have = true;
        Ok(true)
    }

    /// The chunk has been read to its end: its state holds.
    fn finish(&mut self, spent: Vec<u8>) {
        self.tentative = self.cur_tentative;
        self.gap = self.cur_gap.take();
        self.have = false;
        self.at = 0;
        if spent.capacity() <= 2 * (HEADROOM + self.chunk) {
            let _ = self.back.try_send(spent);
        }
    }

    fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        if !self.have && !self.next()? {
            return Ok(0);
        }
        let k = dst.len().min(self.cur.len() - self.at);
        dst[..k].copy_from_slice(&self.cur[self.at..self.at + k]);
        self.at += k;
        if self.at == self.cur.len() {
            let spent = std::mem::take(&mut self.cur);
            self.finish(spent);
        } else {
            // Part of a chunk: its tentative bytes are not known, so all
            // are held back until the chunk's end.
            self.tentative = u64::MAX;
        }
        Ok(k)
    }

    /// See [`Gunzip::swap_in`].
    fn swap_in(
        &mut self,
        buf: &mut Vec<u8>,
        pos: &mut usize,
        end: &mut usize,
    ) -> Option<io::Result<usize>> {
        let left = *end - *pos;
        if self.have || left > HEADROOM {
            return None;
        }
        match self.next() {
            Err(e) => return Some(Err(e)),
            Ok(false) => return Some(Ok(0)),
            Ok(true) => {}
        }
        let n = self.cur.len() - HEADROOM;
        let mut chunk = std::mem::take(&mut self.cur);
        chunk[HEADROOM - left..HEADROOM].copy_from_slice(&buf[*pos..*end]);
        std::mem::swap(buf, &mut chunk);
        *pos = HEADROOM - left;
        *end = HEADROOM;
        self.finish(chunk);
        Some(Ok(n))
    }
}
