//! Two-stage search over shards held by different processes or machines
//! (Spark tasks, a Slurm array): the same run as one index over all the
//! shards' documents.
//!
//! 1. **Statistics.** Each shard (or group of shards) reports the BM25
//!    statistics of the analysed query terms of a topic file
//!    ([`ShardStats::gather`]: `N`, the total token count of the searched
//!    field, `df` and total frequency `ttf` per term). The reports are summed ([`ShardStats::sum`]):
//!    integers, so the sum is exact and independent of the order.
//! 2. **Search.** Each shard is searched with the summed statistics
//!    ([`GlobalStatsFile`], the [`crate::batch::QueryPlan::global`] of
//!    [`crate::batch::run_batch`]) and writes its top `k` per topic;
//!    [`merge_runs`] keeps the best `k` per topic of all shard runs in
//!    [`trec_order`] (score descending, docid descending). Every hit of the global top `k` is in its shard's top
//!    `k`, and its score is the one the single index gives (same `N`,
//!    average length, `df` and fieldnorm), so the merged run is the single
//!    index's run.
//!
//! # The statistics file
//!
//! JSON, one object (`sieve-search global-stats` writes it, `sieve-search
//! sum-stats` sums several, `sieve-search run --global-stats` reads it);
//! here the sum over five sample shards, `doc_freq` shortened:
//!
//! ```json
//! {
//!   "header": {
//!     "format": "sieve-bm25-stats", "version": 3,
//!     "stemmer": "porter", "stopwords": "lucene",
//!     "search_field": "body", "topic_field": "title",
//!     "topics": 6, "terms": 12, "topics_digest": "fnv1a64:d974d0ccfd9da94d"
//!   },
//!   "shards": 5, "num_docs": 44, "total_tokens": 26790,
//!   "doc_freq": { "comput": 4, "from": 8, "home": 28, "research": 0, "web": 18 },
//!   "total_term_freq": { "comput": 9, "from": 12, "home": 61, "research": 0, "web": 40 },
//!   "sieve_seal": {"crc32": "1c9d3a07", "bytes": 512}
//! }
//! ```
//!
//! The last member seals the file ([`sieve_filters::sealed`]): `bytes` and
//! `crc32` are the length and CRC-32 of the file's bytes before the `,`
//! that precedes it. [`ShardStats::read`] checks them before parsing, so a
//! truncated or damaged file is an error naming the expected and found
//! length or checksum (edit or reformat a file and it no longer verifies).
//! Version 1 files (no seal) and version 2 files (no `total_term_freq`,
//! which query likelihood needs) are refused: regenerate them with this
//! version (the statistics are cheap to gather again).
//!
//! The header says what the numbers are valid for: the analyser, the
//! searched index field, which topic text is the query, and a digest of
//! every topic's id and analysed terms. Files are only summed, and a run
//! only uses a file, when the headers are equal; `doc_freq` must hold every
//! analysed query term (terms absent from every shard have `df` 0).
//!
//! # Merging runs
//!
//! Shard runs are TREC run files as `sieve-search run` writes them. Scores
//! are read as `f32`, which gives back exactly the scores that were written
//! (they are printed in shortest round-trip form), so the merged order and
//! scores are the single index's, bit for bit. Each shard run must have
//! been cut at `k` hits or more per topic.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer, Stemmer, Stopwords};
use sieve_format::schema::TextField;
use tantivy::Term;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;

use crate::bm25::{BagOfWords, Hit, Shard, trec_order};
use crate::queries::{TopicQueries, analyse_topics};
use crate::stats::{CollectionStats, GlobalStats};
use crate::topics::{Topic, TopicField};
use crate::{Error, Result};

/// The `format` of a statistics file's header.
pub const STATS_FORMAT: &str = "sieve-bm25-stats";
/// The `version` of a statistics file's header.
pub const STATS_VERSION: u32 = 3;

