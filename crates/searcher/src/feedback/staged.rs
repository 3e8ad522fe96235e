//! Pseudo-relevance feedback over shards searched apart (Spark tasks, a
//! Slurm array): the feedback runs one index over all the shards'
//! documents gives, byte for byte, in steps that each read and write plain
//! files (scale/README.md, "Feedback over shards searched apart").
//!
//! 1. **First stage**, as the two-stage search of [`crate::twostage`]:
//!    statistics of the topic terms per shard, summed (`G`); each shard
//!    searched with `G`, `D` hits deep (`D` the rerank cutoff); the shard
//!    runs merged into the best `D` per topic ([`crate::twostage::merge_runs`]),
//!    the first-stage run `R1`. Its scores are written in shortest
//!    round-trip form, so [`read_first_stage`] gives back the single
//!    index's first-stage hits bit for bit; they are ranked again in
//!    [`anserini_order`] here, as [`super::rewrite::index_input`] ranks
//!    them (the order of the file's lines does not matter).
//! 2. **Feedback vectors**, per shard ([`VectorsFile::gather`]): the term
//!    vectors of `R1`'s feedback documents (the top and bottom ranks the
//!    feedback settings read, [`feedback_ranks`]) that live on the shard,
//!    read as [`super::index::term_vectors`] reads them. The parts are
//!    merged ([`VectorsFile::merge`]), refusing other headers and a
//!    document two parts hold.
//! 3. **Statistics of the candidate terms**: every term of every vector,
//!    beside the topic terms, per shard, summed (`G2`,
//!    [`crate::twostage::StatsHeader::vocabulary`]).
//! 4. **Feedback queries**, without an index ([`expand_queries`]): each
//!    topic's [`super::Feedback::expand`] from `R1`'s scores, the vectors
//!    and `G2`'s `N` and `df` ([`FileInput`]), written as a
//!    [`WeightedQueriesFile`].
//! 5. **Second stage**: each shard searched with `G2` for the weighted
//!    queries ([`crate::runspec::RunSpec::search_weighted_queries_as`]),
//!    the shard runs merged.
//!
//! A feedback document of `R1` that no part holds is an error naming the
//! topic, the rank and the docid ([`expand_queries`]): a part left out of
//! the merge, or a run from other shards, would otherwise change the
//! feedback queries without a word.
//!
//! # The files
//!
//! Both are JSON lines: a first line `{"header": {...}}`, then one line
//! per record, each ended by a newline; the header says what the records
//! are valid for and how many there are, and a reader refuses another
//! `format` or `version`, a header that does not fit the search, a
//! missing, extra or malformed line (naming the file and line).
//!
//! **Feedback vectors** (`sieve-feedback-vectors`, version 1): header
//! [`VectorsHeader`]; then one line per document, docids in byte order,
//! `{"docid": "...", "terms": [["term", tf], ...]}` (terms in byte order).
//!
//! **Weighted queries** (`sieve-weighted-queries`, version 1): header
//! [`QueriesHeader`]; then one line per topic of the topic file, in its
//! order, `{"topic": "...", "terms": [["term", "weight"], ...]}` (terms in
//! byte order; each weight an `f32` in shortest round-trip form, as a
//! string: read back with Rust's `f32` parser it is the weight `expand`
//! computed, bit for bit, which a JSON number read through `f64` is not
//! guaranteed to be).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sieve_analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_format::schema::TextField;

use super::index::{TermVector, find, term_vectors};
use super::{Expansion, Feedback, FeedbackInput, Rescoring, anserini_order};
use crate::bm25::{BagOfWords, Bm25Params, Hit, Shard};
use crate::twostage::{Fnv1a, ShardStats, StatsHeader, run_line, vocabulary_digest};
use crate::weighted::{Model, WeightedQuery, WeightedTerm};
use crate::{Error, Result};

/// The `format` of a feedback vectors file.
pub const VECTORS_FORMAT: &str = "sieve-feedback-vectors";
/// The `version` of a feedback vectors file.
pub const VECTORS_VERSION: u32 = 1;
/// The `format` of a weighted-queries file.
pub const QUERIES_FORMAT: &str = "sieve-weighted-queries";
/// The `version` of a weighted-queries file.
pub const QUERIES_VERSION: u32 = 1;

/// What a search is, as a statistics header says it
/// ([`StatsHeader`] without `format`, `version` and `vocabulary`): the
/// analyser, the fields, the topics. Every file of the protocol carries
/// it, and is read only for the search it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchKey {
    /// `porter` or `none`.
    pub stemmer: String,
    /// `lucene` or `none`.
    pub stopwords: String,
    /// The searched index field: `body` or `title`.
    pub search_field: String,
    /// Which topic text is the query: `title`, `desc` or `title+desc`.
    pub topic_field: String,
    /// Number of topics.
    pub topics: usize,
    /// Distinct analysed topic terms.
    pub terms: usize,
    /// [`StatsHeader::topics_digest`].
    pub topics_digest: String,
}

