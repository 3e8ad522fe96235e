//! The manifest (`sieve.json`): the options, tool version and inputs of a
//! build, and whether it finished; the commit checkpoint; and the checks
//! that refuse a resume with other options, other inputs or another
//! quarantine.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sieve_analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_types::{DEFAULT_DOCID_HEADERS, JsonFields, TsvColumn};

use crate::stats::FileStats;
use crate::{Error, Result};

/// Name of the manifest in the index directory.
pub const MANIFEST: &str = "sieve.json";

/// The manifest (`sieve.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The tool and its version.
    pub tool: String,
    /// [`crate::schema::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Options that must not change across a resume.
    pub options: ManifestOptions,
    /// The inputs with their size and modification time.
    pub inputs: Vec<InputInfo>,
    /// Whether the build finished ([`BuildState`]); `None` in a manifest
    /// written before this was recorded (see [`build_finished`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<BuildState>,
    /// The order of the documents ([`DocOrder`]); `None` (absent) for
    /// input order, the order of every build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<DocOrder>,
    /// Whether the `minhash` band keys were left out when the index was
    /// written again (`sieve-index reorder --drop-band-keys`): its
    /// near-duplicate clusters stay, but it cannot be clustered again, so
    /// `merge` refuses it. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub band_keys_dropped: bool,
}

/// The order of an index's documents, when it is not input order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DocOrder {
    /// Recursive graph bisection within each segment (`sieve-index
    /// reorder`), with its parameters.
    Bp {
        /// Swap rounds per bisection at most.
        max_iters: usize,
        /// Parts of fewer than twice this many documents are not split.
        min_partition: usize,
        /// Terms held by fewer documents of a segment were not read.
        min_df: u32,
        /// Documents by spam percentile first (highest first, unscored
        /// before all), bisected within each percentile: a spam
        /// threshold's documents are a prefix of each segment. Absent
        /// (false) in manifests written before it existed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        by_spam: bool,
    },
}

impl DocOrder {
    /// How `sieve-index` names the order (`input` for `None`).
    pub fn describe(order: Option<&DocOrder>) -> String {
        match order {
            None => "input".to_string(),
            Some(DocOrder::Bp {
                max_iters,
                min_partition,
                min_df,
                by_spam,
            }) => format!(
                "bp ({}recursive graph bisection per segment: {max_iters} rounds, parts of \
                 {min_partition}, terms in at least {min_df} documents)",
                if *by_spam {
                    "by spam percentile, highest first, then "
                } else {
                    ""
                }
            ),
        }
    }
}

/// Whether the build of an index finished: `building` from before its
/// first document is written (and from the start of every resume) until
/// its very last step, `finished` after `stats.json`, the block-max bounds
/// and the near-duplicate columns are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildState {
    /// A build or resume is under way, or was killed or failed: the index
    /// holds only what was committed.
    Building,
    /// The build ended: every output of the build is written.
    Finished,
}

/// Whether the build of the index in `dir`, whose manifest is `m`,
/// finished: its recorded state, or, for an index written before the state
/// was recorded, whether its `stats.json` (the last file such a build
/// wrote) is present and sound.
pub fn build_finished(dir: &Path, m: &Manifest) -> bool {
    match m.state {
        Some(state) => state == BuildState::Finished,
        None => {
            crate::jsonfile::read_json::<crate::stats::BuildStats>(&dir.join(crate::stats::STATS))
                .is_ok()
        }
    }
}