/// What a statistics file is valid for. Two files are summed, and a file is
/// used for a run, only when their headers are equal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsHeader {
    /// Always [`STATS_FORMAT`].
    pub format: String,
    /// Always [`STATS_VERSION`].
    pub version: u32,
    /// The shards' stemmer: `porter` or `none`.
    pub stemmer: String,
    /// The shards' stop words: `lucene` or `none`.
    pub stopwords: String,
    /// The searched index field: `body` or `title`.
    pub search_field: String,
    /// Which topic text is the query: `title`, `desc` or `title+desc`.
    pub topic_field: String,
    /// Number of topics.
    pub topics: usize,
    /// Number of distinct analysed query terms over all topics.
    pub terms: usize,
    /// FNV-1a (64-bit) of every topic's id and analysed terms, in file order.
    pub topics_digest: String,
    /// Statistics for feedback terms too (`global-stats --vocabulary`):
    /// [`vocabulary_digest`] of the feedback vectors' terms, whose
    /// statistics the file holds beside the topic terms (`terms` then
    /// counts both). Absent (and not written) in a file of topic terms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocabulary: Option<String>,
}

impl StatsHeader {
    /// The header for `queries` (from [`crate::queries::analyse_topics`]) analysed with
    /// `analyzer` and searched in `field`.
    pub fn new(
        analyzer: AnalyzerConfig,
        field: TextField,
        topic_field: TopicField,
        queries: &[(String, BagOfWords)],
    ) -> StatsHeader {
        let mut h = Fnv1a::default();
        for (id, bag) in queries {
            h.write(id.as_bytes());
            h.write(&[0x1d]);
            for (term, qtf) in &bag.terms {
                h.write(term.as_bytes());
                h.write(&[0x1f]);
                h.write(&qtf.to_le_bytes());
            }
            h.write(&[0x1e]);
        }
        StatsHeader {
            format: STATS_FORMAT.into(),
            version: STATS_VERSION,
            stemmer: match analyzer.stemmer {
                Stemmer::Porter => "porter",
                Stemmer::None => "none",
            }
            .into(),
            stopwords: match analyzer.stopwords {
                Stopwords::Lucene => "lucene",
                Stopwords::None => "none",
            }
            .into(),
            search_field: match field {
                TextField::Body => "body",
                TextField::Title => "title",
            }
            .into(),
            topic_field: match topic_field {
                TopicField::Title => "title",
                TopicField::Description => "desc",
                TopicField::TitleDescription => "title+desc",
            }
            .into(),
            topics: queries.len(),
            terms: distinct_terms(queries).len(),
            topics_digest: format!("fnv1a64:{:016x}", h.0),
            vocabulary: None,
        }
    }

    /// The first field in which `self` and `other` differ, with both values.
    fn difference(&self, other: &StatsHeader) -> Option<(&'static str, String, String)> {
        let pairs = [
            ("format", self.format.clone(), other.format.clone()),
            (
                "version",
                self.version.to_string(),
                other.version.to_string(),
            ),
            ("stemmer", self.stemmer.clone(), other.stemmer.clone()),
            ("stopwords", self.stopwords.clone(), other.stopwords.clone()),
            (
                "search_field",
                self.search_field.clone(),
                other.search_field.clone(),
            ),
            (
                "topic_field",
                self.topic_field.clone(),
                other.topic_field.clone(),
            ),
            ("topics", self.topics.to_string(), other.topics.to_string()),
            ("terms", self.terms.to_string(), other.terms.to_string()),
            (
                "topics_digest",
                self.topics_digest.clone(),
                other.topics_digest.clone(),
            ),
            (
                "vocabulary",
                self.vocabulary.clone().unwrap_or_else(|| "none".into()),
                other.vocabulary.clone().unwrap_or_else(|| "none".into()),
            ),
        ];
        pairs.into_iter().find(|(_, a, b)| a != b)
    }
}

/// [`StatsHeader::vocabulary`] of a set of terms: `fnv1a64:` and the FNV-1a
/// (64-bit) of the distinct terms in byte order, each followed by the byte
/// `0x1f`.
pub fn vocabulary_digest<'a>(terms: impl IntoIterator<Item = &'a str>) -> String {
    let mut terms: Vec<&str> = terms.into_iter().collect();
    terms.sort_unstable();
    terms.dedup();
    let mut h = Fnv1a::default();
    for t in terms {
        h.write(t.as_bytes());
        h.write(&[0x1f]);
    }
    format!("fnv1a64:{:016x}", h.0)
}

