//! Searching from Python: one or more indexes opened as the shards of one
//! collection (as `sieve-search run --index A B`), topics searched with
//! [`RunSpec`] exactly as `sieve-search run` searches them, and the results
//! handed back as columns.
//!
//! Results cross into Python without a Python object per hit: the topic
//! row, rank and score of every hit are little-endian `int64`/`int64`/
//! `float64` buffers (`bytearray`, read by `numpy.frombuffer` without a
//! copy) and the docnos one UTF-8 buffer with `int64` offsets (an Arrow
//! `large_string` array's layout). Only when the caller asks for
//! `string_objects` do the docnos come back as a list of `str`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyList, PyTuple};
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_filters::docfilter::Unscored;
use sieve_format::index::{Unfinished, unfinished_warning};
use sieve_format::schema::TextField;
use sieve_searcher::batch::{RunResults, StatsMode, open_shards_with};
use sieve_searcher::bm25::Hit;
use sieve_searcher::bm25::Shard;
use sieve_searcher::feedback::rewrite::expand_hits;
use sieve_searcher::feedback::{Feedback, FeedbackSpec, Method};
use sieve_searcher::queries::analyse_topics;
use sieve_searcher::queries::{TopicQueries, query_notes};
use sieve_searcher::runspec::{ModelName, PlannedRun, RunSpec, SelectionSpec};
use sieve_searcher::stats::GlobalStats;
use sieve_searcher::topics::{Topic, TopicField, read_topics};
use sieve_searcher::twostage;
use sieve_searcher::weighted::{WeightedQuery, WeightedTerm};

use crate::errors::{IntoPy, catch_panic, panicked, parameter};

/// Opened indexes: the shards of one collection, searched with the BM25
/// statistics summed over them.
#[pyclass(frozen, module = "sieve._native")]
pub struct NativeIndex {
    pub(crate) shards: Vec<Shard>,
    pub(crate) config: AnalyzerConfig,
}

/// What a search is asked for (the arguments of `sieve-search run`).
#[derive(Debug)]
struct Request {
    k1: Vec<f32>,
    b: Vec<f32>,
    /// Models, QLD priors and feedback settings.
    models: Models,
    hits: usize,
    min_spam_percentile: Vec<u8>,
    max_invalid_456_per_kb: Vec<f64>,
    filters: Vec<PathBuf>,
    unscored: Unscored,
    stats: StatsMode,
    topic_field: TopicField,
    search_field: TextField,
    max_query_terms: usize,
    global_stats: Option<PathBuf>,
    tag: String,
}

/// The models of a search (`sieve-search run --model --mu --feedback` and
/// the feedback parameters).
#[derive(Debug)]
struct Models {
    /// Weighted queries of analysed terms, one per topic, searched
    /// instead of the topics' text (a PyTerrier rewrite's output).
    weighted: Option<Vec<WeightedQuery>>,
    names: Vec<ModelName>,
    mu: Vec<f32>,
    feedback: Vec<Feedback>,
    rerank_cutoff: usize,
}

/// The model keywords of `NativeIndex.search`, as given.
struct ModelKeywords {
    weighted: Option<Vec<Vec<(String, f32)>>>,
    model: Vec<String>,
    mu: Vec<f32>,
    feedback: Vec<String>,
    feedback_params: Vec<(String, Vec<f64>)>,
    rerank_cutoff: i64,
}

