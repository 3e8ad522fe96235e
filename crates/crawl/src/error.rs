//! The one error type of `sieve-crawl`.

use std::path::PathBuf;

/// Everything that can go wrong while reading a crawl file. Variants carry
/// the evidence: the path, the byte offset, what was expected and what was
/// found. A damaged record is not an error (it is skipped and counted);
/// these are the failures that end the reading of a file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A named input (file, directory, pattern) that cannot be used.
    #[error("{path}: {detail}")]
    Input {
        /// The input.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A read error on a crawl file at a known decompressed byte offset.
    #[error("{path}: read error at byte {offset}: {source}")]
    ReadAt {
        /// The crawl file.
        path: PathBuf,
        /// Byte offset (in the decompressed stream) where the read failed.
        offset: u64,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A gzip stream ended in the middle of a member, and no intact member
    /// follows (a damaged member with a later intact one is skipped and
    /// counted instead: see [`crate::AnomalyKind::GzipMember`]).
    #[error(
        "{path}: unexpected end of gzip stream at compressed offset {compressed_offset}, \
         decompressed offset {decompressed_offset}, in the gzip member starting at \
         compressed offset {member_offset}; {detail}"
    )]
    TruncatedGzip {
        /// The crawl file.
        path: PathBuf,
        /// Compressed offset where decoding stopped.
        compressed_offset: u64,
        /// Decompressed bytes produced before the stream ended.
        decompressed_offset: u64,
        /// Compressed offset of the start of the damaged member.
        member_offset: u64,
        /// What cannot be recovered (e.g. "one-stream gzip ...").
        detail: String,
    },
    /// A gzip stream is corrupt (bad header, bad CRC, bad deflate data), and
    /// no intact member follows the damaged one.
    #[error(
        "{path}: corrupt gzip stream at compressed offset {compressed_offset}, \
         decompressed offset {decompressed_offset}, in the gzip member starting at \
         compressed offset {member_offset}: {source}; {detail}"
    )]
    Gzip {
        /// The crawl file.
        path: PathBuf,
        /// Compressed offset where decoding stopped.
        compressed_offset: u64,
        /// Decompressed bytes produced before the error.
        decompressed_offset: u64,
        /// Compressed offset of the start of the damaged member.
        member_offset: u64,
        /// What cannot be recovered (e.g. "one-stream gzip ...").
        detail: String,
        /// The decoder's error.
        source: std::io::Error,
    },
    /// A gzip stream decompresses to far more than its compressed size (a "zip bomb").
    #[error(
        "{path}: gzip bomb: {decompressed_offset} bytes out of {compressed_offset} compressed \
         exceeds ratio {max_ratio}"
    )]
    GzipBomb {
        /// The crawl file.
        path: PathBuf,
        /// Compressed bytes consumed so far.
        compressed_offset: u64,
        /// Decompressed bytes produced so far.
        decompressed_offset: u64,
        /// The configured maximum ratio (decompressed / compressed).
        max_ratio: u64,
    },
    /// A crawl file is neither WARC, TREC SGML, SMART, JSON lines nor TSV.
    #[error(
        "{path}: unknown crawl format: expected a line starting \"WARC/\", \"<DOC>\", \".I <id>\" or \"{{\", or an id and a tab, got {got:?}"
    )]
    UnknownCrawlFormat {
        /// The crawl file.
        path: PathBuf,
        /// The first bytes of the (decompressed) file, lossily decoded.
        got: String,
    },
}
