//! `extract`: crawl files in, a document corpus out (the other half of what
//! users do with a crawl: text for rerankers, language models or another
//! engine).
//!
//! It is the build's pipeline ([`crate::pipeline`]) with another
//! destination: the same reader, charset decoding, UTF-8 cleaner, text
//! extraction (`--text all|main`), caps, filter, spam scores, losses log,
//! quarantine, statistics, exit codes, determinism and resume; only the
//! analysis and the tantivy writer are replaced by a JSON record per
//! document, written to one output file per input.
//!
//! # Output directory
//!
//! * `NNNNN-<input file name>.jsonl.gz`: one per input file (`NNNNN` its
//!   ordinal in the sorted input list, the name with anything but
//!   `A-Z a-z 0-9 . _ -` replaced by `_`), gzipped JSON lines, one per
//!   document in record order: `docid`, `url` (or null), `source` (the input
//!   as given), `offset` (of the record in the decompressed input),
//!   `charset` (WHATWG name), `charset_source` (which evidence decided it:
//!   `http`, `bom`, `meta`, `xml`, `detector`, `default`, `utf8`, ...),
//!   `errors` (the seven UTF-8 error counts), `spam` (the percentile, only
//!   when `--spam` gave one), `title`, and `text`: the paragraphs of the
//!   page separated by one blank line (each paragraph non-empty, its lines
//!   non-empty and trimmed of Unicode whitespace; see
//!   [`crate::html::clean_paragraphs`]; empty when the page has a title
//!   but no text). With `full`,
//!   also `warc_headers` and `http_headers` (the heads as read, lossy
//!   UTF-8; WARC records only) and `html` (the page decoded to UTF-8). A
//!   document without text is not written (skip reason `empty_text`, as
//!   for `build`).
//!   With `max_paragraph_docs` K (template removal), a paragraph found in
//!   more than K documents of the same input file (menus, footers,
//!   disclaimers repeated on every page of a site) is dropped from every
//!   document, and a document left without text is dropped too (skip
//!   reason `template_only`, in `stats.json` and `losses.jsonl`); the
//!   paragraphs dropped are counted per file (`template_paragraphs`). This
//!   needs a second pass over the file's output and a table of its distinct
//!   paragraphs (about 40 bytes each: some tens of MB for a 1 GB WARC
//!   file); near-duplicates are computed on the text before it.
//! * With [`Format::Parquet`], `NNNNN-<input file name>.parquet` instead:
//!   the same fields as columns (see [`crate::parquetfile`]). Template
//!   removal then writes its first pass as JSON lines to
//!   `NNNNN-<input file name>.parquet.spool.part` (deleted when done).
//! * `minhash/NNNNN.bands.gz`: the near-duplicate band keys of each
//!   document of that input (see [`crate::dedup`]).
//! * `near-duplicates.tsv.gz`, written at the end: a header line, then
//!   `docid<TAB>representative` for every document in a near-duplicate
//!   cluster of two or more, in input order (a representative names
//!   itself). A document not listed is alone in its cluster.
//! * `docids/NNNNN.tsv.gz`: `offset<TAB>docid` for each document written
//!   from that input. At the end, every document written whose docid an
//!   earlier one (in input order) already had is found from these lists
//!   ([`crate::unique::extract_duplicates`], across a resume too) and
//!   named in `losses.jsonl` (`"reason":"duplicate_docid"`, with
//!   `kept_file` and `kept_offset` of the first copy) and counted per file
//!   (`duplicate_docids` in `stats.json`). Unlike `build`, extract keeps
//!   the later copy in its output (an output file is final once its input
//!   is done, and the first copy may be in a file written long before): a
//!   reader that needs one record per docid drops the copies named in
//!   `losses.jsonl`.
//! * `extract.json` (the manifest: options, tool, inputs), `checkpoint.json`
//!   (the files done), `stats.json`, `losses.jsonl`: as for an index, sealed
//!   the same way.
//!
//! Output files are written as `*.part` and renamed when their input is
//! done, then the checkpoint is written (the manifest records the format:
//! a resume in another format is refused): a run killed at any point and
//! rerun with `resume` redoes only the interrupted input. Inputs whose
//! name ends in `.open` (still being written by a crawler) are skipped
//! and named, by [`crate::inputs`], for `build` too.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sieve_filters::utf8::Utf8Counts;

