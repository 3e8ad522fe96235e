//! Searches: one query (`GET /v1/{name}/search`) and a batch of topics
//! (`POST /v1/{name}/run`), both through the library's own search of
//! `sieve-search run` ([`Prepared::search_query`] for one query,
//! [`RunSpec::search`] and [`RunSpec::search_feedback`] for a batch), so
//! the docids, scores and order are those of the command line with the
//! same settings. These functions block: the server calls them on its
//! blocking pool.

use std::time::Instant;

use serde_json::{Value, json};
use sieve_format::schema::TextField;
use sieve_searcher::batch::{Prepared, QueryPlan};
use sieve_searcher::bm25::Hit;
use sieve_searcher::docinfo::{DocInfo, lookup};
use sieve_searcher::feedback::run::run_feedback;
use sieve_searcher::queries::{DEFAULT_MAX_QUERY_TERMS, Phrases};
use sieve_searcher::topics::{Topic, TopicField};
use sieve_searcher::{TopicQueries, runspec};

use crate::error::ApiError;
use crate::setting::Setting;
use crate::snippet::snippet;
use crate::state::{Selected, Served};

/// The longest query text taken, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// The most results of a search or per topic of a run.
pub const MAX_HITS: usize = 10_000;

/// One query's search, as the route reads it.
#[derive(Debug)]
pub struct Search {
    /// The query text.
    pub query: String,
    /// The query id echoed.
    pub qid: String,
    /// Results wanted.
    pub hits: usize,
    /// The setting.
    pub setting: Setting,
    /// Anserini's `parse`: each hit's `doc` is an object of its stored
    /// fields (true) or its text as one string (false: the text is
    /// extracted again from the record, as for a snippet).
    pub parse: bool,
    /// Add each hit's snippet.
    pub snippets: bool,
}

/// A topic holding `query` as its title, with id `qid`.
pub fn topic(qid: &str, query: &str) -> Topic {
    Topic {
        id: qid.to_string(),
        title: query.to_string(),
        description: None,
        narrative: None,
        subtopics: Vec::new(),
        kind: None,
        extra: Vec::new(),
    }
}

/// Searches `s` over `index`: Anserini's answer shape (`query`,
/// `candidates` of `docid`, `score`, `doc`) with sieve's additions.
pub fn search(index: &Served, s: &Search) -> Result<Value, ApiError> {
    let started = Instant::now();
    let topics = [topic(&s.qid, &s.query)];
    let queries = TopicQueries {
        analyzer: &index.analyzer,
        topics: &topics,
        field: TopicField::Title,
        max_terms: DEFAULT_MAX_QUERY_TERMS,
    };
    let terms = check_terms(index, &s.query)?;
    let hits = ranked(index, s, &queries)?;
    let kept = match &s.setting.selection {
        Some(sel) => sieve_searcher::batch::count_kept(&index.shards, &index.subset(sel)?[0]),
        None => index.documents(),
    };
    let infos = if s.parse {
        lookup(&index.shards, hits.iter().map(|h| h.docid.as_str()))
            .map_err(ApiError::from_search)?
    } else {
        Default::default()
    };
    let candidates: Vec<Value> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| candidate(index, s, &terms, (i, h), infos.get(&h.docid)))
        .collect();
    Ok(json!({
        "api": "v1",
        "index": index.name,
        "query": {"text": s.query, "qid": s.qid, "terms": terms},
        "candidates": candidates,
        "settings": s.setting.echo,
        "hits": s.hits,
        "kept_documents": kept,
        "documents": index.documents(),
        "took_ms": started.elapsed().as_secs_f64() * 1e3,
    }))
}

/// The analysed unique terms of `query`, in query order; refused past
/// `sieve-search run`'s cap (the command line warns and drops the rest;
/// a service answers the whole query or refuses it).
fn check_terms(index: &Served, query: &str) -> Result<Vec<String>, ApiError> {
    let mut terms: Vec<String> = Vec::new();
    for t in index.analyzer.terms(query) {
        if !terms.contains(&t) {
            if terms.len() == DEFAULT_MAX_QUERY_TERMS {
                return Err(ApiError::bad_parameter(
                    "query",
                    format!(
                        "the query has more than {DEFAULT_MAX_QUERY_TERMS} unique terms after analysis"
                    ),
                ));
            }
            terms.push(t);
        }
    }
    Ok(terms)
}