/// 64-bit FNV-1a: a stable digest with no dependency.
pub(crate) struct Fnv1a(pub(crate) u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

pub(crate) fn distinct_terms(queries: &[(String, BagOfWords)]) -> Vec<&str> {
    let mut terms: Vec<&str> = queries
        .iter()
        .flat_map(|(_, b)| b.terms.iter().map(|(t, _)| t.as_str()))
        .collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// BM25 statistics of one shard, of several, or (summed) of a collection:
/// the contents of a statistics file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardStats {
    /// What the numbers are valid for.
    pub header: StatsHeader,
    /// How many shards were counted.
    pub shards: u64,
    /// `N`: documents, deleted ones included, as tantivy counts them.
    pub num_docs: u64,
    /// Tokens of the searched field over all documents.
    pub total_tokens: u64,
    /// `df` of every analysed query term in the searched field.
    pub doc_freq: BTreeMap<String, u64>,
    /// Total frequency (occurrences) of every analysed query term in the
    /// searched field (version 3 on).
    pub total_term_freq: BTreeMap<String, u64>,
}

impl ShardStats {
    /// The statistics of `shards` (summed) for `queries`.
    pub fn gather(
        shards: &[Shard],
        header: StatsHeader,
        field: TextField,
        queries: &[(String, BagOfWords)],
    ) -> Result<ShardStats> {
        ShardStats::gather_terms(shards, header, field, &distinct_terms(queries))
    }

    /// The statistics of `shards` (summed) for the distinct `terms` (in
    /// byte order).
    pub fn gather_terms(
        shards: &[Shard],
        header: StatsHeader,
        field: TextField,
        terms: &[&str],
    ) -> Result<ShardStats> {
        let Some(first) = shards.first() else {
            return Err(Error::InvalidParameter {
                name: "index",
                expected: "at least one index directory",
                got: "none".into(),
            });
        };
        let handle = first.fields.text(field);
        let global = GlobalStats::new(shards);
        let mut doc_freq = BTreeMap::new();
        let mut total_term_freq = BTreeMap::new();
        for &term in terms {
            let t = Term::from_field_text(handle, term);
            doc_freq.insert(term.to_string(), global.doc_freq(&t)?);
            total_term_freq.insert(term.to_string(), global.total_term_freq(&t)?);
        }
        Ok(ShardStats {
            header,
            shards: shards.len() as u64,
            num_docs: global.total_num_docs()?,
            total_tokens: global.total_num_tokens(handle)?,
            doc_freq,
            total_term_freq,
        })
    }

    /// Sums statistics files (all headers must be equal). `parts` are
    /// `(file name, statistics)`; the names are only used in errors.
    pub fn sum(parts: &[(PathBuf, ShardStats)]) -> Result<ShardStats> {
        let Some((first_path, first)) = parts.first() else {
            return Err(Error::InvalidParameter {
                name: "statistics files",
                expected: "at least one",
                got: "none".into(),
            });
        };
        let mut total = first.clone();
        for (path, part) in &parts[1..] {
            if let Some((key, expected, found)) = first.header.difference(&part.header) {
                return Err(Error::StatsMismatch {
                    path: path.clone(),
                    key,
                    expected: format!("{expected} (as in {})", first_path.display()),
                    found,
                });
            }
            if part.doc_freq.len() != total.doc_freq.len()
                || part
                    .doc_freq
                    .keys()
                    .zip(total.doc_freq.keys())
                    .any(|(a, b)| a != b)
            {
                return Err(Error::StatsMismatch {
                    path: path.clone(),
                    key: "doc_freq",
                    expected: format!("the terms of {}", first_path.display()),
                    found: format!("{} other terms", part.doc_freq.len()),
                });
            }
            total.shards += part.shards;
            total.num_docs += part.num_docs;
            total.total_tokens += part.total_tokens;
            for (df, add) in total.doc_freq.values_mut().zip(part.doc_freq.values()) {
                *df += add;
            }
            // Same keys as doc_freq (checked when read).
            for (ttf, add) in total
                .total_term_freq
                .values_mut()
                .zip(part.total_term_freq.values())
            {
                *ttf += add;
            }
        }
        Ok(total)
    }

    /// Reads a statistics file.
    pub fn read(path: &Path) -> Result<ShardStats> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let stats_err = |detail: String| Error::StatsFile {
            path: path.to_path_buf(),
            detail,
        };
        let object =
            sieve_filters::sealed::open_json(&bytes).map_err(|e| stats_err(e.to_string()))?;
        let stats: ShardStats =
            serde_json::from_slice(&object).map_err(|e| stats_err(e.to_string()))?;
        if stats.header.format != STATS_FORMAT || stats.header.version != STATS_VERSION {
            return Err(Error::StatsFile {
                path: path.to_path_buf(),
                detail: format!(
                    "format {} version {}; expected {STATS_FORMAT} version {STATS_VERSION} \
                     (regenerate it with this sieve-search global-stats)",
                    stats.header.format, stats.header.version
                ),
            });
        }
        if !stats.doc_freq.keys().eq(stats.total_term_freq.keys()) {
            return Err(Error::StatsFile {
                path: path.to_path_buf(),
                detail: "total_term_freq does not have exactly the terms of doc_freq".into(),
            });
        }
        Ok(stats)
    }

    /// The file's text: pretty JSON, keys in a fixed order, sealed with a
    /// last member `sieve_seal` ([`sieve_filters::sealed::seal_json`]), a
    /// final newline.
    pub fn to_json(&self) -> String {
        let s = serde_json::to_string_pretty(self).expect("statistics serialise");
        sieve_filters::sealed::seal_json(&s).expect("a statistics object has members")
    }
}