impl SearchKey {
    /// The key of a statistics header made for the topics (a header with
    /// a vocabulary counts more `terms`: compare it with
    /// [`SearchKey::difference_except_terms`]).
    pub fn of(h: &StatsHeader) -> SearchKey {
        SearchKey {
            stemmer: h.stemmer.clone(),
            stopwords: h.stopwords.clone(),
            search_field: h.search_field.clone(),
            topic_field: h.topic_field.clone(),
            topics: h.topics,
            terms: h.terms,
            topics_digest: h.topics_digest.clone(),
        }
    }

    /// The first key in which `self` and `other` differ, with both values.
    pub fn difference(&self, other: &SearchKey) -> Option<(&'static str, String, String)> {
        self.pairs(other).into_iter().find(|(_, a, b)| a != b)
    }

    /// [`SearchKey::difference`], `terms` aside.
    pub fn difference_except_terms(
        &self,
        other: &SearchKey,
    ) -> Option<(&'static str, String, String)> {
        self.pairs(other)
            .into_iter()
            .find(|(k, a, b)| *k != "terms" && a != b)
    }

    fn pairs(&self, other: &SearchKey) -> [(&'static str, String, String); 7] {
        [
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
            // The digest first: it says the topics differ, where the
            // term count only follows from it.
            (
                "topics_digest",
                self.topics_digest.clone(),
                other.topics_digest.clone(),
            ),
            ("terms", self.terms.to_string(), other.terms.to_string()),
        ]
    }

    /// The analyser the key names (a step without an index takes it from
    /// a file).
    pub fn analyzer(&self) -> std::result::Result<AnalyzerConfig, String> {
        let stemmer = match self.stemmer.as_str() {
            "porter" => Stemmer::Porter,
            "none" => Stemmer::None,
            other => return Err(format!("stemmer {other:?}: expected porter or none")),
        };
        let stopwords = match self.stopwords.as_str() {
            "lucene" => Stopwords::Lucene,
            "none" => Stopwords::None,
            other => return Err(format!("stopwords {other:?}: expected lucene or none")),
        };
        Ok(AnalyzerConfig { stemmer, stopwords })
    }
}

/// Refuses `found` (the key of file `path`) unless it is `expected` (the
/// key this search computes).
fn check_key(path: &Path, expected: &SearchKey, found: &SearchKey) -> Result<()> {
    match expected.difference(found) {
        None => Ok(()),
        Some((key, want, got)) => Err(Error::FeedbackMismatch {
            path: path.to_path_buf(),
            key,
            expected: format!("{want} (this search)"),
            found: got,
        }),
    }
}

/// The ranks feedback reads of `n` first-stage hits in [`anserini_order`]:
/// the top `top` and the bottom `bottom` ([`Feedback::documents_read`]).
pub fn feedback_ranks(n: usize, (top, bottom): (usize, usize)) -> Vec<usize> {
    (0..n).filter(|&r| r < top || r + bottom >= n).collect()
}

/// The documents every one of `settings` reads: the most top and bottom
/// documents any of them reads.
pub fn documents_read(settings: &[Feedback]) -> (usize, usize) {
    settings
        .iter()
        .map(Feedback::documents_read)
        .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
}

/// A first-stage run read for feedback: per topic of the topic file, in
/// its order, the hits in [`anserini_order`] (none for a topic the run
/// lacks), and a digest that names the run.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstStage {
    /// `(topic id, hits)`.
    pub topics: Vec<(String, Vec<Hit>)>,
    /// `fnv1a64:` and the FNV-1a of every topic's id and hits (docid and
    /// score bits) in this order: equal for equal runs, whatever their
    /// tag and line order.
    pub digest: String,
}

/// Reads the first-stage run `path` (a TREC run, as `merge-runs` writes
/// it) for the topics `topic_ids` (the topic file's, in order), at most
/// `rerank_cutoff` hits per topic. Refused, naming the line: a malformed
/// line, a topic the topic file lacks, a document twice in a topic, more
/// than `rerank_cutoff` hits for a topic.
pub fn read_first_stage(
    path: &Path,
    topic_ids: &[String],
    rerank_cutoff: usize,
) -> Result<FirstStage> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_first_stage(path, &bytes, topic_ids, rerank_cutoff)
}

