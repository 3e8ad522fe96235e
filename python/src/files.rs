//! Topic, qrels and run files from Python, read by the same readers as the
//! command line (every format they detect), and run files written by the
//! same writer; evaluation and comparison of runs as `sieve-search eval`
//! and `compare` do them.
//!
//! A qrels or run given as a DataFrame arrives as columns (lists) and is
//! built with the library's own builders, so a DataFrame is checked as a
//! file is (a document retrieved twice, a pair judged twice).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use sieve_format::outfile::OutFile;
use sieve_searcher::compare;
use sieve_searcher::eval::{
    EvalOptions, Evaluation, Measure, MeasureSpec, check_judgements, evaluate_run, read_judgements,
};
use sieve_searcher::qrels::{Qrels, read_qrels};
use sieve_searcher::run::{Duplicates, Run, RunBuilder, RunWriter, read_run};
use sieve_searcher::topics::{TopicField, read_topics};

use crate::columns::{F64Column, StrColumn};
use crate::errors::{IntoPy, data, parameter};

/// Reads a topic file (format detected); returns `(format, ids, queries,
/// titles, descriptions, narratives)` with the query text of `field`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn read_topics_file(
    py: Python<'_>,
    path: PathBuf,
    field: &str,
) -> PyResult<(
    String,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<Option<String>>,
    Vec<Option<String>>,
)> {
    let field: TopicField = field
        .parse()
        .map_err(|_| parameter("field", "title, desc or title+desc", format!("{field:?}")))?;
    let (format, topics) = py.detach(|| read_topics(&path)).py_err()?;
    let queries = topics.iter().map(|t| t.query(field)).collect();
    let mut ids = Vec::with_capacity(topics.len());
    let mut titles = Vec::with_capacity(topics.len());
    let mut descs = Vec::with_capacity(topics.len());
    let mut narrs = Vec::with_capacity(topics.len());
    for t in topics {
        ids.push(t.id);
        titles.push(t.title);
        descs.push(t.description);
        narrs.push(t.narrative);
    }
    Ok((
        format.name().to_string(),
        ids,
        queries,
        titles,
        descs,
        narrs,
    ))
}

/// Reads a qrels file; returns `(qids, docnos, labels)`, topics and
/// documents in byte order.
#[pyfunction]
pub fn read_qrels_file(
    py: Python<'_>,
    path: PathBuf,
) -> PyResult<(Vec<String>, Vec<String>, Vec<i64>)> {
    let qrels = py.detach(|| read_qrels(&path)).py_err()?;
    let (mut q, mut d, mut l) = (Vec::new(), Vec::new(), Vec::new());
    for qid in qrels.topic_ids() {
        if let Some(t) = qrels.topic(qid) {
            for (docno, rel) in t.sorted() {
                q.push(qid.to_string());
                d.push(docno.to_string());
                l.push(rel);
            }
        }
    }
    Ok((q, d, l))
}

/// Reads a run file; returns `(tag, qids, docnos, scores)`: topics in byte
/// order, each topic's hits in trec_eval's evaluation order.
#[pyfunction]
#[pyo3(signature = (path, *, dedup))]
#[allow(clippy::type_complexity)]
pub fn read_run_file(
    py: Python<'_>,
    path: PathBuf,
    dedup: bool,
) -> PyResult<(Option<String>, Vec<String>, Vec<String>, Vec<f64>)> {
    let run = py.detach(|| read_run(&path, dups(dedup))).py_err()?;
    let (mut q, mut d, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for qid in run.topic_ids() {
        for h in run.trec_eval_ranked(qid) {
            q.push(qid.to_string());
            d.push(h.docno.clone());
            s.push(h.score);
        }
    }
    Ok((run.tag.clone(), q, d, s))
}

fn dups(dedup: bool) -> Duplicates {
    if dedup {
        Duplicates::KeepBest
    } else {
        Duplicates::Error
    }
}

/// Writes a run file with sieve's writer (`qid Q0 docno rank score tag`,
/// scores as `f32`, ranks from 1): rows of one topic must be together and
/// in trec_eval order (score descending, docno descending), as a search
/// returns them. Topics are written in the order they first appear.
#[pyfunction]
#[pyo3(signature = (path, qids, docnos, scores, *, tag))]
pub fn write_run_file(
    py: Python<'_>,
    path: PathBuf,
    qids: StrColumn,
    docnos: StrColumn,
    scores: F64Column,
    tag: String,
) -> PyResult<()> {
    let scores = scores.0;
    if qids.len() != docnos.len() || qids.len() != scores.len() {
        return Err(parameter(
            "run columns",
            "qid, docno and score of the same length",
            format!("{}, {} and {}", qids.len(), docnos.len(), scores.len()),
        ));
    }
    py.detach(|| -> PyResult<()> {
        let columns = RunColumns {
            qids: &qids,
            docnos: &docnos,
            scores: &scores,
        };
        // The whole run is checked before the file is created: a refused
        // id (or order) leaves no file, not a partial run.
        columns.write_to(RunWriter::new(std::io::sink(), &tag).py_err()?, true)?;
        // Complete or absent: committed only once every row is written.
        let file = OutFile::create(&path).map_err(sieve_searcher::Error::from);
        let w = RunWriter::new(file.py_err()?, &tag).py_err()?;
        let file = columns.write_to(w, false)?.finish().py_err()?;
        file.commit()
            .map_err(sieve_searcher::Error::from)
            .py_err()?;
        Ok(())
    })
}

/// The columns of a run to write, rows of a topic together.
struct RunColumns<'a> {
    qids: &'a StrColumn,
    docnos: &'a StrColumn,
    scores: &'a [f64],
}