use crate::build::{Outputs, final_stats};
use crate::crawl::Heads;
use crate::dedup::{ClusterSummary, Clusterer, PARAMS, RUN_LINES, doc_ref};
use crate::document::IndexDoc;
use crate::error::io_err;
use crate::index::{GzFile, STATS, commit_gz, create_gz, create_private_dir, end_gz};
use crate::jsonfile::{only_unfinished, read_json, write_json};
use crate::lock::{DirLock, claim_dir};
use crate::manifest::{Checkpoint, Manifest, check_resume, input_info, manifest_options};
use crate::options::{BuildOptions, Progress, check_threads};
use crate::parquetfile::{Limits, ParquetWriter, Row};
use crate::pipeline::{DocWriter, Made, Pipeline};
use crate::quarantine::Quarantine;
use crate::readahead::for_each_file;
use crate::schema::SCHEMA_VERSION;
use crate::stats::{BuildStats, FileStats};
use crate::{Error, Result};

/// The manifest of an extract directory.
pub const EXTRACT_MANIFEST: &str = "extract.json";
/// The files done, rewritten after each input.
pub const CHECKPOINT: &str = "checkpoint.json";
/// The near-duplicate list.
pub const NEAR_DUPLICATES: &str = "near-duplicates.tsv.gz";
/// Folder of the band-key files.
pub const BANDS_DIR: &str = "minhash";
const BANDS_HEADER: &str = "sieve-bands 1";

/// The format of `extract`'s output files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// Gzipped JSON lines (`.jsonl.gz`).
    #[default]
    Jsonl,
    /// Parquet (`.parquet`, see [`crate::parquetfile`]).
    Parquet,
}

impl Format {
    /// Its name in the manifest (and on the command line).
    pub fn key(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }

    /// The extension of its output files.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl.gz",
            Format::Parquet => "parquet",
        }
    }
}

/// What `extract` writes per document besides the text.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordSpec {
    /// The output format.
    pub format: Format,
    /// Add the WARC and HTTP heads and the decoded HTML.
    pub full: bool,
    /// Template removal: drop every paragraph found in more than this many
    /// documents of the same input file (then every document left without
    /// text, skip reason `template_only`).
    pub max_paragraph_docs: Option<u32>,
}

/// Everything [`extract`] needs: the build's options (`build.index` is the
/// output directory) and what to write.
pub struct ExtractOptions {
    /// Inputs, caps, threads, filter, spam, quarantine, resume, text mode.
    pub build: BuildOptions,
    /// The record contents.
    pub spec: RecordSpec,
}

/// One document as `extract` writes it: its JSON line, made by a worker.
pub struct Record {
    /// The docid.
    pub docid: String,
    /// The record's offset in its (decompressed) input.
    pub offset: u64,
    /// Its band keys.
    pub keys: Vec<u64>,
    /// The JSON line, without its newline (empty when `row` is given).
    pub line: Vec<u8>,
    /// The record itself, for a Parquet output written directly (without
    /// template removal, which goes through JSON lines first).
    pub(crate) row: Option<Box<JsonOwned>>,
    /// The distinct hashes of its paragraphs (template removal only).
    pub paragraphs: Vec<u64>,
}

/// A paragraph's hash for template removal: FNV-1a of its bytes, mixed.
fn paragraph_hash(p: &str) -> u64 {
    sieve_filters::minhash::cluster_id(p)
}