impl ModelKeywords {
    /// The models, checked; the first bad keyword raises.
    fn models(self) -> PyResult<Models> {
        let bad = crate::errors::from_searcher;
        let names = self
            .model
            .iter()
            .map(|m| ModelName::parse(m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(bad)?;
        let mut spec = FeedbackSpec {
            methods: self
                .feedback
                .iter()
                .map(|m| Method::parse(m))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad)?,
            ..FeedbackSpec::default()
        };
        for (name, values) in &self.feedback_params {
            spec.set(name, values).map_err(bad)?;
        }
        let weighted = self.weighted.map(|qs| {
            qs.into_iter()
                .map(|terms| WeightedQuery {
                    terms: terms
                        .into_iter()
                        .map(|(text, weight)| WeightedTerm { text, weight })
                        .collect(),
                })
                .collect()
        });
        Ok(Models {
            weighted,
            names,
            mu: self.mu,
            feedback: spec.settings().map_err(bad)?,
            rerank_cutoff: at_least_one("rerank_cutoff", self.rerank_cutoff)?,
        })
    }
}

/// Where the topics of a search come from: the topic file `path`, or the
/// ids `qids` with their `queries`.
pub(crate) struct TopicSource {
    pub(crate) path: Option<PathBuf>,
    pub(crate) qids: Vec<String>,
    pub(crate) queries: Vec<String>,
}

impl TopicSource {
    /// Refuses ids and queries of different lengths.
    pub(crate) fn check_lengths(&self) -> PyResult<()> {
        if self.qids.len() != self.queries.len() {
            return Err(parameter(
                "topics",
                "as many queries as qids",
                format!(
                    "{} qids and {} queries",
                    self.qids.len(),
                    self.queries.len()
                ),
            ));
        }
        Ok(())
    }

    /// The topics: read from the file, or made of each id and query.
    pub(crate) fn topics(self) -> sieve_searcher::Result<Vec<Topic>> {
        if let Some(p) = self.path {
            return Ok(read_topics(&p)?.1);
        }
        // The caller's ids follow the rule of a topic file's ids (and of a
        // run file's fields): refused before anything is searched or written.
        for id in &self.qids {
            sieve_searcher::run::check_field("qid", id)?;
        }
        Ok(self
            .qids
            .into_iter()
            .zip(self.queries)
            .map(|(id, title)| Topic {
                id,
                title,
                description: None,
                narrative: None,
                subtopics: Vec::new(),
                kind: None,
                extra: Vec::new(),
            })
            .collect())
    }
}

/// The keywords of `NativeIndex.search` as Python passed them, before
/// they are checked.
struct SearchKeywords<'k> {
    topics: TopicSource,
    models: ModelKeywords,
    k1: Vec<f32>,
    b: Vec<f32>,
    hits: i64,
    min_spam_percentile: Vec<i64>,
    max_invalid_456_per_kb: Vec<f64>,
    filters: Vec<PathBuf>,
    unscored: &'k str,
    stats: &'k str,
    topic_field: &'k str,
    search_field: &'k str,
    max_query_terms: i64,
    global_stats: Option<PathBuf>,
    threads: Option<i64>,
    tag: String,
}

impl SearchKeywords<'_> {
    /// The search these keywords ask for, its topics and its worker
    /// threads; the first keyword out of range raises, in a fixed order
    /// (counts, BM25 settings, filters, statistics, topics, fields).
    fn request(self) -> PyResult<(Request, TopicSource, Option<usize>)> {
        let hits = at_least_one("num_results", self.hits)?;
        let max_query_terms = at_least_one("max_query_terms", self.max_query_terms)?;
        let threads = self
            .threads
            .map(|t| at_least_one("threads", t))
            .transpose()?;
        if self.k1.is_empty() || self.b.is_empty() {
            return Err(parameter(
                "k1 and b",
                "at least one value each",
                "an empty list",
            ));
        }
        let min_spam_percentile = percentiles(self.min_spam_percentile)?;
        let unscored = match self.unscored {
            "keep" => Unscored::Keep,
            "drop" => Unscored::Drop,
            u => return Err(parameter("unscored", "keep or drop", format!("{u:?}"))),
        };
        let stats = match self.stats {
            "full" => StatsMode::Full,
            "filtered" => StatsMode::Filtered,
            s => return Err(parameter("stats", "full or filtered", format!("{s:?}"))),
        };
        self.topics.check_lengths()?;
        let req = Request {
            k1: self.k1,
            b: self.b,
            models: self.models.models()?,
            hits,
            min_spam_percentile,
            max_invalid_456_per_kb: self.max_invalid_456_per_kb,
            filters: self.filters,
            unscored,
            stats,
            topic_field: parse_field(self.topic_field)?,
            search_field: parse_search_field(self.search_field)?,
            max_query_terms,
            global_stats: self.global_stats,
            tag: self.tag,
        };
        Ok((req, self.topics, threads))
    }
}