/// [`read_first_stage`] of the bytes of a file (`path` names it in errors).
pub fn parse_first_stage(
    path: &Path,
    bytes: &[u8],
    topic_ids: &[String],
    rerank_cutoff: usize,
) -> Result<FirstStage> {
    let in_file = |e| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    };
    let bad = |line: usize, detail: String| Error::FeedbackFile {
        path: path.to_path_buf(),
        line,
        detail,
    };
    let text = crate::text::utf8(bytes).map_err(in_file)?;
    let index: HashMap<&str, usize> = topic_ids
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let mut hits: Vec<Vec<Hit>> = vec![Vec::new(); topic_ids.len()];
    let mut seen: Vec<HashMap<String, usize>> = vec![HashMap::new(); topic_ids.len()];
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let Some((qid, docid, score)) = run_line(line, number).map_err(in_file)? else {
            continue;
        };
        let Some(&t) = index.get(qid) else {
            return Err(bad(
                number,
                format!(
                    "topic {qid:?} is not in the topic file: the first-stage run must be made \
                     from the same topics"
                ),
            ));
        };
        if let Some(first) = seen[t].insert(docid.to_string(), number) {
            return Err(bad(
                number,
                format!("topic {qid:?} retrieves document {docid:?} again (first on line {first})"),
            ));
        }
        if hits[t].len() == rerank_cutoff {
            return Err(bad(
                number,
                format!(
                    "topic {qid:?} has more than {rerank_cutoff} hits (the rerank cutoff): \
                     cut the first stage with `merge-runs --hits {rerank_cutoff}`"
                ),
            ));
        }
        hits[t].push(Hit {
            docid: docid.to_string(),
            score,
        });
    }
    let mut h = Fnv1a::default();
    let mut topics = Vec::with_capacity(topic_ids.len());
    for (id, mut hits) in topic_ids.iter().zip(hits) {
        anserini_order(&mut hits);
        h.write(id.as_bytes());
        h.write(&[0x1d]);
        for hit in &hits {
            h.write(hit.docid.as_bytes());
            h.write(&[0x1f]);
            h.write(&hit.score.to_bits().to_le_bytes());
        }
        h.write(&[0x1e]);
        topics.push((id.clone(), hits));
    }
    Ok(FirstStage {
        topics,
        digest: format!("fnv1a64:{:016x}", h.0),
    })
}

/// The header of a feedback vectors file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorsHeader {
    /// Always [`VECTORS_FORMAT`].
    pub format: String,
    /// Always [`VECTORS_VERSION`].
    pub version: u32,
    /// The search (analyser, fields, topics).
    #[serde(flatten)]
    pub search: SearchKey,
    /// [`FirstStage::digest`] of the first-stage run the documents are
    /// the feedback documents of.
    pub first_stage: String,
    /// The rerank cutoff the run was read with.
    pub rerank_cutoff: usize,
    /// Top documents read per topic ([`feedback_ranks`]).
    pub read_top: usize,
    /// Bottom documents read per topic.
    pub read_bottom: usize,
    /// Shards whose documents were looked up (a merged file: all of them).
    pub shards: u64,
    /// Document lines after the header.
    pub documents: usize,
}

impl VectorsHeader {
    /// The first key, `shards` and `documents` aside, in which `self` and
    /// `other` differ.
    fn difference(&self, other: &VectorsHeader) -> Option<(&'static str, String, String)> {
        if let Some(d) = self.search.difference(&other.search) {
            return Some(d);
        }
        let pairs = [
            ("format", self.format.clone(), other.format.clone()),
            (
                "version",
                self.version.to_string(),
                other.version.to_string(),
            ),
            (
                "first_stage",
                self.first_stage.clone(),
                other.first_stage.clone(),
            ),
            (
                "rerank_cutoff",
                self.rerank_cutoff.to_string(),
                other.rerank_cutoff.to_string(),
            ),
            (
                "read_top",
                self.read_top.to_string(),
                other.read_top.to_string(),
            ),
            (
                "read_bottom",
                self.read_bottom.to_string(),
                other.read_bottom.to_string(),
            ),
        ];
        pairs.into_iter().find(|(_, a, b)| a != b)
    }
}

/// The term vectors of feedback documents: the contents of a feedback
/// vectors file (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorsFile {
    /// What the vectors are valid for.
    pub header: VectorsHeader,
    /// docid → its analysed terms with frequencies, in byte order.
    pub docs: BTreeMap<String, TermVector>,
}

/// A document line of a feedback vectors file.
#[derive(Serialize, Deserialize)]
struct DocLine {
    docid: String,
    terms: Vec<(String, u32)>,
}

/// The header line of either file, format and version only: read first,
/// so that a file of another version is refused by its version, not by a
/// key it lacks.
#[derive(Deserialize)]
struct Versioned {
    header: FormatVersion,
}

#[derive(Deserialize)]
struct FormatVersion {
    format: String,
    version: u32,
}

#[derive(Serialize, Deserialize)]
struct HeaderLine<H> {
    header: H,
}