/// Stage 1 in one call: the statistics of `shards` for `topics`, each
/// capped at `max_terms` unique terms ([`crate::queries`]).
pub fn gather_stats(
    shards: &[Shard],
    analyzer: AnalyzerConfig,
    topics: &[Topic],
    topic_field: TopicField,
    field: TextField,
    max_terms: usize,
) -> Result<ShardStats> {
    let queries = analyse_topics(
        &EnglishAnalyzer::new(analyzer),
        topics,
        topic_field,
        max_terms,
    );
    let header = StatsHeader::new(analyzer, field, topic_field, &queries);
    ShardStats::gather(shards, header, field, &queries)
}

/// Opens the statistics file `path` for searching field `field` of
/// `shards` with the topics of `queries` (see [`GlobalStatsFile::open`]).
pub fn open_global_stats(
    path: &Path,
    shards: &[Shard],
    field: TextField,
    queries: &TopicQueries<'_>,
) -> Result<GlobalStatsFile> {
    let analysed = queries.analyse();
    let header = StatsHeader::new(queries.analyzer.config(), field, queries.field, &analysed);
    GlobalStatsFile::open(path, shards, &header, field, &analysed)
}

/// Statistics from a file, for scoring some of the shards they were
/// gathered from: a [`Bm25StatisticsProvider`] for the searched field.
#[derive(Debug)]
pub struct GlobalStatsFile {
    path: PathBuf,
    stats: ShardStats,
    field: Field,
}

impl GlobalStatsFile {
    /// Reads `path` and checks that it fits this search: the header must be
    /// the one computed here (same analyser, fields, topics), every query
    /// term must have a `df`, and the file must count at least the documents
    /// of `shards`.
    pub fn open(
        path: &Path,
        shards: &[Shard],
        expected: &StatsHeader,
        field: TextField,
        queries: &[(String, BagOfWords)],
    ) -> Result<GlobalStatsFile> {
        let terms = distinct_terms(queries);
        GlobalStatsFile::open_checked(path, shards, expected, field, &terms, "query term")
    }

    /// [`GlobalStatsFile::open`] for the second search of the staged
    /// feedback protocol ([`crate::feedback::staged`]): a file made with
    /// `global-stats --vocabulary` for the topics of `topics` (their
    /// header, [`StatsHeader::new`]) and a feedback vocabulary whose
    /// [`vocabulary_digest`] is `vocabulary`, holding every term of
    /// `terms` (the weighted queries' terms).
    pub fn open_vocabulary(
        path: &Path,
        shards: &[Shard],
        (topics, vocabulary): (&StatsHeader, &str),
        field: TextField,
        terms: &[&str],
    ) -> Result<GlobalStatsFile> {
        let mut expected = topics.clone();
        expected.vocabulary = Some(vocabulary.to_string());
        GlobalStatsFile::open_checked(path, shards, &expected, field, terms, "weighted-query term")
    }