/// The ranked hits of the one topic of `queries` with `s`'s setting.
fn ranked(index: &Served, s: &Search, queries: &TopicQueries<'_>) -> Result<Vec<Hit>, ApiError> {
    let spec = s.setting.spec("sieve", s.hits);
    let runs = spec.runs().map_err(ApiError::from_search)?;
    let variants: Vec<_> = runs.into_iter().map(|r| r.variant).collect();
    let subsets: Selected = match &s.setting.selection {
        Some(sel) => index.subset(sel)?,
        None => Default::default(),
    };
    let subsets: &[_] = &subsets;
    let plan = QueryPlan {
        shards: &index.shards,
        field: TextField::Body,
        variants: &variants,
        stats_mode: s.setting.stats,
        global: None,
        hits: s.hits,
    };
    let err = ApiError::from_search;
    let mut hits = match &s.setting.feedback {
        Some((fb, cutoff)) => {
            let mut out = run_feedback(&plan, queries, subsets, std::slice::from_ref(fb), *cutoff)
                .map_err(err)?;
            out.runs
                .pop()
                .and_then(|mut r| r.pop())
                .map(|(_, h)| vec![h])
        }
        None => {
            let analysed = queries.analyse_full();
            let prepared = Prepared::new(plan, subsets).map_err(err)?;
            match analysed.first() {
                Some((_, q)) => Some(prepared.search_query(q, Phrases::Ignore).map_err(err)?),
                None => None,
            }
        }
    }
    .unwrap_or_default();
    Ok(hits.pop().unwrap_or_default())
}

/// One candidate: Anserini's `docid`, `score` and `doc`, then sieve's
/// `rank` and (when asked) `snippet`.
fn candidate(
    index: &Served,
    s: &Search,
    terms: &[String],
    (i, hit): (usize, &Hit),
    info: Option<&DocInfo>,
) -> Value {
    let doc = match (s.parse, info) {
        (true, Some(d)) => doc_json(d),
        (true, None) => Value::Null,
        (false, _) => doc_text(index, &hit.docid),
    };
    let mut c =
        json!({"docid": hit.docid, "score": f32_json(hit.score), "doc": doc, "rank": i + 1});
    if s.snippets {
        c["snippet"] = snippet(index, &hit.docid, terms);
    }
    c
}

/// `x` as the JSON number of its shortest decimal form as an `f32`
/// (`0.9`, not `0.8999999761581421`): what a run file and Anserini write.
pub fn f32_json(x: f32) -> Value {
    x.to_string()
        .parse::<f64>()
        .map_or(Value::Null, |v| json!(v))
}

/// A document's title and text, extracted again from its record, as one
/// string (Anserini's `doc` with `parse=false`); `null` when the record
/// cannot be read again.
pub fn doc_text(index: &Served, docid: &str) -> Value {
    match crate::snippet::find_shown(index, docid) {
        Ok(shown) => shown
            .first()
            .map_or(Value::Null, |d| json!(format!("{}\n\n{}", d.title, d.text))),
        Err(_) => Value::Null,
    }
}

/// A document's stored fields and counts, as search and document answers
/// give them.
pub fn doc_json(d: &DocInfo) -> Value {
    let errors: serde_json::Map<String, Value> = d
        .counts
        .iter()
        .map(|(class, n)| (class.key().to_string(), json!(n)))
        .collect();
    json!({
        "url": d.url,
        "title": d.title,
        "spam": d.spam,
        "charset": d.charset,
        "charset_source": sieve_text::charset::CharsetSource::from_code(d.charset_source)
            .map_or_else(|| format!("unknown ({})", d.charset_source), |s| s.key().to_string()),
        "bytes": d.bytes,
        "errors": errors,
    })
}

/// A batch of topics (`body`: a topic file) searched with `setting`, as
/// the TREC run `sieve-search run` writes for the same flags.
pub fn run_topics(
    index: &Served,
    body: &[u8],
    field: TopicField,
    (setting, tag, hits): (&Setting, &str, usize),
) -> Result<Vec<u8>, ApiError> {
    let err = ApiError::from_search;
    let (_, topics) = sieve_searcher::topics::parse_topics(body)
        .map_err(|e| ApiError::new(400, format!("the topic file: {e}")))?;
    if topics.is_empty() {
        return Err(ApiError::new(400, "the topic file holds no topic"));
    }
    let queries = TopicQueries {
        analyzer: &index.analyzer,
        topics: &topics,
        field,
        max_terms: DEFAULT_MAX_QUERY_TERMS,
    };
    let spec = setting.spec(tag, hits);
    let (run, results) = match &setting.feedback {
        Some((fb, cutoff)) => {
            let runs = spec.feedback_runs(std::slice::from_ref(fb)).map_err(err)?;
            let mut out = spec
                .search_feedback(
                    (std::slice::from_ref(fb), *cutoff),
                    &index.shards,
                    TextField::Body,
                    None,
                    &queries,
                )
                .map_err(err)?;
            (runs, out.runs.pop().unwrap_or_default())
        }
        None => {
            let runs = spec.runs().map_err(err)?;
            let mut out = spec
                .search(&runs, &index.shards, TextField::Body, None, &queries)
                .map_err(err)?;
            (runs, out.pop().unwrap_or_default())
        }
    };
    let tag = run
        .first()
        .map(|r| r.variant.tag.clone())
        .unwrap_or_default();
    runspec::write_run(Vec::new(), &tag, &results).map_err(err)
}
