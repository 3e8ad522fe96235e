//! Near-duplicate clusters of a whole collection, in bounded memory.
//!
//! Every document's text gets 16 MinHash band keys while it is processed
//! ([`band_keys`], [`PARAMS`]; the similarity they detect is described in
//! [`sieve_filters::minhash`]): `build` stores them in the `minhash` fast
//! field, `extract` in a band file per input. Once every document is in,
//! [`Clusterer`] joins documents that share a key into clusters (the
//! connected components of the "shares a band key" relation) and names
//! each cluster's **representative**: its smallest docid in byte order.
//! The result is the same for any thread count, input order or shard
//! layout, because it depends only on the set of (docid, keys) pairs.
//!
//! # Scaling past one machine's memory
//!
//! Nothing here holds the collection: (key, document) pairs go through
//! external sorts of fixed-size binary records (sorted runs of at most
//! [`RUN_LINES`] records, merged from disk, as [`sieve_format::extsort`] does for
//! docid lists), and clusters are found by **label propagation over
//! sorted runs**, the label of a document being at first its own number
//! ([`DocRef`]):
//!
//! 1. sort the (key, document) pairs; a key held by one document is
//!    dropped;
//! 2. the first record of each key's group, sorted by (key, label), holds
//!    the group's smallest label; send it to every member, as (document,
//!    label, key) records;
//! 3. sort those by (document, label): the first record of each document
//!    holds its new label, the smallest over all its keys; write the
//!    (key, label, document) records of the next round;
//! 4. repeat until, in step 2, every group's members already share one
//!    label (labels only decrease, so this ends, after about as many
//!    rounds as the longest chain of documents linked key to key, plus the
//!    round that finds nothing to change: 2 for exact copies);
//! 5. the clustered documents, named by their docids, are sorted by
//!    (label, docid): the first of each label is the cluster's
//!    representative (its smallest docid), written back per document by
//!    one more sort. At most a run of docid lines (a quarter of
//!    [`RUN_LINES`]) are sorted in memory as (label, docid, document)
//!    triples; more go through sorted runs of text lines. The two give
//!    the same calls (tested on the same documents).
//!
//! A key given twice for one document links it to nothing. When at most
//! twice [`RUN_LINES`] documents have keys (12 bytes each, the memory of
//! one sorted run: 2 million documents), steps 2 to 4 are replaced by a
//! union-find over the sorted pairs of step 1, in memory: the connected
//! components are the same (each still labelled with its smallest
//! document), so the clusters, representatives and every call made are
//! the same, without the rounds of sorts (`rounds` is then 0; a test
//! runs both on the same documents and compares everything they say).
//!
//! Each round is two external sorts of one 24-byte record per key of a
//! clustered document; the first sort has one 16-byte record per key of
//! every document (16 per document). A sort's last run is not written
//! out but merged from memory (for most collections a sort's only run:
//! no disk at all), so memory is two sorted runs of at most [`RUN_LINES`]
//! records (the one read and the one collected, 48 MB; later a run in
//! memory and a quarter as many docid lines) plus one record and an 8 KB
//! read buffer per run file during a merge; disk is about as much as the
//! records sorted. Runs are sorted on the rayon pool the caller runs in
//! (`build` and `extract`: their `--threads`; `merge`: rayon's global
//! pool, a thread per core). An index built in shards and merged
//! ([`crate::shard::merge_shards`]) is clustered again over all its
//! documents, so the clusters of a merged index are those of one build.
//! `build` reads the keys of the segments committed before its last file
//! while that file is indexed and committed ([`EarlyKeys`]), so that its
//! final pass reads only the last segments' keys; the clusters are the
//! same (tested).
//!
//! Docids containing a control character (below U+0020: a tab or a line
//! break) cannot be written in the sorted lines and are never clustered
//! (each is its own cluster); they are counted in
//! [`ClusterSummary::unclusterable`].
//!
//! # The cluster column of an index (`IDX/dups/<segment>.dup.gz`)
//!
//! tantivy's fast fields are written with the document, before its
//! cluster is known, so the clusters of an index are stored as a
//! per-segment column beside it, like the block-max bounds: a gzip file
//! (its CRC-32 and length are checked when read) holding the header line
//! `sieve-near-duplicates 1 segment=<segment id> docs=<max doc>
//! params=<words>w/<bands>x<rows>/<seed>` and then exactly one line per
//! document of the segment, in document order: empty for a document alone
//! in its cluster, `=` for the representative of a cluster of several, or
//! the representative's docid for every other member (a near-duplicate).
//! A document's 64-bit cluster id is
//! [`sieve_filters::minhash::cluster_id`] of its representative's docid.
//!
//! # Layout
//!
//! This module holds the band keys and [`Clusterer`]; `clusters` the
//! steps of the clustering (label propagation, union-find, the naming of
//! representatives); `segments` the clusters of an index (band keys read
//! from its segments, docids from its dictionaries, its cluster columns
//! written).

