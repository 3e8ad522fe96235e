//! External sorting helpers: k-way merge of sorted run files.
//!
//! Used wherever a collection-sized list must reach an FST in sorted order
//! with bounded memory (spam rankings, filter-file docid lists).

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;

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

/// Collects fixed-size records of `N` integers, sorted in runs of at most
/// `run_records` records: every full run is spilled to a binary run file
/// (little-endian, `8 N` bytes a record), the last one stays in memory
/// ([`Records`]). Memory is one run.
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
        self.buf.par_sort_unstable_by(cmp_record);
        let p = self
            .dir
            .join(format!("{}-{:05}.bin", self.prefix, self.runs.len()));
        let mut w = BufWriter::new(File::create(&p).map_err(io_err(&p))?);
        let mut bytes = [0u8; 32];
        for rec in &self.buf {
            for (x, b) in rec.iter().zip(bytes.chunks_exact_mut(8)) {
                b.copy_from_slice(&x.to_le_bytes());
            }
            w.write_all(&bytes[..8 * N]).map_err(io_err(&p))?;
        }
        w.flush().map_err(io_err(&p))?;
        self.buf.clear();
        self.runs.push(p);
        Ok(())
    }

    /// Sorts what is left (kept in memory) and returns all the runs.
    pub(crate) fn finish(mut self) -> Result<Records<N>> {
        self.buf.par_sort_unstable_by(cmp_record);
        Ok(Records {
            files: self.runs,
            last: self.buf,
        })
    }
}

/// The order of records (that of `[u64; N]`: lexicographic), compared
/// field by field, which compiles to less than the slice comparison.
fn cmp_record<const N: usize>(a: &[u64; N], b: &[u64; N]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.cmp(y) {
            std::cmp::Ordering::Equal => {}
            o => return o,
        }
    }
    std::cmp::Ordering::Equal
}

/// The sorted runs of a [`RecordRuns`]: run files, and the last run in
/// memory (the only one when everything fit in one run).
pub(crate) struct Records<const N: usize> {
    files: Vec<PathBuf>,
    last: Vec<[u64; N]>,
}

/// Reads the next record of a run file, `None` at its end.
fn read_record<const N: usize>(
    r: &mut impl std::io::Read,
    path: &Path,
) -> Result<Option<[u64; N]>> {
    const { assert!(N <= 4) };
    let mut bytes = [0u8; 32];
    let bytes = &mut bytes[..8 * N];
    let mut got = 0;
    while got < bytes.len() {
        match r.read(&mut bytes[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => {
                return Err(io_err(path)(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("a record cut after {got} of {} bytes", 8 * N),
                )));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(path)(e)),
        }
    }
    let mut rec = [0u64; N];
    for (x, b) in rec.iter_mut().zip(bytes.chunks_exact(8)) {
        *x = u64::from_le_bytes(b.try_into().expect("8 bytes"));
    }
    Ok(Some(rec))
}

impl<const N: usize> Records<N> {
    /// Calls `f` on every record in order (duplicates included), then
    /// removes the run files. Memory is the run in memory and one record
    /// (and a read buffer) per file.
    pub(crate) fn merge(self, mut f: impl FnMut([u64; N]) -> Result<()>) -> Result<()> {
        let Records { files, last } = self;
        if files.is_empty() {
            return last.into_iter().try_for_each(f);
        }
        let mut readers = Vec::with_capacity(files.len());
        for p in &files {
            readers.push(BufReader::new(File::open(p).map_err(io_err(p))?));
        }
        // Source i < files.len() is a file, files.len() the run in memory.
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(rec) = read_record::<N>(r, &files[i])? {
                heap.push(std::cmp::Reverse((rec, i)));
            }
        }
        let mem = files.len();
        let mut last = last.into_iter();
        if let Some(rec) = last.next() {
            heap.push(std::cmp::Reverse((rec, mem)));
        }
        while let Some(std::cmp::Reverse((rec, i))) = heap.pop() {
            f(rec)?;
            let next = if i == mem {
                last.next()
            } else {
                read_record::<N>(&mut readers[i], &files[i])?
            };
            if let Some(next) = next {
                heap.push(std::cmp::Reverse((next, i)));
            }
        }
        drop(readers);
        for p in &files {
            std::fs::remove_file(p).map_err(io_err(p))?;
        }
        Ok(())
    }
}
