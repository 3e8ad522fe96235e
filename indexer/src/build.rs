//! The index build: crawl files in, a tantivy index and `stats.json` out.
//!
//! # Pipeline
//!
//! Files are processed one after another, in the order given (inputs are
//! expanded and sorted by [`expand_inputs`]). For each file a reader thread
//! parses records ([`crate::crawl`]) and hands batches of documents to the
//! worker pool (`threads` rayon workers), which decodes the charset
//! ([`crate::charset`]), cleans UTF-8 and counts errors, extracts text
//! ([`crate::html`]) and analyses it ([`crate::analysis`]). Results are put
//! back in record order and added to one tantivy writer, so the index holds
//! the same documents in the same order, and `stats.json` is the same, for
//! any `threads`.
//!
//! # Nothing lost silently
//!
//! Every record that is not indexed is counted by reason in the per-file
//! statistics and written to `losses.jsonl` in the index directory with its
//! file, offset and record id; every framing anomaly too. A file that cannot
//! be opened, or fails part way, is named in [`FileStats::error`].
//!
//! # Resume
//!
//! After each file the writer commits, and the commit payload records the
//! statistics of every completed file and the length of `losses.jsonl`. A
//! build killed at any point and rerun with `resume` starts from the last
//! commit: uncommitted documents of the interrupted file were never
//! visible, `losses.jsonl` is cut back to its committed length, and that
//! file is read again from its start. So every document is indexed exactly
//! once. `sieve.json` (the manifest) records the options, the tool version
//! and each input's size and modification time; a resume with different
//! options or changed inputs is refused.
//!
//! # Caps
//!
//! Every cap that fires is counted per file in [`FileStats::caps`] under its
//! [`Cap::key`] and logged in `losses.jsonl` with file, offset and record id
//! (`"reason":"cap","cap":"<key>"`, and `"indexed"` saying whether the
//! document was still indexed, cut):
//!
//! * `record_bytes`: a body longer than `max_record_bytes` (stored, or once
//!   de-chunked or gunzipped) was cut; the rest was streamed past.
//! * `decompression_ratio`: a gzip input inflated more than
//!   `max_decompression_ratio` times (a gzip bomb); the rest of the file is
//!   not read (and the file's [`FileStats::error`] says so).
//! * `html_depth`, `text_bytes`: the HTML caps of [`HtmlOptions`].
//! * `time_budget`: decoding and extracting one document took longer than
//!   [`BuildOptions::max_doc_time`]. **Off by default**, because it is the one
//!   cap whose effect depends on the machine's speed and load: with it on,
//!   the same input can give a different index on another machine or under
//!   another `--threads`. With [`DocTimeout::Skip`] the document is not
//!   indexed (skip reason `time_budget`); with [`DocTimeout::Truncate`] the
//!   text extracted before the deadline is indexed (at least the first
//!   [`crate::html::DEADLINE_STEPS`] steps of the HTML scan: decoding is not
//!   interrupted) and analysed in full. The clock is read every
//!   [`crate::html::DEADLINE_STEPS`] steps of the HTML scan, and in skip
//!   mode also after decoding and after analysis.
//!
//! # Quarantine
//!
//! With [`BuildOptions::quarantine`], everything not indexed, and every
//! document that hit a cap, is also written to that directory by ordinal
//! and offset (see [`crate::quarantine`]). A resume must name the same
//! directory (or none, if the interrupted build had none); its
//! `quarantine.jsonl` is cut back to the last commit and the items of the
//! interrupted file are written again under the same names.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sieve_filters::docfilter::DocFilter;
use sieve_filters::spam::SpamMap;
use sieve_filters::utf8::{Counting, ErrorClass, Utf8Counts};
use tantivy::{Index, IndexWriter};

use crate::analysis::{AnalyzerConfig, EnglishAnalyzer, Stemmer, Stopwords};
use crate::charset::{CharsetMode, decode};
use crate::crawl::walk::SkippedInput;
use crate::crawl::{AnomalyKind, CrawlEvent, CrawlOptions, GzipSpan, RawDoc};
use crate::document::{IndexDoc, SieveDocument};
use crate::html::{HtmlOptions, extract_until};
use crate::quarantine::{Content, Item, Quarantine};
use crate::schema::{Fields, SCHEMA_VERSION, build_schema, register_analyzers};
use crate::{Error, Result};

/// Name of the manifest in the index directory.
pub const MANIFEST: &str = "sieve.json";
/// Name of the statistics file in the index directory.
pub const STATS: &str = "stats.json";
/// Name of the losses log in the index directory.
pub const LOSSES: &str = "losses.jsonl";

/// Documents per batch handed to the workers.
const BATCH_DOCS: usize = 256;
/// Body bytes per batch handed to the workers. Analysed documents take
/// about 50 bytes of memory per byte of extracted text (token structs and
/// the copy tantivy takes; measured on a 4 MiB text: ~205 MiB) and a whole
/// batch is analysed before it is added, so this bounds the memory of a
/// batch of text-heavy pages at roughly 8 MiB × 50 = 400 MiB. Typical web
/// pages (tens of KB) still fill batches by `BATCH_DOCS`.
const BATCH_BYTES: usize = 8 << 20;

