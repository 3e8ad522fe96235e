//! [`StreamCleaner`]: the cleaner over input that arrives in chunks.

use super::engine::{self, InPlace};
use super::{Counting, Utf8Counts};

/// The longest incomplete sequence that can wait for more input: a six-byte
/// lead (FC or FD) followed by four of its five continuation bytes.
const MAX_PENDING: usize = 5;

/// Cleans input that arrives in chunks, with bounded memory.
///
/// The output bytes and the counts are **identical** to one
/// [`clean_in_place_with`](super::clean_in_place_with) over the concatenation
/// of all chunks, whatever the chunk sizes (including empty chunks and
/// one-byte chunks). Only one thing can straddle a chunk boundary: a lead byte
/// followed by fewer continuation bytes than it declares, cut off by the end
/// of the chunk. Those bytes (at most 5) are held back, neither written nor
/// counted, until the next chunk (or [`finish`](Self::finish)) decides them.
///
/// ```
/// use sieve_filters::utf8::{clean_in_place, Counting, StreamCleaner};
///
/// let input = b"caf\xC3\xA9 \xC0\x80 \xF0\x82\x82\xAC!";
/// let mut out = Vec::new();
/// let mut cleaner = StreamCleaner::new(Counting::Exact);
/// for chunk in input.chunks(3) {
///     cleaner.feed(chunk, &mut out);
/// }
/// let counts = cleaner.finish(&mut out);
///
/// let mut whole = input.to_vec();
/// assert_eq!(counts, clean_in_place(&mut whole));
/// assert_eq!(out, whole);
/// assert_eq!(out, "café    \u{20AC} !".as_bytes());
/// ```
#[derive(Debug, Clone)]
pub struct StreamCleaner {
    counting: Counting,
    counts: Utf8Counts,
    pending: [u8; MAX_PENDING],
    pending_len: usize,
    bytes_in: u64,
}

impl StreamCleaner {
    /// A cleaner at the start of an input, counting as `counting` says.
    pub fn new(counting: Counting) -> Self {
        Self {
            counting,
            counts: Utf8Counts::default(),
            pending: [0; MAX_PENDING],
            pending_len: 0,
            bytes_in: 0,
        }
    }

    /// Cleans the next `chunk` of input and appends the cleaned bytes that are
    /// now decided to `out` (existing contents of `out` are left alone).
    ///
    /// Appends between `chunk.len() - 5` and `chunk.len() + 5` bytes: up to 5
    /// bytes held back from the previous call may be released, and up to 5
    /// bytes at the end of this chunk may be held back.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        self.bytes_in += chunk.len() as u64;
        let base = out.len();
        out.extend_from_slice(&self.pending[..self.pending_len]);
        out.extend_from_slice(chunk);
        let mut counts = Utf8Counts::default();
        let mut extra = 0;
        let decided = engine::run(
            &mut InPlace(&mut out[base..]),
            false,
            &mut counts,
            &mut extra,
        );
        self.counts += self.counting.with_extra(counts, extra);
        let rest = &out[base + decided..];
        debug_assert!(rest.len() <= MAX_PENDING, "held back {} bytes", rest.len());
        self.pending_len = rest.len();
        self.pending[..rest.len()].copy_from_slice(rest);
        out.truncate(base + decided);
    }

    /// Ends the input: decides the held-back bytes (end of input counts as a
    /// missing continuation byte), appends them to `out` and returns the
    /// counts for the whole input.
    pub fn finish(mut self, out: &mut Vec<u8>) -> Utf8Counts {
        let base = out.len();
        out.extend_from_slice(&self.pending[..self.pending_len]);
        let mut counts = Utf8Counts::default();
        let mut extra = 0;
        engine::run(
            &mut InPlace(&mut out[base..]),
            true,
            &mut counts,
            &mut extra,
        );
        self.counts += self.counting.with_extra(counts, extra);
        self.counts
    }

    /// Counts for the bytes decided so far (held-back bytes excluded).
    pub fn counts(&self) -> Utf8Counts {
        self.counts
    }

    /// Total number of input bytes fed so far.
    pub fn bytes_in(&self) -> u64 {
        self.bytes_in
    }

    /// Number of input bytes currently held back (0 to 5).
    pub fn pending_len(&self) -> usize {
        self.pending_len
    }
}