/// The lines of a JSON-lines file of the protocol, checked: UTF-8, ended
/// by a newline, no blank line; the first is the header of `format`
/// `version` (parsed as `H`), and `count(header)` lines follow it.
fn read_lines<'a, H: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &'a [u8],
    (format, version, regenerate): (&str, u32, &str),
    count: impl Fn(&H) -> usize,
) -> Result<(H, Vec<(usize, &'a str)>)> {
    let bad = |line: usize, detail: String| Error::FeedbackFile {
        path: path.to_path_buf(),
        line,
        detail,
    };
    let text = crate::text::utf8(bytes).map_err(|e| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    })?;
    let Some(body) = text.strip_suffix('\n') else {
        let n = text.lines().count().max(1);
        return Err(bad(
            n,
            if text.is_empty() {
                "empty file: expected a header line".into()
            } else {
                "the file does not end with a newline (cut short?)".into()
            },
        ));
    };
    let mut lines = body.split('\n').enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().unwrap_or((1, ""));
    let v: Versioned = serde_json::from_str(first).map_err(|e| {
        bad(
            1,
            format!("expected a header line {{\"header\": ...}}: {e}"),
        )
    })?;
    if v.header.format != format || v.header.version != version {
        return Err(bad(
            1,
            format!(
                "format {} version {}; expected {format} version {version} ({regenerate})",
                v.header.format, v.header.version
            ),
        ));
    }
    let h: HeaderLine<H> =
        serde_json::from_str(first).map_err(|e| bad(1, format!("header: {e}")))?;
    let rest: Vec<(usize, &str)> = lines.collect();
    let want = count(&h.header);
    if rest.len() != want {
        // The first line too many, or the last line there is.
        return Err(bad(
            want.min(rest.len()) + 1 + usize::from(rest.len() > want),
            format!(
                "the header counts {want} lines after it, the file has {}",
                rest.len()
            ),
        ));
    }
    Ok((h.header, rest))
}

impl VectorsFile {
    /// The feedback vectors of the first stage `first` (read with
    /// `rerank_cutoff`) held by `shards`: for every topic, the documents
    /// of the ranks `read` ([`feedback_ranks`]) that some shard holds
    /// (its first live copy, in shard then segment order, as
    /// [`super::index::locate`] finds it), field `field`. `search` is the
    /// search's key; the others' documents are left to their shards.
    pub fn gather(
        shards: &[Shard],
        field: TextField,
        search: SearchKey,
        (first, rerank_cutoff): (&FirstStage, usize),
        read: (usize, usize),
    ) -> Result<VectorsFile> {
        let mut wanted: Vec<&str> = first
            .topics
            .iter()
            .flat_map(|(_, hits)| {
                feedback_ranks(hits.len(), read)
                    .into_iter()
                    .map(|r| hits[r].docid.as_str())
            })
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut found = Vec::new();
        let mut places = Vec::new();
        for docid in wanted {
            if let Some(at) = find(shards, docid)? {
                found.push(docid.to_string());
                places.push(at);
            }
        }
        let vectors = term_vectors(shards, field, &places)?;
        let docs: BTreeMap<String, TermVector> = found.into_iter().zip(vectors).collect();
        Ok(VectorsFile {
            header: VectorsHeader {
                format: VECTORS_FORMAT.into(),
                version: VECTORS_VERSION,
                search,
                first_stage: first.digest.clone(),
                rerank_cutoff,
                read_top: read.0,
                read_bottom: read.1,
                shards: shards.len() as u64,
                documents: docs.len(),
            },
            docs,
        })
    }

    /// Merges the parts of several shards (`(file name, part)`; the names
    /// are only used in errors): their headers must be equal (`shards`
    /// and `documents` aside), and no document may be in two parts.
    pub fn merge(parts: &[(PathBuf, VectorsFile)]) -> Result<VectorsFile> {
        let Some((first_path, first)) = parts.first() else {
            return Err(Error::InvalidParameter {
                name: "feedback vectors files",
                expected: "at least one",
                got: "none".into(),
            });
        };
        let mut header = first.header.clone();
        header.shards = 0;
        let mut docs: BTreeMap<String, TermVector> = BTreeMap::new();
        let mut owner: HashMap<String, usize> = HashMap::new();
        for (i, (path, part)) in parts.iter().enumerate() {
            if let Some((key, want, got)) = first.header.difference(&part.header) {
                return Err(Error::FeedbackMismatch {
                    path: path.clone(),
                    key,
                    expected: format!("{want} (as in {})", first_path.display()),
                    found: got,
                });
            }
            header.shards += part.header.shards;
            for (docid, v) in &part.docs {
                if let Some(j) = owner.insert(docid.clone(), i) {
                    return Err(Error::FeedbackMismatch {
                        path: path.clone(),
                        key: "docid",
                        expected: format!(
                            "documents no other part holds (shards must not share documents); \
                             {} holds it too",
                            parts[j].0.display()
                        ),
                        found: docid.clone(),
                    });
                }
                docs.insert(docid.clone(), v.clone());
            }
        }
        header.documents = docs.len();
        Ok(VectorsFile { header, docs })
    }