mod clusters;
mod segments;

use std::path::Path;
use std::sync::LazyLock;

use sieve_filters::minhash::MinHasher;
use sieve_format::dups::PARAMS;
use sieve_format::extsort::RecordRuns;
use sieve_format::stats::ClusterSummary;

use crate::Result;
use crate::error::io_err;
use clusters::{name_in_memory, name_in_runs, propagate, union_find};

pub use segments::{EarlyKeys, for_each_clustered_doc, write_index_dups, write_index_dups_from};

/// Records per sorted run of the external sorts (a quarter as many docid
/// lines): 1 million records of at most 24 bytes, 24 MB; two runs are in
/// memory at once.
pub const RUN_LINES: usize = 1_000_000;

static HASHER: LazyLock<MinHasher> = LazyLock::new(|| MinHasher::new(PARAMS));

/// The band keys of a document's text: of `body`, or of `title` when the
/// body has no word; empty when neither has one.
pub fn band_keys(title: &str, body: &str) -> Vec<u64> {
    HASHER
        .band_keys(body)
        .or_else(|| HASHER.band_keys(title))
        .unwrap_or_default()
}

/// A document's place: (segment ordinal, doc id) of an index, or (input
/// ordinal, document ordinal) of an extract, packed high and low.
pub type DocRef = u64;

/// Packs a [`DocRef`].
pub fn doc_ref(group: u32, position: u32) -> DocRef {
    (u64::from(group) << 32) | u64::from(position)
}

/// Collects (document, band keys) pairs and clusters them (see the module
/// docs).
pub struct Clusterer {
    tmp: tempfile::TempDir,
    runs: RecordRuns<2>,
    run_records: usize,
    documents: u64,
    unclusterable: u64,
    /// The documents given keys, in increasing order, while they are few
    /// enough to be clustered in memory ([`Clusterer::memory_docs`]);
    /// `None` once they are not.
    in_memory: Option<Vec<DocRef>>,
}

