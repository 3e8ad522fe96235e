//! sieve's errors as Python exceptions.
//!
//! The classes live in Python (`sieve/_errors.py`, so that they can also be
//! `ValueError`s or `OSError`s); here every library error is sorted into
//! one of them, with its message (the error and its causes, each once, as
//! the binaries print it), the Rust variant's name (`kind`) and the
//! evidence it carries (`path`, `line`, `offset`, `expected`, `found`).

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use sieve_cli::exit::error_chain;

/// The Python exception classes of `sieve._errors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A parameter out of range or of the wrong kind.
    Parameter,
    /// Data sieve refuses: a syntax error, a damaged, mismatched or empty file.
    Data,
    /// An index that cannot be opened or searched.
    BadIndex,
    /// A file that cannot be read or written.
    Input,
    /// A directory sieve will not write into.
    Refused,
    /// Anything else (a panic outside a search: a bug).
    Internal,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Parameter => "ParameterError",
            Class::Data => "DataError",
            Class::BadIndex => "BadIndexError",
            Class::Input => "InputError",
            Class::Refused => "RefusedError",
            Class::Internal => "SieveError",
        }
    }
}

/// What an error says about itself: class, variant, evidence.
#[derive(Debug, Default)]
struct Evidence {
    kind: String,
    path: Option<String>,
    line: Option<u64>,
    offset: Option<u64>,
    expected: Option<String>,
    found: Option<String>,
}

impl Evidence {
    fn kind(mut self, kind: &str) -> Self {
        self.kind = kind.to_string();
        self
    }
    fn path(mut self, p: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(p.display().to_string());
        }
        self
    }
    fn line(mut self, l: impl TryInto<u64>) -> Self {
        self.line = l.try_into().ok();
        self
    }
    fn offset(mut self, o: impl TryInto<u64>) -> Self {
        self.offset = o.try_into().ok();
        self
    }
    fn expected(mut self, e: impl ToString) -> Self {
        self.expected = Some(e.to_string());
        self
    }
    fn found(mut self, f: impl ToString) -> Self {
        self.found = Some(f.to_string());
        self
    }
}

fn filters(e: &sieve_filters::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_filters::Error as E;
    match e {
        E::SpamLine {
            line,
            expected,
            got,
        }
        | E::StatsLine {
            line,
            expected,
            got,
        } => (
            Class::Data,
            ev.kind("SyntaxError")
                .line(*line)
                .expected(expected)
                .found(got),
        ),
        E::Threshold { expected, got, .. } => (
            Class::Parameter,
            ev.kind("Threshold").expected(expected).found(got),
        ),
        E::Header { offset, .. } => (Class::Data, ev.kind("Header").offset(*offset)),
        E::Sealed {
            offset,
            expected,
            found,
            ..
        } => (
            Class::Data,
            ev.kind("Sealed")
                .offset(*offset)
                .expected(expected)
                .found(found),
        ),
        E::ListConflict { .. } => (Class::Parameter, ev.kind("ListConflict")),
        _ => (Class::Data, ev.kind("Filters")),
    }
}

/// A path that exists was read and refused (a damaged sieve file); one
/// that does not is missing (or a pattern matching nothing).
fn input(path: &Path, ev: Evidence) -> (Class, Evidence) {
    let class = if path.exists() {
        Class::Data
    } else {
        Class::Input
    };
    (class, ev.kind("Input").path(path))
}

