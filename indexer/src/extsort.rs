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

/// Collects fixed-size records of `N` integers and spills them as sorted
/// binary run files of at most `run_records` records each (little-endian,
/// `8 N` bytes a record), for [`merge_records`]. Memory is one run.
pub(crate) struct RecordRuns<const N: usize> {
    dir: PathBuf,
    prefix: &'static str,
    run_records: usize,
    buf: Vec<[u64; N]>,
    runs: Vec<PathBuf>,
}

impl<const N: usize> RecordRuns<N> {
    /// Runs are written to `dir/PREFIX-NNNNN.bin`.
    pub(crate) fn new(dir: &Path, prefix: &'static str, run_records: usize) -> Self {
        RecordRuns {
            dir: dir.to_path_buf(),
            prefix,
            run_records: run_records.max(1),
            buf: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// Adds one record.
    pub(crate) fn push(&mut self, rec: [u64; N]) -> Result<()> {
        self.buf.push(rec);
        if self.buf.len() >= self.run_records {
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
            .join(format!("{}-{:05}.bin", self.prefix, self.runs.len()));
        let mut w = BufWriter::new(File::create(&p).map_err(io_err(&p))?);
        for rec in self.buf.drain(..) {
            for x in rec {
                w.write_all(&x.to_le_bytes()).map_err(io_err(&p))?;
            }
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

/// Reads the next record of a run, `None` at its end.
fn read_record<const N: usize>(
    r: &mut impl std::io::Read,
    path: &Path,
) -> Result<Option<[u64; N]>> {
    let mut rec = [0u64; N];
    let mut b = [0u8; 8];
    for (i, x) in rec.iter_mut().enumerate() {
        match r.read_exact(&mut b) {
            Ok(()) => *x = u64::from_le_bytes(b),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && i == 0 => return Ok(None),
            Err(e) => return Err(io_err(path)(e)),
        }
    }
    Ok(Some(rec))
}

/// Merges sorted run files of [`RecordRuns`], calling `f` on every record
/// in order (duplicates included). Memory is one record per file.
pub(crate) fn merge_records<const N: usize>(
    files: &[PathBuf],
    mut f: impl FnMut([u64; N]) -> Result<()>,
) -> Result<()> {
    let mut readers = Vec::with_capacity(files.len());
    for p in files {
        readers.push(BufReader::new(File::open(p).map_err(io_err(p))?));
    }
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(rec) = read_record::<N>(r, &files[i])? {
            heap.push(std::cmp::Reverse((rec, i)));
        }
    }
    while let Some(std::cmp::Reverse((rec, i))) = heap.pop() {
        f(rec)?;
        if let Some(next) = read_record::<N>(&mut readers[i], &files[i])? {
            heap.push(std::cmp::Reverse((next, i)));
        }
    }
    Ok(())
}
