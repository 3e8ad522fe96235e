//! Building an index from Python: `sieve-index build`'s options, as the
//! keywords of [`crate::keywords`], turned into [`BuildOptions`] and one
//! call to [`build`], with progress reported
//! to a Python callable. The GIL is released during the build; the
//! callable is called (with the GIL taken back) at most once per
//! `every` seconds, and once at the end.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use sieve_analysis::{Stemmer, Stopwords};
use sieve_cli::exit::ExitStatus;
use sieve_ingest::build::build;
use sieve_ingest::options::{BuildOptions, DocTimeout, Progress, check_threads, default_threads};
use sieve_text::charset::CharsetMode;
use sieve_text::html::TextMode;

use crate::errors::{IntoPy, catch_panic, panicked, parameter};
use crate::keywords::{BUILD_KEYWORDS, Keyword, NOT_KEYWORDS, keyword, keyword_list};

/// What the progress callable last saw, and when.
struct State {
    docs: u64,
    file: String,
    file_index: usize,
    files: usize,
    last: Instant,
}

/// Progress sent to a Python callable as a dict: `docs` (indexed so far),
/// `file` (the current input), `file_index` (from 1), `files`, `seconds`.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    every: Duration,
    started: Instant,
    state: Mutex<State>,
    /// The first exception the callable raised; it is not called again.
    error: Mutex<Option<PyErr>>,
}

impl PyProgress {
    fn report(&self, force: bool) {
        let Some(cb) = &self.callback else { return };
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        if !force && st.last.elapsed() < self.every {
            return;
        }
        st.last = Instant::now();
        let Ok(mut error) = self.error.lock() else {
            return;
        };
        if error.is_some() {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64();
        Python::attach(|py| {
            let call = || -> PyResult<()> {
                let d = pyo3::types::PyDict::new(py);
                d.set_item("docs", st.docs)?;
                d.set_item("file", &st.file)?;
                d.set_item("file_index", st.file_index)?;
                d.set_item("files", st.files)?;
                d.set_item("seconds", seconds)?;
                cb.call1(py, (d,))?;
                Ok(())
            };
            if let Err(e) = call() {
                *error = Some(e);
            }
        });
    }
}

impl Progress for PyProgress {
    fn file(&self, path: &Path, index: usize, total: usize) {
        if let Ok(mut st) = self.state.lock() {
            st.file = path.display().to_string();
            st.file_index = index + 1;
            st.files = total;
        }
        self.report(false);
    }

    fn docs(&self, docs: u64) {
        if let Ok(mut st) = self.state.lock() {
            st.docs += docs;
        }
        self.report(false);
    }
}

/// The options of one build, read from `sieve.build`'s keywords: what
/// goes straight into [`BuildOptions`], and what is applied once the inputs
/// are expanded (with the GIL released: they read files).
struct Settings {
    opts: BuildOptions,
    threads: Option<usize>,
    progress_every: f64,
    filter: Option<PathBuf>,
    spam: Vec<PathBuf>,
}

/// `value` as the integer keyword `name` takes (`min` and up).
fn int_of(name: &str, value: &Bound<'_, PyAny>, min: u64) -> PyResult<u64> {
    let range = || format!("an integer from {min} to {}", u64::MAX);
    if value.is_instance_of::<PyBool>() {
        return Err(parameter(name, &range(), repr(value)));
    }
    match value.extract::<u64>() {
        Ok(v) if v >= min => Ok(v),
        _ => Err(parameter(name, &range(), repr(value))),
    }
}

/// `value` as a string, or a list of strings.
fn texts_of(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(s) = value.extract::<String>() {
        return Ok(vec![s]);
    }
    value
        .extract::<Vec<String>>()
        .map_err(|_| parameter(name, "a string or a list of strings", repr(value)))
}

/// `value` as a path, or a list of paths (`None`: none).
fn paths_of(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(p) = value.extract::<PathBuf>() {
        return Ok(vec![p]);
    }
    value
        .extract::<Vec<PathBuf>>()
        .map_err(|_| parameter(name, "a path or a list of paths", repr(value)))
}

/// `value` as a string.
fn text_of(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    value
        .extract::<String>()
        .map_err(|_| parameter(name, "a string", repr(value)))
}

/// `value` as one of `choices` (`(name, what it means)`).
fn choice<T: Copy>(name: &str, value: &Bound<'_, PyAny>, choices: &[(&str, T)]) -> PyResult<T> {
    let v = text_of(name, value)?;
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    choices
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| parameter(name, &names.join(" or "), format!("{v:?}")))
}

