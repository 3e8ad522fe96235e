//! Reading Waterloo spam-ranking files into an FST map, with bounded memory.
//!
//! Inputs are plain or gzipped (detected by the `1f 8b` magic), sorted by
//! docid (the ClueWeb09 file) or not (the 358 ClueWeb12 files). Lines are
//! parsed by [`sieve_filters::spam::parse_line`]. If the docids of all
//! inputs, taken in the order given, are already increasing, they stream
//! straight into the map; otherwise they are sorted externally: runs of at
//! most [`RUN_LINES`] entries are sorted in memory and spilled to temporary
//! files, then merged. Memory stays bounded by one run whatever the input
//! size.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use sieve_filters::spam::{SpamMapBuilder, parse_line};
use sieve_format::extsort::{SortedRuns, merge_sorted_lines};
use sieve_format::index::create_file;

use crate::options::BuildOptions;
use crate::{Error, Result};

/// Entries per in-memory sorted run (about 100 MB of docids).
pub const RUN_LINES: usize = 2_000_000;

/// Counts from building a spam map.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpamMapStats {
    /// Lines read (blank lines included).
    pub lines: u64,
    /// Distinct docids in the map.
    pub docids: u64,
    /// Sorted runs spilled (0 when the input was already sorted).
    pub runs: u64,
}

/// Opens a text input, gunzipping it if it starts with the gzip magic.
pub(crate) fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = BufReader::with_capacity(1 << 20, File::open(path).map_err(io)?);
    let gz = f.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    Ok(if gz {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(f)))
    } else {
        Box::new(f)
    })
}