    /// Reads `path` and checks it against `expected` (with a vocabulary,
    /// every key but `terms`, which counts the vocabulary's terms too),
    /// `terms` (each must have a `df`; `what` names them in the error)
    /// and the documents of `shards`.
    fn open_checked(
        path: &Path,
        shards: &[Shard],
        expected: &StatsHeader,
        field: TextField,
        terms: &[&str],
        what: &str,
    ) -> Result<GlobalStatsFile> {
        let stats = ShardStats::read(path)?;
        let mismatch = |key, expected: String, found: String| Error::StatsMismatch {
            path: path.to_path_buf(),
            key,
            expected,
            found,
        };
        let mut expected = expected.clone();
        if expected.vocabulary.is_some() {
            expected.terms = stats.header.terms;
        }
        if let Some((key, want, got)) = expected.difference(&stats.header) {
            let hint = if key == "vocabulary" {
                " (statistics for feedback terms are made with `global-stats --vocabulary` and read with `run --weighted-queries`)"
            } else {
                ""
            };
            return Err(mismatch(key, format!("{want} (this search){hint}"), got));
        }
        if let Some(term) = terms.iter().find(|t| !stats.doc_freq.contains_key(**t)) {
            return Err(mismatch(
                "doc_freq",
                format!("an entry for {what} {term:?}"),
                "none".into(),
            ));
        }
        let local = GlobalStats::new(shards).total_num_docs()?;
        if stats.num_docs < local {
            return Err(mismatch(
                "num_docs",
                format!("at least {local} (the documents of the searched indexes)"),
                stats.num_docs.to_string(),
            ));
        }
        let Some(first) = shards.first() else {
            return Err(Error::InvalidParameter {
                name: "index",
                expected: "at least one index directory",
                got: "none".into(),
            });
        };
        Ok(GlobalStatsFile {
            path: path.to_path_buf(),
            stats,
            field: first.fields.text(field),
        })
    }

    /// The statistics read.
    pub fn stats(&self) -> &ShardStats {
        &self.stats
    }
}

impl Bm25StatisticsProvider for GlobalStatsFile {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if field == self.field {
            Ok(self.stats.total_tokens)
        } else {
            Err(tantivy::TantivyError::InvalidArgument(format!(
                "{}: token counts are for field {}, not {field:?}",
                self.path.display(),
                self.stats.header.search_field
            )))
        }
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.stats.num_docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        // `open` checked that every query term is present.
        term.value()
            .as_str()
            .filter(|_| term.field() == self.field)
            .and_then(|t| self.stats.doc_freq.get(t).copied())
            .ok_or_else(|| {
                tantivy::TantivyError::InvalidArgument(format!(
                    "{}: no doc_freq for term {term:?}",
                    self.path.display()
                ))
            })
    }
}

impl CollectionStats for GlobalStatsFile {
    fn total_term_freq(&self, term: &Term) -> tantivy::Result<u64> {
        // `open` checked that every query term is present.
        term.value()
            .as_str()
            .filter(|_| term.field() == self.field)
            .and_then(|t| self.stats.total_term_freq.get(t).copied())
            .ok_or_else(|| {
                tantivy::TantivyError::InvalidArgument(format!(
                    "{}: no total_term_freq for term {term:?}",
                    self.path.display()
                ))
            })
    }
}

/// The merged run: `(topic id, hits)` with hits in [`trec_order`].
pub type MergedRun = Vec<(String, Vec<Hit>)>;

/// Merges shard runs (TREC run files) into the best `k` hits per topic in
/// [`trec_order`]. Topics come in the order of `topic_order` when given
/// (a topic with hits that is not in it is an error), otherwise in the
/// order they first appear. A document retrieved for one topic by two runs
/// is an error if both copies make the cut (the shards overlap).
pub fn merge_runs(runs: &[PathBuf], k: usize, topic_order: Option<&[String]>) -> Result<MergedRun> {
    let mut merge = Merging::default();
    for (run_idx, path) in runs.iter().enumerate() {
        merge.read(path, run_idx)?;
        merge.bound(k);
    }
    let Merging {
        mut by_topic,
        first_seen,
    } = merge;
    let order: Vec<String> = match topic_order {
        Some(ids) => {
            if let Some(q) = first_seen.iter().find(|q| !ids.contains(q)) {
                return Err(Error::MergeUnknownTopic { qid: q.clone() });
            }
            ids.iter()
                .filter(|q| by_topic.contains_key(*q))
                .cloned()
                .collect()
        }
        None => first_seen,
    };
    order
        .into_iter()
        .map(|qid| {
            let hits = by_topic.remove(&qid).unwrap_or_default();
            cut_topic(qid, hits, k, runs)
        })
        .collect()
}