/// Applies keyword `k` with `value` to `s`: the text-valued keywords here,
/// the rest in [`apply_numbers_and_paths`].
fn apply(s: &mut Settings, k: &Keyword, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let name = k.name;
    let o = &mut s.opts;
    let fields = &mut o.crawl.json_fields;
    match name {
        "charset" => {
            o.charset = choice(
                name,
                value,
                &[
                    ("auto", CharsetMode::Auto),
                    ("utf8", CharsetMode::ForceUtf8),
                ],
            )?
        }
        "text" => {
            o.text = choice(
                name,
                value,
                &[("all", TextMode::All), ("main", TextMode::Main)],
            )?
        }
        "doc_timeout" => {
            o.doc_timeout = choice(
                name,
                value,
                &[
                    ("skip", DocTimeout::Skip),
                    ("truncate", DocTimeout::Truncate),
                ],
            )?
        }
        "docid_header" if value.is_none() => o.crawl.docid_header = None,
        "docid_header" => {
            let h = text_of(name, value)?;
            if h.trim().is_empty() || h.contains(':') || h.trim() != h {
                return Err(parameter(
                    name,
                    "a header name such as ClueWeb22-ID",
                    format!("{h:?}"),
                ));
            }
            o.crawl.docid_header = Some(h);
        }
        "id_field" => fields.id = texts_of(name, value)?,
        "title_field" => fields.title = texts_of(name, value)?,
        "text_field" => fields.text = texts_of(name, value)?,
        "url_field" => fields.url = texts_of(name, value)?,
        "language_field" => fields.language = texts_of(name, value)?,
        "tsv_columns" => {
            let list = text_of(name, value)?;
            o.crawl.tsv_columns = sieve_crawl::parse_tsv_columns(&list)
                .map_err(|e| parameter(name, &e, format!("{list:?}")))?;
        }
        _ => return apply_numbers_and_paths(s, k, value),
    }
    Ok(())
}

/// Applies the numeric, true/false and path keywords (see [`apply`]).
fn apply_numbers_and_paths(
    s: &mut Settings,
    k: &Keyword,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let name = k.name;
    let int = |min| int_of(name, value, min);
    let size = |min| {
        int_of(name, value, min)
            .and_then(|v| usize::try_from(v).map_err(|_| parameter(name, "a smaller integer", v)))
    };
    let o = &mut s.opts;
    match name {
        "no_near_duplicates" => o.near_duplicates = !value.is_truthy()?,
        "positions" => o.contents.positions = value.is_truthy()?,
        "docvectors" => o.contents.docvectors = value.is_truthy()?,
        "max_record_bytes" => o.crawl.max_record_bytes = int(0)?,
        "max_decompression_ratio" => o.crawl.max_decompression_ratio = int(0)?,
        "max_html_depth" => o.html.max_depth = size(0)?,
        "max_text_bytes" => o.html.max_text_bytes = size(0)?,
        "max_doc_ms" => o.set_max_doc_ms(int(0)?),
        "stem" => {
            o.analyzer.stemmer = if value.is_truthy()? {
                Stemmer::Porter
            } else {
                Stemmer::None
            }
        }
        "stopwords" => {
            o.analyzer.stopwords = if value.is_truthy()? {
                Stopwords::Lucene
            } else {
                Stopwords::None
            }
        }
        "writer_mb" => o.set_writer_mb(size(0)?),
        "commit_every_mb" => o.set_commit_mb(int(0)?),
        "resume" => o.resume = value.is_truthy()?,
        "quarantine" => o.quarantine = paths_of(name, value)?.pop(),
        "filter" => s.filter = paths_of(name, value)?.pop(),
        "spam" => s.spam = paths_of(name, value)?,
        "threads" if value.is_none() => s.threads = None,
        "threads" => s.threads = Some(size(1)?),
        "progress_every" => {
            let v = value
                .extract::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0);
            s.progress_every =
                v.ok_or_else(|| parameter(name, "a number of seconds >= 0", repr(value)))?;
        }
        other => {
            return Err(parameter(
                other,
                "a keyword this build of sieve handles (the keyword table and the build disagree)",
                other,
            ));
        }
    }
    Ok(())
}

/// `repr(value)`, or the error getting it.
fn repr(value: &Bound<'_, PyAny>) -> String {
    value
        .repr()
        .map_or_else(|e| e.to_string(), |r| r.to_string())
}

