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
//! [`RUN_LINES`] records, merged from disk, as [`crate::extsort`] does for
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

pub use sieve_format::dups::*;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use rayon::slice::ParallelSliceMut;
use sieve_filters::minhash::MinHasher;
use tantivy::index::SegmentId;
use tantivy::{Index, Segment, SegmentReader};

use crate::extsort::{RecordRuns, Records, SortedRuns, merge_sorted_lines};
use crate::error::io_err;
use crate::index::{create_private_dir, docid_column};
use crate::schema::MINHASH;
use crate::{Error, Result};


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

/// Step 5 of the module docs for at most a run of labelled documents
/// (the memory of one run of docid lines): sorted in memory as (label,
/// docid, document) triples, in the order of [`name_in_runs`]'s lines
/// (docids of clustered documents hold no control character, so a docid
/// sorts before any longer one it begins), with the same calls.
fn name_in_memory(
    labels: Records<3>,
    summary: &mut ClusterSummary,
    mut docid_of: impl FnMut(u64, DocRef) -> Result<String>,
    mut f: impl FnMut(DocRef, &str, &str) -> Result<()>,
) -> Result<()> {
    let mut named: Vec<(DocRef, DocRef, String)> = Vec::with_capacity(labels.len());
    labels.merge(|[k, r, l]| {
        named.push((l, r, docid_of(k, r)?));
        Ok::<(), Error>(())
    })?;
    named.par_sort_unstable_by(|a, b| {
        (a.0.cmp(&b.0))
            .then_with(|| a.2.as_bytes().cmp(b.2.as_bytes()))
            .then(a.1.cmp(&b.1))
    });
    // (document, its place in `named`, its representative's place).
    let mut by_doc: Vec<(DocRef, u32, u32)> = Vec::with_capacity(named.len());
    let mut rep = 0usize;
    for (i, (l, r, _)) in named.iter().enumerate() {
        if i == 0 || named[i - 1].0 != *l {
            rep = i;
            summary.clusters += 1;
        }
        summary.clustered += 1;
        by_doc.push((*r, i as u32, rep as u32));
    }
    by_doc.par_sort_unstable_by_key(|&(r, _, _)| r);
    for (r, own, rep) in by_doc {
        f(r, &named[own as usize].2, &named[rep as usize].2)?;
    }
    Ok(())
}

/// Step 5 of the module docs over sorted runs of text lines: (label,
/// docid, document) lines sorted, then (document, docid, representative).
fn name_in_runs(
    labels: Records<3>,
    dir: &Path,
    run_lines: usize,
    summary: &mut ClusterSummary,
    mut docid_of: impl FnMut(u64, DocRef) -> Result<String>,
    mut f: impl FnMut(DocRef, &str, &str) -> Result<()>,
) -> Result<()> {
    let mut by_label = SortedRuns::new(dir, "named", run_lines);
    labels.merge(|[k, r, l]| {
        let own = docid_of(k, r)?;
        Ok::<(), Error>(by_label.push(format!("{l:016x}\t{own}\t{r:016x}"))?)
    })?;
    let named = by_label.finish()?;
    let mut by_doc = SortedRuns::new(dir, "reps", run_lines);
    let mut rep: Option<(String, String)> = None; // (label, docid)
    merge_sorted_lines(&named, |line| {
        let [l, own, r] = fields3(line, dir)?;
        if rep.as_ref().is_none_or(|(x, _)| x != l) {
            rep = Some((l.to_string(), own.to_string()));
            summary.clusters += 1;
        }
        let (_, rd) = rep.as_ref().expect("set above");
        summary.clustered += 1;
        Ok::<(), Error>(by_doc.push(format!("{r}\t{own}\t{rd}"))?)
    })?;
    remove(&named)?;
    let reps = by_doc.finish()?;
    merge_sorted_lines(&reps, |line| {
        let [r, own, rd] = fields3(line, dir)?;
        f(hex(r, dir)?, own, rd)
    })?;
    remove(&reps)
}

