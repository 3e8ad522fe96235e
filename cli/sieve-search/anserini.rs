//! Anserini's spellings of `sieve-search run`'s options, for
//! `sieve_cli::argv::normalize`: researchers coming from Anserini's
//! `SearchCollection` write `-index`, `-topics`, `-output`, `-hits`,
//! `-bm25.k1`, `-bm25.b`, `-threads` and `-runtag`; each means the same as
//! the sieve option it is rewritten to. `-bm25` (choose BM25) is dropped:
//! BM25 is the only ranking function. `FuseRuns`' `-method`, `-rrf_k`,
//! `-alpha`, `-depth`, `-weights` and `-min_max_normalization` become
//! `fuse`'s options (its runs are positional, `-k` is `fuse`'s own).

use sieve_cli::argv::Spelling;

/// Anserini spelling → sieve-search words.
pub const ANSERINI: &[Spelling] = &[
    ("-index", &["--index"]),
    ("-topics", &["--topics"]),
    ("-output", &["--output"]),
    ("-hits", &["--hits"]),
    ("-bm25.k1", &["--k1"]),
    ("-bm25.b", &["--b"]),
    ("-threads", &["--threads"]),
    ("-runtag", &["--tag"]),
    ("-bm25", &[]),
    ("-method", &["--method"]),
    ("-rrf_k", &["--rrf-k"]),
    ("-alpha", &["--alpha"]),
    ("-depth", &["--depth"]),
    ("-weights", &["--weights"]),
    ("-min_max_normalization", &["--min-max"]),
];

/// `sieve-search`'s one-letter options (trec_eval's `-c` and `-q`), which
/// may be clustered as `-cq`.
pub const SHORTS: &str = "cqhV";