    /// Reads a feedback vectors file (module docs).
    pub fn read(path: &Path) -> Result<VectorsFile> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        VectorsFile::parse(path, &bytes)
    }

    /// [`VectorsFile::read`] of the bytes of a file (`path` names it in
    /// errors).
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<VectorsFile> {
        let (header, lines) = read_lines::<VectorsHeader>(
            path,
            bytes,
            (
                VECTORS_FORMAT,
                VECTORS_VERSION,
                "regenerate it with this sieve-search feedback-vectors",
            ),
            |h| h.documents,
        )?;
        let bad = |line: usize, detail: String| Error::FeedbackFile {
            path: path.to_path_buf(),
            line,
            detail,
        };
        let mut docs = BTreeMap::new();
        let mut last: Option<String> = None;
        for (n, line) in lines {
            let d: DocLine = serde_json::from_str(line).map_err(|e| {
                bad(
                    n,
                    format!("expected {{\"docid\": ..., \"terms\": [[term, tf], ...]}}: {e}"),
                )
            })?;
            if last
                .as_deref()
                .is_some_and(|l| l.as_bytes() >= d.docid.as_bytes())
            {
                return Err(bad(
                    n,
                    format!(
                        "docid {:?} after {:?}: docids must be distinct and in byte order",
                        d.docid,
                        last.unwrap_or_default()
                    ),
                ));
            }
            if d.terms.windows(2).any(|w| w[0].0 >= w[1].0) {
                return Err(bad(
                    n,
                    format!(
                        "the terms of {:?} are not distinct and in byte order",
                        d.docid
                    ),
                ));
            }
            last = Some(d.docid.clone());
            docs.insert(d.docid, d.terms);
        }
        Ok(VectorsFile { header, docs })
    }

    /// The file's text (module docs).
    pub fn to_jsonl(&self) -> String {
        let mut out = serde_json::to_string(&HeaderLine {
            header: &self.header,
        })
        .expect("a header serialises");
        out.push('\n');
        for (docid, terms) in &self.docs {
            let line = serde_json::to_string(&DocLine {
                docid: docid.clone(),
                terms: terms.clone(),
            })
            .expect("a document line serialises");
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Every distinct term of every vector, in byte order: the vocabulary
    /// whose statistics `global-stats --vocabulary` gathers.
    pub fn vocabulary(&self) -> Vec<&str> {
        let mut terms: Vec<&str> = self
            .docs
            .values()
            .flat_map(|v| v.iter().map(|(t, _)| t.as_str()))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }

    /// [`vocabulary_digest`] of [`VectorsFile::vocabulary`].
    pub fn vocabulary_digest(&self) -> String {
        vocabulary_digest(self.vocabulary())
    }

    /// Refuses a file (read from `path`) made for another search than
    /// `search`.
    pub fn check_search(&self, path: &Path, search: &SearchKey) -> Result<()> {
        check_key(path, search, &self.header.search)
    }
}

/// The statistics of `shards` for the statistics header `topics` (made
/// for the topics, [`StatsHeader::new`]) and their analysed `queries`,
/// and for every term of `vectors` (read from `vectors_path`, which must
/// be made for the same search): [`ShardStats`] whose header names the
/// vectors' vocabulary ([`StatsHeader::vocabulary`]) and counts every term.
pub fn gather_vocabulary_stats(
    shards: &[Shard],
    mut topics: StatsHeader,
    field: TextField,
    queries: &[(String, BagOfWords)],
    (vectors_path, vectors): (&Path, &VectorsFile),
) -> Result<ShardStats> {
    vectors.check_search(vectors_path, &SearchKey::of(&topics))?;
    let mut terms = crate::twostage::distinct_terms(queries);
    terms.extend(vectors.vocabulary());
    terms.sort_unstable();
    terms.dedup();
    topics.vocabulary = Some(vectors.vocabulary_digest());
    topics.terms = terms.len();
    ShardStats::gather_terms(shards, topics, field, &terms)
}

/// How the second search scores a weighted-queries file's terms
/// ([`Rescoring`], written in the header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum RescoringSpec {
    /// The first stage's model and parameters (RM3, Rocchio).
    FirstStage,
    /// BM25 with an idf of 1 and these `k1`, `b` (BM25-PRF), each an `f32`
    /// in shortest round-trip form.
    Bm25UnitIdf {
        /// k1.
        k1: String,
        /// b.
        b: String,
    },
}

/// The header of a weighted-queries file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueriesHeader {
    /// Always [`QUERIES_FORMAT`].
    pub format: String,
    /// Always [`QUERIES_VERSION`].
    pub version: u32,
    /// The search (analyser, fields, topics).
    #[serde(flatten)]
    pub search: SearchKey,
    /// [`StatsHeader::vocabulary`] of the statistics the queries were
    /// made with: the second search must use those statistics.
    pub vocabulary: String,
    /// [`FirstStage::digest`] of the first-stage run.
    pub first_stage: String,
    /// The first stage's model setting, as a run tag names it
    /// (`k1-0.9_b-0.4`, `qld_mu-1000`): the second search must be run
    /// with it.
    pub model: String,
    /// The feedback setting ([`Feedback::label`]): the run tag's last part.
    pub feedback: String,
    /// How the second search scores the terms.
    pub rescoring: RescoringSpec,
    /// Topic lines after the header (every topic of the topic file).
    pub queries: usize,
}