/// Everything [`build`] needs.
pub struct BuildOptions {
    /// Input files, in processing order (see [`expand_inputs`]).
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
    /// The analyser.
    pub analyzer: AnalyzerConfig,
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
    /// Write what is not indexed (and documents that hit a cap) here (see
    /// [`crate::quarantine`]). Costs a copy of each document's body while it
    /// is processed, and up to the record cap per skipped record in flight.
    pub quarantine: Option<PathBuf>,
    /// Time budget per document (decode, clean, extract, analyse); `None`
    /// (the default) for no budget. See the module docs: output then depends
    /// on the machine's speed.
    pub max_doc_time: Option<Duration>,
    /// What to do with a document over its time budget.
    pub doc_timeout: DocTimeout,
    /// Input entries skipped while expanding the inputs (see
    /// [`crate::crawl::walk`]): recorded in `stats.json` and `losses.jsonl`.
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
    fn key(self) -> &'static str {
        match self {
            DocTimeout::Skip => "skip",
            DocTimeout::Truncate => "truncate",
        }
    }
}

/// The caps a document or file can hit (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// `max_record_bytes`.
    RecordBytes,
    /// `max_decompression_ratio` (a gzip bomb; file level).
    DecompressionRatio,
    /// `max_html_depth`.
    HtmlDepth,
    /// `max_text_bytes`.
    TextBytes,
    /// `max_doc_time`.
    TimeBudget,
}

impl Cap {
    /// Every cap.
    pub const ALL: [Cap; 5] = [
        Cap::RecordBytes,
        Cap::DecompressionRatio,
        Cap::HtmlDepth,
        Cap::TextBytes,
        Cap::TimeBudget,
    ];

    /// Key in [`FileStats::caps`] and `losses.jsonl`.
    pub fn key(self) -> &'static str {
        match self {
            Cap::RecordBytes => "record_bytes",
            Cap::DecompressionRatio => "decompression_ratio",
            Cap::HtmlDepth => "html_depth",
            Cap::TextBytes => "text_bytes",
            Cap::TimeBudget => "time_budget",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The caps one document hit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct CapHits(u8);

impl CapHits {
    fn set(&mut self, cap: Cap, hit: bool) {
        if hit {
            self.0 |= cap.bit();
        }
    }
    fn any(self) -> bool {
        self.0 != 0
    }
    fn iter(self) -> impl Iterator<Item = Cap> {
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
            analyzer: AnalyzerConfig::default(),
            resume: false,
            filter: None,
            filter_desc: None,
            spam: None,
            spam_desc: None,
            writer_heap: 256 << 20,
            quarantine: None,
            max_doc_time: None,
            doc_timeout: DocTimeout::Skip,
            skipped_inputs: Vec::new(),
        }
    }
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

/// Statistics of one input file (all counts are records or documents).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileStats {
    /// The file, as given.
    pub path: String,
    /// Records read (WARC records of any type, or TREC documents).
    pub records: u64,
    /// Records that are HTTP responses (TREC documents count as responses).
    pub responses: u64,
    /// Responses kept as HTML (TREC documents: all non-empty ones).
    pub html: u64,
    /// Documents indexed.
    pub indexed: u64,
    /// Records not indexed, by reason (`not_response:request`, `not_html`,
    /// `http_status:4xx`, `empty_body`, `filtered`, `empty_text`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Framing anomalies by kind.
    pub anomalies: BTreeMap<String, u64>,
    /// Bytes affected by anomalies.
    pub anomaly_bytes: u64,
    /// Documents truncated at the per-record cap.
    pub truncated: u64,
    /// Documents whose HTML nesting or text hit a cap.
    pub html_capped: u64,
    /// Cap hits by [`Cap::key`] (documents, or for `decompression_ratio`
    /// files); each hit is in `losses.jsonl` with its offset.
    #[serde(default)]
    pub caps: BTreeMap<String, u64>,
    /// Items written to the quarantine (0 without `--quarantine`).
    #[serde(default)]
    pub quarantined: u64,
    /// Total occurrences of each UTF-8 error class over indexed documents.
    pub utf8_errors: Utf8Counts,
    /// Indexed documents containing each class at least once.
    pub utf8_docs: Utf8Counts,
    /// Extra unexpected-continuation counts under ATIRE counting.
    pub atire_extra: u64,
    /// Indexed documents by the source that decided their charset.
    pub charset_sources: BTreeMap<String, u64>,
    /// Indexed documents whose declared charsets disagreed.
    pub charset_disagree: u64,
    /// Indexed documents by encoding name.
    pub encodings: BTreeMap<String, u64>,
    /// Indexed documents with a spam score.
    pub spam_scored: u64,
    /// Damaged gzip members skipped (compressed spans), also counted in
    /// `anomalies` as `gzip_member`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gzip_members: Vec<GzipSpan>,
    /// Set if the file could not be read to its end: what went wrong.
    pub error: Option<String>,
}

impl FileStats {
    /// Adds `other`'s counts into `self` (not `path` or `error`).
    pub fn add(&mut self, o: &FileStats) {
        self.records += o.records;
        self.responses += o.responses;
        self.html += o.html;
        self.indexed += o.indexed;
        for (k, v) in &o.skipped {
            *self.skipped.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.anomalies {
            *self.anomalies.entry(k.clone()).or_default() += v;
        }
        self.anomaly_bytes += o.anomaly_bytes;
        self.truncated += o.truncated;
        self.html_capped += o.html_capped;
        for (k, v) in &o.caps {
            *self.caps.entry(k.clone()).or_default() += v;
        }
        self.quarantined += o.quarantined;
        self.utf8_errors += o.utf8_errors;
        self.utf8_docs += o.utf8_docs;
        self.atire_extra += o.atire_extra;
        for (k, v) in &o.charset_sources {
            *self.charset_sources.entry(k.clone()).or_default() += v;
        }
        self.charset_disagree += o.charset_disagree;
        for (k, v) in &o.encodings {
            *self.encodings.entry(k.clone()).or_default() += v;
        }
        self.spam_scored += o.spam_scored;
    }

    fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    fn cap(&mut self, cap: Cap) {
        *self.caps.entry(cap.key().to_string()).or_default() += 1;
    }
}

/// The contents of `stats.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildStats {
    /// Sums over all files.
    pub totals: FileStats,
    /// Per file, in processing order.
    pub files: Vec<FileStats>,
    /// Files that could not be read to their end (named with the reason).
    pub failed_files: Vec<String>,
    /// Input entries not read (symlink loops, duplicates, FIFOs, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_inputs: Vec<SkippedInput>,
    /// Spam coverage, when spam scores were given: scores with no indexed
    /// document (`spam_docids - totals.spam_scored`, docids being unique).
    pub spam_without_doc: Option<u64>,
    /// Wall-clock seconds of this run (not deterministic; everything else is).
    pub seconds: f64,
}

/// The manifest (`sieve.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The tool and its version.
    pub tool: String,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Options that must not change across a resume.
    pub options: ManifestOptions,
    /// The inputs with their size and modification time.
    pub inputs: Vec<InputInfo>,
}

