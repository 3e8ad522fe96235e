//! The options of a build ([`BuildOptions`]), the caps a document can hit
//! ([`Cap`]), what happens over the time budget ([`DocTimeout`]), the
//! thread-count check and the progress callbacks.
//!
//! Loading a filter file or spam rankings into the options is done by
//! [`BuildOptions::set_filter_file`] (in [`crate::filterbuild`]) and
//! [`BuildOptions::set_spam_files`] (in [`crate::spamfile`]), which sit
//! above the index access they use.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sieve_analysis::AnalyzerConfig;
use sieve_crawl::CrawlOptions;
use sieve_crawl::inputs::SkippedInput;
use sieve_filters::docfilter::DocFilter;
use sieve_filters::spam::SpamMap;
use sieve_format::schema::IndexContents;
use sieve_text::charset::CharsetMode;
use sieve_text::html::{HtmlOptions, TextMode};

use crate::{Error, Result};

/// Everything [`crate::build::build`] needs.
pub struct BuildOptions {
    /// Input files, in processing order (see [`sieve_crawl::inputs::expand_inputs`]).
    pub inputs: Vec<PathBuf>,
    /// The index directory.
    pub index: PathBuf,
    /// Worker threads (>= 1).
    pub threads: usize,
    /// Charset handling (`--charset utf8` is [`CharsetMode::ForceUtf8`]).
    pub charset: CharsetMode,
    /// Crawl reading caps.
    pub crawl: CrawlOptions,
    /// HTML caps.
    pub html: HtmlOptions,
    /// Which text of a page is kept: all visible text (the default) or the
    /// main content ([`sieve_text::html::extract_text`]).
    pub text: TextMode,
    /// Compute near-duplicate band keys and clusters ([`crate::dedup`];
    /// default on).
    pub near_duplicates: bool,
    /// The analyser.
    pub analyzer: AnalyzerConfig,
    /// What the index keeps beyond a bag of words (positions; default
    /// none).
    pub contents: IndexContents,
    /// Continue an interrupted build.
    pub resume: bool,
    /// Drop documents this filter does not keep.
    pub filter: Option<DocFilter>,
    /// A description of the filter (for the manifest).
    pub filter_desc: Option<String>,
    /// Spam percentiles to store.
    pub spam: Option<SpamMap<Vec<u8>>>,
    /// A description of the spam input (for the manifest).
    pub spam_desc: Option<String>,
    /// tantivy writer memory budget in bytes.
    pub writer_heap: usize,
    /// Commit once the files indexed since the last commit hold at least
    /// this many bytes of input (their sizes on disk); the last file always
    /// commits. 0 commits after every file. A `kill -9` costs the work since
    /// the last commit: a resume reads those files again. Output does not
    /// depend on it (see [`crate::build`]).
    pub commit_bytes: u64,
    /// No merge makes a segment of more documents than this (the merge cap,
    /// [`crate::order`]).
    pub max_merge_docs: u32,
    /// Write what is not indexed (and documents that hit a cap) here (see
    /// the `quarantine` module). Costs a copy of each document's body while it
    /// is processed, and up to the record cap per skipped record in flight.
    pub quarantine: Option<PathBuf>,
    /// Time budget per document (decode, clean, extract, analyse); `None`
    /// (the default) for no budget. See the module docs: output then depends
    /// on the machine's speed.
    pub max_doc_time: Option<Duration>,
    /// What to do with a document over its time budget.
    pub doc_timeout: DocTimeout,
    /// Input entries skipped while expanding the inputs (see
    /// [`sieve_crawl::inputs`]): recorded in `stats.json` and `losses.jsonl`.
    pub skipped_inputs: Vec<SkippedInput>,
}

/// What happens to a document over [`BuildOptions::max_doc_time`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DocTimeout {
    /// It is not indexed (skip reason `time_budget`).
    #[default]
    Skip,
    /// The text extracted before the deadline is indexed.
    Truncate,
}

