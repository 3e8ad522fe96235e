//! External sorting helpers: k-way merge of sorted run files.
//!
//! Used wherever a collection-sized list must reach an FST in sorted order
//! with bounded memory (spam rankings, filter-file docid lists).

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
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

/// Collects lines and spills them as sorted run files of at most
/// `run_lines` lines each, for [`merge_sorted_lines`]. Memory is one run.
pub(crate) struct SortedRuns {
    dir: PathBuf,
    prefix: &'static str,
    run_lines: usize,
    buf: Vec<String>,
    runs: Vec<PathBuf>,
}

impl SortedRuns {
    /// Runs are written to `dir/PREFIX-NNNNN.txt`.
    pub(crate) fn new(dir: &Path, prefix: &'static str, run_lines: usize) -> Self {
        SortedRuns {
            dir: dir.to_path_buf(),
            prefix,
            run_lines: run_lines.max(1),
            buf: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// Adds one line (without its newline).
    pub(crate) fn push(&mut self, line: String) -> Result<()> {
        self.buf.push(line);
        if self.buf.len() >= self.run_lines {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.sort_unstable();
        let p = self
            .dir
            .join(format!("{}-{:05}.txt", self.prefix, self.runs.len()));
        let mut w = BufWriter::new(File::create(&p).map_err(io_err(&p))?);
        for l in self.buf.drain(..) {
            w.write_all(l.as_bytes()).map_err(io_err(&p))?;
            w.write_all(b"\n").map_err(io_err(&p))?;
        }
        w.flush().map_err(io_err(&p))?;
        self.runs.push(p);
        Ok(())
    }

    /// Spills what is left and returns the run files.
    pub(crate) fn finish(mut self) -> Result<Vec<PathBuf>> {
        self.spill()?;
        Ok(self.runs)
    }
}