/// The options recorded in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestOptions {
    /// `porter` or `none`.
    pub stemmer: String,
    /// `lucene` or `none`.
    pub stopwords: String,
    /// `auto` or `utf8`.
    pub charset: String,
    /// Per-record cap.
    pub max_record_bytes: u64,
    /// Decompression-ratio cap.
    pub max_decompression_ratio: u64,
    /// HTML depth cap.
    pub max_html_depth: usize,
    /// HTML text cap.
    pub max_text_bytes: usize,
    /// Time budget per document in milliseconds (0: none).
    #[serde(default)]
    pub max_doc_ms: u64,
    /// `skip` or `truncate`: what happens to a document over its budget.
    #[serde(default = "default_doc_timeout")]
    pub doc_timeout: String,
    /// The filter used at build time, if any.
    pub filter: Option<String>,
    /// The spam input, if any.
    pub spam: Option<String>,
}

fn default_doc_timeout() -> String {
    DocTimeout::Skip.key().to_string()
}

/// One input in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputInfo {
    /// The path, as given.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, seconds since the epoch.
    pub mtime: u64,
}

/// What the last commit recorded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Checkpoint {
    completed: Vec<FileStats>,
    losses_len: u64,
    /// The quarantine directory of the build, if any.
    #[serde(default)]
    quarantine: Option<String>,
    /// Committed length of its `quarantine.jsonl`.
    #[serde(default)]
    quarantine_len: u64,
}

/// Expands paths, directories (recursively) and glob patterns into a
/// sorted list of files, each once (see [`crate::crawl::walk::expand`],
/// which also returns what it skipped). A pattern or path that matches
/// nothing is an error naming it.
pub fn expand_inputs(specs: &[String]) -> Result<Vec<PathBuf>> {
    Ok(crate::crawl::walk::expand(specs)?.files)
}

fn input_info(path: &Path) -> Result<InputInfo> {
    let md = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    Ok(InputInfo {
        path: path.to_string_lossy().into_owned(),
        size: md.len(),
        mtime,
    })
}

fn manifest_options(o: &BuildOptions) -> ManifestOptions {
    ManifestOptions {
        stemmer: match o.analyzer.stemmer {
            Stemmer::Porter => "porter",
            Stemmer::None => "none",
        }
        .into(),
        stopwords: match o.analyzer.stopwords {
            Stopwords::Lucene => "lucene",
            Stopwords::None => "none",
        }
        .into(),
        charset: match o.charset {
            CharsetMode::Auto => "auto",
            CharsetMode::ForceUtf8 => "utf8",
        }
        .into(),
        max_record_bytes: o.crawl.max_record_bytes,
        max_decompression_ratio: o.crawl.max_decompression_ratio,
        max_html_depth: o.html.max_depth,
        max_text_bytes: o.html.max_text_bytes,
        max_doc_ms: o.max_doc_time.map_or(0, |d| {
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
        }),
        doc_timeout: o.doc_timeout.key().to_string(),
        filter: o.filter_desc.clone(),
        spam: o.spam_desc.clone(),
    }
}