/// `value` as a count, refused (as keyword `name`) below 1.
fn at_least_one(name: &str, value: i64) -> PyResult<usize> {
    if value < 1 {
        return Err(parameter(name, "at least 1", value));
    }
    Ok(value as usize)
}

/// Spam percentiles, each refused outside 0-100.
fn percentiles(given: Vec<i64>) -> PyResult<Vec<u8>> {
    given
        .into_iter()
        .map(|p| {
            u8::try_from(p)
                .ok()
                .filter(|p| *p <= 100)
                .ok_or_else(|| parameter("min_spam_percentile", "0-100", p))
        })
        .collect()
}

/// What a search found: the topics searched, the notes on their queries,
/// and per run its plan and hits (with the names of the selections the
/// plans refer to).
struct Found {
    topics: Vec<Topic>,
    topic_field: TopicField,
    notes: Vec<String>,
    runs: Vec<PlannedRun>,
    results: Vec<RunResults>,
    selection_names: Vec<String>,
}

impl Found {
    /// `(qids, queries, notes, runs)` as `NativeIndex.search` returns them.
    fn into_py<'py>(self, py: Python<'py>, string_objects: bool) -> PyResult<Bound<'py, PyTuple>> {
        let out = PyList::empty(py);
        for (run, res) in self.runs.iter().zip(&self.results) {
            out.append(self.run_to_py(py, run, res, string_objects)?)?;
        }
        let ids: Vec<&str> = self.topics.iter().map(|t| t.id.as_str()).collect();
        let texts: Vec<String> = self
            .topics
            .iter()
            .map(|t| t.query(self.topic_field))
            .collect();
        PyTuple::new(
            py,
            [
                ids.into_pyobject(py)?.into_any(),
                texts.into_pyobject(py)?.into_any(),
                self.notes.into_pyobject(py)?.into_any(),
                out.into_any(),
            ],
        )
    }

    /// One run's `(tag, k1, b, selection, row, rank, score, docnos)`.
    fn run_to_py<'py>(
        &self,
        py: Python<'py>,
        run: &PlannedRun,
        res: &RunResults,
        string_objects: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let c = py.detach(|| columns(res));
        let docnos: Bound<'py, PyAny> = if string_objects {
            let list = PyList::empty(py);
            for (_, hits) in res {
                for h in hits {
                    list.append(&h.docid)?;
                }
            }
            list.into_any()
        } else {
            PyTuple::new(
                py,
                [
                    le_bytes(py, &c.offsets, i64::to_le_bytes).into_any(),
                    PyByteArray::new(py, &c.docnos).into_any(),
                ],
            )?
            .into_any()
        };
        let v = &run.variant;
        (
            v.tag.clone(),
            v.params.k1,
            v.params.b,
            v.selection.map(|i| self.selection_names[i].clone()),
            le_bytes(py, &c.row, i64::to_le_bytes),
            le_bytes(py, &c.rank, i64::to_le_bytes),
            le_bytes(py, &c.score, f64::to_le_bytes),
            docnos,
        )
            .into_pyobject(py)
    }
}

pub(crate) fn parse_field(s: &str) -> PyResult<TopicField> {
    s.parse()
        .map_err(|_| parameter("topic field", "title, desc or title+desc", format!("{s:?}")))
}

pub(crate) fn parse_search_field(s: &str) -> PyResult<TextField> {
    match s {
        "body" => Ok(TextField::Body),
        "title" => Ok(TextField::Title),
        _ => Err(parameter("search field", "body or title", format!("{s:?}"))),
    }
}