impl RunColumns<'_> {
    /// Hands each topic's rows to `w`: checked only with `check_only`, else
    /// written. Returns the writer.
    fn write_to<W: std::io::Write>(
        &self,
        mut w: RunWriter<W>,
        check_only: bool,
    ) -> PyResult<RunWriter<W>> {
        let (qids, docnos, scores) = (self.qids, self.docnos, self.scores);
        let mut start = 0;
        let mut hits: Vec<(&str, f32)> = Vec::new();
        let n = qids.len();
        while start < n {
            let qid = qids.get(start);
            let end = (start..n).find(|&i| qids.get(i) != qid).unwrap_or(n);
            hits.clear();
            hits.extend((start..end).map(|i| (docnos.get(i), scores[i] as f32)));
            let done = if check_only {
                w.check_topic(qid, &hits)
            } else {
                w.write_topic(qid, &hits)
            };
            done.map_err(|e| match e {
                sieve_searcher::Error::TopicWrittenTwice { qid } => data(
                    "TopicWrittenTwice",
                    format!(
                        "run writer: the rows of topic {qid:?} are not together (row {}); sort the DataFrame by topic first",
                        start + 1
                    ),
                ),
                e => crate::errors::from_searcher(e),
            })?;
            start = end;
        }
        Ok(w)
    }
}

/// Qrels from a path, or from columns (`qid`, `docno`, `label`).
#[derive(FromPyObject)]
pub enum QrelsArg {
    /// A qrels file.
    Path(PathBuf),
    /// A DataFrame's columns.
    Columns(StrColumn, StrColumn, Vec<i64>),
}

/// A run from a path, or from columns (`qid`, `docno`, `score`, name).
#[derive(FromPyObject)]
pub enum RunArg {
    /// A run file.
    Path(PathBuf),
    /// A DataFrame's columns and the run's name.
    Columns(StrColumn, StrColumn, F64Column, String),
}

const DATAFRAME: &str = "<DataFrame>";

pub(crate) fn qrels_of(q: &QrelsArg) -> PyResult<Qrels> {
    match q {
        QrelsArg::Path(p) => read_judgements(p).py_err(),
        QrelsArg::Columns(qids, docnos, labels) => {
            let mut qrels = Qrels::default();
            let mut rows: HashMap<(&str, &str), usize> = HashMap::new();
            if qids.len() != docnos.len() || qids.len() != labels.len() {
                return Err(parameter(
                    "qrels columns",
                    "of the same length",
                    "different lengths",
                ));
            }
            for (i, &l) in labels.iter().enumerate() {
                let (q, d) = (qids.get(i), docnos.get(i));
                if let Some(first) = rows.insert((q, d), i + 1) {
                    return Err(crate::errors::from_searcher(
                        sieve_searcher::Error::DuplicateJudgment {
                            qid: q.to_string(),
                            docno: d.to_string(),
                            first_line: first,
                            line: i + 1,
                        },
                    ));
                }
                qrels.insert(q, d, l);
            }
            check_judgements(qrels, Path::new(DATAFRAME)).py_err()
        }
    }
}

/// The run, and what it is called in messages.
fn run_of(r: &RunArg, dedup: bool) -> PyResult<(Run, PathBuf)> {
    match r {
        RunArg::Path(p) => Ok((read_run(p, dups(dedup)).py_err()?, p.clone())),
        RunArg::Columns(qids, docnos, scores, name) => {
            let scores = &scores.0;
            if qids.len() != docnos.len() || qids.len() != scores.len() {
                return Err(parameter(
                    "run columns",
                    "of the same length",
                    "different lengths",
                ));
            }
            let mut b = RunBuilder::new(dups(dedup));
            for (i, &s) in scores.iter().enumerate() {
                b.add(qids.get(i), docnos.get(i), s, name, i + 1).py_err()?;
            }
            Ok((b.finish(), PathBuf::from(name)))
        }
    }
}

