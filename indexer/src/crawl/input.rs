//! Byte source for the crawl readers: a growable look-ahead buffer over a
//! (possibly gzip-decoding) reader that tracks the absolute offset in the
//! decompressed stream, maps read errors to [`Error`] with offsets, and stops
//! gzip bombs.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;

/// Smallest free space offered to one `read` call.
const READ_CHUNK: usize = 256 * 1024;

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

/// Gzip bookkeeping: compressed byte counter and the bomb limits.
pub(crate) struct GzState {
    pub(crate) compressed: Arc<AtomicU64>,
    pub(crate) max_ratio: u64,
    pub(crate) min_output: u64,
}

/// Buffered byte source with unbounded look-ahead (`ensure`), absolute
/// offsets, and deferred errors: after a read error the source behaves as if
/// at end of input and [`Source::take_error`] returns the error.
pub(crate) struct Source {
    path: PathBuf,
    inner: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Absolute offset of `buf[pos]`.
    abs: u64,
    eof: bool,
    err: Option<Error>,
    gz: Option<GzState>,
}

impl Source {
    pub(crate) fn new(path: PathBuf, inner: Box<dyn Read + Send>, gz: Option<GzState>) -> Self {
        Self {
            path,
            inner,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            abs: 0,
            eof: false,
            err: None,
            gz,
        }
    }

    /// The path (or name) given when opening.
    pub(crate) fn path(&self) -> &PathBuf {
        &self.path
    }

    /// Bytes available without reading more.
    #[inline]
    pub(crate) fn avail(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Absolute (decompressed) offset of the next unconsumed byte.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.abs
    }

    /// Consumes `n` available bytes.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.pos);
        self.pos += n;
        self.abs += n as u64;
    }

    /// Reads until at least `n` bytes are available or the input ends (or
    /// fails). Returns the number of available bytes.
    pub(crate) fn ensure(&mut self, n: usize) -> usize {
        while self.end - self.pos < n && !self.eof && self.err.is_none() {
            if self.pos > 0 && (self.buf.len() - self.end < READ_CHUNK || self.pos == self.end) {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
            }
            let want = (n - (self.end - self.pos)).max(READ_CHUNK);
            if self.buf.len() - self.end < want {
                self.buf.resize(self.end + want, 0);
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(k) => {
                    self.end += k;
                    self.check_bomb();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.err = Some(self.map_err(e)),
            }
        }
        self.end - self.pos
    }

    /// True when no byte is left.
    pub(crate) fn at_eof(&mut self) -> bool {
        self.ensure(1) == 0
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
            let inp = gz.compressed.load(Ordering::Relaxed).max(1);
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
            Some(gz) => {
                let compressed_offset = gz.compressed.load(Ordering::Relaxed);
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    Error::TruncatedGzip {
                        path: self.path.clone(),
                        compressed_offset,
                        decompressed_offset,
                    }
                } else {
                    Error::Gzip {
                        path: self.path.clone(),
                        compressed_offset,
                        decompressed_offset,
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
