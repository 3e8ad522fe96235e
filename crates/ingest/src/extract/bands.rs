//! The band-key files of an extract (`minhash/NNNNN.bands.gz`), and the
//! near-duplicate list clustered from them (`near-duplicates.tsv.gz`), for
//! one extract or across several.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use sieve_format::dups::PARAMS;
use sieve_format::jsonfile::read_json;
use sieve_format::manifest::Manifest;
use sieve_format::outfile::OutFile;
use sieve_format::stats::ClusterSummary;

use super::{BANDS_DIR, EXTRACT_MANIFEST, NEAR_DUPLICATES};
use crate::dedup::{Clusterer, DocRef, RUN_LINES, doc_ref};
use crate::error::io_err;
use crate::{Error, Result};

const BANDS_HEADER: &str = "sieve-bands 1";

/// The first line of a band-key file: its version and the MinHash
/// parameters of its keys.
pub(super) fn bands_header() -> String {
    format!(
        "{BANDS_HEADER} params={}w/{}x{}/{:016x}",
        PARAMS.shingle_words, PARAMS.bands, PARAMS.rows, PARAMS.seed
    )
}

/// The band-key file of input number `i` of the extract in `dir`.
pub(super) fn bands_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(BANDS_DIR).join(format!("{i:05}.bands.gz"))
}

/// Parses a band-key file (already gunzipped) from `r`: the header line,
/// then `position<TAB>key,key,...<TAB>docid` lines with strictly
/// increasing positions and 16-digit hexadecimal keys. `path` names the
/// file in errors. Public for fuzzing.
pub fn parse_bands(
    r: impl BufRead,
    path: &Path,
    mut f: impl FnMut(u32, &str, &[u64]) -> Result<()>,
) -> Result<()> {
    let bad = |what: &'static str, expected: &str, found: &str| {
        Error::Format(sieve_format::Error::NearDuplicates {
            path: path.to_path_buf(),
            what,
            expected: expected.into(),
            found: found.chars().take(120).collect(),
        })
    };
    let mut lines = r.lines();
    let want = bands_header();
    let first = lines
        .next()
        .transpose()
        .map_err(io_err(path))?
        .unwrap_or_default();
    if first != want {
        return Err(bad("header", &want, &first));
    }
    let mut keys = Vec::new();
    let mut last: Option<u32> = None;
    for line in lines {
        let line = line.map_err(io_err(path))?;
        let mut it = line.splitn(3, '\t');
        let (Some(pos), Some(ks), Some(docid)) = (it.next(), it.next(), it.next()) else {
            return Err(bad("line", "position, keys and docid", &line));
        };
        let pos: u32 = pos.parse().map_err(|_| bad("position", "a number", pos))?;
        if last.is_some_and(|l| pos <= l) {
            return Err(bad("position", "increasing positions", &line));
        }
        last = Some(pos);
        keys.clear();
        for k in ks.split(',') {
            if k.len() != 16 {
                return Err(bad("key", "16 hex digits", k));
            }
            keys.push(u64::from_str_radix(k, 16).map_err(|_| bad("key", "16 hex digits", k))?);
        }
        f(pos, docid, &keys)?;
    }
    Ok(())
}

/// Reads the docids of band-key files for increasing documents.
struct DocidCursor<'a> {
    files: &'a [PathBuf],
    file: usize,
    lines: Option<std::io::Lines<BufReader<flate2::read::GzDecoder<File>>>>,
}