/// Label propagation over sorted runs (steps 2-4 of the module docs) from
/// the sorted (key, document) pairs: calls `label(document, its label)`
/// for every clustered document, in increasing document order, and
/// returns the rounds taken.
fn propagate(
    pairs: Records<2>,
    dir: &Path,
    run_records: usize,
    label: &mut impl FnMut(DocRef, DocRef) -> Result<()>,
) -> Result<u32> {
    // Round 1, step 2 on (key, doc): the label of a document is itself.
    let mut b = RecordRuns::<3>::new(dir, "docs", run_records);
    let mut group: Option<(u64, u64)> = None; // (key, min label)
    let mut pending: Option<u64> = None;
    let mut previous = None;
    pairs.merge(|[key, r]| {
        // A key given twice for one document does not link it to itself.
        if previous.replace([key, r]) == Some([key, r]) {
            return Ok::<(), Error>(());
        }
        match group {
            Some((k, m)) if k == key => {
                if let Some(p) = pending.take() {
                    b.push([p, m, key])?;
                }
                b.push([r, m, key])?;
            }
            _ => {
                group = Some((key, r));
                pending = Some(r);
            }
        }
        Ok(())
    })?;
    let mut b_runs = b.finish()?;
    let mut changed = true;
    let mut rounds = 0;
    loop {
        rounds += 1;
        // Step 3: per document, the smallest label over its keys.
        let mut a = RecordRuns::<3>::new(dir, "keys", run_records);
        let mut cur: Option<(u64, u64)> = None; // (doc, label)
        b_runs.merge(|[r, m, key]| {
            let first = cur.is_none_or(|(d, _)| d != r);
            if first {
                cur = Some((r, m));
            }
            let l = cur.map_or(m, |(_, l)| l);
            if changed {
                a.push([key, l, r])?;
            } else if first {
                label(r, l)?;
            }
            Ok::<(), Error>(())
        })?;
        let a_runs = a.finish()?;
        if !changed {
            break;
        }
        // Step 2: per key, the smallest label of its documents.
        changed = false;
        let mut b = RecordRuns::<3>::new(dir, "docs", run_records);
        let mut group: Option<(u64, u64)> = None;
        a_runs.merge(|[key, l, r]| {
            let m = match group {
                Some((k, m)) if k == key => m,
                _ => {
                    group = Some((key, l));
                    l
                }
            };
            changed |= l != m;
            b.push([r, m, key])
        })?;
        b_runs = b.finish()?;
    }
    Ok(rounds)
}