/// Reads the manifest of an index directory.
pub fn read_manifest(index: &Path) -> Result<Manifest> {
    let p = index.join(MANIFEST);
    let bytes = std::fs::read(&p).map_err(|source| Error::Io {
        path: p.clone(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Input {
        path: p,
        detail: e.to_string(),
    })
}

/// The analyser configuration an index was built with.
pub fn analyzer_config(m: &Manifest) -> AnalyzerConfig {
    AnalyzerConfig {
        stemmer: if m.options.stemmer == "none" {
            Stemmer::None
        } else {
            Stemmer::Porter
        },
        stopwords: if m.options.stopwords == "none" {
            Stopwords::None
        } else {
            Stopwords::Lucene
        },
    }
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    bytes.push(b'\n');
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Creates `dir` (and parents) readable only by its owner on Unix.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o750)
            .create(dir)
            .map_err(io)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir).map_err(io)
    }
}

/// Builds (or, with `resume`, continues) the index. Returns the statistics
/// also written to `stats.json`.
pub fn build(opts: &BuildOptions, progress: &dyn Progress) -> Result<BuildStats> {
    let started = Instant::now();
    if opts.threads == 0 {
        return Err(Error::Input {
            path: opts.index.clone(),
            detail: "--threads must be at least 1".into(),
        });
    }
    let manifest = Manifest {
        tool: format!("sieve {}", env!("CARGO_PKG_VERSION")),
        schema_version: SCHEMA_VERSION,
        options: manifest_options(opts),
        inputs: opts
            .inputs
            .iter()
            .map(|p| input_info(p))
            .collect::<Result<_>>()?,
    };
    let meta_exists = opts.index.join("meta.json").exists();
    let (index, checkpoint) = if meta_exists {
        if !opts.resume {
            return Err(Error::Input {
                path: opts.index.clone(),
                detail: "an index already exists here; pass --resume to continue it, or choose a new directory".into(),
            });
        }
        let old = read_manifest(&opts.index)?;
        if old.schema_version != manifest.schema_version || old.options != manifest.options {
            return Err(Error::Input {
                path: opts.index.join(MANIFEST),
                detail: format!(
                    "cannot resume with different options: the index was built with {}, this run has {}",
                    serde_json::to_string(&old.options).unwrap_or_default(),
                    serde_json::to_string(&manifest.options).unwrap_or_default()
                ),
            });
        }
        if old.inputs != manifest.inputs {
            return Err(Error::Input {
                path: opts.index.join(MANIFEST),
                detail: "cannot resume: the input files (list, size or modification time) differ from the interrupted build".into(),
            });
        }
        let index = Index::open_in_dir(&opts.index)?;
        let payload = index.load_metas()?.payload.unwrap_or_default();
        let checkpoint: Checkpoint = if payload.is_empty() {
            Checkpoint::default()
        } else {
            serde_json::from_str(&payload).map_err(|e| Error::Input {
                path: opts.index.join("meta.json"),
                detail: format!("bad commit payload: {e}"),
            })?
        };
        (index, checkpoint)
    } else {
        create_private_dir(&opts.index)?;
        write_json(&opts.index.join(MANIFEST), &manifest)?;
        let index = Index::create_in_dir(&opts.index, build_schema())?;
        (index, Checkpoint::default())
    };
    register_analyzers(&index, opts.analyzer);
    let fields = Fields::from_schema(&index.schema())?;
    let mut writer: IndexWriter<SieveDocument> =
        index.writer_with_num_threads(1, opts.writer_heap.max(15 << 20))?;

    // Losses log, cut back to what the last commit saw.
    let losses_path = opts.index.join(LOSSES);
    let io = |source| Error::Io {
        path: losses_path.clone(),
        source,
    };
    let losses_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&losses_path)
        .map_err(io)?;
    losses_file.set_len(checkpoint.losses_len).map_err(io)?;
    let mut losses = BufWriter::new(losses_file);
    let mut losses_len = checkpoint.losses_len;
    if checkpoint.completed.is_empty() {
        let mut log = Vec::new();
        for s in &opts.skipped_inputs {
            let line = LossLine {
                detail: Some(&s.reason),
                ..LossLine::new(&s.path, 0, None, "skipped_input")
            };
            log_loss(&mut log, &line);
        }
        losses.write_all(&log).map_err(io)?;
        losses_len += log.len() as u64;
    }

    // Quarantine, cut back likewise; a resume must keep the same directory.
    let qname = opts
        .quarantine
        .as_ref()
        .map(|q| q.to_string_lossy().into_owned());
    if !checkpoint.completed.is_empty() && checkpoint.quarantine != qname {
        return Err(Error::Input {
            path: opts.index.clone(),
            detail: format!(
                "cannot resume with a different --quarantine: the interrupted build had {}, this run has {}",
                checkpoint.quarantine.as_deref().unwrap_or("none"),
                qname.as_deref().unwrap_or("none"),
            ),
        });
    }
    let mut quarantine = match &opts.quarantine {
        Some(dir) => Some(Quarantine::open(
            dir,
            checkpoint.quarantine_len,
            opts.resume,
            opts.crawl.keep_limit(),
        )?),
        None => None,
    };

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::Input {
            path: opts.index.clone(),
            detail: format!("thread pool: {e}"),
        })?;
    let analyzer = EnglishAnalyzer::new(opts.analyzer);
    let mut completed = checkpoint.completed;
    let done: std::collections::HashSet<String> =
        completed.iter().map(|f| f.path.clone()).collect();

    let total = opts.inputs.len();
    for (i, path) in opts.inputs.iter().enumerate() {
        let name = path.to_string_lossy().into_owned();
        if done.contains(&name) {
            continue;
        }
        progress.file(path, i, total);
        let mut fs = FileStats {
            path: name.clone(),
            ..Default::default()
        };
        let mut log = Vec::new();
        if let Some(q) = &mut quarantine {
            q.start_file(&name, i);
        }
        index_file(
            path,
            opts,
            &pool,
            &analyzer,
            &fields,
            &mut writer,
            &mut fs,
            &mut log,
            quarantine.as_mut(),
            progress,
        )?;
        losses.write_all(&log).map_err(io)?;
        losses.flush().map_err(io)?;
        losses_len += log.len() as u64;
        if let Some(q) = &mut quarantine {
            fs.quarantined = q.end_file()?;
        }
        completed.push(fs);
        let payload = serde_json::to_string(&Checkpoint {
            completed: completed.clone(),
            losses_len,
            quarantine: qname.clone(),
            quarantine_len: quarantine.as_ref().map_or(0, Quarantine::committed_len),
        })
        .unwrap_or_default();
        let mut prepared = writer.prepare_commit()?;
        prepared.set_payload(&payload);
        prepared.commit()?;
    }
    writer.wait_merging_threads()?;

    // Statistics in input order.
    let mut files = Vec::with_capacity(completed.len());
    for p in &opts.inputs {
        let name = p.to_string_lossy();
        if let Some(f) = completed.iter().find(|f| f.path == name) {
            files.push(f.clone());
        }
    }
    let mut totals = FileStats {
        path: "(all)".into(),
        ..Default::default()
    };
    for f in &files {
        totals.add(f);
    }
    let failed_files = files
        .iter()
        .filter_map(|f| f.error.as_ref().map(|e| format!("{}: {e}", f.path)))
        .collect();
    let spam_without_doc = opts
        .spam
        .as_ref()
        .map(|m| (m.len() as u64).saturating_sub(totals.spam_scored));
    let stats = BuildStats {
        totals,
        files,
        failed_files,
        skipped_inputs: opts.skipped_inputs.clone(),
        spam_without_doc,
        seconds: started.elapsed().as_secs_f64(),
    };
    write_json(&opts.index.join(STATS), &stats)?;
    Ok(stats)
}