impl Clusterer {
    /// A clusterer whose temporary files go in a new directory inside
    /// `parent` (the output directory, whose lock the caller holds: the
    /// sorts need disk, not memory); stale ones of a killed run are
    /// removed first.
    /// `run_records`: records per sorted run (memory: 24 bytes each).
    pub fn new(parent: &Path, run_records: usize) -> Result<Self> {
        // A run killed while clustering leaves its directory behind: the
        // caller holds the output directory's lock, so any is stale.
        for entry in std::fs::read_dir(parent).map_err(io_err(parent))? {
            let path = entry.map_err(io_err(parent))?.path();
            if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".sieve-dedup-"))
                && path.is_dir()
            {
                std::fs::remove_dir_all(&path).map_err(io_err(&path))?;
            }
        }
        let tmp = tempfile::Builder::new()
            .prefix(".sieve-dedup-")
            .tempdir_in(parent)
            .map_err(io_err(parent))?;
        let runs = RecordRuns::new(tmp.path(), "keys", run_records);
        Ok(Clusterer {
            tmp,
            runs,
            run_records,
            documents: 0,
            unclusterable: 0,
            in_memory: Some(Vec::new()),
        })
    }

    /// The most documents clustered in memory: 12 bytes each (a
    /// [`DocRef`] and a parent), as much memory as one sorted run of
    /// 24-byte records.
    fn memory_docs(&self) -> usize {
        self.run_records.saturating_mul(2)
    }

    /// Adds one document (`docid` is only checked here: the docids of
    /// clustered documents are asked for at the end). Documents must be
    /// added with distinct [`DocRef`]s; documents without keys may be left
    /// out.
    pub fn add(&mut self, r: DocRef, docid: &str, keys: &[u64]) -> Result<()> {
        self.add_checked(r, !docid.bytes().any(|b| b < 0x20), keys)
    }

    /// [`Clusterer::add`] for a caller that has checked the docid:
    /// `clusterable` is false when it holds a control character.
    pub fn add_checked(&mut self, r: DocRef, clusterable: bool, keys: &[u64]) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        self.documents += 1;
        if !clusterable {
            self.unclusterable += 1;
            return Ok(());
        }
        let limit = self.memory_docs();
        if let Some(refs) = &mut self.in_memory {
            if refs.len() >= limit || refs.last().is_some_and(|&last| last >= r) {
                self.in_memory = None;
            } else {
                refs.push(r);
            }
        }
        for &k in keys {
            self.runs.push([k, r])?;
        }
        Ok(())
    }

    /// Clusters everything added. Every document in a cluster of two or
    /// more is then given a lookup key by `lookup_key(document)` (asked in
    /// increasing [`DocRef`] order), `docid_of(key, document)` is asked for
    /// its docid in increasing (key, document) order (an index looks
    /// docids up in the order of its docid dictionaries; the identity keeps
    /// [`DocRef`] order), and `f(document, its docid, representative)` is
    /// called for each of them in increasing [`DocRef`] order (a
    /// representative names itself). Documents not named are alone.
    pub fn finish(
        self,
        mut lookup_key: impl FnMut(DocRef) -> Result<u64>,
        docid_of: impl FnMut(u64, DocRef) -> Result<String>,
        f: impl FnMut(DocRef, &str, &str) -> Result<()>,
    ) -> Result<ClusterSummary> {
        let Clusterer {
            tmp,
            runs,
            run_records,
            documents,
            unclusterable,
            in_memory,
        } = self;
        let dir = tmp.path().to_path_buf();
        let mut summary = ClusterSummary {
            documents,
            unclusterable,
            ..Default::default()
        };
        // Labels are document numbers: a cluster's label ends as its
        // smallest DocRef; its smallest docid is found at the end.
        let pairs = runs.finish()?;
        // (lookup key, document, label) of the clustered documents.
        let mut labels = RecordRuns::<3>::new(&dir, "labels", run_records);
        let mut label = |r: DocRef, l: DocRef| Ok(labels.push([lookup_key(r)?, r, l])?);
        match in_memory {
            Some(refs) => union_find(pairs, &refs, &dir, &mut label)?,
            None => summary.rounds = propagate(pairs, &dir, run_records, &mut label)?,
        }
        // The smallest docid of each cluster: (label, docid, doc) sorted,
        // the first of each label names the representative; then each
        // document is told its representative in document order.
        let label_runs = labels.finish()?;
        let run_lines = (run_records / 4).max(1);
        if label_runs.len() <= run_lines {
            name_in_memory(label_runs, &mut summary, docid_of, f)?;
        } else {
            name_in_runs(label_runs, &dir, run_lines, &mut summary, docid_of, f)?;
        }
        summary.duplicates = summary.clustered - summary.clusters;
        Ok(summary)
    }
}

#[cfg(test)]
mod tests;
