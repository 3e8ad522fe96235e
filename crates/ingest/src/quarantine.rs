//! The quarantine: the bytes of everything a build did not index, for
//! inspection (`sieve-index build --quarantine DIR`).
//!
//! # Layout
//!
//! * One file per quarantined item, named only from numbers the build
//!   chose: `f<ordinal>-<offset>.rec`, where `ordinal` is the input file's
//!   position in the sorted input list (4 digits or more) and `offset` the
//!   item's byte offset in the decompressed input (12 digits or more), e.g.
//!   `f0003-000000123456.rec`. Should two items of a file share an offset,
//!   the later ones get `-1`, `-2`, ... before `.rec`. Nothing taken from the
//!   input (a path, a record id, a URL) ever becomes part of a file name.
//! * [`INDEX`] (`quarantine.jsonl`): one JSON line per item, in input order:
//!
//!   ```json
//!   {"source":"crawl/a.warc.gz","ordinal":3,"offset":123456,"record_id":"clueweb09-en0000-00-00001",
//!    "reason":"not_html","content":"record","file":"f0003-000000123456.rec","bytes":5120,
//!    "truncated":false,"indexed":false}
//!   ```
//!
//!   `content` says what the file holds: `record` (a record the reader
//!   skipped: for WARC its header and block, for TREC from `<DOC>` on, for
//!   SMART from its `.I` line on),
//!   `body` (a document dropped or capped after reading: its HTTP entity
//!   body as read, de-chunked and gunzipped), `garbage` (bytes skipped to
//!   resynchronise between records), `gzip` (the compressed bytes of a
//!   damaged gzip member that was skipped, from its start; the item's
//!   offset is the decompressed offset where the next member's output
//!   starts, and `detail` names the compressed offset and the reason) or
//!   `null` with `file` null (a file-level
//!   stop, e.g. `cap:decompression_ratio` for a gzip bomb; `detail` says
//!   more). `bytes` is the length written, at most the record byte cap plus
//!   64 KiB; `truncated` is true if the input held more. `indexed` is true
//!   for a document that was indexed (cut) after hitting a cap: its reason
//!   is `cap:` and the caps it hit, comma-separated (`cap:record_bytes`,
//!   `cap:record_bytes,html_depth`). A document that hit a cap and was then
//!   not indexed has the skip reason (`empty_text`, `time_budget`, ...); the
//!   caps are in `losses.jsonl` either way.
//!
//! The directory is created readable by its owner only (and group, 0750).
//! Items are written by the one thread that also adds documents to the
//! index, in input order, so the quarantine is the same for any
//! `--threads`.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sieve_format::lock::{DirLock, claim_dir};

use crate::{Error, Result};

/// Name of the index of a quarantine directory.
pub const INDEX: &str = "quarantine.jsonl";

/// What a quarantine file holds (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// A record as stored, from its start.
    Record,
    /// The entity body of a document.
    Body,
    /// Bytes skipped between records.
    Garbage,
    /// The *compressed* bytes of a damaged gzip member that was skipped
    /// (`gzip_member`), from the member's start; `detail` gives its
    /// compressed offset.
    Gzip,
}

/// One quarantined item, before writing.
pub struct Item<'a> {
    /// Offset in the decompressed input.
    pub offset: u64,
    /// The record id, if known.
    pub record_id: Option<&'a str>,
    /// Why it is here (a skip reason, an anomaly kind or `cap:<name>`).
    pub reason: &'a str,
    /// The bytes and what they are, if there are any.
    pub data: Option<(Content, &'a [u8])>,
    /// The input held more than `data`.
    pub truncated: bool,
    /// The document was indexed (in part) anyway.
    pub indexed: bool,
    /// Extra detail (file-level stops).
    pub detail: Option<&'a str>,
}

#[derive(Serialize)]
struct Line<'a> {
    source: &'a str,
    ordinal: usize,
    offset: u64,
    record_id: Option<&'a str>,
    reason: &'a str,
    content: Option<Content>,
    file: Option<&'a str>,
    bytes: u64,
    truncated: bool,
    indexed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
}

/// Writes a quarantine directory. Index lines are buffered per input file
/// and appended by [`Quarantine::end_file`], so that a resumed build can cut
/// the index back to the last committed file.
pub struct Quarantine {
    _lock: DirLock,
    resume: bool,
    dir: PathBuf,
    index: BufWriter<File>,
    len: u64,
    max_bytes: usize,
    pending: Vec<u8>,
    used: HashMap<u64, u32>,
    source: String,
    ordinal: usize,
    items: u64,
}

impl Quarantine {
    /// Checks, creating nothing, that [`Quarantine::open`] would accept
    /// `dir`: no foreign files (see [`sieve_format::lock::check_claimable`]) and,
    /// unless `resume`, no quarantine in it already. A build calls this
    /// before it creates its index directory.
    pub fn precheck(dir: &Path, resume: bool) -> Result<()> {
        sieve_format::lock::check_claimable(dir, |found| found.iter().any(|f| f == INDEX))?;
        Self::check_existing(dir, resume).map(|_| ())
    }

