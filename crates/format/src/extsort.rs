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
/// `f`'s error type is the caller's (any that holds this crate's).
pub fn merge_sorted_lines<E: From<Error>>(
    files: &[PathBuf],
    mut f: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
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

/// What a sorted run holds: how a run is sorted, and how one item is
/// written to its run file.
pub trait RunItem: Sized {
    /// The run files' extension.
    const EXT: &'static str;
    /// Sorts one run in memory.
    fn sort(run: &mut [Self]);
    /// Writes one item to a run file.
    fn write_to(&self, w: &mut impl Write) -> std::io::Result<()>;
}

/// Lines: byte order, one line (and its newline) each.
impl RunItem for String {
    const EXT: &'static str = "txt";
    fn sort(run: &mut [Self]) {
        run.sort_unstable();
    }
    fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(self.as_bytes())?;
        w.write_all(b"\n")
    }
}

/// Records of `N` integers: lexicographic order, `8 N` little-endian bytes
/// each.
impl<const N: usize> RunItem for [u64; N] {
    const EXT: &'static str = "bin";
    fn sort(run: &mut [Self]) {
        run.par_sort_unstable_by(cmp_record);
    }
    fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        self.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
    }
}

/// Collects items and spills them as sorted run files
/// (`dir/PREFIX-NNNNN.EXT`) of at most `run_len` items each. Memory is one
/// run. See [`SortedRuns`] and [`RecordRuns`] for what `finish` gives.
pub struct Runs<T> {
    dir: PathBuf,
    prefix: &'static str,
    run_len: usize,
    buf: Vec<T>,
    runs: Vec<PathBuf>,
    /// Items written to run files.
    spilled: usize,
}

impl<T: RunItem> Runs<T> {
    /// Runs written in `dir` as `prefix`-named files, `run_len` items each.
    pub fn new(dir: &Path, prefix: &'static str, run_len: usize) -> Self {
        Runs {
            dir: dir.to_path_buf(),
            prefix,
            run_len: run_len.max(1),
            buf: Vec::new(),
            runs: Vec::new(),
            spilled: 0,
        }
    }

    /// Adds one item (a line without its newline, or a record).
    pub fn push(&mut self, item: T) -> Result<()> {
        self.buf.push(item);
        if self.buf.len() >= self.run_len {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        T::sort(&mut self.buf);
        let p = (self.dir).join(format!("{}-{:05}.{}", self.prefix, self.runs.len(), T::EXT));
        let mut w = BufWriter::new(File::create(&p).map_err(io_err(&p))?);
        for item in &self.buf {
            item.write_to(&mut w).map_err(io_err(&p))?;
        }
        w.flush().map_err(io_err(&p))?;
        self.spilled += self.buf.len();
        self.buf.clear();
        self.runs.push(p);
        Ok(())
    }
}

/// Sorted runs of lines, for [`merge_sorted_lines`].
pub type SortedRuns = Runs<String>;

impl Runs<String> {
    /// Spills what is left and returns the run files.
    pub fn finish(mut self) -> Result<Vec<PathBuf>> {
        self.spill()?;
        Ok(self.runs)
    }
}

/// Sorted runs of fixed-size records of `N` integers: every full run is
/// spilled to a binary run file, the last one stays in memory
/// ([`Records`]).
pub type RecordRuns<const N: usize> = Runs<[u64; N]>;

impl<const N: usize> Runs<[u64; N]> {
    /// Sorts what is left (kept in memory) and returns all the runs.
    pub fn finish(mut self) -> Result<Records<N>> {
        <[u64; N] as RunItem>::sort(&mut self.buf);
        Ok(Records {
            len: self.spilled + self.buf.len(),
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
pub struct Records<const N: usize> {
    files: Vec<PathBuf>,
    last: Vec<[u64; N]>,
    len: usize,
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
    /// The number of records (in files and in memory).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Calls `f` on every record in order (duplicates included), then
    /// removes the run files. Memory is the run in memory and one record
    /// (and a read buffer) per file. `f`'s error type is the caller's.
    pub fn merge<E: From<Error>>(
        self,
        mut f: impl FnMut([u64; N]) -> Result<(), E>,
    ) -> Result<(), E> {
        let Records { files, last, .. } = self;
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