impl DocTimeout {
    /// `skip` or `truncate` (as recorded in the manifest).
    pub fn key(self) -> &'static str {
        match self {
            DocTimeout::Skip => "skip",
            DocTimeout::Truncate => "truncate",
        }
    }
}

pub use sieve_format::stats::Cap;

/// The caps one document hit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CapHits(u8);

impl CapHits {
    /// Records `cap` if `hit`.
    pub(crate) fn set(&mut self, cap: Cap, hit: bool) {
        if hit {
            self.0 |= cap.bit();
        }
    }
    /// Whether any cap was hit.
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }
    /// The caps hit, in [`Cap::ALL`] order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Cap> {
        Cap::ALL.into_iter().filter(move |c| self.0 & c.bit() != 0)
    }
}

impl BuildOptions {
    /// Options with the defaults for everything but the inputs and index.
    pub fn new(inputs: Vec<PathBuf>, index: PathBuf) -> Self {
        BuildOptions {
            inputs,
            index,
            threads: 1,
            charset: CharsetMode::Auto,
            crawl: CrawlOptions::default(),
            html: HtmlOptions::default(),
            text: TextMode::All,
            near_duplicates: true,
            contents: IndexContents::default(),
            analyzer: AnalyzerConfig::default(),
            resume: false,
            filter: None,
            filter_desc: None,
            spam: None,
            spam_desc: None,
            writer_heap: 256 << 20,
            commit_bytes: DEFAULT_COMMIT_MB << 20,
            max_merge_docs: crate::order::MAX_MERGE_DOCS,
            quarantine: None,
            max_doc_time: None,
            doc_timeout: DocTimeout::Skip,
            skipped_inputs: Vec::new(),
        }
    }
}

impl BuildOptions {
    /// The tantivy writer's memory budget from megabytes, at least 15 MB
    /// (tantivy's minimum for one indexing thread).
    pub fn set_writer_mb(&mut self, mb: usize) {
        self.writer_heap = mb.max(15) << 20;
    }

    /// The commit cadence from megabytes of input (see
    /// [`BuildOptions::commit_bytes`]); 0 commits after every file.
    pub fn set_commit_mb(&mut self, mb: u64) {
        self.commit_bytes = mb.saturating_mul(1 << 20);
    }

    /// The time budget per document from milliseconds; 0 is no budget.
    pub fn set_max_doc_ms(&mut self, ms: u64) {
        self.max_doc_time = (ms > 0).then(|| Duration::from_millis(ms));
    }
}

/// The default commit cadence, in megabytes of input
/// ([`BuildOptions::commit_bytes`]).
pub const DEFAULT_COMMIT_MB: u64 = 256;

/// The default worker-thread count: the available parallelism, else 1.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// Progress callbacks (the binary draws a progress bar with them).
pub trait Progress: Sync {
    /// A file is starting (`index` of `total`).
    fn file(&self, _path: &Path, _index: usize, _total: usize) {}
    /// `docs` more documents were indexed.
    fn docs(&self, _docs: u64) {}
}

/// No progress reporting.
pub struct NoProgress;
impl Progress for NoProgress {}

/// Checks a worker-thread count: at least 1, else [`Error::Threads`].
pub fn check_threads(n: usize) -> Result<NonZeroUsize> {
    NonZeroUsize::new(n).ok_or(Error::Threads { got: n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_cadence_defaults_to_256_mb_and_0_is_every_file() {
        let mut o = BuildOptions::new(Vec::new(), PathBuf::from("idx"));
        assert_eq!(o.commit_bytes, 256 << 20);
        o.set_commit_mb(0);
        assert_eq!(o.commit_bytes, 0);
        o.set_commit_mb(u64::MAX);
        assert_eq!(o.commit_bytes, u64::MAX);
    }

    #[test]
    fn check_threads_refuses_zero_without_naming_a_flag() {
        assert_eq!(check_threads(3).expect("3 threads").get(), 3);
        let e = check_threads(0).expect_err("0 threads");
        assert!(matches!(e, Error::Threads { got: 0 }), "{e:?}");
        assert!(!e.to_string().contains("--"), "{e}");
    }
}
