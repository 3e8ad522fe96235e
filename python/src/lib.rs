//! `sieve._native`: the Python package's extension module, a thin layer
//! over `sieve-ingest`, `sieve-searcher` and `sieve-filters` (no
//! subprocess). The Python side (`python/sieve/`) turns what it returns
//! into pandas DataFrames and raises the exceptions of `sieve._errors`.
//!
//! Modules, bottom up: [`errors`] (library errors to Python exceptions),
//! [`columns`] (string and number columns from Python without an object
//! per row), [`keywords`] (`sieve.build`'s keywords, one per `sieve-index
//! build` flag), [`search`] (opening indexes, searching, global statistics), [`build`]
//! (building an index with progress), [`files`] (topics, qrels, runs,
//! evaluation, comparison), [`sweep`] (threshold sweeps, as `sieve-search
//! sweep`), [`fusion`] (runs fused as `sieve-search fuse` fuses them),
//! [`utf8`] (the cleaner).

mod build;
mod columns;
mod errors;
mod files;
mod fusion;
mod keywords;
mod search;
mod sweep;
mod utf8;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<search::NativeIndex>()?;
    m.add_function(wrap_pyfunction!(build::build_index, m)?)?;
    m.add_function(wrap_pyfunction!(build::build_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_topics_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_qrels_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_run_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_run_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::evaluate_runs, m)?)?;
    m.add_function(wrap_pyfunction!(files::compare_runs, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_index, m)?)?;
    m.add_function(wrap_pyfunction!(fusion::fuse_run_files, m)?)?;
    m.add_function(wrap_pyfunction!(utf8::clean_utf8, m)?)?;
    m.add_function(wrap_pyfunction!(utf8::clean_utf8_file, m)?)?;
    Ok(())
}