fn format(e: &sieve_format::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_format::Error as E;
    match e {
        E::Bounds {
            path,
            expected,
            found,
            ..
        } => (
            Class::BadIndex,
            ev.kind("Bounds").path(path).expected(expected).found(found),
        ),
        E::BoundsSeal { path, source } => {
            let (_, ev) = filters(source, ev.path(path));
            (Class::BadIndex, ev.kind("BoundsSeal"))
        }
        E::Io { path, .. } => (Class::Input, ev.kind("Io").path(path)),
        E::Input { path, .. } => input(path, ev),
        E::NotAnIndex { path, .. } => (Class::BadIndex, ev.kind("NotAnIndex").path(path)),
        E::Unfinished { path, .. } => (Class::BadIndex, ev.kind("Unfinished").path(path)),
        E::Schema { expected, .. } => (Class::BadIndex, ev.kind("Schema").expected(expected)),
        E::Tantivy(_) => (Class::BadIndex, ev.kind("Tantivy")),
        E::Locked { path, .. } => (Class::Refused, ev.kind("Locked").path(path)),
        E::Foreign { path, .. } => (Class::Refused, ev.kind("Foreign").path(path)),
        E::SameFile { output, input } => (
            Class::Refused,
            ev.kind("SameFile").path(output).found(input.display()),
        ),
        E::DuplicateDocid {
            index,
            file,
            offset,
            ..
        } => (
            Class::BadIndex,
            ev.kind("DuplicateDocid")
                .path(index)
                .offset(*offset)
                .found(file),
        ),
        _ => (Class::Data, ev.kind("Format")),
    }
}

fn crawl(e: &sieve_crawl::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_crawl::Error as E;
    match e {
        E::Io { path, .. } => (Class::Input, ev.kind("Io").path(path)),
        E::ReadAt { path, offset, .. } => {
            (Class::Input, ev.kind("ReadAt").path(path).offset(*offset))
        }
        E::Input { path, .. } => input(path, ev),
        E::TruncatedGzip {
            path,
            compressed_offset,
            ..
        }
        | E::Gzip {
            path,
            compressed_offset,
            ..
        }
        | E::GzipBomb {
            path,
            compressed_offset,
            ..
        } => (
            Class::Data,
            ev.kind("Gzip").path(path).offset(*compressed_offset),
        ),
        E::UnknownCrawlFormat { path, got } => (
            Class::Data,
            ev.kind("UnknownCrawlFormat").path(path).found(got),
        ),
        _ => (Class::Data, ev.kind("Crawl")),
    }
}

fn ingest(e: &sieve_ingest::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_ingest::Error as E;
    match e {
        E::Format(inner) => format(inner, ev),
        E::Crawl(inner) => crawl(inner, ev),
        E::Io { path, .. } => (Class::Input, ev.kind("Io").path(path)),
        E::Input { path, .. } => input(path, ev),
        E::IndexExists { path } => (Class::Refused, ev.kind("IndexExists").path(path)),
        E::ResumeQuarantine { path, .. } => {
            (Class::Refused, ev.kind("ResumeQuarantine").path(path))
        }
        E::RuleNeeds { path, .. } => (Class::Parameter, ev.kind("RuleNeeds").path(path)),
        E::Threads { got } => (
            Class::Parameter,
            ev.kind("Threads").expected("at least 1").found(got),
        ),
        _ => (Class::Data, ev.kind("Indexer")),
    }
}

fn text(e: &sieve_text::Error, ev: Evidence) -> (Class, Evidence) {
    match e {
        sieve_text::Error::Io { path, .. } => (Class::Input, ev.kind("Io").path(path)),
        _ => (Class::Data, ev.kind("Text")),
    }
}

/// A searcher error: I/O, parameters and indexes here; the contents of
/// topic, qrels, run and statistics files in [`searcher_file`]; an error
/// inside a named file or an evaluation by the error it wraps.
fn searcher(e: &sieve_searcher::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_searcher::Error as E;
    match e {
        E::Io { path, .. } => (Class::Input, ev.kind("Io").path(path)),
        E::Write { .. } => (Class::Input, ev.kind("Write")),
        E::InvalidParameter { expected, got, .. } => (
            Class::Parameter,
            ev.kind("InvalidParameter").expected(expected).found(got),
        ),
        E::UnknownMeasure { name, known } => (
            Class::Parameter,
            ev.kind("UnknownMeasure").expected(known).found(name),
        ),
        E::Index { index, .. } => (Class::BadIndex, ev.kind("Index").path(Path::new(index))),
        E::Tantivy(_) => (Class::BadIndex, ev.kind("Tantivy")),
        E::Format(inner) => format(inner, ev),
        E::Filters(inner) => filters(inner, ev),
        E::InFile { path, inner } => searcher(inner, ev.path(path)),
        E::Evaluating { path, inner } => searcher(inner, ev.path(path)),
        e => searcher_file(e, ev),
    }
}

