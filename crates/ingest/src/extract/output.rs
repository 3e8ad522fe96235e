//! The output of one input file of an extract: its documents (JSON lines
//! or Parquet, through a spool of JSON lines for template removal), its
//! band keys and its docid list, each written as `*.part` and renamed
//! when the input is done.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use sieve_format::index::{GzFile, commit_gz, create_gz, end_gz};
use sieve_format::stats::FileStats;

use super::bands::{bands_header, bands_path};
use super::output_name;
use crate::error::io_err;
use crate::losses::{LossLine, log_loss};
use crate::parquetfile::{Limits, ParquetWriter};
use crate::pipeline::{DocWriter, Made};
use crate::record::{Format, JsonOwned, RecordSpec, paragraph_hash};
use crate::{Error, Result};

/// Where the documents of one input go as they come.
#[expect(
    clippy::large_enum_variant,
    reason = "one per input file, never moved in a loop"
)]
enum Sink {
    /// JSON lines: the output, or (template removal) the spool read back
    /// at the end.
    Jsonl(GzFile),
    /// A Parquet output written directly.
    Parquet(ParquetWriter),
}

impl Sink {
    /// A new output file `tmp` in `format` (`full`: with the heads and the
    /// HTML columns).
    fn create(tmp: &Path, format: Format, full: bool) -> Result<Sink> {
        Ok(match format {
            Format::Jsonl => Sink::Jsonl(create_gz(tmp)?),
            Format::Parquet => Sink::Parquet(ParquetWriter::create(tmp, full, Limits::default())?),
        })
    }

    /// Writes `rec` (read back from the spool) to the output `tmp`.
    fn push(&mut self, rec: &JsonOwned, tmp: &Path) -> Result<()> {
        match self {
            Sink::Jsonl(w) => {
                let line = serde_json::to_vec(rec).unwrap_or_default();
                w.write_all(&line).map_err(io_err(tmp))?;
                w.write_all(b"\n").map_err(io_err(tmp))?;
            }
            Sink::Parquet(w) => w.push(&rec.as_row())?,
        }
        Ok(())
    }

    /// Completes the output `tmp` and renames it to `path`.
    fn commit(self, tmp: &Path, path: &Path) -> Result<()> {
        match self {
            Sink::Jsonl(w) => Ok(commit_gz(w, tmp, path)?),
            Sink::Parquet(w) => {
                w.finish()?;
                std::fs::rename(tmp, path).map_err(io_err(path))
            }
        }
    }
}

/// The output of one input: its documents and its band keys.
pub(super) struct FileOut {
    path: PathBuf,
    /// The output being written (renamed to `path` when done).
    tmp: PathBuf,
    /// Template removal: the JSON lines of the first pass.
    spool: Option<PathBuf>,
    out: Sink,
    format: Format,
    full: bool,
    bands_path: PathBuf,
    bands_tmp: PathBuf,
    bands: GzFile,
    /// The docid list (`offset<TAB>docid` per document written).
    docids_path: PathBuf,
    docids_tmp: PathBuf,
    docids: GzFile,
    pos: u32,
    /// Documents per paragraph hash (template removal only).
    seen: HashMap<u64, u32>,
}

impl FileOut {
    /// The output files of input number `i` (`input`) in the extract
    /// directory `dir`, created (the band-key file with its header).
    pub(super) fn create(dir: &Path, i: usize, input: &Path, spec: &RecordSpec) -> Result<Self> {
        let path = dir.join(output_name(i, input, spec.format));
        let tmp = part(&path);
        let bands_path = bands_path(dir, i);
        let bands_tmp = part(&bands_path);
        let mut bands = create_gz(&bands_tmp)?;
        writeln!(bands, "{}", bands_header()).map_err(io_err(&bands_tmp))?;
        let docids_path = crate::unique::extract_docids_path(dir, i);
        let docids_tmp = part(&docids_path);
        let docids = create_gz(&docids_tmp)?;
        let spool = spec.max_paragraph_docs.map(|_| spool_path(&path));
        let out = match &spool {
            Some(sp) => Sink::Jsonl(create_gz(sp)?),
            None => Sink::create(&tmp, spec.format, spec.full)?,
        };
        Ok(FileOut {
            out,
            path,
            tmp,
            spool,
            format: spec.format,
            full: spec.full,
            bands_path,
            bands_tmp,
            bands,
            docids_path,
            docids_tmp,
            docids,
            pos: 0,
            seen: HashMap::new(),
        })
    }