/// Union-find over the sorted (key, document) pairs, for documents few
/// enough to hold (`refs`, increasing): the same connected components as
/// [`propagate`], each labelled with its smallest [`DocRef`]; calls
/// `label(document, its label)` for every clustered document, in
/// increasing document order.
fn union_find(
    pairs: Records<2>,
    refs: &[DocRef],
    dir: &Path,
    label: &mut impl FnMut(DocRef, DocRef) -> Result<()>,
) -> Result<()> {
    // parent[i] <= i always: a union links the larger root under the
    // smaller, and halving only points a document at an ancestor.
    let mut parent: Vec<u32> = (0..refs.len() as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    // Where each group's documents start in `refs`: (group, index), for a
    // first guess at a document's index (a group's positions are mostly
    // consecutive: an index's documents without text are few).
    let mut starts: Vec<(u64, usize)> = Vec::new();
    for (i, &r) in refs.iter().enumerate() {
        if starts.last().is_none_or(|&(g, _)| g != r >> 32) {
            starts.push((r >> 32, i));
        }
    }
    let dense = |r: DocRef| -> Result<u32> {
        let at = starts.partition_point(|&(g, _)| g <= r >> 32);
        let (from, to) = match at.checked_sub(1).map(|a| starts[a]) {
            Some((g, from)) if g == r >> 32 => (from, starts.get(at).map_or(refs.len(), |s| s.1)),
            _ => (0, 0),
        };
        let first = refs.get(from).map_or(0, |&f| f & 0xFFFF_FFFF);
        let guess = from.saturating_add(((r & 0xFFFF_FFFF).saturating_sub(first)) as usize);
        if guess < to && refs[guess] == r {
            return Ok(guess as u32);
        }
        refs[from..to.min(guess.saturating_add(1))]
            .binary_search(&r)
            .map(|i| (from + i) as u32)
            .map_err(|_| Error::NearDuplicates {
                path: dir.to_path_buf(),
                what: "sorted (key, document) record",
                expected: "a document that was added".into(),
                found: format!("{r:016x}"),
            })
    };
    let mut group: Option<(u64, u32)> = None; // (key, its first document)
    pairs.merge(|[key, r]| {
        let d = dense(r)?;
        match group {
            Some((k, first)) if k == key => {
                let (a, b) = (find(&mut parent, first), find(&mut parent, d));
                if a != b {
                    parent[a.max(b) as usize] = a.min(b);
                }
            }
            _ => group = Some((key, d)),
        }
        Ok::<(), Error>(())
    })?;
    // Every parent now a root (parents come before their children), and
    // which roots have members.
    let mut has_member = vec![0u64; refs.len().div_ceil(64)];
    for i in 0..parent.len() {
        let root = parent[parent[i] as usize];
        parent[i] = root;
        if root as usize != i {
            has_member[root as usize / 64] |= 1 << (root % 64);
        }
    }
    for (i, (&r, &root)) in refs.iter().zip(&parent).enumerate() {
        if root as usize != i || has_member[i / 64] & (1 << (i % 64)) != 0 {
            label(r, refs[root as usize])?;
        }
    }
    Ok(())
}

fn hex(s: &str, path: &Path) -> Result<u64> {
    u64::from_str_radix(s, 16).map_err(|_| Error::NearDuplicates {
        path: path.to_path_buf(),
        what: "sorted line",
        expected: "16 hexadecimal digits".into(),
        found: s.chars().take(40).collect(),
    })
}

fn remove(files: &[PathBuf]) -> Result<()> {
    for p in files {
        std::fs::remove_file(p).map_err(io_err(p))?;
    }
    Ok(())
}

/// The ordinal standing for "no docid" in [`DocidLookup`] keys (a
/// segment's ordinals are below its `max_doc`, itself below 2^31).
const NO_DOCID: u64 = 0xFFFF_FFFF;


/// The three tab-separated fields of a sorted line.
fn fields3<'a>(line: &'a str, dir: &Path) -> Result<[&'a str; 3]> {
    let mut it = line.splitn(3, '\t');
    let mut out = [""; 3];
    for slot in &mut out {
        *slot = it.next().ok_or_else(|| Error::NearDuplicates {
            path: dir.to_path_buf(),
            what: "sorted line",
            expected: "three tab-separated fields".into(),
            found: line.chars().take(80).collect(),
        })?;
    }
    Ok(out)
}

/// The dictionary ordinals of the docids in `ids` that hold a control
/// character, as a bit set over ordinals; `None` (nothing allocated) when
/// there is none. One pass over the dictionary.
fn control_ords(ids: &tantivy::columnar::StrColumn, dir: &Path) -> Result<Option<Vec<u64>>> {
    let dict = ids.dictionary();
    let mut stream = dict.stream().map_err(io_err(dir))?;
    let mut bits: Option<Vec<u64>> = None;
    while stream.advance() {
        if stream.key().iter().any(|&b| b < 0x20) {
            let ord = stream.term_ord();
            let bits = bits.get_or_insert_with(|| vec![0; dict.num_terms().div_ceil(64)]);
            bits[(ord / 64) as usize] |= 1 << (ord % 64);
        }
    }
    Ok(bits)
}

/// Keys of [`DocidLookup`] batched per message from its dictionary thread.
const DOCID_BATCH: usize = 4096;

/// Docids of an index's documents by (segment << 32 | dictionary ordinal)
/// keys asked in increasing order: one pass over each segment's docid
/// dictionary instead of a dictionary block decoded per lookup. One
/// segment's dictionary is open at a time: a thread streams it in order
/// (a stream borrows its dictionary, so the two live on that thread) and
/// hands its docids over in batches of [`DOCID_BATCH`]; the segment is
/// closed, and its file unmapped, when the keys move to the next one.
struct DocidLookup<'a> {
    dir: &'a Path,
    segments: &'a [Segment],
    /// The segment streamed, the batches of its docids in ordinal order,
    /// the batch being read, the ordinal of its first docid and the
    /// thread (which ends when the receiver is dropped).
    at: Option<DictFeed>,
}