#[derive(Serialize)]
struct Json<'a> {
    docid: &'a str,
    url: Option<&'a str>,
    source: &'a str,
    offset: u64,
    charset: &'a str,
    charset_source: &'a str,
    errors: Utf8Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    spam: Option<u8>,
    title: &'a str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    warc_headers: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_headers: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<&'a str>,
}

/// [`Json`] owned: read back (template removal rewrites the file), or
/// made for a Parquet output.
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct JsonOwned {
    docid: String,
    url: Option<String>,
    source: String,
    offset: u64,
    charset: String,
    charset_source: String,
    errors: Utf8Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    spam: Option<u8>,
    title: String,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    warc_headers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_headers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<String>,
}

impl JsonOwned {
    /// Its Parquet row.
    fn as_row(&self) -> Row<'_> {
        Row {
            docid: &self.docid,
            url: self.url.as_deref(),
            source: &self.source,
            offset: self.offset,
            charset: &self.charset,
            charset_source: &self.charset_source,
            errors: self.errors,
            spam: self.spam,
            title: &self.title,
            text: &self.text,
            warc_headers: self.warc_headers.as_deref(),
            http_headers: self.http_headers.as_deref(),
            html: self.html.as_deref(),
        }
    }
}

impl Record {
    /// The record of `doc` (`charset_source`: the deciding source's key).
    pub(crate) fn new(
        mut doc: IndexDoc,
        charset_source: &str,
        spec: &RecordSpec,
        heads: Option<Box<Heads>>,
        html: Option<String>,
    ) -> Record {
        let full = spec.full;
        let text = crate::html::clean_paragraphs(&doc.body);
        let mut paragraphs = Vec::new();
        if spec.max_paragraph_docs.is_some() {
            paragraphs.extend(crate::html::paragraphs(&text).map(paragraph_hash));
            paragraphs.sort_unstable();
            paragraphs.dedup();
        }
        let keys = std::mem::take(&mut doc.minhash);
        let offset = doc.offset;
        if spec.format == Format::Parquet && spec.max_paragraph_docs.is_none() {
            let heads = heads.filter(|_| full);
            let row = JsonOwned {
                docid: doc.docid.clone(),
                url: doc.url,
                source: doc.source,
                offset: doc.offset,
                charset: doc.charset,
                charset_source: charset_source.to_string(),
                errors: doc.counts,
                spam: doc.spam,
                title: doc.title,
                text,
                warc_headers: heads
                    .as_ref()
                    .map(|h| String::from_utf8_lossy(&h.warc).into_owned()),
                http_headers: heads
                    .as_ref()
                    .map(|h| String::from_utf8_lossy(&h.http).into_owned()),
                html: html.filter(|_| full),
            };
            return Record {
                keys,
                offset,
                docid: doc.docid,
                line: Vec::new(),
                row: Some(Box::new(row)),
                paragraphs,
            };
        }
        let json = Json {
            docid: &doc.docid,
            url: doc.url.as_deref(),
            source: &doc.source,
            offset: doc.offset,
            charset: &doc.charset,
            charset_source,
            errors: doc.counts,
            spam: doc.spam,
            title: &doc.title,
            text: &text,
            warc_headers: heads
                .as_ref()
                .filter(|_| full)
                .map(|h| String::from_utf8_lossy(&h.warc)),
            http_headers: heads
                .as_ref()
                .filter(|_| full)
                .map(|h| String::from_utf8_lossy(&h.http)),
            html: html.as_deref().filter(|_| full),
        };
        let line = serde_json::to_vec(&json).unwrap_or_default();
        Record {
            keys,
            offset,
            docid: doc.docid,
            line,
            row: None,
            paragraphs,
        }
    }
}

/// The output file name of input number `i` in `format`.
pub fn output_name(i: usize, path: &Path, format: Format) -> String {
    let name = path
        .file_name()
        .map_or_else(|| "input".into(), |n| n.to_string_lossy());
    let clean: String = name
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{i:05}-{clean}.{}", format.extension())
}

