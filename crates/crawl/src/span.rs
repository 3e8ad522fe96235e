//! Reading a record's bytes back from its input file, at the [`Span`] the
//! reader recorded (see the module docs of [`super`]).
//!
//! * Plain file: seek to the offset, copy `len` bytes.
//! * Gzip, member known: seek to the member's compressed offset and
//!   decompress from there (through the same member-by-member decoder the
//!   reader uses, so a damaged member is skipped the same way), dropping
//!   the bytes between the member's start and the record (none for a
//!   per-record `.warc.gz` such as ClueWeb's), then copy `len` bytes.
//! * Gzip, one stream (or member forgotten): the member is the whole file,
//!   so everything before the record is decompressed and dropped: the cost
//!   grows with the record's offset ([`SpanRead::skipped`]).
//!
//! The file must still be the one read at build time; the caller checks
//! its size and modification time first. Bytes missing at the end (the file
//! is shorter than recorded) are an error, never a short result.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::gunzip::Gunzip;
use super::input::{Inner, Source};
use super::{MemberPos, Span};
use crate::{Error, Result};

/// Bytes asked of the decoder per step.
const STEP: usize = 256 * 1024;

/// What [`read_span`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanRead {
    /// The gzip member read from (`None`: a plain file).
    pub member: Option<MemberPos>,
    /// Compressed offset decoding started at (0 for a one-stream file).
    pub compressed_from: Option<u64>,
    /// Decompressed bytes decoded and dropped before the record (0 for a
    /// per-record gzip member and for a plain file).
    pub skipped: u64,
    /// Bytes written (the record's length).
    pub len: u64,
}

fn err(path: &Path, detail: String) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        detail,
    }
}

/// The bytes of one record, read from its file (see [`open_span`]).
pub struct SpanReader {
    src: Source,
    left: u64,
    span: Span,
    info: SpanRead,
}

impl SpanReader {
    /// Where the bytes come from and what reaching them cost.
    pub fn info(&self) -> SpanRead {
        self.info
    }
}

impl Read for SpanReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let n = self.src.ensure(STEP);
        if n == 0 {
            return Err(match self.src.take_error() {
                Some(e) => std::io::Error::other(e.to_string()),
                None => std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: ends {} bytes before the end of the record at offset {} (length {}): \
                         shorter than at build time",
                        self.src.path().display(),
                        self.left,
                        self.span.offset,
                        self.span.len
                    ),
                ),
            });
        }
        let k = n
            .min(buf.len())
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        buf[..k].copy_from_slice(&self.src.avail()[..k]);
        self.src.consume(k);
        self.left -= k as u64;
        Ok(k)
    }
}

/// Opens the record at `span` in `path`: the reader returns exactly its
/// `span.len` bytes (or an error if the file ends first).
pub fn open_span(path: &Path, span: &Span) -> Result<SpanReader> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match file.read(&mut magic[got..]).map_err(io)? {
            0 => break,
            k => got += k,
        }
    }
    let gzip = got == 2 && magic == [0x1f, 0x8b];
    let (member, from, skip) = match (gzip, span.member) {
        (false, None) => (None, None, span.offset),
        (false, Some(m)) => {
            return Err(err(
                path,
                format!(
                    "the record was read from a gzip member at compressed offset {}, but the file is not gzip now",
                    m.compressed
                ),
            ));
        }
        (true, Some(m)) => (
            Some(m),
            Some(m.compressed),
            span.offset - m.decompressed.min(span.offset),
        ),
        (true, None) => (None, Some(0), span.offset),
    };
    let inner = match from {
        None => {
            file.seek(SeekFrom::Start(skip)).map_err(io)?;
            Inner::Plain(Box::new(file))
        }
        Some(c) => {
            file.seek(SeekFrom::Start(c)).map_err(io)?;
            Inner::Gz(Gunzip::inline(Box::new(file), 0))
        }
    };
    let mut src = Source::new(path.to_path_buf(), inner, None);
    let skipped = if from.is_some() { skip } else { 0 };
    let mut left = skipped;
    while left > 0 {
        let n = src
            .ensure(STEP)
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        if n == 0 {
            return Err(src.take_error().unwrap_or_else(|| {
                err(
                    path,
                    format!(
                        "ends {left} bytes before the record at decompressed offset {} \
                         (shorter than at build time)",
                        span.offset
                    ),
                )
            }));
        }
        src.consume(n);
        left -= n as u64;
    }
    Ok(SpanReader {
        src,
        left: span.len,
        span: *span,
        info: SpanRead {
            member,
            compressed_from: from,
            skipped,
            len: span.len,
        },
    })
}

/// Writes the `span.len` bytes of the record at `span` in `path` to `out`.
pub fn read_span(path: &Path, span: &Span, out: &mut dyn Write) -> Result<SpanRead> {
    let mut r = open_span(path, span)?;
    std::io::copy(&mut r, out).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(r.info())
}