/// Writes `m` as the manifest of `dir` with the state `state`.
pub fn write_state(dir: &Path, m: &mut Manifest, state: BuildState) -> Result<()> {
    m.state = Some(state);
    crate::jsonfile::write_json(&dir.join(MANIFEST), m)
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
    /// The WARC header read as the docid, or the default chain
    /// (`WARC-TREC-ID,ClueWeb22-ID,WARC-Record-ID`: the first present wins).
    #[serde(default = "default_docid_header")]
    pub docid_header: String,
    /// The JSON keys read for each role of a JSON line.
    #[serde(default)]
    pub json_fields: JsonFields,
    /// The columns of a TSV line.
    #[serde(default = "default_tsv_columns")]
    pub tsv_columns: Vec<TsvColumn>,
    /// `all` or `main`: which text of a page was kept.
    #[serde(default = "default_text")]
    pub text: String,
    /// The MinHash parameters of the near-duplicate band keys.
    #[serde(default)]
    pub minhash: Option<sieve_filters::minhash::MinHashParams>,
    /// Term positions are indexed (`--positions`); absent (false) in the
    /// manifest of an index without them, and of one written before they
    /// could be asked for.
    #[serde(default, skip_serializing_if = "is_false")]
    pub positions: bool,
    /// Document vectors are stored (`--docvectors`); absent (false) in the
    /// manifest of an index without them, and of one written before they
    /// could be asked for.
    #[serde(default, skip_serializing_if = "is_false")]
    pub docvectors: bool,
    /// `extract`'s output (`jsonl`, `jsonl full`); `None` for an index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The text mode of a manifest written before the mode was recorded
/// (`sieve_text::html::TextMode::All`).
fn default_text() -> String {
    "all".to_string()
}

/// The time-budget action of a manifest written before it was recorded
/// (the build's default, `skip`).
fn default_doc_timeout() -> String {
    "skip".to_string()
}

/// The default docid rule: every header of the chain, in order.
pub fn default_docid_header() -> String {
    DEFAULT_DOCID_HEADERS.join(",")
}

fn default_tsv_columns() -> Vec<TsvColumn> {
    vec![TsvColumn::Id, TsvColumn::Text]
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
    /// The absolute path with links resolved, when the build could resolve
    /// it (a relative `path` is relative to where the build ran; this is
    /// where `sieve-index show` looks first). Not compared on resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
}

impl InputInfo {
    /// Same file as far as a resume is concerned: path, size and
    /// modification time.
    fn same(&self, other: &InputInfo) -> bool {
        self.path == other.path && self.size == other.size && self.mtime == other.mtime
    }
}

/// What the last commit recorded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Statistics of every completed file.
    pub completed: Vec<FileStats>,
    /// Committed length of `losses.jsonl`.
    pub losses_len: u64,
    /// The quarantine directory of the build, if any.
    #[serde(default)]
    pub quarantine: Option<String>,
    /// Committed length of its `quarantine.jsonl`.
    #[serde(default)]
    pub quarantine_len: u64,
}

/// The size and modification time of `path`.
pub fn input_info(path: &Path) -> Result<InputInfo> {
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
        canonical: std::fs::canonicalize(path)
            .ok()
            .map(|p| p.to_string_lossy().into_owned()),
    })
}

/// Reads the manifest of an index directory.
pub fn read_manifest(index: &Path) -> Result<Manifest> {
    crate::jsonfile::read_json(&index.join(MANIFEST))
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

impl Checkpoint {
    /// Parses a commit payload (empty: nothing committed yet); `meta` names
    /// the file it came from in errors.
    pub fn from_payload(payload: &str, meta: &Path) -> Result<Self> {
        if payload.is_empty() {
            return Ok(Checkpoint::default());
        }
        serde_json::from_str(payload).map_err(|e| Error::Input {
            path: meta.to_path_buf(),
            detail: format!("bad commit payload: {e}"),
        })
    }
}

/// Refuses to resume the build of `old` (the manifest in `index`) with the
/// options or inputs of `new`.
pub fn check_resume(index: &Path, old: &Manifest, new: &Manifest) -> Result<()> {
    if old.order.is_some() {
        return Err(Error::Input {
            path: index.join(MANIFEST),
            detail: format!(
                "cannot resume: the index was reordered ({}); a build adds documents in input \
                 order only",
                DocOrder::describe(old.order.as_ref())
            ),
        });
    }
    if old.options.docid_header != new.options.docid_header {
        return Err(Error::Input {
            path: index.join(MANIFEST),
            detail: format!(
                "cannot resume with another docid header: the index was built with {}, this run has {}",
                old.options.docid_header, new.options.docid_header
            ),
        });
    }
    if old.schema_version != new.schema_version {
        return Err(Error::Input {
            path: index.join(MANIFEST),
            detail: format!(
                "cannot resume: the index has schema version {}, this sieve builds {}; rebuild it",
                old.schema_version, new.schema_version
            ),
        });
    }
    if old.options != new.options {
        return Err(Error::Input {
            path: index.join(MANIFEST),
            detail: format!(
                "cannot resume with different options: the index was built with {}, this run has {}",
                serde_json::to_string(&old.options).unwrap_or_default(),
                serde_json::to_string(&new.options).unwrap_or_default()
            ),
        });
    }
    if old.inputs.len() != new.inputs.len()
        || old.inputs.iter().zip(&new.inputs).any(|(a, b)| !a.same(b))
    {
        return Err(Error::Input {
            path: index.join(MANIFEST),
            detail: "cannot resume: the input files (list, size or modification time) differ from the interrupted build".into(),
        });
    }
    Ok(())
}
