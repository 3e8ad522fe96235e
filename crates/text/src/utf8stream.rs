//! Streaming bytes through the UTF-8 cleaner in bounded memory
//! (`sieve-filter utf8`): cleaned bytes to an optional sink, the byte count
//! and the seven error-class counts back.

use std::io::{self, Read, Write};
use std::path::Path;

use sieve_filters::utf8::{Counting, StreamCleaner, Utf8Counts};

use crate::Result;

/// Bytes read per chunk; memory stays bounded whatever the input size.
pub const CHUNK: usize = 1 << 20;

/// Where the cleaned bytes of [`clean_stream`] go: a writer and its name
/// (for errors).
pub struct Sink<'a, W: Write + ?Sized> {
    /// The writer (flushed at the end).
    pub writer: &'a mut W,
    /// Its name in errors.
    pub name: &'a Path,
}

/// Streams `input` (named `name` in errors) through a [`StreamCleaner`]
/// with `counting`, writing the cleaned bytes to `sink` if given; returns
/// the bytes read and the error counts. A read error is an
/// [`crate::Error::Io`] naming `name`, a write error one naming the sink.
pub fn clean_stream<W: Write + ?Sized>(
    mut input: impl Read,
    name: &Path,
    counting: Counting,
    mut sink: Option<Sink<'_, W>>,
) -> Result<(u64, Utf8Counts)> {
    let mut cleaner = StreamCleaner::new(counting);
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + 8);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(name)(e)),
        };
        out.clear();
        cleaner.feed(&buf[..n], &mut out);
        if let Some(s) = sink.as_mut() {
            s.writer.write_all(&out).map_err(io_err(s.name))?;
        }
    }
    let bytes = cleaner.bytes_in();
    out.clear();
    let counts = cleaner.finish(&mut out);
    if let Some(s) = sink {
        s.writer
            .write_all(&out)
            .and_then(|()| s.writer.flush())
            .map_err(io_err(s.name))?;
    }
    Ok((bytes, counts))
}

/// An I/O error on `path` as an [`crate::Error::Io`].
fn io_err(path: &Path) -> impl Fn(io::Error) -> crate::Error + '_ {
    move |source| crate::Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaned_bytes_and_counts_match_the_one_shot_cleaner_across_chunks() {
        // Invalid bytes straddling the chunk boundary.
        let mut input = vec![b'a'; CHUNK - 1];
        input.extend_from_slice(&[0xE2, 0x82, b'x', 0xFF, b'y']);
        let mut out = Vec::new();
        let sink = Sink {
            writer: &mut out,
            name: Path::new("out"),
        };
        let (bytes, counts) =
            clean_stream(&input[..], Path::new("in"), Counting::Exact, Some(sink)).expect("clean");
        assert_eq!(bytes, input.len() as u64);
        assert!(!counts.is_clean());
        let mut one = Vec::new();
        let mut cleaner = StreamCleaner::new(Counting::Exact);
        cleaner.feed(&input, &mut one);
        let want = cleaner.finish(&mut one);
        assert_eq!(counts, want);
        assert_eq!(out, one);
    }
}