    /// The length of the quarantine index in `dir` (0 if none); refused
    /// when it is not empty and this is not a resume.
    fn check_existing(dir: &Path, resume: bool) -> Result<u64> {
        let path = dir.join(INDEX);
        let existing = std::fs::metadata(&path).map_or(0, |m| m.len());
        if !resume && existing > 0 {
            return Err(Error::Input {
                path,
                detail: "this quarantine directory already holds a quarantine; choose a new or empty one".into(),
            });
        }
        Ok(existing)
    }

    /// Opens `dir` (created 0750 if missing), with its index cut back to
    /// `committed_len` bytes (0 for a new build: an existing non-empty index
    /// is then an error, so two builds never mix in one directory). Items
    /// are cut at `max_bytes`.
    ///
    /// The directory's last component is created (0750) if missing, and it
    /// is locked for the life of the returned value ([`sieve_format::lock`]). A
    /// non-empty directory without [`INDEX`] is refused, naming what it
    /// holds; a new build never writes over an existing file.
    pub fn open(dir: &Path, committed_len: u64, resume: bool, max_bytes: usize) -> Result<Self> {
        let lock = claim_dir(dir, |found| found.iter().any(|f| f == INDEX))?;
        let path = dir.join(INDEX);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let existing = Self::check_existing(dir, resume)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        let len = existing.min(committed_len);
        file.set_len(len).map_err(io)?;
        Ok(Quarantine {
            _lock: lock,
            resume,
            dir: dir.to_path_buf(),
            index: BufWriter::new(file),
            len,
            max_bytes,
            pending: Vec::new(),
            used: HashMap::new(),
            source: String::new(),
            ordinal: 0,
            items: 0,
        })
    }

    /// Starts input file number `ordinal` (its position in the input list).
    pub fn start_file(&mut self, source: &str, ordinal: usize) {
        self.source = source.to_string();
        self.ordinal = ordinal;
        self.pending.clear();
        self.used.clear();
        self.items = 0;
    }

    /// Quarantines one item of the current file.
    pub fn add(&mut self, item: &Item<'_>) -> Result<()> {
        let mut name = None;
        let mut written = 0u64;
        let mut truncated = item.truncated;
        if let Some((_, bytes)) = item.data {
            let n = self.used.entry(item.offset).or_insert(0);
            let stem = format!("f{:04}-{:012}", self.ordinal, item.offset);
            let file = if *n == 0 {
                format!("{stem}.rec")
            } else {
                format!("{stem}-{n}.rec")
            };
            *n += 1;
            let keep = bytes.len().min(self.max_bytes);
            truncated |= keep < bytes.len();
            let path = self.dir.join(&file);
            self.write_item(&path, &file, &bytes[..keep])?;
            written = keep as u64;
            name = Some(file);
        }
        let line = Line {
            source: &self.source,
            ordinal: self.ordinal,
            offset: item.offset,
            record_id: item.record_id,
            reason: item.reason,
            content: item.data.map(|(c, _)| c),
            file: name.as_deref(),
            bytes: written,
            truncated,
            indexed: item.indexed,
            detail: item.detail,
        };
        if serde_json::to_writer(&mut self.pending, &line).is_ok() {
            self.pending.push(b'\n');
        }
        self.items += 1;
        Ok(())
    }

    /// Writes one item file. A new build creates it (an existing file of
    /// that name is [`sieve_format::Error::Foreign`]); a resume may replace the files of
    /// the interrupted, uncommitted input.
    fn write_item(&self, path: &Path, name: &str, bytes: &[u8]) -> Result<()> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut o = OpenOptions::new();
        o.write(true);
        if self.resume {
            o.create(true).truncate(true);
        } else {
            o.create_new(true);
        }
        let mut f = match o.open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Error::Format(sieve_format::Error::Foreign {
                    path: path.to_path_buf(),
                    found: vec![name.to_string()],
                }));
            }
            Err(e) => return Err(io(e)),
        };
        f.write_all(bytes).map_err(io)
    }

    /// Ends the current file: appends its index lines and flushes. Returns
    /// the number of items quarantined for it.
    pub fn end_file(&mut self) -> Result<u64> {
        let path = self.dir.join(INDEX);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        self.index.write_all(&self.pending).map_err(io)?;
        self.index.flush().map_err(io)?;
        self.len += self.pending.len() as u64;
        self.pending.clear();
        Ok(self.items)
    }

    /// Length of the index after the last [`Quarantine::end_file`] (for the
    /// commit checkpoint).
    pub fn committed_len(&self) -> u64 {
        self.len
    }
}