/// The hits of shard runs read so far, per topic, each with the index of
/// the run it came from.
#[derive(Default)]
struct Merging {
    by_topic: HashMap<String, Vec<(Hit, usize)>>,
    /// The topics in the order they first appeared.
    first_seen: Vec<String>,
}

impl Merging {
    /// Reads the shard run `path` (run number `run_idx`) and adds its hits.
    fn read(&mut self, path: &Path, run_idx: usize) -> Result<()> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let in_file = |e| Error::InFile {
            path: path.to_path_buf(),
            inner: Box::new(e),
        };
        let text = crate::text::utf8(&bytes).map_err(in_file)?;
        for (i, line) in text.lines().enumerate() {
            let Some((qid, docid, score)) = run_line(line, i + 1).map_err(in_file)? else {
                continue;
            };
            let hits = match self.by_topic.get_mut(qid) {
                Some(h) => h,
                None => {
                    self.first_seen.push(qid.to_string());
                    self.by_topic.entry(qid.to_string()).or_default()
                }
            };
            hits.push((
                Hit {
                    docid: docid.to_string(),
                    score,
                },
                run_idx,
            ));
        }
        Ok(())
    }

    /// Bounds memory between files: keeps at most `2k` hits per topic.
    fn bound(&mut self, k: usize) {
        for hits in self.by_topic.values_mut() {
            if hits.len() > 2 * k.max(1) {
                hits.sort_by(|a, b| trec_order(&a.0, &b.0));
                hits.truncate(k);
            }
        }
    }
}

/// The topic id, docid and score of a run line (number `line`), or `None`
/// for a blank line.
pub(crate) fn run_line(line: &str, number: usize) -> Result<Option<(&str, &str, f32)>> {
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    match fields.len() {
        0 => return Ok(None),
        6 => {}
        n => {
            return Err(Error::RunSyntax {
                line: number,
                expected: "6 fields: qid Q0 docno rank score tag".into(),
                found: format!("{n} fields: {}", crate::text::snippet(line)),
            });
        }
    }
    let score: f32 = fields[4]
        .parse()
        .ok()
        .filter(|s: &f32| !s.is_nan())
        .ok_or_else(|| Error::RunSyntax {
            line: number,
            expected: "a number (not NaN) as the score in field 5".into(),
            found: crate::text::snippet(fields[4]),
        })?;
    Ok(Some((fields[0], fields[2], score)))
}