struct DictFeed {
    segment: usize,
    rx: std::sync::mpsc::Receiver<Result<Vec<Vec<u8>>>>,
    batch: Vec<Vec<u8>>,
    first: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for DictFeed {
    fn drop(&mut self) {
        // Hang up first, so a thread blocked on a full channel ends.
        let (_, rx) = std::sync::mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl DictFeed {
    fn open(dir: &Path, segment: &Segment, s: usize) -> DictFeed {
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        let (segment, path) = (segment.clone(), dir.to_path_buf());
        let thread = std::thread::Builder::new()
            .name("sieve-docids".into())
            .spawn(move || {
                let stream_all = || -> Result<()> {
                    let ids = docid_column(&SegmentReader::open(&segment)?, &path)?;
                    let mut stream = ids.dictionary().stream().map_err(io_err(&path))?;
                    let mut batch = Vec::with_capacity(DOCID_BATCH);
                    while stream.advance() {
                        batch.push(stream.key().to_vec());
                        if batch.len() == DOCID_BATCH {
                            let full =
                                std::mem::replace(&mut batch, Vec::with_capacity(DOCID_BATCH));
                            if tx.send(Ok(full)).is_err() {
                                return Ok(());
                            }
                        }
                    }
                    if !batch.is_empty() {
                        let _ = tx.send(Ok(batch));
                    }
                    Ok(())
                };
                if let Err(e) = stream_all() {
                    let _ = tx.send(Err(e));
                }
            });
        let (thread, rx) = match thread {
            Ok(t) => (Some(t), rx),
            Err(e) => {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let _ = tx.send(Err(io_err(dir)(e)));
                (None, rx)
            }
        };
        DictFeed {
            segment: s,
            rx,
            batch: Vec::new(),
            first: 0,
            thread,
        }
    }
}

/// A docid ordinal that is not in its segment's dictionary.
fn bad_ord(dir: &Path, segment: usize, ord: u64) -> Error {
    Error::NearDuplicates {
        path: dir.to_path_buf(),
        what: "docid ordinal",
        expected: format!("an ordinal of the docid dictionary of segment {segment}"),
        found: ord.to_string(),
    }
}

impl DocidLookup<'_> {
    /// The docid of key `segment << 32 | ordinal` (empty for
    /// [`NO_DOCID`]); keys must not decrease.
    fn docid(&mut self, key: u64) -> Result<String> {
        let (s, ord) = ((key >> 32) as usize, key & NO_DOCID);
        if ord == NO_DOCID {
            return Ok(String::new());
        }
        if self.at.as_ref().is_none_or(|f| f.segment != s) {
            // Close the previous segment before opening the next.
            self.at = None;
            let segment = self
                .segments
                .get(s)
                .ok_or_else(|| bad_ord(self.dir, s, ord))?;
            self.at = Some(DictFeed::open(self.dir, segment, s));
        }
        let feed = self.at.as_mut().expect("set above");
        if ord < feed.first {
            return Err(bad_ord(self.dir, s, ord));
        }
        while ord >= feed.first + feed.batch.len() as u64 {
            feed.first += feed.batch.len() as u64;
            feed.batch = match feed.rx.recv() {
                Ok(b) => b?,
                Err(_) => return Err(bad_ord(self.dir, s, ord)),
            };
        }
        // Not taken: documents may share a docid, so an ordinal may be
        // asked twice.
        let key = feed.batch[(ord - feed.first) as usize].clone();
        String::from_utf8(key)
            .map_err(|e| io_err(self.dir)(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }
}

/// The docid column of the segment asked last, opened again when the
/// segment changes (so one segment's file is mapped at a time).
struct OrdLookup<'a> {
    dir: &'a Path,
    segments: &'a [Segment],
    at: Option<(usize, tantivy::columnar::StrColumn)>,
}

impl OrdLookup<'_> {
    /// The [`DocidLookup`] key of document `r` (segments must not decrease).
    fn key(&mut self, r: DocRef) -> Result<u64> {
        let (s, doc) = ((r >> 32) as usize, r as u32);
        if self.at.as_ref().is_none_or(|(at, _)| *at != s) {
            self.at = None;
            let segment = self
                .segments
                .get(s)
                .ok_or_else(|| bad_ord(self.dir, s, 0))?;
            let ids = docid_column(&SegmentReader::open(segment)?, self.dir)?;
            self.at = Some((s, ids));
        }
        let (_, ids) = self.at.as_ref().expect("set above");
        let ord = match ids.term_ords(doc).next() {
            None => NO_DOCID,
            Some(o) if o < NO_DOCID => o,
            Some(o) => return Err(bad_ord(self.dir, s, o)),
        };
        Ok(((s as u64) << 32) | ord)
    }
}

/// Clusters the documents of the index in `dir` by their `minhash` band
/// keys and writes every segment's cluster column (removing columns of
/// segments that are gone). `run_lines`: lines per sorted run.
///
/// Memory: one segment is open at a time (read for its band keys, then
/// again for the docids of its clustered documents, then its column
/// written), so the index files mapped are at most one segment's, however
/// many segments the index has; the sorts hold what [`Clusterer`] says.
pub fn write_index_dups(dir: &Path, index: &Index, run_lines: usize) -> Result<ClusterSummary> {
    write_index_dups_from(dir, index, run_lines, None)
}

/// The band keys of the first segments of an index, read while a build
/// goes on (see [`EarlyKeys::read`]), for [`write_index_dups_from`].
pub struct EarlyKeys {
    clusterer: Clusterer,
    segments: Vec<SegmentId>,
    run_lines: usize,
}

impl EarlyKeys {
    /// Reads the band keys of `segments` (of the index in `dir`), which
    /// should be the first segments of the finished index, in its order,
    /// into a new clusterer with runs of `run_lines` records.
    pub fn read(
        dir: &Path,
        index: &Index,
        segments: &[tantivy::index::SegmentMeta],
        run_lines: usize,
    ) -> Result<EarlyKeys> {
        let mut clusterer = Clusterer::new(dir, run_lines)?;
        let mut keys = Vec::new();
        for (s, meta) in segments.iter().enumerate() {
            add_segment_keys(
                &mut clusterer,
                dir,
                &index.segment(meta.clone()),
                s,
                &mut keys,
            )?;
        }
        Ok(EarlyKeys {
            clusterer,
            segments: segments.iter().map(|m| m.id()).collect(),
            run_lines,
        })
    }
}

/// Adds the band keys of every document of `segment`, the index's `s`-th.
fn add_segment_keys(
    c: &mut Clusterer,
    dir: &Path,
    segment: &Segment,
    s: usize,
    keys: &mut Vec<u64>,
) -> Result<()> {
    let seg = SegmentReader::open(segment)?;
    let ids = docid_column(&seg, dir)?;
    let unclusterable = control_ords(&ids, dir)?;
    let col = seg.fast_fields().u64(MINHASH)?;
    for doc in 0..seg.max_doc() {
        keys.clear();
        keys.extend(col.values_for_doc(doc));
        if keys.is_empty() {
            continue;
        }
        let clusterable = unclusterable.as_ref().is_none_or(|bits| {
            ids.term_ords(doc)
                .next()
                .is_none_or(|ord| bits[(ord / 64) as usize] & (1 << (ord % 64)) == 0)
        });
        c.add_checked(doc_ref(s as u32, doc), clusterable, keys)?;
    }
    Ok(())
}

/// [`write_index_dups`], starting from the keys `early` read of the
/// index's first segments when they are still its first segments, in the
/// same order, with runs of `run_lines` records (else `early` is dropped
/// and every segment is read). The clusters are the same either way: the
/// documents are numbered, and their keys added, in the same order.
pub fn write_index_dups_from(
    dir: &Path,
    index: &Index,
    run_lines: usize,
    early: Option<EarlyKeys>,
) -> Result<ClusterSummary> {
    let segments = index.searchable_segments()?;
    let ddir = dir.join(DUPS_DIR);
    create_private_dir(&ddir)?;
    // Dropped before a new clusterer is made (which removes the
    // temporary directories of others).
    let early = early.filter(|e| {
        e.run_lines == run_lines
            && segments.len() >= e.segments.len()
            && segments
                .iter()
                .zip(&e.segments)
                .all(|(s, id)| s.id() == *id)
    });
    let (mut c, from) = match early {
        Some(e) => (e.clusterer, e.segments.len()),
        None => (Clusterer::new(dir, run_lines)?, 0),
    };
    let mut keys = Vec::new();
    for (s, segment) in segments.iter().enumerate().skip(from) {
        add_segment_keys(&mut c, dir, segment, s, &mut keys)?;
    }
    // Columns are written segment after segment (documents come in
    // increasing DocRef order): one open at a time.
    let mut column: Option<(usize, ColumnWriter)> = None;
    let mut next = 0usize; // segments before this one are written
    let mut ords = OrdLookup {
        dir,
        segments: &segments,
        at: None,
    };
    let mut lookup = DocidLookup {
        dir,
        segments: &segments,
        at: None,
    };
    let summary = c.finish(
        |r| ords.key(r),
        |key, _| lookup.docid(key),
        |r, own, rep| {
            let (s, doc) = ((r >> 32) as usize, r as u32);
            if column.as_ref().is_none_or(|(at, _)| *at != s) {
                if let Some((_, w)) = column.take() {
                    w.finish()?;
                }
                while next < s {
                    ColumnWriter::create(dir, &segments[next])?.finish()?;
                    next += 1;
                }
                let segment = segments
                    .get(s)
                    .ok_or_else(|| bad_ord(dir, s, u64::from(doc)))?;
                column = Some((s, ColumnWriter::create(dir, segment)?));
                next = s + 1;
            }
            let (_, w) = column.as_mut().expect("set above");
            Ok(w.line(doc, if own == rep { "=" } else { rep })?)
        },
    )?;
    drop((ords, lookup));
    if let Some((_, w)) = column.take() {
        w.finish()?;
    }
    for segment in &segments[next.min(segments.len())..] {
        ColumnWriter::create(dir, segment)?.finish()?;
    }
    let keep: HashSet<PathBuf> = segments
        .iter()
        .map(|s| sieve_format::dups::segment_dups_path(dir, s.id()))
        .collect();
    for entry in std::fs::read_dir(&ddir).map_err(io_err(&ddir))? {
        let path = entry.map_err(io_err(&ddir))?.path();
        if !keep.contains(&path) {
            std::fs::remove_file(&path).map_err(io_err(&path))?;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests;

/// Calls `f(docid, representative)` for every document of the index in
/// `dir` that is in a near-duplicate cluster of two or more, in index
/// order (a representative names itself): the index's version of
/// `extract`'s `near-duplicates.tsv.gz`. Returns the number of documents
/// named.
pub fn for_each_clustered_doc(dir: &Path, mut f: impl FnMut(&str, &str)) -> Result<u64> {
    let (index, _) = crate::index::open_index(dir)?;
    let searcher = index.reader()?.searcher();
    let mut n = 0;
    let mut docid = String::new();
    for seg in searcher.segment_readers() {
        let ids = docid_column(seg, dir)?;
        let mut err = None;
        read_segment_dups(dir, seg, |doc, role| {
            if role == Role::Alone || err.is_some() {
                return;
            }
            docid.clear();
            if let Some(ord) = ids.term_ords(doc).next()
                && let Err(e) = ids.ord_to_str(ord, &mut docid)
            {
                err = Some(e);
                return;
            }
            match role {
                Role::Representative => f(&docid, &docid),
                Role::DuplicateOf(rep) => f(&docid, rep),
                Role::Alone => {}
            }
            n += 1;
        })?;
        if let Some(e) = err {
            return Err(io_err(dir)(e));
        }
    }
    Ok(n)
}
