//! Building an index from Python: `sieve-index build`'s options turned
//! into [`BuildOptions`] and one call to [`build`], with progress reported
//! to a Python callable. The GIL is released during the build; the
//! callable is called (with the GIL taken back) at most once per
//! `every` seconds, and once at the end.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use sieve_indexer::analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_indexer::build::build;
use sieve_indexer::charset::CharsetMode;
use sieve_indexer::exit::ExitStatus;
use sieve_indexer::options::{BuildOptions, DocTimeout, Progress, check_threads, default_threads};

use crate::errors::{IntoPy, catch_panic, panicked, parameter};

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

/// Builds (or, with `resume`, continues) the index `index` from `inputs`
/// with `sieve-index build`'s options. Returns `(stats, status, notes)`:
/// `stats.json` as JSON text, the exit status the command line would give
/// (0 ok, 3 part of the input lost at file level, 4 nothing indexed) and
/// what the command line would print as warnings.
#[pyfunction]
#[pyo3(signature = (
    inputs, index, *, threads, charset, max_record_bytes, max_decompression_ratio,
    max_html_depth, max_text_bytes, max_doc_ms, doc_timeout, quarantine, stem,
    stopwords, filter, spam, writer_mb, resume, progress, progress_every
))]
#[allow(clippy::too_many_arguments)]
pub fn build_index(
    py: Python<'_>,
    inputs: Vec<String>,
    index: PathBuf,
    threads: Option<i64>,
    charset: &str,
    max_record_bytes: u64,
    max_decompression_ratio: u64,
    max_html_depth: usize,
    max_text_bytes: usize,
    max_doc_ms: u64,
    doc_timeout: &str,
    quarantine: Option<PathBuf>,
    stem: bool,
    stopwords: bool,
    filter: Option<PathBuf>,
    spam: Vec<PathBuf>,
    writer_mb: usize,
    resume: bool,
    progress: Option<Py<PyAny>>,
    progress_every: f64,
) -> PyResult<(String, u8, Vec<String>)> {
    if inputs.is_empty() {
        return Err(parameter("inputs", "at least one input path", "none"));
    }
    if !(progress_every.is_finite() && progress_every >= 0.0) {
        return Err(parameter(
            "progress_every",
            "a number of seconds >= 0",
            progress_every,
        ));
    }
    let threads = match threads {
        None => default_threads(),
        Some(t) => usize::try_from(t).map_err(|_| parameter("threads", "at least 1", t))?,
    };
    let threads = check_threads(threads).py_err()?.get();
    let charset = match charset {
        "auto" => CharsetMode::Auto,
        "utf8" => CharsetMode::ForceUtf8,
        c => return Err(parameter("charset", "auto or utf8", format!("{c:?}"))),
    };
    let doc_timeout = match doc_timeout {
        "skip" => DocTimeout::Skip,
        "truncate" => DocTimeout::Truncate,
        d => {
            return Err(parameter(
                "doc_timeout",
                "skip or truncate",
                format!("{d:?}"),
            ));
        }
    };
    let mut notes = Vec::new();
    let result = py.detach(|| -> sieve_indexer::Result<(BuildOptions, Vec<String>)> {
        let expanded = sieve_indexer::inputs::expand(&inputs)?;
        for s in &expanded.skipped {
            notes.push(format!("skipped {}: {}", s.path, s.reason));
        }
        let mut opts = BuildOptions::new(expanded.files, index.clone());
        opts.skipped_inputs = expanded.skipped;
        opts.threads = threads;
        opts.charset = charset;
        opts.crawl.max_record_bytes = max_record_bytes;
        opts.crawl.max_decompression_ratio = max_decompression_ratio;
        opts.html.max_depth = max_html_depth;
        opts.html.max_text_bytes = max_text_bytes;
        opts.set_max_doc_ms(max_doc_ms);
        opts.doc_timeout = doc_timeout;
        opts.quarantine = quarantine;
        opts.analyzer = AnalyzerConfig {
            stemmer: if stem { Stemmer::Porter } else { Stemmer::None },
            stopwords: if stopwords {
                Stopwords::Lucene
            } else {
                Stopwords::None
            },
        };
        opts.resume = resume;
        opts.set_writer_mb(writer_mb);
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