/// One topic's best `k` of `hits` in [`trec_order`]; a docid that two runs
/// (of `runs`) both bring into the cut is an error.
fn cut_topic(
    qid: String,
    mut hits: Vec<(Hit, usize)>,
    k: usize,
    runs: &[PathBuf],
) -> Result<(String, Vec<Hit>)> {
    hits.sort_by(|a, b| trec_order(&a.0, &b.0));
    hits.truncate(k);
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(hits.len());
    for (hit, run_idx) in &hits {
        if let Some(first) = seen.insert(hit.docid.as_str(), *run_idx) {
            return Err(Error::MergeDuplicate {
                qid,
                docid: hit.docid.clone(),
                first: runs[first].clone(),
                second: runs[*run_idx].clone(),
            });
        }
    }
    Ok((qid, hits.into_iter().map(|(h, _)| h).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(digest: &str) -> StatsHeader {
        StatsHeader {
            format: STATS_FORMAT.into(),
            version: STATS_VERSION,
            stemmer: "porter".into(),
            stopwords: "lucene".into(),
            search_field: "body".into(),
            topic_field: "title".into(),
            topics: 1,
            terms: 2,
            topics_digest: digest.into(),
            vocabulary: None,
        }
    }

    fn stats(digest: &str, n: u64, dfs: &[(&str, u64)]) -> ShardStats {
        ShardStats {
            header: header(digest),
            shards: 1,
            num_docs: n,
            total_tokens: 10 * n,
            doc_freq: dfs.iter().map(|(t, d)| (t.to_string(), *d)).collect(),
            total_term_freq: dfs.iter().map(|(t, d)| (t.to_string(), 2 * d)).collect(),
        }
    }

    #[test]
    fn sum_adds_and_refuses_other_headers() {
        let a = stats("x", 3, &[("web", 1), ("page", 0)]);
        let b = stats("x", 5, &[("web", 2), ("page", 4)]);
        let s = ShardStats::sum(&[("a".into(), a.clone()), ("b".into(), b)]).unwrap();
        assert_eq!((s.shards, s.num_docs, s.total_tokens), (2, 8, 80));
        assert_eq!(s.doc_freq["web"], 3);
        assert_eq!(s.doc_freq["page"], 4);
        assert_eq!(s.total_term_freq["web"], 6);
        let c = stats("y", 5, &[("web", 2), ("page", 4)]);
        let e = ShardStats::sum(&[("a".into(), a.clone()), ("c".into(), c)]).unwrap_err();
        assert!(
            matches!(&e, Error::StatsMismatch { key: "topics_digest", path, .. } if path == Path::new("c")),
            "{e}"
        );
        let d = stats("x", 5, &[("web", 2), ("site", 4)]);
        let e = ShardStats::sum(&[("a".into(), a), ("d".into(), d)]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::StatsMismatch {
                    key: "doc_freq",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn header_digest_depends_on_analysed_topics() {
        let q = |s: &str| {
            vec![(
                "1".to_string(),
                BagOfWords::from_terms(s.split(' ').map(String::from)),
            )]
        };
        let c = AnalyzerConfig::default();
        let a = StatsHeader::new(c, TextField::Body, TopicField::Title, &q("web page"));
        assert_eq!(
            a,
            StatsHeader::new(c, TextField::Body, TopicField::Title, &q("web page"))
        );
        assert_ne!(
            a,
            StatsHeader::new(c, TextField::Body, TopicField::Title, &q("web web"))
        );
        let t = StatsHeader::new(c, TextField::Title, TopicField::Title, &q("web page"));
        assert_eq!(a.difference(&t).map(|d| d.0), Some("search_field"));
        assert_eq!(a.terms, 2);
    }

    #[test]
    fn merge_keeps_best_k_in_trec_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.run");
        let b = dir.path().join("b.run");
        std::fs::write(&a, "2 Q0 d1 1 3.5 s\n2 Q0 d2 2 1 s\n1 Q0 d3 1 2 s\n").unwrap();
        std::fs::write(&b, "1 Q0 d4 1 2 s\n2 Q0 d5 1 3.5 s\n2 Q0 d6 2 0.5 s\n").unwrap();
        let m = merge_runs(&[a.clone(), b.clone()], 2, None).unwrap();
        let ids: Vec<(&str, Vec<&str>)> = m
            .iter()
            .map(|(q, h)| (q.as_str(), h.iter().map(|h| h.docid.as_str()).collect()))
            .collect();
        // Ties on score: docid descending.
        assert_eq!(ids, [("2", vec!["d5", "d1"]), ("1", vec!["d4", "d3"])]);
        let order = ["1".to_string(), "2".to_string()];
        let m = merge_runs(&[a.clone(), b.clone()], 1, Some(&order)).unwrap();
        assert_eq!(m[0].0, "1");
        assert_eq!(m[1].1[0].score, 3.5);
        let e = merge_runs(&[a.clone(), b.clone()], 1, Some(&order[..1])).unwrap_err();
        assert!(
            matches!(e, Error::MergeUnknownTopic { ref qid } if qid == "2"),
            "{e}"
        );
        // The same document from two runs, both in the cut.
        let c = dir.path().join("c.run");
        std::fs::write(&c, "1 Q0 d3 1 2 s\n").unwrap();
        let e = merge_runs(&[a.clone(), c.clone()], 5, None).unwrap_err();
        assert!(
            matches!(e, Error::MergeDuplicate { ref docid, .. } if docid == "d3"),
            "{e}"
        );
        std::fs::write(&c, "1 Q0 d3 1 2\n").unwrap();
        let e = merge_runs(&[c], 5, None).unwrap_err();
        assert!(matches!(e, Error::InFile { .. }), "{e}");
    }
}