/// What the workers made of one document.
enum Outcome {
    Doc(Box<SieveDocument>, DocFacts),
    Lost(&'static str),
}

/// A processed document: the outcome, the caps it hit, and (with a
/// quarantine, if it was lost or capped) its body.
struct Processed {
    outcome: Outcome,
    caps: CapHits,
    body: Option<Vec<u8>>,
    /// The body is incomplete (the record was cut, or the input ended).
    body_truncated: bool,
}

/// Per-document figures for the statistics.
struct DocFacts {
    counts: Utf8Counts,
    atire_extra: u64,
    source: &'static str,
    encoding: &'static str,
    disagree: bool,
    truncated: bool,
    html_capped: bool,
    spam: bool,
}

fn process(
    raw: RawDoc,
    source: &str,
    opts: &BuildOptions,
    analyzer: &EnglishAnalyzer,
    fields: &Fields,
) -> Processed {
    let deadline = opts.max_doc_time.map(|d| Instant::now() + d);
    let mut caps = CapHits::default();
    caps.set(Cap::RecordBytes, raw.capped);
    let body_truncated = raw.truncated;
    // With a quarantine, keep the body for it until we know the document
    // is indexed without hitting a cap.
    let mut body = opts.quarantine.as_ref().map(|_| raw.body.clone());
    let outcome = process_doc(raw, source, opts, analyzer, fields, deadline, &mut caps);
    if matches!(outcome, Outcome::Doc(..)) && !caps.any() {
        body = None;
    }
    Processed {
        outcome,
        caps,
        body,
        body_truncated,
    }
}

fn process_doc(
    raw: RawDoc,
    source: &str,
    opts: &BuildOptions,
    analyzer: &EnglishAnalyzer,
    fields: &Fields,
    deadline: Option<Instant>,
    caps: &mut CapHits,
) -> Outcome {
    if let Some(f) = &opts.filter
        && !f.keeps(&raw.docid)
    {
        return Outcome::Lost("filtered");
    }
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    // ATIRE counting differs only in extra unexpected-continuation counts;
    // measure them on the raw bytes of invalid documents only.
    let atire = if simdutf8::basic::from_utf8(&raw.body).is_err() {
        Some(sieve_filters::utf8::count(&raw.body, Counting::Atire))
    } else {
        None
    };
    let decoded = decode(
        raw.body,
        raw.http_charset.as_deref(),
        raw.url.as_deref(),
        opts.charset,
        Counting::Exact,
    );
    if opts.doc_timeout == DocTimeout::Skip && late() {
        caps.set(Cap::TimeBudget, true);
        return Outcome::Lost("time_budget");
    }
    let counts = decoded.utf8_counts;
    let atire_extra = match atire {
        Some(a) if !counts.is_clean() => a
            .unexpected_continuation
            .saturating_sub(counts.unexpected_continuation),
        _ => 0,
    };
    let text = extract_until(&decoded.text, &opts.html, deadline);
    drop(decoded.text);
    caps.set(Cap::HtmlDepth, text.depth_capped);
    caps.set(Cap::TextBytes, text.text_truncated);
    caps.set(Cap::TimeBudget, text.timed_out);
    if text.timed_out && opts.doc_timeout == DocTimeout::Skip {
        return Outcome::Lost("time_budget");
    }
    if text.title.trim().is_empty() && text.body.trim().is_empty() {
        return Outcome::Lost("empty_text");
    }
    let spam = opts.spam.as_ref().and_then(|m| m.get(&raw.docid));
    let facts = DocFacts {
        counts,
        atire_extra,
        source: decoded.source.key(),
        encoding: decoded.encoding.name(),
        disagree: decoded.disagree,
        truncated: raw.truncated,
        html_capped: text.depth_capped || text.text_truncated,
        spam: spam.is_some(),
    };
    let doc = IndexDoc {
        docid: raw.docid,
        url: raw.url,
        title: text.title,
        body: text.body,
        source: source.to_string(),
        offset: raw.offset,
        bytes: raw.original_len,
        counts,
        atire_extra,
        charset: decoded.encoding.name().to_string(),
        charset_source: decoded.source.code(),
        charset_disagree: decoded.disagree,
        truncated: raw.truncated,
        spam,
    };
    let doc = doc.into_document(fields, analyzer);
    if opts.doc_timeout == DocTimeout::Skip && !text.timed_out && late() {
        caps.set(Cap::TimeBudget, true);
        return Outcome::Lost("time_budget");
    }
    Outcome::Doc(Box::new(doc), facts)
}

#[derive(Serialize)]
struct LossLine<'a> {
    file: &'a str,
    offset: u64,
    record_id: Option<&'a str>,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    /// For `"reason": "cap"`: which cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    cap: Option<&'a str>,
    /// For `"reason": "cap"`: whether the document was still indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    indexed: Option<bool>,
    /// For `"reason": "gzip_member"`: compressed offset of the damaged member.
    #[serde(skip_serializing_if = "Option::is_none")]
    compressed_offset: Option<u64>,
    /// Why (`gzip_member`, `skipped_input`).
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
}

