//! External sorting helpers: k-way merge of sorted run files.
//!
//! Used wherever a collection-sized list must reach an FST in sorted order
//! with bounded memory (spam rankings, filter-file docid lists).

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Merges files of sorted lines, calling `f` on each distinct line in
/// byte order. Each file must be sorted; memory is one line per file.
pub(crate) fn merge_sorted_lines(
    files: &[PathBuf],
    mut f: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    let mut readers = Vec::with_capacity(files.len());
    for p in files {
        readers.push(BufReader::new(File::open(p).map_err(io_err(p))?).lines());
    }
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(line) = r.next() {
            heap.push(std::cmp::Reverse((line.map_err(io_err(&files[i]))?, i)));
        }
    }
    let mut last: Option<String> = None;
    while let Some(std::cmp::Reverse((line, i))) = heap.pop() {
        if last.as_deref() != Some(line.as_str()) {
            f(&line)?;
        }
        if let Some(next) = readers[i].next() {
            heap.push(std::cmp::Reverse((next.map_err(io_err(&files[i]))?, i)));
        }
        last = Some(line);
    }
    Ok(())
}
