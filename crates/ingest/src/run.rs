//! What a build ([`crate::build`]) and an extract ([`crate::extract`])
//! share around their pipeline: the manifest of the run, claiming or
//! resuming the output directory, the worker pool, the inputs left to do,
//! the outputs beside the documents (the losses log and the quarantine, cut
//! back to the last checkpoint) and the final statistics.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use sieve_format::index::LOSSES;
use sieve_format::jsonfile::{only_unfinished, read_json};
use sieve_format::lock::{DirLock, claim_dir};
use sieve_format::manifest::{Checkpoint, Manifest, ManifestOptions, check_resume, input_info};
use sieve_format::schema::SCHEMA_VERSION;
use sieve_format::stats::{BuildStats, FileStats};

use crate::error::io_err;
use crate::losses::{LossLine, log_loss};
use crate::options::BuildOptions;
use crate::pipeline::{DocWriter, FileSink, Pipeline};
use crate::quarantine::Quarantine;
use crate::readahead::{FeedRx, write_file};
use crate::{Error, Result};

/// The manifest of a run of `opts` by `tool` with `options`: the inputs'
/// sizes and modification times, no state yet.
pub(crate) fn run_manifest(
    opts: &BuildOptions,
    tool: String,
    options: ManifestOptions,
) -> Result<Manifest> {
    Ok(Manifest {
        tool,
        schema_version: SCHEMA_VERSION,
        options,
        inputs: opts
            .inputs
            .iter()
            .map(|p| input_info(p))
            .collect::<sieve_format::Result<_>>()?,
        state: None,
        order: None,
        band_keys_dropped: false,
    })
}

/// Refuses the quarantine directory of `opts` (if any) before the output
/// directory is created.
pub(crate) fn precheck_quarantine(opts: &BuildOptions) -> Result<()> {
    if let Some(q) = &opts.quarantine {
        Quarantine::precheck(q, opts.resume)?;
    }
    Ok(())
}

/// Locks the output directory `opts.index` of a run whose manifest is the
/// file `name` in it. A non-empty directory is refused unless it holds a
/// valid manifest, or only the unfinished manifest of a run killed while
/// writing it; on a resume, a damaged manifest is named as such, not as a
/// foreign directory.
pub(crate) fn claim_output(opts: &BuildOptions, name: &str) -> Result<DirLock> {
    let path = opts.index.join(name);
    if opts.resume && path.is_file() {
        read_json::<Manifest>(&path)?;
    }
    Ok(claim_dir(&opts.index, |found| {
        read_json::<Manifest>(&path).is_ok() || only_unfinished(found, name)
    })?)
}

/// The manifest `name` of the run to resume in `opts.index`, checked with
/// `check` and then against `new` (same options and inputs); without
/// `resume`, the directory is refused as existing.
pub(crate) fn resumed_manifest(
    opts: &BuildOptions,
    name: &str,
    new: &Manifest,
    check: impl FnOnce(&Manifest) -> Result<()>,
) -> Result<Manifest> {
    if !opts.resume {
        return Err(Error::IndexExists {
            path: opts.index.clone(),
        });
    }
    let old: Manifest = read_json(&opts.index.join(name))?;
    check(&old)?;
    check_resume(&opts.index, &old, new)?;
    Ok(old)
}

/// The pool of `threads` workers that process the documents.
pub(crate) fn worker_pool(
    opts: &BuildOptions,
    threads: std::num::NonZeroUsize,
) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.get())
        .thread_name(|i| format!("sieve-work-{i}"))
        .build()
        .map_err(|e| Error::Input {
            path: opts.index.clone(),
            detail: format!("thread pool: {e}"),
        })
}

/// The inputs of `opts` not among the `completed` files, with their
/// ordinals, in input order.
pub(crate) fn inputs_to_do(opts: &BuildOptions, completed: &[FileStats]) -> Vec<(usize, PathBuf)> {
    let done: HashSet<String> = completed.iter().map(|f| f.path.clone()).collect();
    (opts.inputs.iter().cloned().enumerate())
        .filter(|(_, p)| !done.contains(p.to_string_lossy().as_ref()))
        .collect()
}

/// The outputs of a run beside its documents: the losses log and the
/// quarantine, both cut back to the last commit.
pub(crate) struct Outputs {
    losses_path: std::path::PathBuf,
    losses: BufWriter<File>,
    losses_len: u64,
    qname: Option<String>,
    quarantine: Option<Quarantine>,
}