    /// Closes both files; with `max_docs`, writes the output from the
    /// spooled first pass without the paragraphs seen in more than
    /// `max_docs` documents (and without the documents left with no
    /// text), counting both in `fs` and logging each dropped document in
    /// `log`.
    pub(super) fn finish(
        self,
        max_docs: Option<u32>,
        fs: &mut FileStats,
        log: &mut Vec<u8>,
    ) -> Result<()> {
        commit_gz(self.bands, &self.bands_tmp, &self.bands_path)?;
        commit_gz(self.docids, &self.docids_tmp, &self.docids_path)?;
        let (Some(max_docs), Some(spool)) = (max_docs, &self.spool) else {
            return self.out.commit(&self.tmp, &self.path);
        };
        let Sink::Jsonl(w) = self.out else {
            return Err(Error::Input {
                path: spool.clone(),
                detail: "internal: template removal without a spool".into(),
            });
        };
        end_gz(w, spool)?;
        let mut out = Sink::create(&self.tmp, self.format, self.full)?;
        let templates = Templates {
            seen: &self.seen,
            max_docs,
        };
        let file = File::open(spool).map_err(io_err(spool))?;
        for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let line = line.map_err(io_err(spool))?;
            let mut rec: JsonOwned = serde_json::from_str(&line).map_err(|e| {
                Error::Format(sieve_format::Error::NearDuplicates {
                    path: spool.clone(),
                    what: "record",
                    expected: "a JSON record written by extract".into(),
                    found: e.to_string(),
                })
            })?;
            if templates.strip(&mut rec, fs, log) {
                out.push(&rec, &self.tmp)?;
            }
        }
        out.commit(&self.tmp, &self.path)?;
        std::fs::remove_file(spool).map_err(io_err(spool))
    }
}

/// Template removal's table: the documents of an input per paragraph
/// hash, and the most a paragraph kept may be in.
struct Templates<'a> {
    seen: &'a HashMap<u64, u32>,
    max_docs: u32,
}

impl Templates<'_> {
    /// Drops from `rec`'s text every paragraph found in more than
    /// `max_docs` documents, counting them in `fs`; false when that leaves
    /// a text that was not empty with none (the document is then counted
    /// in `fs` and logged in `log` as `template_only`).
    fn strip(&self, rec: &mut JsonOwned, fs: &mut FileStats, log: &mut Vec<u8>) -> bool {
        let mut kept = Vec::new();
        for p in sieve_text::html::paragraphs(&rec.text) {
            if self.seen.get(&paragraph_hash(p)).copied().unwrap_or(0) > self.max_docs {
                fs.template_paragraphs += 1;
            } else {
                kept.push(p);
            }
        }
        if kept.is_empty() && !rec.text.is_empty() {
            fs.skip("template_only");
            fs.indexed -= 1;
            log_loss(
                log,
                &LossLine::new(&rec.source, rec.offset, Some(&rec.docid), "template_only"),
            );
            return false;
        }
        rec.text = kept.join("\n\n");
        true
    }
}

/// The temporary name of `path` while it is written.
fn part(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".part");
    PathBuf::from(s)
}

/// The first pass of template removal: JSON lines, whatever the format.
fn spool_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".spool.part");
    PathBuf::from(s)
}

impl DocWriter for FileOut {
    fn add(&mut self, made: Made) -> Result<()> {
        let Made::Record(r) = made else {
            return Err(Error::Input {
                path: self.path.clone(),
                detail: "internal: an index document sent to an extract file".into(),
            });
        };
        match (&mut self.out, &r.row) {
            (Sink::Parquet(w), Some(row)) => w.push(&row.as_row())?,
            (Sink::Jsonl(w), None) => {
                let at = self.spool.as_ref().unwrap_or(&self.tmp);
                w.write_all(&r.line).map_err(io_err(at))?;
                w.write_all(b"\n").map_err(io_err(at))?;
            }
            _ => {
                return Err(Error::Input {
                    path: self.path.clone(),
                    detail: "internal: a record made for another output format".into(),
                });
            }
        }
        if !r.keys.is_empty() {
            let keys: Vec<String> = r.keys.iter().map(|k| format!("{k:016x}")).collect();
            writeln!(self.bands, "{}\t{}\t{}", self.pos, keys.join(","), r.docid)
                .map_err(io_err(&self.bands_tmp))?;
        }
        writeln!(self.docids, "{}\t{}", r.offset, r.docid).map_err(io_err(&self.docids_tmp))?;
        self.pos += 1;
        for &h in &r.paragraphs {
            let n = self.seen.entry(h).or_insert(0);
            *n = n.saturating_add(1);
        }
        Ok(())
    }
}
