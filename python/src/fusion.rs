//! Run fusion from Python: the runs read and fused as `sieve-search fuse`
//! reads and fuses them (`sieve_searcher::fusion`), returned as columns
//! and, when asked, written as the command writes them.

use std::path::PathBuf;

use pyo3::prelude::*;
use sieve_format::outfile::{OutFile, refuse_same_file};
use sieve_searcher::fusion::{self, FuseParams, Method};

use crate::errors::{IntoPy, parameter};

/// The fused run's columns: qids, docnos, scores (as `f32` widened).
type Columns = (Vec<String>, Vec<String>, Vec<f64>);

/// `sieve.fuse`'s settings, from a Python dict with these keys.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct FuseSettings {
    rrf_k: u32,
    alpha: f64,
    weights: Vec<f64>,
    min_max: bool,
    depth: usize,
    hits: usize,
    tag: String,
    output: Option<PathBuf>,
}

/// Fuses run files by `method` with `settings`; writes the fused run to
/// `settings.output` if given (complete or absent; refused if it is one
/// of the runs). Returns its columns in file order.
#[pyfunction]
pub fn fuse_run_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    method: String,
    settings: FuseSettings,
) -> PyResult<Columns> {
    let FuseSettings {
        rrf_k,
        alpha,
        weights,
        min_max,
        depth,
        hits,
        tag,
        output,
    } = settings;
    let method = match method.as_str() {
        "rrf" => Method::Rrf,
        "interpolation" => Method::Interpolation,
        "average" => Method::Average,
        "weighted" => Method::Weighted,
        other => {
            return Err(parameter(
                "method",
                "rrf, interpolation, average or weighted",
                other,
            ));
        }
    };
    if depth == 0 {
        return Err(parameter("depth", "at least 1", 0));
    }
    let params = FuseParams {
        method,
        rrf_k,
        alpha,
        weights,
        min_max,
        hits,
    };
    py.detach(|| -> PyResult<Columns> {
        fusion::check_params(&params, paths.len()).py_err()?;
        sieve_searcher::run::check_field("tag", &tag).py_err()?;
        if let Some(o) = &output {
            refuse_same_file(o, &paths)
                .map_err(sieve_searcher::Error::from)
                .py_err()?;
        }
        let runs = paths
            .iter()
            .map(|p| fusion::read_fusion_run(p, depth))
            .collect::<Result<Vec<_>, _>>()
            .py_err()?;
        let fused = fusion::fuse(&runs, &params).py_err()?;
        if let Some(o) = &output {
            let file = OutFile::create(o)
                .map_err(sieve_searcher::Error::from)
                .py_err()?;
            let file = fusion::write_fused(file, &tag, &fused).py_err()?;
            file.commit()
                .map_err(sieve_searcher::Error::from)
                .py_err()?;
        }
        let (mut q, mut d, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for (qid, docs) in &fused.topics {
            for (docid, score) in docs {
                q.push(qid.clone());
                d.push(docid.clone());
                s.push(f64::from(*score));
            }
        }
        Ok((q, d, s))
    })
}