fn bands_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(BANDS_DIR).join(format!("{i:05}.bands.gz"))
}

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

/// The output of one input: its documents and its band keys.
struct FileOut {
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
    seen: std::collections::HashMap<u64, u32>,
}

impl FileOut {
    fn create(dir: &Path, i: usize, input: &Path, spec: &RecordSpec) -> Result<Self> {
        let path = dir.join(output_name(i, input, spec.format));
        let tmp = part(&path);
        let bands_path = bands_path(dir, i);
        let bands_tmp = part(&bands_path);
        let mut bands = create_gz(&bands_tmp)?;
        writeln!(
            bands,
            "{BANDS_HEADER} params={}w/{}x{}/{:016x}",
            PARAMS.shingle_words, PARAMS.bands, PARAMS.rows, PARAMS.seed
        )
        .map_err(io_err(&bands_tmp))?;
        let docids_path = crate::unique::extract_docids_path(dir, i);
        let docids_tmp = part(&docids_path);
        let docids = create_gz(&docids_tmp)?;
        let spool = spec.max_paragraph_docs.map(|_| spool_path(&path));
        let out = match (&spool, spec.format) {
            (Some(sp), _) => Sink::Jsonl(create_gz(sp)?),
            (None, Format::Jsonl) => Sink::Jsonl(create_gz(&tmp)?),
            (None, Format::Parquet) => {
                Sink::Parquet(ParquetWriter::create(&tmp, spec.full, Limits::default())?)
            }
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
            seen: std::collections::HashMap::new(),
        })
    }

    /// Closes both files; with `max_docs`, writes the output from the
    /// spooled first pass without the paragraphs seen in more than
    /// `max_docs` documents (and without the documents left with no
    /// text), counting both in `fs` and logging each dropped document in
    /// `log`.
    fn finish(self, max_docs: Option<u32>, fs: &mut FileStats, log: &mut Vec<u8>) -> Result<()> {
        commit_gz(self.bands, &self.bands_tmp, &self.bands_path)?;
        commit_gz(self.docids, &self.docids_tmp, &self.docids_path)?;
        let (Some(k), Some(spool)) = (max_docs, &self.spool) else {
            return match self.out {
                Sink::Jsonl(w) => Ok(commit_gz(w, &self.tmp, &self.path)?),
                Sink::Parquet(w) => {
                    w.finish()?;
                    std::fs::rename(&self.tmp, &self.path).map_err(io_err(&self.path))
                }
            };
        };
        let Sink::Jsonl(w) = self.out else {
            return Err(Error::Input {
                path: spool.clone(),
                detail: "internal: template removal without a spool".into(),
            });
        };
        end_gz(w, spool)?;
        let mut out = match self.format {
            Format::Jsonl => Sink::Jsonl(create_gz(&self.tmp)?),
            Format::Parquet => Sink::Parquet(ParquetWriter::create(
                &self.tmp,
                self.full,
                Limits::default(),
            )?),
        };
        let file = File::open(spool).map_err(io_err(spool))?;
        for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let line = line.map_err(io_err(spool))?;
            let mut rec: JsonOwned =
                serde_json::from_str(&line).map_err(|e| Error::NearDuplicates {
                    path: spool.clone(),
                    what: "record",
                    expected: "a JSON record written by extract".into(),
                    found: e.to_string(),
                })?;
            let mut kept = Vec::new();
            for p in crate::html::paragraphs(&rec.text) {
                if self.seen.get(&paragraph_hash(p)).copied().unwrap_or(0) > k {
                    fs.template_paragraphs += 1;
                } else {
                    kept.push(p);
                }
            }
            if kept.is_empty() && !rec.text.is_empty() {
                fs.skip("template_only");
                fs.indexed -= 1;
                crate::losses::log_loss(
                    log,
                    &crate::losses::LossLine::new(
                        &rec.source,
                        rec.offset,
                        Some(&rec.docid),
                        "template_only",
                    ),
                );
                continue;
            }
            rec.text = kept.join("\n\n");
            match &mut out {
                Sink::Jsonl(w) => {
                    let line = serde_json::to_vec(&rec).unwrap_or_default();
                    w.write_all(&line).map_err(io_err(&self.tmp))?;
                    w.write_all(b"\n").map_err(io_err(&self.tmp))?;
                }
                Sink::Parquet(w) => w.push(&rec.as_row())?,
            }
        }
        match out {
            Sink::Jsonl(w) => commit_gz(w, &self.tmp, &self.path)?,
            Sink::Parquet(w) => {
                w.finish()?;
                std::fs::rename(&self.tmp, &self.path).map_err(io_err(&self.path))?;
            }
        }
        std::fs::remove_file(spool).map_err(io_err(spool))
    }
}

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