impl<'a> LossLine<'a> {
    fn new(file: &'a str, offset: u64, record_id: Option<&'a str>, reason: &'a str) -> Self {
        LossLine {
            file,
            offset,
            record_id,
            reason,
            bytes: None,
            cap: None,
            indexed: None,
            compressed_offset: None,
            detail: None,
        }
    }

    fn cap(
        file: &'a str,
        offset: u64,
        record_id: Option<&'a str>,
        cap: Cap,
        indexed: bool,
    ) -> Self {
        LossLine {
            cap: Some(cap.key()),
            indexed: Some(indexed),
            ..LossLine::new(file, offset, record_id, "cap")
        }
    }
}

fn log_loss(log: &mut Vec<u8>, line: &LossLine<'_>) {
    if serde_json::to_writer(&mut *log, line).is_ok() {
        log.push(b'\n');
    }
}

/// Bytes an event carries (for batching).
fn event_bytes(ev: &CrawlEvent) -> usize {
    match ev {
        CrawlEvent::Doc(d) => d.body.len(),
        CrawlEvent::Skip(s) => s.raw.as_ref().map_or(0, |r| r.bytes.len()),
        CrawlEvent::Anomaly(a) => a.raw.as_ref().map_or(0, |r| r.bytes.len()),
    }
}