/// Each topic's feedback query: the contents of a weighted-queries file
/// (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedQueriesFile {
    /// What the queries are valid for.
    pub header: QueriesHeader,
    /// `(topic id, (term, weight))`, topics in topic-file order, terms in
    /// byte order.
    pub queries: Vec<(String, Vec<(String, f32)>)>,
}

/// A topic line of a weighted-queries file.
#[derive(Serialize, Deserialize)]
struct QueryLine {
    topic: String,
    terms: Vec<(String, String)>,
}

impl WeightedQueriesFile {
    /// Reads a weighted-queries file (module docs).
    pub fn read(path: &Path) -> Result<WeightedQueriesFile> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        WeightedQueriesFile::parse(path, &bytes)
    }

    /// [`WeightedQueriesFile::read`] of the bytes of a file (`path` names
    /// it in errors).
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<WeightedQueriesFile> {
        let (header, lines) = read_lines::<QueriesHeader>(
            path,
            bytes,
            (
                QUERIES_FORMAT,
                QUERIES_VERSION,
                "regenerate it with this sieve-search expand-queries",
            ),
            |h| h.queries,
        )?;
        let bad = |line: usize, detail: String| Error::FeedbackFile {
            path: path.to_path_buf(),
            line,
            detail,
        };
        if header.queries != header.search.topics {
            return Err(bad(
                1,
                format!(
                    "queries {} for {} topics: expected one line per topic",
                    header.queries, header.search.topics
                ),
            ));
        }
        if let RescoringSpec::Bm25UnitIdf { k1, b } = &header.rescoring {
            parse_f32(k1)
                .zip(parse_f32(b))
                .and_then(|(k1, b)| Bm25Params { k1, b }.validate().ok())
                .ok_or_else(|| {
                    bad(
                        1,
                        format!("rescoring k1 {k1:?}, b {b:?}: not BM25 parameters"),
                    )
                })?;
        }
        let mut queries = Vec::with_capacity(lines.len());
        for (n, line) in lines {
            let q: QueryLine = serde_json::from_str(line).map_err(|e| {
                bad(
                    n,
                    format!(
                        "expected {{\"topic\": ..., \"terms\": [[term, \"weight\"], ...]}}: {e}"
                    ),
                )
            })?;
            let mut terms = Vec::with_capacity(q.terms.len());
            for (t, w) in q.terms {
                let Some(weight) = parse_f32(&w).filter(|w| w.is_finite()) else {
                    return Err(bad(
                        n,
                        format!("the weight of {t:?} is {w:?}: expected a finite number"),
                    ));
                };
                terms.push((t, weight));
            }
            if terms.windows(2).any(|w| w[0].0 >= w[1].0) {
                return Err(bad(
                    n,
                    format!(
                        "the terms of topic {:?} are not distinct and in byte order",
                        q.topic
                    ),
                ));
            }
            queries.push((q.topic, terms));
        }
        Ok(WeightedQueriesFile { header, queries })
    }

    /// The file's text (module docs).
    pub fn to_jsonl(&self) -> String {
        let mut out = serde_json::to_string(&HeaderLine {
            header: &self.header,
        })
        .expect("a header serialises");
        out.push('\n');
        for (topic, terms) in &self.queries {
            let line = serde_json::to_string(&QueryLine {
                topic: topic.clone(),
                terms: terms
                    .iter()
                    .map(|(t, w)| (t.clone(), w.to_string()))
                    .collect(),
            })
            .expect("a topic line serialises");
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Refuses a file (read from `path`) made for another search than
    /// `search` (the key of the topics, [`SearchKey::of`]) or whose topics
    /// are not `topic_ids` in order.
    pub fn check_search(
        &self,
        path: &Path,
        search: &SearchKey,
        topic_ids: &[String],
    ) -> Result<()> {
        check_key(path, search, &self.header.search)?;
        for (i, ((got, _), want)) in self.queries.iter().zip(topic_ids).enumerate() {
            if got != want {
                return Err(Error::FeedbackFile {
                    path: path.to_path_buf(),
                    line: i + 2,
                    detail: format!(
                        "topic {got:?}, expected {want:?} (one line per topic, in the topic file's order)"
                    ),
                });
            }
        }
        Ok(())
    }

    /// The model of the second search of a run whose own model is
    /// `first_stage`.
    pub fn model(&self, first_stage: Model) -> Model {
        match &self.header.rescoring {
            RescoringSpec::FirstStage => first_stage,
            RescoringSpec::Bm25UnitIdf { k1, b } => Model::Bm25UnitIdf(Bm25Params {
                // Checked when read.
                k1: parse_f32(k1).unwrap_or(f32::NAN),
                b: parse_f32(b).unwrap_or(f32::NAN),
            }),
        }
    }

    /// The queries as the second search takes them.
    pub fn weighted(&self) -> Vec<(String, WeightedQuery)> {
        self.queries
            .iter()
            .map(|(id, terms)| {
                let terms = terms
                    .iter()
                    .map(|(t, w)| WeightedTerm {
                        text: t.clone(),
                        weight: *w,
                    })
                    .collect();
                (id.clone(), WeightedQuery { terms })
            })
            .collect()
    }

    /// Every distinct term of every query, in byte order.
    pub fn terms(&self) -> Vec<&str> {
        let mut terms: Vec<&str> = self
            .queries
            .iter()
            .flat_map(|(_, q)| q.iter().map(|(t, _)| t.as_str()))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }
}

fn parse_f32(s: &str) -> Option<f32> {
    s.parse::<f32>().ok()
}

/// A topic's first stage as feedback reads it from the protocol's files:
/// the hits' scores, the vectors of the ranks read, and the statistics
/// of a statistics file with a vocabulary.
pub struct FileInput<'a> {
    /// `(score, term vector if read)`, in rank order.
    pub hits: Vec<(f32, Option<&'a TermVector>)>,
    /// The statistics.
    pub stats: &'a ShardStats,
    /// The statistics file (for errors).
    pub stats_path: &'a Path,
}

impl FeedbackInput for FileInput<'_> {
    fn hits(&self) -> usize {
        self.hits.len()
    }
    fn score(&self, rank: usize) -> f32 {
        self.hits.get(rank).map_or(0.0, |h| h.0)
    }
    fn vector(&self, rank: usize) -> Result<Vec<(String, u32)>> {
        match self.hits.get(rank) {
            Some((_, Some(v))) => Ok((*v).clone()),
            _ => Err(Error::Index {
                index: "feedback".into(),
                detail: format!("the term vector of rank {rank} was not read"),
            }),
        }
    }
    fn num_docs(&self) -> u64 {
        self.stats.num_docs
    }
    fn doc_freq(&self, term: &str) -> Result<u64> {
        self.stats
            .doc_freq
            .get(term)
            .copied()
            .ok_or_else(|| Error::StatsMismatch {
                path: self.stats_path.to_path_buf(),
                key: "doc_freq",
                expected: format!("an entry for feedback term {term:?}"),
                found: "none".into(),
            })
    }
}