/// A searcher error in the contents of a file: bytes, syntax, duplicates,
/// empty files, statistics files; the rest in [`searcher_run`].
fn searcher_file(e: &sieve_searcher::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_searcher::Error as E;
    match e {
        E::InvalidUtf8 { line, offset } => (
            Class::Data,
            ev.kind("InvalidUtf8").line(*line).offset(*offset),
        ),
        E::TopicSyntax {
            line,
            expected,
            found,
            ..
        }
        | E::QrelsSyntax {
            line,
            expected,
            found,
        }
        | E::RunSyntax {
            line,
            expected,
            found,
        } => (
            Class::Data,
            ev.kind("SyntaxError")
                .line(*line)
                .expected(expected)
                .found(found),
        ),
        E::UnknownTopicFormat { line, found, .. } => (
            Class::Data,
            ev.kind("UnknownTopicFormat").line(*line).found(found),
        ),
        E::DuplicateTopic { line, .. } => (Class::Data, ev.kind("DuplicateTopic").line(*line)),
        E::DuplicateJudgment { line, .. } => {
            (Class::Data, ev.kind("DuplicateJudgment").line(*line))
        }
        E::DuplicateDoc { line, .. } => (Class::Data, ev.kind("DuplicateDoc").line(*line)),
        E::Prels { line } => (Class::Data, ev.kind("Prels").line(*line)),
        E::EmptyQrels { path } => (Class::Data, ev.kind("EmptyQrels").path(path)),
        E::EmptyRun { path } | E::EmptyFusionRun { path } => {
            (Class::Data, ev.kind("EmptyRun").path(path))
        }
        E::FusionDuplicate { path, line, .. } => {
            (Class::Data, ev.kind("DuplicateDoc").path(path).line(*line))
        }
        E::StatsFile { path, .. } => (Class::Data, ev.kind("StatsFile").path(path)),
        E::StatsMismatch {
            path,
            expected,
            found,
            ..
        } => (
            Class::Data,
            ev.kind("StatsMismatch")
                .path(path)
                .expected(expected)
                .found(found),
        ),
        e => searcher_run(e, ev),
    }
}

/// A searcher error in the hits of a run, a run written, or two runs or
/// a run and its qrels compared; anything else is a `Searcher` data error.
fn searcher_run(e: &sieve_searcher::Error, ev: Evidence) -> (Class, Evidence) {
    use sieve_searcher::Error as E;
    match e {
        E::InvalidRunField { value, fault, .. } => (
            Class::Data,
            ev.kind("InvalidRunField")
                .expected(format!(
                    "non-empty, no whitespace or control character (refused: {fault})"
                ))
                .found(value),
        ),
        E::NanScore { .. } => (Class::Data, ev.kind("NanScore")),
        E::UnrankedHits { .. } => (Class::Data, ev.kind("UnrankedHits")),
        E::SharedDocid { .. } => (Class::Data, ev.kind("SharedDocid")),
        E::TopicWrittenTwice { .. } => (Class::Data, ev.kind("TopicWrittenTwice")),
        E::GradeAboveMax { .. } => (Class::Data, ev.kind("GradeAboveMax")),
        E::NoCommonTopics { .. } => (Class::Data, ev.kind("NoCommonTopics")),
        _ => (Class::Data, ev.kind("Searcher")),
    }
}

