//! `extract`: crawl files in, a document corpus out (the other half of what
//! users do with a crawl: text for rerankers, language models or another
//! engine).
//!
//! It is the build's pipeline (`pipeline`) with another
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
//!   [`sieve_text::html::clean_paragraphs`]; empty when the page has a title
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
//!   (`unique::extract_duplicates`, across a resume too) and
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
//! and named, by [`sieve_crawl::inputs`], for `build` too.
//!
//! # Layout
//!
//! This module drives an extract (its manifest and checkpoint, the loop
//! over the inputs, the near-duplicates and the duplicate docids at the
//! end); `output` writes the files of one input, `bands` the band-key
//! files and the near-duplicate list; the record of a document is made by
//! the workers (`crate::record`).

mod bands;
mod output;

use std::path::Path;
use std::time::Instant;

use sieve_analysis::EnglishAnalyzer;
use sieve_format::index::{STATS, create_private_dir};
use sieve_format::jsonfile::{read_json, write_json};
use sieve_format::lock::DirLock;
use sieve_format::manifest::{Checkpoint, Manifest};
use sieve_format::schema::{Fields, build_schema};
use sieve_format::stats::{BuildStats, FileStats};

use crate::dedup::RUN_LINES;
use crate::manifest::manifest_options;
use crate::options::{BuildOptions, Progress, check_threads};
use crate::pipeline::Pipeline;
use crate::readahead::for_each_file;
use crate::run::{
    Outputs, claim_output, final_stats, inputs_to_do, precheck_quarantine, resumed_manifest,
    run_manifest, worker_pool,
};
use crate::{Error, Result};

pub use crate::record::{Format, RecordSpec};
pub use bands::{merge_near_duplicates, parse_bands};

/// The manifest of an extract directory.
pub const EXTRACT_MANIFEST: &str = "extract.json";
/// The files done, rewritten after each input.
pub const CHECKPOINT: &str = "checkpoint.json";
/// The near-duplicate list.
pub const NEAR_DUPLICATES: &str = "near-duplicates.tsv.gz";
/// Folder of the band-key files.
pub const BANDS_DIR: &str = "minhash";

/// Everything [`extract`] needs: the build's options (`build.index` is the
/// output directory) and what to write.
pub struct ExtractOptions {
    /// Inputs, caps, threads, filter, spam, quarantine, resume, text mode.
    pub build: BuildOptions,
    /// The record contents.
    pub spec: RecordSpec,
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

/// The `output` entry of an extract's manifest options: the format and
/// what the records hold (what is written must not change across a
/// resume).
fn output_key(spec: &RecordSpec) -> String {
    let mut output = String::from(spec.format.key());
    if spec.full {
        output.push_str(" full");
    }
    if let Some(k) = spec.max_paragraph_docs {
        output.push_str(&format!(" max-paragraph-docs={k}"));
    }
    output
}

/// Opens the output directory to resume (checking the manifest and reading
/// the checkpoint), or claims it and writes the manifest.
fn open_or_create(opts: &BuildOptions, manifest: &Manifest) -> Result<(Checkpoint, DirLock)> {
    let dir = &opts.index;
    let mpath = dir.join(EXTRACT_MANIFEST);
    // As for a build: a valid manifest, or only the unfinished one of a run
    // killed while writing it.
    let lock = claim_output(opts, EXTRACT_MANIFEST)?;
    if !mpath.exists() {
        write_json(&mpath, manifest)?;
        return Ok((Checkpoint::default(), lock));
    }
    resumed_manifest(opts, EXTRACT_MANIFEST, manifest, |old| {
        same_format(old, manifest, &mpath)
    })?;
    let cpath = dir.join(CHECKPOINT);
    let checkpoint = if cpath.exists() {
        read_json(&cpath)?
    } else {
        Checkpoint::default()
    };
    Ok((checkpoint, lock))
}

/// Refuses to resume the extract of manifest `old` (at `mpath`) in
/// another output format than `new`'s.
fn same_format(old: &Manifest, new: &Manifest, mpath: &Path) -> Result<()> {
    let format = |m: &Manifest| {
        let o = m.options.output.as_deref().unwrap_or_default();
        o.split(' ').next().unwrap_or_default().to_string()
    };
    let (was, now) = (format(old), format(new));
    if was != now {
        return Err(Error::Input {
            path: mpath.to_path_buf(),
            detail: format!(
                "cannot resume in another output format: this extract was written as {was}, this run asks for {now}"
            ),
        });
    }
    Ok(())
}

/// Extracts the documents of every input (or, with `resume`, of those not
/// done yet), then clusters near-duplicates. Returns the statistics also
/// written to `stats.json`.
pub fn extract(opts: &ExtractOptions, progress: &dyn Progress) -> Result<BuildStats> {
    let started = Instant::now();
    let b = &opts.build;
    let threads = check_threads(b.threads)?;
    let mut options = manifest_options(b);
    options.output = Some(output_key(&opts.spec));
    let tool = format!("sieve {} extract", env!("CARGO_PKG_VERSION"));
    let manifest = run_manifest(b, tool, options)?;
    precheck_quarantine(b)?;
    let (checkpoint, _lock) = open_or_create(b, &manifest)?;
    create_private_dir(&b.index.join(BANDS_DIR))?;
    create_private_dir(&b.index.join(crate::unique::EXTRACT_DOCIDS_DIR))?;
    let mut out = Outputs::open(b, &checkpoint)?;
    let pool = worker_pool(b, threads)?;
    // Extract never analyses; the pipeline still carries the handles.
    let analyzer = EnglishAnalyzer::new(b.analyzer);
    let fields = Fields::from_schema(&build_schema())?;
    let pipeline = Pipeline {
        opts: b,
        analyzer: &analyzer,
        fields: &fields,
        progress,
        extract: Some(&opts.spec),
    };
    let mut completed = checkpoint.completed;
    let todo = inputs_to_do(b, &completed);
    let total = b.inputs.len();
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
            let mut file = output::FileOut::create(&b.index, i, path, &opts.spec)?;
            let mut fs = out.index_file(&pipeline, feed, &mut file, &name, i)?;
            let mut log = Vec::new();
            file.finish(opts.spec.max_paragraph_docs, &mut fs, &mut log)?;
            out.append_losses(&log)?;
            completed.push(fs);
            Ok(write_json(
                &b.index.join(CHECKPOINT),
                &out.checkpoint(&completed),
            )?)
        },
    )?;
    let stats = finish(&pool, b, &mut out, &mut completed, started)?;
    write_json(&b.index.join(STATS), &stats)?;
    Ok(stats)
}

/// After the last input: the near-duplicate clusters (on `pool`, whose
/// threads their sorts use), then the later copies of a docid named and
/// counted (they stay written); returns the statistics.
fn finish(
    pool: &rayon::ThreadPool,
    b: &BuildOptions,
    out: &mut Outputs,
    completed: &mut [FileStats],
    started: Instant,
) -> Result<BuildStats> {
    let dups = if b.near_duplicates {
        Some(pool.install(|| bands::write_near_duplicates(&b.index, b.inputs.len(), RUN_LINES))?)
    } else {
        None
    };
    let mut log = Vec::new();
    crate::unique::extract_duplicates(&b.index, &b.inputs, completed, &mut log)?;
    out.append_losses(&log)?;
    let mut stats = final_stats(b, completed, started);
    stats.near_duplicates = dups;
    Ok(stats)
}

/// Per-input statistics of an extract, from its `stats.json`.
pub fn read_extract_stats(dir: &Path) -> Result<BuildStats> {
    Ok(read_json(&dir.join(STATS))?)
}
