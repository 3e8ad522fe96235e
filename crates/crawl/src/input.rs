//! Byte source for the crawl readers: a growable look-ahead buffer over a
//! (possibly gzip-decoding) reader that tracks the absolute offset in the
//! decompressed stream, maps read errors to [`Error`] with offsets, and stops
//! gzip bombs.
//!
//! For gzip input the output of a member is held back (not visible to the
//! parsers) until its trailer verifies; when a damaged member is skipped
//! ([`super::gzmember`]) its held-back output is dropped and the skipped span
//! is queued as a [`SkippedMember`] at the decompressed offset where the
//! next member's output starts.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::gunzip::Gunzip;
use super::gzmember::Gap;
use crate::Error;

/// Bytes asked of one `read` call: the decoder writes into a region that
/// stays in the cache until the parsers read it. Gzip is always read in
/// chunks of this size, inline or on its own thread ([`Gunzip`]), so both
/// read the same.
pub(crate) const READ_CHUNK: usize = 256 * 1024;
/// The buffer's working size: bytes are moved back to its start rather than
/// read past this (unless more are needed at once: a long look-ahead, or a
/// gzip member's output held back), so reading cycles through the same
/// memory. A buffer grown past twice this is shrunk back once the bytes in
/// it fit again.
const WINDOW: usize = 4 * READ_CHUNK;