/// Runs `f` on a pool of `threads` workers (`None`: rayon's global pool,
/// one worker per core).
fn on_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, String> {
    match threads {
        None => Ok(f()),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(|pool| pool.install(f))
            .map_err(|e| e.to_string()),
    }
}

/// One run's hits as columns: topic row, rank (from 0, as PyTerrier
/// numbers ranks), score, docno offsets and bytes.
struct Columns {
    row: Vec<i64>,
    rank: Vec<i64>,
    score: Vec<f64>,
    offsets: Vec<i64>,
    docnos: Vec<u8>,
}

fn columns(results: &RunResults) -> Columns {
    let n: usize = results.iter().map(|(_, h)| h.len()).sum();
    let mut c = Columns {
        row: Vec::with_capacity(n),
        rank: Vec::with_capacity(n),
        score: Vec::with_capacity(n),
        offsets: Vec::with_capacity(n + 1),
        docnos: Vec::with_capacity(n * 24),
    };
    c.offsets.push(0);
    for (row, (_, hits)) in results.iter().enumerate() {
        for (rank, h) in hits.iter().enumerate() {
            c.row.push(row as i64);
            c.rank.push(rank as i64);
            c.score.push(f64::from(h.score));
            c.docnos.extend_from_slice(h.docid.as_bytes());
            c.offsets.push(c.docnos.len() as i64);
        }
    }
    c
}

fn le_bytes<'py, T: Copy>(
    py: Python<'py>,
    v: &[T],
    to: impl Fn(T) -> [u8; 8],
) -> Bound<'py, PyByteArray> {
    let mut out = Vec::with_capacity(v.len() * 8);
    for &x in v {
        out.extend_from_slice(&to(x));
    }
    PyByteArray::new(py, &out)
}

