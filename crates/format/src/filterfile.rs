//! Reading a docid filter file (written by `sieve-filter build` or the
//! build's `--filter`): its bytes are checked (version, seal) by
//! [`sieve_filters::docfilter::DocFilter::from_bytes`].

use std::path::Path;

use sieve_filters::docfilter::DocFilter;

use crate::index::io_err;
use crate::{Error, Result};

/// Reads the filter file `path` (written by `sieve-filter build`): an
/// [`Error::Io`] if it cannot be read, an [`Error::Input`] if it is not a
/// sieve filter file.
pub fn load_filter(path: &Path) -> Result<DocFilter> {
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    DocFilter::from_bytes(bytes).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        detail: format!("not a sieve filter file: {e}"),
    })
}