fn measures_of(measures: &[String]) -> PyResult<Vec<Measure>> {
    MeasureSpec::parse_all(measures).py_err()
}

fn evaluation(
    qrels: &Qrels,
    run: &RunArg,
    dedup: bool,
    opts: EvalOptions,
) -> PyResult<(Evaluation, Option<String>)> {
    let (r, source) = run_of(run, dedup)?;
    evaluate_run(qrels, &r, &source, opts).py_err()
}

fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}

/// Evaluates runs as `sieve-search eval` does. Returns a list with, per
/// run, a dict: `json` (what `eval --json` prints, as Python values),
/// `text` (what `eval` prints, with `per_query` rows), `note` (the
/// coverage sentence or `None`) and `gdeval_refused` (why, or `None`).
// PyO3 takes each Python argument as a parameter.
#[pyfunction]
#[pyo3(signature = (qrels, runs, *, measures, per_query, complete, max_docs, dedup))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_runs<'py>(
    py: Python<'py>,
    qrels: QrelsArg,
    runs: Vec<RunArg>,
    measures: Vec<String>,
    per_query: bool,
    complete: bool,
    max_docs: Option<i64>,
    dedup: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let max_docs = match max_docs {
        Some(m) if m < 1 => return Err(parameter("max_docs", "at least 1", m)),
        m => m.map(|m| m as usize),
    };
    let measures = measures_of(&measures)?;
    let opts = EvalOptions {
        complete,
        max_docs,
        ..EvalOptions::default()
    };
    let qrels = qrels_of(&qrels)?;
    runs.iter()
        .map(|run| {
            let (e, note) = evaluation(&qrels, run, dedup, opts)?;
            evaluation_dict(py, &e, note, &measures, per_query)
        })
        .collect()
}

/// One run's dict of [`evaluate_runs`].
fn evaluation_dict<'py>(
    py: Python<'py>,
    e: &Evaluation,
    note: Option<String>,
    measures: &[Measure],
    per_query: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("json", json_to_py(py, &e.to_json_of(measures))?)?;
    d.set_item(
        "measures",
        measures.iter().map(|m| m.name()).collect::<Vec<_>>(),
    )?;
    d.set_item("text", e.to_text_of(measures, per_query, 4))?;
    d.set_item("note", note)?;
    d.set_item(
        "gdeval_refused",
        e.gdeval_refused.as_ref().map(ToString::to_string),
    )?;
    Ok(d)
}

/// The measures `compare` reports by default.
const COMPARE_MEASURES: [&str; 4] = ["map", "P_10", "ndcg@20", "err@20"];

/// Compares two runs as `sieve-search compare` does; returns `(json,
/// text, notes)` (`compare --json` as Python values, the text it prints,
/// and the coverage notes of run A and run B).
// PyO3 takes each Python argument as a parameter.
#[pyfunction]
#[pyo3(signature = (qrels, run_a, run_b, *, measures, top, complete, dedup))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn compare_runs<'py>(
    py: Python<'py>,
    qrels: QrelsArg,
    run_a: RunArg,
    run_b: RunArg,
    measures: Vec<String>,
    top: usize,
    complete: bool,
    dedup: bool,
) -> PyResult<(Bound<'py, PyAny>, String, (Option<String>, Option<String>))> {
    let names: Vec<&str> = if measures.is_empty() {
        COMPARE_MEASURES.to_vec()
    } else {
        measures.iter().map(String::as_str).collect()
    };
    let measures = names
        .iter()
        .map(|m| m.parse::<Measure>())
        .collect::<Result<Vec<_>, _>>()
        .py_err()?;
    let opts = EvalOptions {
        complete,
        ..EvalOptions::default()
    };
    let qrels = qrels_of(&qrels)?;
    let (ea, na) = evaluation(&qrels, &run_a, dedup, opts)?;
    let (eb, nb) = evaluation(&qrels, &run_b, dedup, opts)?;
    let (a, b) = (run_name(&run_a), run_name(&run_b));
    let cmp = compare::compare(&ea, &eb, &measures, top);
    Ok((
        json_to_py(py, &compare::to_json(&cmp, &a, &b))?,
        compare::to_text(&cmp, &a, &b),
        (na, nb),
    ))
}

/// What a run is called in a comparison: its path, or its DataFrame's name.
fn run_name(r: &RunArg) -> String {
    match r {
        RunArg::Path(p) => p.display().to_string(),
        RunArg::Columns(_, _, _, n) => n.clone(),
    }
}