impl NativeIndex {
    /// Reads the topics of `source`, notes their capped or term-less
    /// queries and searches them as `req` asks (see [`NativeIndex::run`]).
    fn find(
        &self,
        req: Request,
        source: TopicSource,
        threads: Option<usize>,
    ) -> sieve_searcher::Result<Found> {
        let topics = source.topics()?;
        let (topic_field, max_terms) = (req.topic_field, req.max_query_terms);
        let analyzer = EnglishAnalyzer::new(self.config);
        let notes = if req.models.weighted.is_some() {
            Vec::new() // weighted queries are not analysed
        } else {
            query_notes(&analyzer, &topics, topic_field, max_terms)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let (runs, results, selection_names) = self.run(req, &topics, threads)?;
        Ok(Found {
            topics,
            topic_field,
            notes,
            runs,
            results,
            selection_names,
        })
    }

    /// The runs of `req` over `topics`, their results, and the names of
    /// their selections (what [`PlannedRun`]'s selection index refers to).
    #[allow(clippy::type_complexity)]
    fn run(
        &self,
        req: Request,
        topics: &[Topic],
        threads: Option<usize>,
    ) -> sieve_searcher::Result<(Vec<PlannedRun>, Vec<RunResults>, Vec<String>)> {
        let analyzer = EnglishAnalyzer::new(self.config);
        let queries = TopicQueries {
            analyzer: &analyzer,
            topics,
            field: req.topic_field,
            max_terms: req.max_query_terms,
        };
        let global = match &req.global_stats {
            Some(p) => Some(twostage::open_global_stats(
                p,
                &self.shards,
                req.search_field,
                &queries,
            )?),
            None => None,
        };
        let selections = SelectionSpec {
            min_spam_percentile: &req.min_spam_percentile,
            unscored: req.unscored,
            max_invalid_456_per_kb: &req.max_invalid_456_per_kb,
            filters: &req.filters,
            drop_near_duplicates: false,
        }
        .selections()?;
        let spec = RunSpec {
            tag: req.tag,
            models: req.models.names,
            mu: req.models.mu,
            k1: req.k1,
            b: req.b,
            selections,
            stats: req.stats,
            hits: req.hits,
            phrases: Default::default(),
            output: None,
            output_dir: None,
        };
        let feedback = &req.models.feedback;
        let runs = if feedback.is_empty() {
            spec.runs()?
        } else {
            spec.feedback_runs(feedback)?
        };
        let weighted = pair_weighted(req.models.weighted, topics)?;
        if weighted.is_some() && (!feedback.is_empty() || global.is_some()) {
            return Err(sieve_searcher::Error::InvalidParameter {
                name: "weighted queries",
                expected: "no feedback and no global statistics file",
                got: "either".into(),
            });
        }
        let global = global.as_ref().map(|g| g as _);
        let search = || {
            if let Some(w) = &weighted {
                spec.search_weighted_queries(w, &self.shards, req.search_field, global)
            } else if feedback.is_empty() {
                spec.search(&runs, &self.shards, req.search_field, global, &queries)
            } else {
                let f = (feedback.as_slice(), req.models.rerank_cutoff);
                spec.search_feedback(f, &self.shards, req.search_field, global, &queries)
                    .map(|r| r.runs)
            }
        };
        let results = on_threads(threads, search).map_err(|detail| {
            sieve_searcher::Error::InvalidParameter {
                name: "threads",
                expected: "a thread pool that can be started",
                got: detail,
            }
        })??;
        let names = spec.selections.iter().map(|s| s.name.clone()).collect();
        Ok((runs, results, names))
    }
}

#[pymethods]
impl NativeIndex {
    /// Opens the index directories `paths` (one or more; several are the
    /// shards of one collection); an unfinished index is refused unless
    /// `allow_unfinished`. The GIL is released while opening.
    #[new]
    #[pyo3(signature = (paths, *, allow_unfinished = false))]
    fn new(py: Python<'_>, paths: Vec<PathBuf>, allow_unfinished: bool) -> PyResult<Self> {
        if paths.is_empty() {
            return Err(parameter("index", "at least one index directory", "none"));
        }
        let what = || format!("opening {}", paths[0].display());
        let unfinished = Unfinished::allow_if(allow_unfinished);
        let (shards, config) = py
            .detach(|| catch_panic(|| open_shards_with(&paths, unfinished)))
            .map_err(|m| panicked(&what(), m, true))?
            .map_err(crate::errors::bad_index)?;
        Ok(NativeIndex { shards, config })
    }

    /// The shards' names (their directories, as given).
    fn names(&self) -> Vec<String> {
        self.shards.iter().map(|s| s.name.clone()).collect()
    }

    /// Documents in all shards.
    fn num_docs(&self) -> u64 {
        self.shards.iter().map(|s| s.searcher.num_docs()).sum()
    }

    /// The analyser's settings: (stemmer, stopwords) as recorded in the
    /// index's manifest.
    fn analyzer(&self) -> (String, String) {
        (
            format!("{:?}", self.config.stemmer).to_lowercase(),
            format!("{:?}", self.config.stopwords).to_lowercase(),
        )
    }

    /// `text` analysed as the index analyses queries (tokens, stopwords
    /// removed, stemmed).
    fn analyze(&self, text: &str) -> Vec<String> {
        EnglishAnalyzer::new(self.config).terms(text)
    }

    /// One warning per shard whose build did not finish (opened with
    /// `allow_unfinished`), read again at each call.
    fn unfinished_warnings(&self) -> Vec<String> {
        self.shards
            .iter()
            .filter_map(|s| unfinished_warning(&s.dir))
            .collect()
    }

    /// One warning per shard with segments that have no block-max bounds.
    fn bounds_warnings(&self) -> Vec<String> {
        self.shards
            .iter()
            .filter_map(|s| {
                let n = s.segments_without_bounds();
                (n > 0).then(|| {
                    format!(
                        "{}: {n} segment(s) without block-max bounds, scored without block-max pruning (same results, slower); `sieve-index bounds --index {}` builds them",
                        s.name, s.name
                    )
                })
            })
            .collect()
    }