impl DocidCursor<'_> {
    /// The docid of document `r` (file, position); `r` must not decrease.
    fn docid(&mut self, r: DocRef) -> Result<String> {
        let (i, pos) = ((r >> 32) as usize, r as u32);
        let path = self.files[i].clone();
        if self.file != i || self.lines.is_none() {
            let file = File::open(&path).map_err(io_err(&path))?;
            let mut lines = BufReader::new(flate2::read::GzDecoder::new(file)).lines();
            lines.next().transpose().map_err(io_err(&path))?;
            self.lines = Some(lines);
            self.file = i;
        }
        let lines = self.lines.as_mut().expect("opened above");
        for line in lines.by_ref() {
            let line = line.map_err(io_err(&path))?;
            let mut it = line.splitn(3, '\t');
            if let (Some(p), Some(_), Some(docid)) = (it.next(), it.next(), it.next())
                && p.parse::<u32>().ok() == Some(pos)
            {
                return Ok(docid.to_string());
            }
        }
        Err(Error::Format(sieve_format::Error::NearDuplicates {
            path,
            what: "document",
            expected: format!("a line for document {pos}"),
            found: "the end of the file".into(),
        }))
    }
}

/// Clusters the documents of the `inputs` band-key files of the extract in
/// `dir` and writes [`NEAR_DUPLICATES`].
pub(super) fn write_near_duplicates(
    dir: &Path,
    inputs: usize,
    run_lines: usize,
) -> Result<ClusterSummary> {
    let files: Vec<PathBuf> = (0..inputs)
        .map(|i| bands_path(dir, i))
        .filter(|p| p.exists())
        .collect();
    cluster_bands(&files, dir, &dir.join(NEAR_DUPLICATES), run_lines)
}

/// Clusters the documents of band-key `files` (in that order) and writes
/// the near-duplicates list `out`; temporary files go in `tmp_parent`.
fn cluster_bands(
    files: &[PathBuf],
    tmp_parent: &Path,
    out: &Path,
    run_lines: usize,
) -> Result<ClusterSummary> {
    let mut c = Clusterer::new(tmp_parent, run_lines)?;
    for (i, path) in files.iter().enumerate() {
        let file = File::open(path).map_err(io_err(path))?;
        parse_bands(
            BufReader::new(flate2::read::GzDecoder::new(file)),
            path,
            |pos, docid, keys| c.add(doc_ref(i as u32, pos), docid, keys),
        )?;
    }
    // A unique temporary name beside `out` (two merges naming one output
    // must not share one), committed only when complete.
    let file = OutFile::create(out)?;
    let tmp = file.temp_path().to_path_buf();
    let mut w = BufWriter::with_capacity(
        1 << 16,
        flate2::write::GzEncoder::new(file, flate2::Compression::fast()),
    );
    writeln!(
        w,
        "# sieve-near-duplicates 1 params={}w/{}x{}/{:016x}: docid, representative (smallest docid of its cluster)",
        PARAMS.shingle_words, PARAMS.bands, PARAMS.rows, PARAMS.seed
    )
    .map_err(io_err(&tmp))?;
    let mut cursor = DocidCursor {
        files,
        file: usize::MAX,
        lines: None,
    };
    let summary = c.finish(
        Ok,
        |_, r| cursor.docid(r),
        |_, own, rep| writeln!(w, "{own}\t{rep}").map_err(io_err(&tmp)),
    )?;
    let gz = w.into_inner().map_err(|e| io_err(&tmp)(e.into_error()))?;
    gz.finish().map_err(io_err(&tmp))?.commit()?;
    Ok(summary)
}

/// Near-duplicates across several finished extracts (the parts of a
/// distributed extract, one per input as `scale/spark_extract.py` makes
/// them): clusters the documents of all their band-key files, extract by
/// extract in the order given and input by input, and writes the list
/// (the format of [`NEAR_DUPLICATES`]) to `out`, which must not exist. The
/// same clusters as one extract of all the inputs in that order.
pub fn merge_near_duplicates(dirs: &[PathBuf], out: &Path) -> Result<ClusterSummary> {
    if out.exists() {
        return Err(Error::Input {
            path: out.to_path_buf(),
            detail: "the near-duplicates file already exists".into(),
        });
    }
    let mut files = Vec::new();
    for d in dirs {
        let m: Manifest = read_json(&d.join(EXTRACT_MANIFEST))?;
        for i in 0..m.inputs.len() {
            let p = bands_path(d, i);
            if p.exists() {
                files.push(p);
            }
        }
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    cluster_bands(&files, parent, out, RUN_LINES)
}