#[allow(clippy::too_many_arguments)]
fn index_file(
    path: &Path,
    opts: &BuildOptions,
    pool: &rayon::ThreadPool,
    analyzer: &EnglishAnalyzer,
    fields: &Fields,
    writer: &mut IndexWriter<SieveDocument>,
    fs: &mut FileStats,
    log: &mut Vec<u8>,
    mut quarantine: Option<&mut Quarantine>,
    progress: &dyn Progress,
) -> Result<()> {
    let mut crawl_opts = opts.crawl.clone();
    crawl_opts.keep_skipped |= quarantine.is_some();
    let reader = match crate::crawl::open(path, &crawl_opts) {
        Ok(r) => r,
        Err(e) => {
            fs.error = Some(e.to_string());
            if let Some(q) = quarantine.as_deref_mut() {
                q.add(&Item {
                    offset: 0,
                    record_id: None,
                    reason: "file_error",
                    data: None,
                    truncated: false,
                    indexed: false,
                    detail: fs.error.as_deref(),
                })?;
            }
            return Ok(());
        }
    };
    let name = fs.path.clone();
    let (tx, rx) = sync_channel::<Result<Vec<CrawlEvent>>>(2);
    std::thread::scope(|scope| -> Result<()> {
        scope.spawn(move || {
            let mut batch = Vec::new();
            let mut docs = 0usize;
            let mut bytes = 0usize;
            for ev in reader {
                match ev {
                    Ok(ev) => {
                        if let CrawlEvent::Doc(_) = &ev {
                            docs += 1;
                        }
                        bytes += event_bytes(&ev);
                        batch.push(ev);
                        if docs >= BATCH_DOCS || bytes >= BATCH_BYTES {
                            if tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                                return;
                            }
                            docs = 0;
                            bytes = 0;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Ok(std::mem::take(&mut batch)));
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            let _ = tx.send(Ok(batch));
        });
        for msg in rx {
            let events = match msg {
                Ok(ev) => ev,
                Err(e) => {
                    fs.error = Some(e.to_string());
                    let (reason, offset) = match &e {
                        Error::GzipBomb {
                            decompressed_offset,
                            ..
                        } => {
                            fs.cap(Cap::DecompressionRatio);
                            log_loss(
                                log,
                                &LossLine::cap(
                                    &name,
                                    *decompressed_offset,
                                    None,
                                    Cap::DecompressionRatio,
                                    false,
                                ),
                            );
                            ("cap:decompression_ratio", *decompressed_offset)
                        }
                        Error::TruncatedGzip {
                            decompressed_offset,
                            ..
                        }
                        | Error::Gzip {
                            decompressed_offset,
                            ..
                        } => ("file_error", *decompressed_offset),
                        Error::ReadAt { offset, .. } => ("file_error", *offset),
                        _ => ("file_error", 0),
                    };
                    if let Some(q) = quarantine.as_deref_mut() {
                        q.add(&Item {
                            offset,
                            record_id: None,
                            reason,
                            data: None,
                            truncated: false,
                            indexed: false,
                            detail: fs.error.as_deref(),
                        })?;
                    }
                    break;
                }
            };
            // Split off the documents, process them in parallel, in order.
            let mut raws = Vec::new();
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
            let metas: Vec<(u64, String)> =
                raws.iter().map(|d| (d.offset, d.docid.clone())).collect();
            let outcomes: Vec<Processed> = pool.install(|| {
                raws.into_par_iter()
                    .map(|d| process(d, &name, opts, analyzer, fields))
                    .collect()
            });
            let mut outcomes = outcomes.into_iter().zip(metas);
            let mut indexed = 0;
            for ev in order {
                match ev {
                    None => {
                        let Some((p, (offset, docid))) = outcomes.next() else {
                            break;
                        };
                        fs.records += 1;
                        fs.responses += 1;
                        fs.html += 1;
                        let is_doc = matches!(p.outcome, Outcome::Doc(..));
                        for cap in p.caps.iter() {
                            fs.cap(cap);
                            log_loss(
                                log,
                                &LossLine::cap(&name, offset, Some(&docid), cap, is_doc),
                            );
                        }
                        let reason = match p.outcome {
                            Outcome::Lost(reason) => {
                                fs.skip(reason);
                                log_loss(log, &LossLine::new(&name, offset, Some(&docid), reason));
                                reason.to_string()
                            }
                            Outcome::Doc(doc, facts) => {
                                writer.add_document(*doc)?;
                                indexed += 1;
                                count_doc(fs, &facts);
                                let caps: Vec<&str> = p.caps.iter().map(Cap::key).collect();
                                format!("cap:{}", caps.join(","))
                            }
                        };
                        if let (Some(q), Some(body)) = (quarantine.as_deref_mut(), &p.body) {
                            q.add(&Item {
                                offset,
                                record_id: Some(&docid),
                                reason: &reason,
                                data: Some((Content::Body, body)),
                                truncated: p.body_truncated,
                                indexed: is_doc,
                                detail: None,
                            })?;
                        }
                    }
                    Some(CrawlEvent::Skip(s)) => {
                        fs.records += 1;
                        let key = s.reason.key();
                        if s.reason.is_response() {
                            fs.responses += 1;
                        }
                        log_loss(
                            log,
                            &LossLine::new(&name, s.offset, s.record_id.as_deref(), &key),
                        );
                        fs.skip(&key);
                        if let Some(q) = quarantine.as_deref_mut() {
                            q.add(&Item {
                                offset: s.offset,
                                record_id: s.record_id.as_deref(),
                                reason: &key,
                                data: s
                                    .raw
                                    .as_ref()
                                    .map(|r| (Content::Record, r.bytes.as_slice())),
                                truncated: s.raw.as_ref().is_some_and(|r| r.truncated),
                                indexed: false,
                                detail: None,
                            })?;
                        }
                    }
                    Some(CrawlEvent::Anomaly(a)) => {
                        let key = a.kind.key();
                        *fs.anomalies.entry(key.to_string()).or_default() += 1;
                        fs.anomaly_bytes += a.bytes;
                        let gz = a.gzip.as_ref();
                        log_loss(
                            log,
                            &LossLine {
                                bytes: Some(a.bytes),
                                compressed_offset: gz.map(|g| g.compressed_offset),
                                detail: gz.map(|g| g.reason.as_str()),
                                ..LossLine::new(&name, a.offset, a.record_id.as_deref(), key)
                            },
                        );
                        fs.gzip_members.extend(gz.cloned());
                        if let (Some(q), Some(raw)) = (quarantine.as_deref_mut(), &a.raw) {
                            let detail = gz.map(|g| {
                                format!(
                                    "damaged gzip member at compressed offset {}, {} compressed bytes skipped: {}",
                                    g.compressed_offset, g.compressed_bytes, g.reason
                                )
                            });
                            q.add(&Item {
                                offset: a.offset,
                                record_id: a.record_id.as_deref(),
                                reason: key,
                                data: Some((
                                    match a.kind {
                                        AnomalyKind::Resync => Content::Garbage,
                                        AnomalyKind::GzipMember => Content::Gzip,
                                        _ => Content::Record,
                                    },
                                    &raw.bytes,
                                )),
                                truncated: raw.truncated,
                                indexed: false,
                                detail: detail.as_deref(),
                            })?;
                        }
                    }
                    Some(CrawlEvent::Doc(_)) => {}
                }
            }
            progress.docs(indexed);
        }
        Ok(())
    })
}

fn count_doc(fs: &mut FileStats, f: &DocFacts) {
    fs.indexed += 1;
    fs.utf8_errors += f.counts;
    for class in ErrorClass::ALL {
        if f.counts.get(class) > 0 {
            *fs.utf8_docs.get_mut(class) += 1;
        }
    }
    fs.atire_extra += f.atire_extra;
    *fs.charset_sources.entry(f.source.to_string()).or_default() += 1;
    *fs.encodings.entry(f.encoding.to_string()).or_default() += 1;
    fs.charset_disagree += u64::from(f.disagree);
    fs.truncated += u64::from(f.truncated);
    fs.html_capped += u64::from(f.html_capped);
    fs.spam_scored += u64::from(f.spam);
}

/// Writes `stats` as a short human summary.
pub fn summary(stats: &BuildStats, out: &mut impl Write) -> std::io::Result<()> {
    let t = &stats.totals;
    writeln!(
        out,
        "files {}  records {}  responses {}  html {}  indexed {}  ({:.1}s)",
        stats.files.len(),
        t.records,
        t.responses,
        t.html,
        t.indexed,
        stats.seconds
    )?;
    if !t.skipped.is_empty() {
        let s: Vec<String> = t.skipped.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "skipped: {}", s.join(" "))?;
    }
    if !t.anomalies.is_empty() {
        let s: Vec<String> = t
            .anomalies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        writeln!(
            out,
            "anomalies ({} bytes): {}",
            t.anomaly_bytes,
            s.join(" ")
        )?;
    }
    if !t.caps.is_empty() {
        let s: Vec<String> = t.caps.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "caps hit: {}", s.join(" "))?;
    }
    if t.quarantined > 0 {
        writeln!(out, "quarantined: {}", t.quarantined)?;
    }
    let e: Vec<String> = ErrorClass::ALL
        .iter()
        .map(|c| {
            format!(
                "{}={}/{}",
                c.key(),
                t.utf8_errors.get(*c),
                t.utf8_docs.get(*c)
            )
        })
        .collect();
    writeln!(out, "utf8 errors (occurrences/docs): {}", e.join(" "))?;
    let c: Vec<String> = t
        .charset_sources
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    writeln!(
        out,
        "charset sources: {}  (disagreements {})",
        c.join(" "),
        t.charset_disagree
    )?;
    for f in &stats.failed_files {
        writeln!(out, "FAILED: {f}")?;
    }
    Ok(())
}