    /// Searches topics (a topic file `topics_path`, read as `sieve-search
    /// run --topics` reads it, or `qids` and `queries`) for every
    /// combination of `k1`, `b` and selection, as `sieve-search run` does.
    ///
    /// Returns `(qids, queries, notes, runs)`: the topics searched (in
    /// order; the rows that `row` refers to), the warnings about capped or
    /// term-less queries, and per run `(tag, k1, b, selection, row, rank,
    /// score, docnos)` where `docnos` is `(offsets, bytes)`, or a list of
    /// `str` with `string_objects`.
    // PyO3 takes each Python keyword as a parameter; they are gathered at
    // once into `SearchKeywords`, which checks them.
    #[pyo3(signature = (
        *, topics_path, qids, queries, k1, b, hits, min_spam_percentile,
        max_invalid_456_per_kb, filters, unscored, stats, topic_field,
        search_field, max_query_terms, global_stats, threads, tag, string_objects,
        model, mu, feedback, feedback_params, rerank_cutoff, weighted
    ))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        topics_path: Option<PathBuf>,
        qids: Vec<String>,
        queries: Vec<String>,
        k1: Vec<f32>,
        b: Vec<f32>,
        hits: i64,
        min_spam_percentile: Vec<i64>,
        max_invalid_456_per_kb: Vec<f64>,
        filters: Vec<PathBuf>,
        unscored: &str,
        stats: &str,
        topic_field: &str,
        search_field: &str,
        max_query_terms: i64,
        global_stats: Option<PathBuf>,
        threads: Option<i64>,
        tag: String,
        string_objects: bool,
        model: Vec<String>,
        mu: Vec<f32>,
        feedback: Vec<String>,
        feedback_params: Vec<(String, Vec<f64>)>,
        rerank_cutoff: i64,
        weighted: Option<Vec<Vec<(String, f32)>>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let keywords = SearchKeywords {
            topics: TopicSource {
                path: topics_path,
                qids,
                queries,
            },
            models: ModelKeywords {
                weighted,
                model,
                mu,
                feedback,
                feedback_params,
                rerank_cutoff,
            },
            k1,
            b,
            hits,
            min_spam_percentile,
            max_invalid_456_per_kb,
            filters,
            unscored,
            stats,
            topic_field,
            search_field,
            max_query_terms,
            global_stats,
            threads,
            tag,
        };
        let (req, topics, threads) = keywords.request()?;
        let found = py
            .detach(|| catch_panic(|| self.find(req, topics, threads)))
            .map_err(|m| panicked("searching", m, true))?
            .py_err()?;
        found.into_py(py, string_objects)
    }

    /// Stage 1 of a two-stage search: the global statistics (N, tokens, the
    /// df of every analysed query term) of these shards for the topics, as
    /// the JSON `sieve-search global-stats` writes.
    // PyO3 takes each Python keyword as a parameter.
    #[pyo3(signature = (*, topics_path, qids, queries, topic_field, search_field, max_query_terms))]
    #[allow(clippy::too_many_arguments)]
    fn global_stats(
        &self,
        py: Python<'_>,
        topics_path: Option<PathBuf>,
        qids: Vec<String>,
        queries: Vec<String>,
        topic_field: &str,
        search_field: &str,
        max_query_terms: i64,
    ) -> PyResult<String> {
        let max_query_terms = at_least_one("max_query_terms", max_query_terms)?;
        let topic_field = parse_field(topic_field)?;
        let field = parse_search_field(search_field)?;
        let source = TopicSource {
            path: topics_path,
            qids,
            queries,
        };
        py.detach(|| {
            catch_panic(|| -> sieve_searcher::Result<String> {
                let topics = source.topics()?;
                let stats = twostage::gather_stats(
                    &self.shards,
                    self.config,
                    &topics,
                    topic_field,
                    field,
                    max_query_terms,
                )?;
                Ok(stats.to_json())
            })
        })
        .map_err(|m| panicked("gathering statistics", m, true))?
        .py_err()
    }

    /// A feedback query rewrite (`sieve.pyterrier.QueryExpansion`): for
    /// each topic (`qids`, `queries`), the feedback query of `method`
    /// (`rm3` or `rocchio`, with `feedback_params`) from its first-stage
    /// hits (`hit_rows` index the topics; `docnos`, `scores`), with this
    /// index's statistics; `(term, weight)` per topic, terms analysed.
    #[pyo3(signature = (*, qids, queries, hit_rows, docnos, scores, method, feedback_params, search_field, max_query_terms))]
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        py: Python<'_>,
        qids: Vec<String>,
        queries: Vec<String>,
        hit_rows: Vec<i64>,
        docnos: Vec<String>,
        scores: Vec<f64>,
        method: &str,
        feedback_params: Vec<(String, Vec<f64>)>,
        search_field: &str,
        max_query_terms: i64,
    ) -> PyResult<Vec<Vec<(String, f32)>>> {
        let bad = crate::errors::from_searcher;
        let max_terms = at_least_one("max_query_terms", max_query_terms)?;
        let field = parse_search_field(search_field)?;
        let mut spec = FeedbackSpec {
            methods: vec![Method::parse(method).map_err(bad)?],
            ..FeedbackSpec::default()
        };
        for (name, values) in &feedback_params {
            spec.set(name, values).map_err(bad)?;
        }
        let settings = spec.settings().map_err(bad)?;
        let [setting] = settings.as_slice() else {
            return Err(parameter(
                "feedback_params",
                "one value per parameter",
                settings.len(),
            ));
        };
        if hit_rows.len() != docnos.len() || docnos.len() != scores.len() {
            return Err(parameter(
                "hits",
                "rows, docnos and scores of one length",
                docnos.len(),
            ));
        }
        let mut hits: Vec<Vec<Hit>> = vec![Vec::new(); qids.len()];
        for ((row, docid), score) in hit_rows.into_iter().zip(docnos).zip(scores) {
            let slot = usize::try_from(row).ok().and_then(|r| hits.get_mut(r));
            let slot = slot.ok_or_else(|| parameter("hit row", "the index of a topic", row))?;
            slot.push(Hit {
                docid,
                score: score as f32,
            });
        }
        let source = TopicSource {
            path: None,
            qids,
            queries,
        };
        source.check_lengths()?;
        py.detach(|| {
            catch_panic(|| -> sieve_searcher::Result<Vec<Vec<(String, f32)>>> {
                let topics = source.topics()?;
                let analyzer = EnglishAnalyzer::new(self.config);
                let analysed = analyse_topics(&analyzer, &topics, TopicField::Title, max_terms);
                let stats = GlobalStats::new(&self.shards);
                analysed
                    .iter()
                    .zip(hits)
                    .map(|((_, bag), h)| {
                        expand_hits(&self.shards, field, &stats, (bag, h), setting).map(|e| e.terms)
                    })
                    .collect()
            })
        })
        .map_err(|m| panicked("expanding queries", m, true))?
        .py_err()
    }
}

/// The weighted queries given for `topics`, one per topic in order, each
/// paired with its topic's id.
fn pair_weighted(
    weighted: Option<Vec<WeightedQuery>>,
    topics: &[Topic],
) -> sieve_searcher::Result<Option<Vec<(String, WeightedQuery)>>> {
    let Some(w) = weighted else {
        return Ok(None);
    };
    if w.len() != topics.len() {
        return Err(sieve_searcher::Error::InvalidParameter {
            name: "weighted queries",
            expected: "one per topic",
            got: format!("{} for {} topics", w.len(), topics.len()),
        });
    }
    Ok(Some(topics.iter().map(|t| t.id.clone()).zip(w).collect()))
}
