//! The UTF-8 cleaner from Python: bytes in, cleaned bytes and the seven
//! error-class counts out (`sieve-filter utf8`'s semantics), in memory or
//! streamed over a file.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sieve_filters::utf8::{Counting, Utf8Counts, clean_in_place_with};
use sieve_format::outfile::OutFile;
use sieve_text::utf8stream::{Sink, clean_stream};

fn counting(atire_counts: bool) -> Counting {
    if atire_counts {
        Counting::Atire
    } else {
        Counting::Exact
    }
}

fn counts_dict<'py>(py: Python<'py>, counts: &Utf8Counts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (class, n) in counts.iter() {
        d.set_item(class.key(), n)?;
    }
    Ok(d)
}

/// Cleans `data` (same length, valid UTF-8 afterwards, valid input
/// unchanged); returns the cleaned bytes and the seven counts. The GIL is
/// released while cleaning.
#[pyfunction]
#[pyo3(signature = (data, *, atire_counts=false))]
pub fn clean_utf8<'py>(
    py: Python<'py>,
    data: &[u8],
    atire_counts: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyDict>)> {
    let mut buf = data.to_vec();
    let counts = py.detach(|| clean_in_place_with(&mut buf, counting(atire_counts)));
    Ok((PyBytes::new(py, &buf), counts_dict(py, &counts)?))
}

/// Streams the file `path` through the cleaner in bounded memory, writing
/// the cleaned bytes to `output` if given; returns the bytes read and the
/// seven counts.
#[pyfunction]
#[pyo3(signature = (path, *, output=None, atire_counts=false))]
pub fn clean_utf8_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    output: Option<PathBuf>,
    atire_counts: bool,
) -> PyResult<(u64, Bound<'py, PyDict>)> {
    let (bytes, counts) = py
        .detach(|| -> Result<(u64, Utf8Counts), Failed> {
            let io = |p: &PathBuf| {
                let p = p.clone();
                move |source| sieve_text::Error::Io { path: p, source }
            };
            let input = File::open(&path).map_err(io(&path))?;
            match &output {
                None => Ok(clean_stream::<BufWriter<File>>(
                    input,
                    &path,
                    counting(atire_counts),
                    None,
                )?),
                Some(out) => {
                    // Never the input; complete or absent.
                    sieve_format::outfile::refuse_same_file(out, &[&path])?;
                    let mut w = OutFile::create(out)?;
                    let sink = Sink {
                        writer: &mut w,
                        name: out,
                    };
                    let done = clean_stream(input, &path, counting(atire_counts), Some(sink))?;
                    w.commit()?;
                    Ok(done)
                }
            }
        })
        .map_err(|f| match f {
            Failed::Text(e) => crate::errors::from_text(e),
            Failed::Output(e) => crate::errors::from_format(e),
        })?;
    Ok((bytes, counts_dict(py, &counts)?))
}

/// What can fail while cleaning a file: reading or cleaning it (the text
/// layer), or its output file (refused, created, committed).
enum Failed {
    Text(sieve_text::Error),
    Output(sieve_format::Error),
}

impl From<sieve_text::Error> for Failed {
    fn from(e: sieve_text::Error) -> Self {
        Failed::Text(e)
    }
}

impl From<sieve_format::Error> for Failed {
    fn from(e: sieve_format::Error) -> Self {
        Failed::Output(e)
    }
}