/// What [`expand_queries`] reads: each a file's path (for errors) and its
/// contents.
pub struct ExpandInputs<'a> {
    /// The statistics header of the topics ([`StatsHeader::new`]) and
    /// their analysed queries, in topic-file order.
    pub topics: (&'a StatsHeader, &'a [(String, BagOfWords)]),
    /// The first-stage run ([`read_first_stage`], with `rerank_cutoff`).
    pub first: (&'a Path, &'a FirstStage),
    /// The rerank cutoff the run was read with.
    pub rerank_cutoff: usize,
    /// The merged feedback vectors.
    pub vectors: (&'a Path, &'a VectorsFile),
    /// The statistics of the topic terms and the vectors' vocabulary,
    /// summed over every shard.
    pub stats: (&'a Path, &'a ShardStats),
}

/// Every topic's feedback query of `setting` ([`Feedback::expand`]), from
/// the files of `inputs`, as a weighted-queries file for a second search
/// with the first stage's model setting `model` (its tag part,
/// `k1-0.9_b-0.4`). Refused: files made for another search, vectors of
/// another first-stage run or reading fewer documents than `setting`,
/// statistics of another vocabulary, and a feedback document that no part
/// of the vectors holds (named with its topic and rank).
pub fn expand_queries(
    inputs: &ExpandInputs<'_>,
    setting: &Feedback,
    model: &str,
) -> Result<(WeightedQueriesFile, Vec<(String, Expansion)>)> {
    let setting = setting.validate()?;
    let (topics_header, _) = inputs.topics;
    let (_, first) = inputs.first;
    let (vectors_path, vectors) = inputs.vectors;
    let search = SearchKey::of(topics_header);
    vectors.check_search(vectors_path, &search)?;
    check_vectors(inputs, &setting)?;
    let vocabulary = vectors.vocabulary_digest();
    check_stats(inputs, &search, &vocabulary)?;
    let out = expand_topics(inputs, &setting)?;
    let rescoring = match out
        .first()
        .map(|(_, e)| e.rescoring)
        .unwrap_or_else(|| rescoring_of(&setting))
    {
        Rescoring::FirstStage => RescoringSpec::FirstStage,
        Rescoring::Bm25UnitIdf(p) => RescoringSpec::Bm25UnitIdf {
            k1: p.k1.to_string(),
            b: p.b.to_string(),
        },
    };
    let file = WeightedQueriesFile {
        header: QueriesHeader {
            format: QUERIES_FORMAT.into(),
            version: QUERIES_VERSION,
            search,
            vocabulary,
            first_stage: first.digest.clone(),
            model: model.to_string(),
            feedback: setting.label(),
            rescoring,
            queries: out.len(),
        },
        queries: out
            .iter()
            .map(|(id, e)| (id.clone(), e.terms.clone()))
            .collect(),
    };
    Ok((file, out))
}