impl Outputs {
    /// Opens the losses log and the quarantine, cut back to `checkpoint`; a
    /// resume must keep the same quarantine directory.
    pub(crate) fn open(opts: &BuildOptions, checkpoint: &Checkpoint) -> Result<Self> {
        let (losses_path, losses, losses_len) = open_losses(opts, checkpoint)?;
        // Quarantine, cut back likewise; a resume must keep the same directory.
        let qname = opts
            .quarantine
            .as_ref()
            .map(|q| q.to_string_lossy().into_owned());
        if !checkpoint.completed.is_empty() && checkpoint.quarantine != qname {
            return Err(Error::ResumeQuarantine {
                path: opts.index.clone(),
                had: checkpoint.quarantine.as_deref().unwrap_or("none").into(),
                has: qname.as_deref().unwrap_or("none").into(),
            });
        }
        let quarantine = match &opts.quarantine {
            Some(dir) => Some(Quarantine::open(
                dir,
                checkpoint.quarantine_len,
                opts.resume,
                opts.crawl.keep_limit(),
            )?),
            None => None,
        };
        Ok(Outputs {
            losses,
            losses_path,
            losses_len,
            qname,
            quarantine,
        })
    }

    /// Indexes input number `i` (`path`, named `name`) and appends its
    /// losses; returns its statistics.
    pub(crate) fn index_file(
        &mut self,
        pipeline: &Pipeline<'_>,
        feed: FeedRx,
        writer: &mut dyn DocWriter,
        name: &str,
        i: usize,
    ) -> Result<FileStats> {
        let mut fs = FileStats {
            path: name.to_string(),
            ..Default::default()
        };
        let mut log = Vec::new();
        if let Some(q) = &mut self.quarantine {
            q.start_file(name, i);
        }
        let mut sink = FileSink {
            name: name.to_string(),
            writer,
            fs: &mut fs,
            log: &mut log,
            quarantine: self.quarantine.as_mut(),
        };
        write_file(pipeline, feed, &mut sink)?;
        let io = io_err(&self.losses_path);
        self.losses.write_all(&log).map_err(&io)?;
        self.losses.flush().map_err(&io)?;
        self.losses_len += log.len() as u64;
        if let Some(q) = &mut self.quarantine {
            fs.quarantined = q.end_file()?;
        }
        Ok(fs)
    }

    /// Appends lines to the losses log (after a file, before its
    /// checkpoint).
    pub(crate) fn append_losses(&mut self, log: &[u8]) -> Result<()> {
        let io = io_err(&self.losses_path);
        self.losses.write_all(log).map_err(&io)?;
        self.losses.flush().map_err(&io)?;
        self.losses_len += log.len() as u64;
        Ok(())
    }

    /// The checkpoint after `completed`: their statistics and the committed
    /// lengths of the losses log and the quarantine.
    pub(crate) fn checkpoint(&self, completed: &[FileStats]) -> Checkpoint {
        Checkpoint {
            completed: completed.to_vec(),
            losses_len: self.losses_len,
            quarantine: self.qname.clone(),
            quarantine_len: self
                .quarantine
                .as_ref()
                .map_or(0, Quarantine::committed_len),
        }
    }
}

/// Opens the losses log of `opts`, cut back to what the last commit saw
/// (`checkpoint`); before the first commit, the input entries skipped
/// while expanding the inputs are logged first, once. Returns its path,
/// the writer and its length.
fn open_losses(
    opts: &BuildOptions,
    checkpoint: &Checkpoint,
) -> Result<(PathBuf, BufWriter<File>, u64)> {
    let losses_path = opts.index.join(LOSSES);
    let losses_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&losses_path)
        .map_err(io_err(&losses_path))?;
    losses_file
        .set_len(checkpoint.losses_len)
        .map_err(io_err(&losses_path))?;
    let mut losses = BufWriter::new(losses_file);
    let mut losses_len = checkpoint.losses_len;
    if checkpoint.completed.is_empty() {
        let mut log = Vec::new();
        for s in &opts.skipped_inputs {
            let line = LossLine {
                detail: Some(&s.reason),
                ..LossLine::new(&s.path, 0, None, "skipped_input")
            };
            log_loss(&mut log, &line);
        }
        losses.write_all(&log).map_err(io_err(&losses_path))?;
        losses_len += log.len() as u64;
    }
    Ok((losses_path, losses, losses_len))
}

/// The sums of `files`' statistics, named `(all)`.
pub(crate) fn totals(files: &[FileStats]) -> FileStats {
    let mut totals = FileStats {
        path: "(all)".into(),
        ..Default::default()
    };
    for f in files {
        totals.add(f);
    }
    totals
}

/// The statistics of the completed files, in input order, with totals.
pub(crate) fn final_stats(
    opts: &BuildOptions,
    completed: &[FileStats],
    started: Instant,
) -> BuildStats {
    let mut files = Vec::with_capacity(completed.len());
    for p in &opts.inputs {
        let name = p.to_string_lossy();
        if let Some(f) = completed.iter().find(|f| f.path == name) {
            files.push(f.clone());
        }
    }
    let totals = totals(&files);
    let failed_files = files.iter().filter_map(FileStats::failure).collect();
    let spam_without_doc = opts
        .spam
        .as_ref()
        .map(|m| (m.len() as u64).saturating_sub(totals.spam_scored));
    BuildStats {
        totals,
        files,
        failed_files,
        skipped_inputs: opts.skipped_inputs.clone(),
        spam_without_doc,
        near_duplicates: None,
        unique_docids: false,
        seconds: started.elapsed().as_secs_f64(),
    }
}