/// Opens the output directory to resume (checking the manifest and reading
/// the checkpoint), or claims it and writes the manifest.
fn open_or_create(opts: &BuildOptions, manifest: &Manifest) -> Result<(Checkpoint, DirLock)> {
    let dir = &opts.index;
    let mpath = dir.join(EXTRACT_MANIFEST);
    if opts.resume && mpath.is_file() {
        read_json::<Manifest>(&mpath)?;
    }
    // As for a build: a valid manifest, or only the unfinished one of a run
    // killed while writing it.
    let lock = claim_dir(dir, |found| {
        read_json::<Manifest>(&mpath).is_ok() || only_unfinished(found, EXTRACT_MANIFEST)
    })?;
    if !mpath.exists() {
        write_json(&mpath, manifest)?;
        return Ok((Checkpoint::default(), lock));
    }
    if !opts.resume {
        return Err(Error::IndexExists { path: dir.clone() });
    }
    let old: Manifest = read_json(&mpath)?;
    let format = |m: &Manifest| {
        let o = m.options.output.as_deref().unwrap_or_default();
        o.split(' ').next().unwrap_or_default().to_string()
    };
    let (was, now) = (format(&old), format(manifest));
    if was != now {
        return Err(Error::Input {
            path: mpath,
            detail: format!(
                "cannot resume in another output format: this extract was written as {was}, this run asks for {now}"
            ),
        });
    }
    check_resume(dir, &old, manifest)?;
    let cpath = dir.join(CHECKPOINT);
    let checkpoint = if cpath.exists() {
        read_json(&cpath)?
    } else {
        Checkpoint::default()
    };
    Ok((checkpoint, lock))
}