/// Calls `f(percentile, docid, path, line)` for every entry of `paths`, in
/// order (`line` from 1).
fn for_each_entry(
    paths: &[PathBuf],
    lines: &mut u64,
    mut f: impl FnMut(u8, &str, &Path, u64) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    for path in paths {
        let mut r = open_text(path)?;
        let mut line_no = 0u64;
        loop {
            buf.clear();
            let n = r.read_until(b'\n', &mut buf).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            if n == 0 {
                break;
            }
            line_no += 1;
            *lines += 1;
            match parse_line(&buf, line_no) {
                Ok(Some((p, docid))) => f(p, docid, path, line_no)?,
                Ok(None) => {}
                Err(e) => {
                    return Err(Error::Input {
                        path: path.clone(),
                        detail: e.to_string(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Builds the docid → percentile FST map of `paths` into `out`, using
/// `tmp` for sorted runs when the input is not sorted.
pub fn build_spam_map(paths: &[PathBuf], out: &Path, tmp: &Path) -> Result<SpamMapStats> {
    let mut stats = SpamMapStats::default();
    // Stream straight into the map while the docids increase (the sorted
    // ClueWeb09 file is read once). The first docid out of order means the
    // input is unsorted: start again with an external sort.
    let mut builder = SpamMapBuilder::new(create_file(out)?).map_err(|e| filt(out, e))?;
    let mut unsorted = false;
    let mut conflict = None;
    let streamed = for_each_entry(paths, &mut stats.lines, |p, docid, _, _| {
        builder.insert(docid, p).map_err(|e| {
            unsorted = matches!(e, sieve_filters::Error::Unsorted { .. });
            conflict = conflicting(&e);
            filt(out, e)
        })
    });
    match streamed {
        Ok(()) => {}
        Err(e) if !unsorted => {
            return Err(match conflict {
                Some(docid) => locate_duplicate(paths, &docid)?.unwrap_or(e),
                None => e,
            });
        }
        Err(_) => {
            // Drop (and so flush) the abandoned map before truncating its
            // file for the second attempt.
            drop(builder);
            stats.lines = 0;
            builder = SpamMapBuilder::new(create_file(out)?).map_err(|e| filt(out, e))?;
        }
    }
    if unsorted {
        // Runs of "docid<TAB>percentile" lines sort by docid: a tab sorts
        // before any docid byte. (A docid with a control byte below tab
        // could break this; the map builder would then fail loudly with an
        // out-of-order error.)
        let mut sorter = SortedRuns::new(tmp, "spam-run", RUN_LINES);
        for_each_entry(paths, &mut stats.lines, |p, docid, _, _| {
            Ok(sorter.push(format!("{docid}\t{p}"))?)
        })?;
        let runs = sorter.finish()?;
        stats.runs = runs.len() as u64;
        let merged = merge_sorted_lines(&runs, |line| {
            let (docid, p) = line.rsplit_once('\t').unwrap_or((line, ""));
            let p = p.parse::<u8>().map_err(|_| Error::Input {
                path: out.to_path_buf(),
                detail: format!("corrupt sorted run line {line:?}"),
            })?;
            builder.insert(docid, p).map_err(|e| {
                conflict = conflicting(&e);
                filt(out, e)
            })
        });
        if let Err(e) = merged {
            for r in &runs {
                let _ = std::fs::remove_file(r);
            }
            return Err(match conflict {
                Some(docid) => locate_duplicate(paths, &docid)?.unwrap_or(e),
                None => e,
            });
        }
        for r in &runs {
            let _ = std::fs::remove_file(r);
        }
    }
    stats.docids = builder.len();
    let mut w = builder.finish().map_err(|e| filt(out, e))?;
    w.flush().map_err(|source| Error::Io {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(stats)
}

/// The docid of a [`sieve_filters::Error::SpamConflict`].
fn conflicting(e: &sieve_filters::Error) -> Option<String> {
    match e {
        sieve_filters::Error::SpamConflict { docid, .. } => Some(docid.clone()),
        _ => None,
    }
}

/// [`Error::SpamDuplicate`] for `docid`: its first line in `paths` and the
/// first later line that gives it another percentile (read again: only
/// when the map is refused, so building it keeps no line numbers).
fn locate_duplicate(paths: &[PathBuf], docid: &str) -> Result<Option<Error>> {
    let mut first: Option<(PathBuf, u64, u8)> = None;
    let mut found = None;
    let mut lines = 0;
    let done = for_each_entry(paths, &mut lines, |p, d, path, line| {
        if d != docid {
            return Ok(());
        }
        match &first {
            None => first = Some((path.to_path_buf(), line, p)),
            Some((first_path, first_line, first_p)) if *first_p != p => {
                found = Some(Error::SpamDuplicate {
                    docid: docid.to_string(),
                    first_path: first_path.clone(),
                    first_line: *first_line,
                    first: *first_p,
                    path: path.to_path_buf(),
                    line,
                    second: p,
                });
                // Stop reading: the error is found.
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    detail: String::new(),
                });
            }
            Some(_) => {}
        }
        Ok(())
    });
    match (found, done) {
        (Some(e), _) => Ok(Some(e)),
        (None, Err(e)) => Err(e),
        (None, Ok(())) => Ok(None),
    }
}

fn filt(path: &Path, e: sieve_filters::Error) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

/// Builds the spam map of `paths` at `map_path` (sorted runs in `tmp`, as
/// [`build_spam_map`]), reads it into memory ([`open_spam_map`]) and removes
/// `map_path`. Returns the map and what building it counted.
pub fn load_spam_map(
    paths: &[PathBuf],
    map_path: &Path,
    tmp: &Path,
) -> Result<(sieve_filters::spam::SpamMap<Vec<u8>>, SpamMapStats)> {
    let stats = build_spam_map(paths, map_path, tmp)?;
    let map = open_spam_map(map_path)?;
    let _ = std::fs::remove_file(map_path);
    Ok((map, stats))
}

impl BuildOptions {
    /// Stores the spam percentiles of the rankings `paths` (built at
    /// `map_path` with sorted runs in `tmp`, see
    /// [`load_spam_map`]) and describes them for the
    /// manifest (the paths, comma-separated).
    pub fn set_spam_files(
        &mut self,
        paths: &[PathBuf],
        map_path: &Path,
        tmp: &Path,
    ) -> Result<SpamMapStats> {
        let (map, stats) = load_spam_map(paths, map_path, tmp)?;
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        self.spam_desc = Some(names.join(","));
        self.spam = Some(map);
        Ok(stats)
    }

    /// [`BuildOptions::set_spam_files`] with the map and its sorted runs
    /// built in a new directory under the system's temporary directory,
    /// removed before returning (the map is then held in memory): nothing
    /// is written beside the index before the build holds its lock.
    pub fn set_spam_files_in_temp(&mut self, paths: &[PathBuf]) -> Result<SpamMapStats> {
        let tmp = tempfile::tempdir().map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let map_path = tmp.path().join("spam.fst");
        self.set_spam_files(paths, &map_path, tmp.path())
    }
}

/// Reads a whole spam map file.
pub fn open_spam_map(path: &Path) -> Result<sieve_filters::spam::SpamMap<Vec<u8>>> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    sieve_filters::spam::SpamMap::new(bytes).map_err(|e| filt(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsorted_and_gzipped_inputs_give_the_same_map_as_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "70 d3\n10 d1\n\n99 d9\n").unwrap();
        let b = dir.path().join("b.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"5 d0\r\n70 d3\n").unwrap();
        std::fs::write(&b, gz.finish().unwrap()).unwrap();
        let out = dir.path().join("m.fst");
        let st = build_spam_map(&[a, b], &out, dir.path()).unwrap();
        assert_eq!((st.lines, st.docids, st.runs), (6, 4, 1));
        let m = open_spam_map(&out).unwrap();
        assert_eq!(
            ["d0", "d1", "d3", "d9", "dx"].map(|d| m.get(d)),
            [Some(5), Some(10), Some(70), Some(99), None]
        );
        // Sorted input streams in one pass: no runs, the same map.
        let sorted = dir.path().join("sorted.txt");
        std::fs::write(&sorted, "5 d0\n10 d1\n70 d3\n99 d9\n").unwrap();
        let out2 = dir.path().join("m2.fst");
        let st = build_spam_map(&[sorted], &out2, dir.path()).unwrap();
        assert_eq!((st.lines, st.docids, st.runs), (4, 4, 0));
        assert_eq!(std::fs::read(&out2).unwrap(), std::fs::read(&out).unwrap());
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "70 d3\nbad line here\n").unwrap();
        let err = build_spam_map(&[bad], &out, dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.txt") && err.contains("line 2"), "{err}");
    }
}