/// The Python exception `class` with `message` and the evidence set as
/// attributes (`kind`, `path`, `line`, `offset`, `expected`, `found`).
fn make(py: Python<'_>, class: Class, message: String, ev: Evidence) -> PyErr {
    let built = (|| -> PyResult<PyErr> {
        let cls = py.import("sieve._errors")?.getattr(class.name())?;
        let kw = PyDict::new(py);
        kw.set_item("kind", ev.kind)?;
        kw.set_item("path", ev.path)?;
        kw.set_item("line", ev.line)?;
        kw.set_item("offset", ev.offset)?;
        kw.set_item("expected", ev.expected)?;
        kw.set_item("found", ev.found)?;
        Ok(PyErr::from_value(cls.call((message,), Some(&kw))?))
    })();
    // Importing the package's own module cannot fail once it is
    // installed; if it did, its error says why.
    built.unwrap_or_else(|e| e)
}

/// A searcher error as a Python exception.
pub fn from_searcher(e: sieve_searcher::Error) -> PyErr {
    let (class, ev) = searcher(&e, Evidence::default());
    Python::attach(|py| make(py, class, error_chain(&e), ev))
}

/// A searcher error met while opening an index, as a [`Class::BadIndex`]
/// exception (whatever its kind: a missing directory, a damaged file in it).
pub fn bad_index(e: sieve_searcher::Error) -> PyErr {
    let (class, ev) = searcher(&e, Evidence::default());
    let class = if class == Class::Parameter {
        class
    } else {
        Class::BadIndex
    };
    Python::attach(|py| make(py, class, error_chain(&e), ev))
}

/// An error of the build pipeline as a Python exception.
pub fn from_ingest(e: sieve_ingest::Error) -> PyErr {
    let (class, ev) = ingest(&e, Evidence::default());
    Python::attach(|py| make(py, class, error_chain(&e), ev))
}

/// An error of an index's files as a Python exception.
pub fn from_format(e: sieve_format::Error) -> PyErr {
    let (class, ev) = format(&e, Evidence::default());
    Python::attach(|py| make(py, class, error_chain(&e), ev))
}

/// An error of the text layer (streaming a file through the cleaner).
pub fn from_text(e: sieve_text::Error) -> PyErr {
    let (class, ev) = text(&e, Evidence::default());
    Python::attach(|py| make(py, class, error_chain(&e), ev))
}

/// A parameter refused by the binding itself (`name`: what it expected).
pub fn parameter(name: &str, expected: &str, got: impl std::fmt::Display) -> PyErr {
    let ev = Evidence::default()
        .kind("InvalidParameter")
        .expected(expected)
        .found(&got);
    let message = format!("invalid {name}: expected {expected}, got {got}");
    Python::attach(|py| make(py, Class::Parameter, message, ev))
}

/// Data refused by the binding itself (a DataFrame column, a row).
pub fn data(kind: &str, message: String) -> PyErr {
    Python::attach(|py| make(py, Class::Data, message, Evidence::default().kind(kind)))
}

/// Runs `f`, catching a panic (in it or in the worker threads it uses):
/// `Err` with the panic's message. The binding turns it into an exception
/// instead of letting PyO3 raise a `PanicException`, which is not an
/// `Exception` and so escapes `except Exception`.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into())
    })
}

/// A panic caught by [`catch_panic`] while `what`: a [`Class::BadIndex`]
/// exception when an index was being read (a damaged index file is the
/// likely cause), else the base class.
pub fn panicked(what: &str, message: String, reading_index: bool) -> PyErr {
    let (class, cause) = if reading_index {
        (
            Class::BadIndex,
            "the index may be damaged, or this is a bug",
        )
    } else {
        (Class::Internal, "this is a bug")
    };
    let ev = Evidence::default().kind("Panic");
    let message = format!("{what}: sieve panicked ({cause}): {message}");
    Python::attach(|py| make(py, class, message, ev))
}

/// Extension trait: `.py()?` on library results.
pub trait IntoPy<T> {
    /// The value, or the error as a Python exception.
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, sieve_searcher::Error> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(from_searcher)
    }
}

impl<T> IntoPy<T> for Result<T, sieve_ingest::Error> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(from_ingest)
    }
}

impl<T> IntoPy<T> for Result<T, sieve_format::Error> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(from_format)
    }
}

impl<T> IntoPy<T> for Result<T, sieve_text::Error> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(from_text)
    }
}