/// Counts the bytes read through it into a shared counter (the compressed
/// offset of a gzip stream).
pub(crate) struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> CountingReader<R> {
    pub(crate) fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        Self { inner, count }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Gzip bookkeeping: the bomb limits.
pub(crate) struct GzState {
    pub(crate) max_ratio: u64,
    pub(crate) min_output: u64,
}

/// The decoded input: plain bytes, or gzip members.
pub(crate) enum Inner {
    /// Read as is.
    Plain(Box<dyn Read + Send>),
    /// Gzip, decoded member by member.
    Gz(Gunzip),
}

/// A damaged gzip member that was skipped, placed in the decompressed stream.
#[derive(Debug)]
pub(crate) struct SkippedMember {
    /// Decompressed offset where the output of the next member starts.
    pub offset: u64,
    /// The skipped span.
    pub gap: Gap,
}

/// Buffered byte source with unbounded look-ahead (`ensure`), absolute
/// offsets, and deferred errors: after a read error the source behaves as if
/// at end of input and [`Source::take_error`] returns the error.
pub(crate) struct Source {
    path: PathBuf,
    inner: Inner,
    buf: Vec<u8>,
    pos: usize,
    /// End of the bytes read; those from `vis` on are held back.
    end: usize,
    /// End of the bytes the parsers may see.
    vis: usize,
    skipped: VecDeque<SkippedMember>,
    /// Absolute offset of `buf[pos]`.
    abs: u64,
    eof: bool,
    err: Option<Error>,
    gz: Option<GzState>,
    /// CRC-32 of the bytes consumed since `crc_from` (a record's start:
    /// [`Source::start_record`]).
    crc: crc32fast::Hasher,
    /// Absolute offset the CRC starts at.
    crc_from: u64,
}

impl Source {
    pub(crate) fn new(path: PathBuf, inner: Inner, gz: Option<GzState>) -> Self {
        Self {
            path,
            inner,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            vis: 0,
            skipped: VecDeque::new(),
            abs: 0,
            eof: false,
            err: None,
            gz,
            crc: crc32fast::Hasher::new(),
            crc_from: 0,
        }
    }

    /// The path (or name) given when opening.
    pub(crate) fn path(&self) -> &PathBuf {
        &self.path
    }

    /// Bytes available without reading more.
    #[inline]
    pub(crate) fn avail(&self) -> &[u8] {
        &self.buf[self.pos..self.vis]
    }

    /// Absolute (decompressed) offset of the next unconsumed byte.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.abs
    }

    /// Consumes `n` available bytes.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.vis - self.pos);
        self.crc.update(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        self.abs += n as u64;
    }

    /// Reads until at least `n` bytes are available or the input ends (or
    /// fails). Returns the number of available bytes.
    pub(crate) fn ensure(&mut self, n: usize) -> usize {
        while self.vis - self.pos < n && !self.eof && self.err.is_none() {
            // A chunk inflated on another thread becomes the buffer when
            // few bytes are unread (they move in front of it), rather than
            // being copied.
            let swapped = match &mut self.inner {
                Inner::Gz(g) => g.swap_in(&mut self.buf, &mut self.pos, &mut self.end),
                Inner::Plain(_) => None,
            };
            let got = match swapped {
                Some(got) => got,
                None => self.read_chunk(n),
            };
            let gap = match &mut self.inner {
                Inner::Gz(g) => g.take_gap(),
                Inner::Plain(_) => None,
            };
            match got {
                Ok(k) => {
                    self.end += k;
                    if let Some(gap) = gap {
                        self.end -= usize::try_from(gap.retract).unwrap_or(usize::MAX);
                        let offset = self.abs + (self.end - self.pos) as u64;
                        self.skipped.push_back(SkippedMember { offset, gap });
                    } else if k == 0 {
                        self.eof = true;
                    }
                    self.check_bomb();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.err = Some(self.map_err(e)),
            }
            // Held-back output is released when reading stops on an error:
            // what was decoded before it is kept.
            let held = match &self.inner {
                Inner::Gz(g) if self.err.is_none() => {
                    usize::try_from(g.tentative()).unwrap_or(usize::MAX)
                }
                _ => 0,
            };
            self.vis = self.end - held.min(self.end - self.pos);
        }
        self.vis - self.pos
    }

    /// Reads up to [`READ_CHUNK`] bytes at `end`, first moving the unread
    /// bytes to the start of the buffer if that keeps it in its window.
    fn read_chunk(&mut self, n: usize) -> io::Result<usize> {
        let want = (n - (self.vis - self.pos)).max(READ_CHUNK);
        if self.pos > 0 && (self.pos == self.end || self.end + want > WINDOW) {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.vis -= self.pos;
            self.pos = 0;
            if self.buf.len() > 2 * WINDOW && self.end + want <= WINDOW {
                self.buf.truncate(WINDOW);
                self.buf.shrink_to_fit();
            }
        }
        if self.buf.len() - self.end < READ_CHUNK {
            self.buf.resize(self.end + READ_CHUNK, 0);
        }
        let room = &mut self.buf[self.end..self.end + READ_CHUNK];
        match &mut self.inner {
            Inner::Plain(r) => r.read(room),
            Inner::Gz(g) => g.read(room),
        }
    }

    /// The next skipped gzip member placed at or before the current
    /// offset, if any (call after `ensure(1)`, so that one placed exactly
    /// here has been found).
    pub(crate) fn take_skipped(&mut self, all: bool) -> Option<SkippedMember> {
        match self.skipped.front() {
            Some(s) if all || s.offset <= self.abs => self.skipped.pop_front(),
            _ => None,
        }
    }

    /// Marks the current position as the earliest a record can still start
    /// at: gzip members ending before it are forgotten.
    pub(crate) fn pin(&mut self) {
        if let Inner::Gz(g) = &mut self.inner {
            g.forget_before(self.abs);
        }
        self.start_record();
    }

    /// Starts the record checksum here: [`Source::record_crc`] of this
    /// offset is the CRC-32 of the bytes consumed from here on. A parser
    /// calls it where a record starts, after the bytes it skipped to get
    /// there; [`Source::pin`] calls it too.
    #[inline]
    pub(crate) fn start_record(&mut self) {
        self.crc.reset();
        self.crc_from = self.abs;
    }

    /// The CRC-32 of the bytes consumed from `from` on, if the checksum
    /// started there (`None` otherwise: the record's bytes are not known
    /// to the checksum).
    pub(crate) fn record_crc(&self, from: u64) -> Option<u32> {
        (from == self.crc_from).then(|| self.crc.clone().finalize())
    }

    /// The gzip member holding decompressed byte `offset` (at or after the
    /// last [`Source::pin`]), if the input is gzip and it is still known.
    pub(crate) fn member_of(&self, offset: u64) -> Option<super::MemberPos> {
        match &self.inner {
            Inner::Gz(g) => g.member_of(offset),
            Inner::Plain(_) => None,
        }
    }

    /// True when no byte is left.
    pub(crate) fn at_eof(&mut self) -> bool {
        self.ensure(1) == 0
    }

    /// True if reading stopped on an error that has not been taken yet.
    pub(crate) fn failed(&self) -> bool {
        self.err.is_some()
    }

    /// The deferred read error, if any (returned once).
    pub(crate) fn take_error(&mut self) -> Option<Error> {
        self.err.take()
    }

    fn decompressed_end(&self) -> u64 {
        self.abs + (self.end - self.pos) as u64
    }

    fn check_bomb(&mut self) {
        if let Some(gz) = &self.gz {
            let out = self.decompressed_end();
            let inp = match &self.inner {
                Inner::Gz(g) => g.compressed(),
                Inner::Plain(_) => 0,
            }
            .max(1);
            if out > gz.min_output && out / inp > gz.max_ratio {
                self.err = Some(Error::GzipBomb {
                    path: self.path.clone(),
                    compressed_offset: inp,
                    decompressed_offset: out,
                    max_ratio: gz.max_ratio,
                });
            }
        }
    }

    fn map_err(&self, e: io::Error) -> Error {
        let decompressed_offset = self.decompressed_end();
        match &self.gz {
            Some(_) => {
                let failure = match &self.inner {
                    Inner::Gz(g) => g.failure().cloned(),
                    Inner::Plain(_) => None,
                };
                let (compressed_offset, member_offset, detail) = match &failure {
                    Some(f) => (f.at, f.member_offset, f.detail()),
                    None => {
                        let at = match &self.inner {
                            Inner::Gz(g) => g.compressed(),
                            Inner::Plain(_) => 0,
                        };
                        (at, at, "the compressed input could not be read".to_string())
                    }
                };
                if failure.as_ref().is_some_and(|f| f.truncated) {
                    Error::TruncatedGzip {
                        path: self.path.clone(),
                        compressed_offset,
                        decompressed_offset,
                        member_offset,
                        detail,
                    }
                } else {
                    Error::Gzip {
                        path: self.path.clone(),
                        compressed_offset,
                        decompressed_offset,
                        member_offset,
                        detail,
                        source: e,
                    }
                }
            }
            None => Error::ReadAt {
                path: self.path.clone(),
                offset: decompressed_offset,
                source: e,
            },
        }
    }

    /// Finds the next `\n` at or after `from` (relative to the current
    /// position), reading at most `max` bytes ahead. Returns the index of the
    /// `\n` relative to the current position.
    pub(crate) fn find_newline(&mut self, from: usize, max: usize) -> Option<usize> {
        let mut searched = from;
        loop {
            let have = self.avail().len();
            if have > searched {
                let lim = have.min(max);
                if lim > searched {
                    if let Some(i) = memchr::memchr(b'\n', &self.avail()[searched..lim]) {
                        return Some(searched + i);
                    }
                    searched = lim;
                }
            }
            if searched >= max {
                return None;
            }
            let got = self.ensure(searched + 1);
            if got <= searched {
                return None;
            }
        }
    }
}