/// Opens an index built by [`build`], registering its analyser.
pub fn open_index(dir: &Path) -> Result<(Index, Manifest)> {
    let manifest = read_manifest(dir)?;
    if manifest.schema_version != SCHEMA_VERSION {
        return Err(Error::Schema {
            expected: "the schema version of this sieve",
            detail: format!(
                "{} has schema version {}, this sieve reads {}",
                dir.display(),
                manifest.schema_version,
                SCHEMA_VERSION
            ),
        });
    }
    let index = Index::open_in_dir(dir)?;
    register_analyzers(&index, analyzer_config(&manifest));
    Ok((index, manifest))
}

/// Opens (creating if needed) a file for writing, naming it in errors.
pub fn create_file(path: &Path) -> Result<BufWriter<File>> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Every docid of an index, sorted (for scripts and tests; this holds them
/// all in memory).
pub fn list_docids(dir: &Path) -> Result<Vec<String>> {
    let (index, _) = open_index(dir)?;
    let searcher = index.reader()?.searcher();
    let mut out = Vec::new();
    for seg in searcher.segment_readers() {
        let ids = crate::filterbuild::docid_column(seg, dir)?;
        let mut buf = String::new();
        for doc in 0..seg.max_doc() {
            if let Some(ord) = ids.term_ords(doc).next() {
                buf.clear();
                ids.ord_to_str(ord, &mut buf).map_err(|source| Error::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
                out.push(buf.clone());
            }
        }
    }
    out.sort();
    Ok(out)
}