/// Extracts the documents of every input (or, with `resume`, of those not
/// done yet), then clusters near-duplicates. Returns the statistics also
/// written to `stats.json`.
pub fn extract(opts: &ExtractOptions, progress: &dyn Progress) -> Result<BuildStats> {
    let started = Instant::now();
    let b = &opts.build;
    let threads = check_threads(b.threads)?;
    let mut options = manifest_options(b);
    // What is written must not change across a resume.
    let mut output = String::from(opts.spec.format.key());
    if opts.spec.full {
        output.push_str(" full");
    }
    if let Some(k) = opts.spec.max_paragraph_docs {
        output.push_str(&format!(" max-paragraph-docs={k}"));
    }
    options.output = Some(output);
    let manifest = Manifest {
        tool: format!("sieve {} extract", env!("CARGO_PKG_VERSION")),
        schema_version: SCHEMA_VERSION,
        options,
        inputs: b
            .inputs
            .iter()
            .map(|p| input_info(p))
            .collect::<sieve_format::Result<_>>()?,
        state: None,
    };
    if let Some(q) = &b.quarantine {
        Quarantine::precheck(q, b.resume)?;
    }
    let (checkpoint, _lock) = open_or_create(b, &manifest)?;
    create_private_dir(&b.index.join(BANDS_DIR))?;
    create_private_dir(&b.index.join(crate::unique::EXTRACT_DOCIDS_DIR))?;
    let mut out = Outputs::open(b, &checkpoint)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.get())
        .thread_name(|i| format!("sieve-work-{i}"))
        .build()
        .map_err(|e| Error::Input {
            path: b.index.clone(),
            detail: format!("thread pool: {e}"),
        })?;
    // Extract never analyses; the pipeline still carries the handles.
    let analyzer = crate::analysis::EnglishAnalyzer::new(b.analyzer);
    let fields = crate::schema::Fields::from_schema(&crate::schema::build_schema())?;
    let pipeline = Pipeline {
        opts: b,
        analyzer: &analyzer,
        fields: &fields,
        progress,
        extract: Some(&opts.spec),
    };
    let mut completed = checkpoint.completed;
    let done: HashSet<String> = completed.iter().map(|f| f.path.clone()).collect();
    let total = b.inputs.len();
    let todo: Vec<(usize, PathBuf)> = (b.inputs.iter().cloned().enumerate())
        .filter(|(_, p)| !done.contains(p.to_string_lossy().as_ref()))
        .collect();
    // As in `build`: files read and processed ahead of the writer (this
    // thread), which takes them in order, one checkpoint per file.
    for_each_file(
        &pool,
        &pipeline,
        &todo,
        threads.get(),
        |i, path, feed, _| {
            progress.file(path, i, total);
            let name = path.to_string_lossy().into_owned();
            let mut file = FileOut::create(&b.index, i, path, &opts.spec)?;
            let mut fs = out.index_file(&pipeline, feed, &mut file, &name, i)?;
            let mut log = Vec::new();
            file.finish(opts.spec.max_paragraph_docs, &mut fs, &mut log)?;
            out.append_losses(&log)?;
            completed.push(fs);
            Ok(write_json(&b.index.join(CHECKPOINT), &out.checkpoint(&completed))?)
        },
    )?;
    // On the pool, whose threads its sorts use.
    let dups = if b.near_duplicates {
        Some(pool.install(|| write_near_duplicates(&b.index, b.inputs.len(), RUN_LINES))?)
    } else {
        None
    };
    // Later copies of a docid: named and counted (they stay written).
    let mut log = Vec::new();
    crate::unique::extract_duplicates(&b.index, &b.inputs, &mut completed, &mut log)?;
    out.append_losses(&log)?;
    let mut stats = final_stats(b, &completed, started);
    stats.near_duplicates = dups;
    write_json(&b.index.join(STATS), &stats)?;
    Ok(stats)
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
    let bad = |what: &'static str, expected: &str, found: &str| Error::NearDuplicates {
        path: path.to_path_buf(),
        what,
        expected: expected.into(),
        found: found.chars().take(120).collect(),
    };
    let mut lines = r.lines();
    let want = format!(
        "{BANDS_HEADER} params={}w/{}x{}/{:016x}",
        PARAMS.shingle_words, PARAMS.bands, PARAMS.rows, PARAMS.seed
    );
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
    fn docid(&mut self, r: crate::dedup::DocRef) -> Result<String> {
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
        Err(Error::NearDuplicates {
            path,
            what: "document",
            expected: format!("a line for document {pos}"),
            found: "the end of the file".into(),
        })
    }
}

/// Clusters the documents of the `inputs` band-key files of the extract in
/// `dir` and writes [`NEAR_DUPLICATES`].
fn write_near_duplicates(dir: &Path, inputs: usize, run_lines: usize) -> Result<ClusterSummary> {
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
    let file = crate::outfile::OutFile::create(out)?;
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

/// Per-input statistics of an extract, from its `stats.json`.
pub fn read_extract_stats(dir: &Path) -> Result<BuildStats> {
    Ok(read_json(&dir.join(STATS))?)
}