/// Reads `sieve.build`'s keywords (see [`crate::keywords`]): an unknown one
/// is refused, naming every keyword there is.
fn settings(index: &Path, options: Option<&Bound<'_, PyDict>>) -> PyResult<Settings> {
    let mut s = Settings {
        opts: BuildOptions::new(Vec::new(), index.to_path_buf()),
        threads: None,
        progress_every: 30.0,
        filter: None,
        spam: Vec::new(),
    };
    for (key, value) in options.into_iter().flat_map(|d| d.iter()) {
        let name = key.extract::<String>()?;
        let Some(k) = keyword(&name) else {
            let why = NOT_KEYWORDS
                .iter()
                .find(|(flag, _)| flag.trim_start_matches('-').replace('-', "_") == name)
                .map_or(String::new(), |(flag, why)| {
                    format!(" ({flag} is no keyword: {why})")
                });
            return Err(parameter(
                "keyword",
                &format!("one of sieve-index build's options: {}", keyword_list()),
                format!("{name:?}{why}"),
            ));
        };
        apply(&mut s, k, &value)?;
    }
    Ok(s)
}

/// Every keyword `sieve.build` takes, as `(keyword, sieve-index build
/// flag, note)`.
#[pyfunction]
pub fn build_keywords() -> Vec<(&'static str, &'static str, &'static str)> {
    BUILD_KEYWORDS
        .iter()
        .map(|k| (k.name, k.flag, k.note))
        .collect()
}

/// Builds (or, with `resume`, continues) the index `index` from `inputs`
/// with `sieve-index build`'s options, given as keywords (the table of
/// [`crate::keywords`]). Returns `(stats, status, notes)`: `stats.json` as
/// JSON text, the exit status the command line would give (0 ok, 3 part of
/// the input lost at file level, 4 nothing indexed) and what the command
/// line would print as warnings.
#[pyfunction]
#[pyo3(signature = (inputs, index, *, progress, **options))]
pub fn build_index(
    py: Python<'_>,
    inputs: Vec<String>,
    index: PathBuf,
    progress: Option<Py<PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(String, u8, Vec<String>)> {
    if inputs.is_empty() {
        return Err(parameter("inputs", "at least one input path", "none"));
    }
    let Settings {
        mut opts,
        threads,
        progress_every,
        filter,
        spam,
    } = settings(&index, options)?;
    opts.threads = check_threads(threads.unwrap_or_else(default_threads))
        .py_err()?
        .get();
    let mut notes = Vec::new();
    let result = py.detach(|| -> sieve_ingest::Result<(BuildOptions, Vec<String>)> {
        let expanded = sieve_crawl::inputs::expand(&inputs)?;
        for s in &expanded.skipped {
            notes.push(format!("skipped {}: {}", s.path, s.reason));
        }
        opts.inputs = expanded.files;
        opts.skipped_inputs = expanded.skipped;
        if let Some(f) = &filter {
            opts.set_filter_file(f)?;
        }
        if !spam.is_empty() {
            opts.set_spam_files_in_temp(&spam)?;
        }
        Ok((opts, notes))
    });
    let (opts, mut notes) = result.py_err()?;
    let progress = PyProgress {
        callback: progress,
        every: Duration::from_secs_f64(progress_every),
        started: Instant::now(),
        state: Mutex::new(State {
            docs: 0,
            file: String::new(),
            file_index: 0,
            files: opts.inputs.len(),
            last: Instant::now(),
        }),
        error: Mutex::new(None),
    };
    let stats = py
        .detach(|| catch_panic(|| build(&opts, &progress)))
        .map_err(|m| panicked("building", m, false))?
        .py_err()?;
    progress.report(true);
    if let Ok(mut e) = progress.error.lock()
        && let Some(e) = e.take()
    {
        notes.push(format!(
            "the progress callable raised {e}; it was not called again"
        ));
    }
    if let Some(unscored) = stats.spam_without_doc
        && (unscored > 0 || stats.totals.indexed > stats.totals.spam_scored)
    {
        notes.push(format!(
            "spam coverage: {} indexed docs without a score, {} scores without an indexed doc",
            stats.totals.indexed - stats.totals.spam_scored,
            unscored
        ));
    }
    for f in stats.files.iter().filter_map(|file| file.failure()) {
        notes.push(format!("not read to the end: {f}"));
    }
    let json = serde_json::to_string(&stats)
        .map_err(|e| parameter("statistics", "serialisable statistics", e))?;
    Ok((json, ExitStatus::of_build(&stats).code(), notes))
}