/// A feedback file that does not match this search: `key`, what was
/// expected, what the file at `path` has.
fn mismatch(path: &Path, key: &'static str, expected: String, found: String) -> Error {
    Error::FeedbackMismatch {
        path: path.to_path_buf(),
        key,
        expected,
        found,
    }
}

/// Refuses vectors gathered from another first-stage run, with another
/// rerank cutoff, or reading fewer documents than `setting` needs.
fn check_vectors(inputs: &ExpandInputs<'_>, setting: &Feedback) -> Result<()> {
    let (run_path, first) = inputs.first;
    let (vectors_path, vectors) = inputs.vectors;
    let vh = &vectors.header;
    if vh.first_stage != first.digest {
        return Err(mismatch(
            vectors_path,
            "first_stage",
            format!(
                "{} (the run {}): vectors gathered from this first-stage run",
                first.digest,
                run_path.display()
            ),
            vh.first_stage.clone(),
        ));
    }
    if vh.rerank_cutoff != inputs.rerank_cutoff {
        return Err(mismatch(
            vectors_path,
            "rerank_cutoff",
            format!("{} (--rerank-cutoff)", inputs.rerank_cutoff),
            vh.rerank_cutoff.to_string(),
        ));
    }
    let read = setting.documents_read();
    if vh.read_top < read.0 || vh.read_bottom < read.1 {
        return Err(mismatch(
            vectors_path,
            "read_top/read_bottom",
            format!(
                "at least {}/{} (the documents {} reads): gather the vectors with the same feedback flags",
                read.0,
                read.1,
                setting.label()
            ),
            format!("{}/{}", vh.read_top, vh.read_bottom),
        ));
    }
    Ok(())
}

/// Refuses statistics of another file format, another search, or another
/// vocabulary than the vectors' (`vocabulary`).
fn check_stats(inputs: &ExpandInputs<'_>, search: &SearchKey, vocabulary: &str) -> Result<()> {
    let (stats_path, stats) = inputs.stats;
    let sh = &stats.header;
    if sh.format != crate::twostage::STATS_FORMAT || sh.version != crate::twostage::STATS_VERSION {
        return Err(Error::StatsFile {
            path: stats_path.to_path_buf(),
            detail: format!("format {} version {}", sh.format, sh.version),
        });
    }
    if let Some((key, want, got)) = search.difference_except_terms(&SearchKey::of(sh)) {
        return Err(Error::StatsMismatch {
            path: stats_path.to_path_buf(),
            key,
            expected: format!("{want} (this search)"),
            found: got,
        });
    }
    if sh.vocabulary.as_deref() != Some(vocabulary) {
        return Err(Error::StatsMismatch {
            path: stats_path.to_path_buf(),
            key: "vocabulary",
            expected: format!(
                "{vocabulary} (the terms of {}: make the statistics with `global-stats --vocabulary` of that file)",
                inputs.vectors.0.display()
            ),
            found: sh.vocabulary.clone().unwrap_or_else(|| "none".into()),
        });
    }
    Ok(())
}

/// Every topic's expansion by `setting`, from the feedback documents of
/// the first-stage run and their vectors; a feedback document no part of
/// the vectors holds is refused, named with its topic and rank.
fn expand_topics(
    inputs: &ExpandInputs<'_>,
    setting: &Feedback,
) -> Result<Vec<(String, Expansion)>> {
    let (_, queries) = inputs.topics;
    let (run_path, first) = inputs.first;
    let (vectors_path, vectors) = inputs.vectors;
    let (stats_path, stats) = inputs.stats;
    let read = setting.documents_read();
    let mut out = Vec::with_capacity(first.topics.len());
    for ((id, bag), (fid, hits)) in queries.iter().zip(&first.topics) {
        debug_assert_eq!(id, fid);
        let mut rows: Vec<(f32, Option<&TermVector>)> =
            hits.iter().map(|h| (h.score, None)).collect();
        for r in feedback_ranks(hits.len(), read) {
            let docid = &hits[r].docid;
            let Some(v) = vectors.docs.get(docid) else {
                return Err(mismatch(
                    vectors_path,
                    "docid",
                    format!(
                        "the term vector of document {docid:?}, rank {} of topic {id:?} in {}: \
                         no shard's part holds it (a part missing from merge-vectors, or a run of other shards)",
                        r + 1,
                        run_path.display()
                    ),
                    "none".into(),
                ));
            };
            rows[r].1 = Some(v);
        }
        let input = FileInput {
            hits: rows,
            stats,
            stats_path,
        };
        out.push((id.clone(), setting.expand(&bag.terms, &input)?));
    }
    Ok(out)
}

/// The rescoring of `setting` (as [`Feedback::expand`] says it).
fn rescoring_of(setting: &Feedback) -> Rescoring {
    match setting {
        Feedback::Bm25Prf(p) => Rescoring::Bm25UnitIdf(Bm25Params { k1: p.k1, b: p.b }),
        _ => Rescoring::FirstStage,
    }
}

#[cfg(test)]
mod tests;
