//! The steps of the clustering (see the module docs of [`super`]): label
//! propagation over sorted runs (steps 2 to 4), the union-find that
//! replaces them for few documents, and the naming of each cluster's
//! representative (step 5), in memory or over sorted runs of text lines.

use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;
use sieve_format::extsort::{RecordRuns, Records, SortedRuns, merge_sorted_lines};
use sieve_format::stats::ClusterSummary;

use super::DocRef;
use crate::error::io_err;
use crate::{Error, Result};

/// Step 5 of the module docs for at most a run of labelled documents
/// (the memory of one run of docid lines): sorted in memory as (label,
/// docid, document) triples, in the order of [`name_in_runs`]'s lines
/// (docids of clustered documents hold no control character, so a docid
/// sorts before any longer one it begins), with the same calls.
pub(super) fn name_in_memory(
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
pub(super) fn name_in_runs(
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
pub(super) fn propagate(
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
pub(super) fn union_find(
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
            .map_err(|_| {
                Error::Format(sieve_format::Error::NearDuplicates {
                    path: dir.to_path_buf(),
                    what: "sorted (key, document) record",
                    expected: "a document that was added".into(),
                    found: format!("{r:016x}"),
                })
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
    u64::from_str_radix(s, 16).map_err(|_| {
        Error::Format(sieve_format::Error::NearDuplicates {
            path: path.to_path_buf(),
            what: "sorted line",
            expected: "16 hexadecimal digits".into(),
            found: s.chars().take(40).collect(),
        })
    })
}

fn remove(files: &[PathBuf]) -> Result<()> {
    for p in files {
        std::fs::remove_file(p).map_err(io_err(p))?;
    }
    Ok(())
}

/// The three tab-separated fields of a sorted line.
fn fields3<'a>(line: &'a str, dir: &Path) -> Result<[&'a str; 3]> {
    let mut it = line.splitn(3, '\t');
    let mut out = [""; 3];
    for slot in &mut out {
        *slot = it.next().ok_or_else(|| {
            Error::Format(sieve_format::Error::NearDuplicates {
                path: dir.to_path_buf(),
                what: "sorted line",
                expected: "three tab-separated fields".into(),
                found: line.chars().take(80).collect(),
            })
        })?;
    }
    Ok(out)
}
