//! Building docid filter files from spam rankings and/or an index.
//!
//! The rule and the file format are in [`sieve_filters::docfilter`]; this
//! module does the reading. The universe of the filter is:
//!
//! * with an index (`stats` is a directory): every document of the index. Each document's
//!   spam percentile comes from the spam map if one is given, else from the
//!   index's `spam` fast field; its error counts and length from the fast
//!   fields.
//! * with a stats TSV (`stats` is a file, [`sieve_filters::docstats`]):
//!   every line of the file. Spam percentiles come from the spam map if one
//!   is given, else from the file's `spam` column. A rule over an error
//!   class the file has no column for is refused. The docids are sorted
//!   externally (runs of [`RUN_LINES`] lines), so the file may be in any
//!   order; a docid on two lines is an error (found when both lines land in
//!   the same list, kept or excluded, which covers exact duplicate lines;
//!   a docid kept on one line and excluded on another is not detected).
//! * without either: every docid of the spam map (error-rate rules cannot
//!   apply: there are no counts). Every other document is unscored, so the
//!   stored list is the one that gives unlisted docids the rule's answer
//!   for unscored documents (exclude list when they are kept, keep list
//!   when they are dropped); asking for the other is refused
//!   ([`FilterHeader::for_scored_universe`]).
//!
//! Two passes: the first counts kept and excluded documents, the second
//! writes the smaller list (or the one asked for; over spam rankings alone,
//! the one the rule needs). The listed docids reach
//! the FST in sorted order: the spam map is sorted already; an index's
//! docids are sorted within each segment, spilled to a temporary file per
//! segment, and merged. Memory stays bounded by one segment's bitset.

use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use sieve_filters::docfilter::{FilterCounts, FilterHeader, FilterWriter, ListKind, Thresholds};
use sieve_filters::docstats::StatsColumns;
use sieve_filters::spam::SpamMap;
use sieve_filters::utf8::ErrorClass;
use sieve_filters::utf8::Utf8Counts;
use sieve_format::dups::SegmentDups;
use sieve_format::extsort::{SortedRuns, merge_sorted_lines};
use sieve_format::index::{docid_column, open_index};
use sieve_format::outfile::OutFile;
use sieve_format::schema::RuleColumns;
use tantivy::SegmentReader;
use tantivy::columnar::StrColumn;

use crate::error::io_err;
use crate::options::BuildOptions;
use crate::spamfile::{RUN_LINES, open_text};
use crate::{Error, Result, RuleInput};

fn filt_err(path: &Path, e: sieve_filters::Error) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

pub use sieve_format::filterfile::load_filter;

/// What to build a filter from.
pub struct FilterSpec<'a> {
    /// The rule.
    pub thresholds: Thresholds,
    /// Spam percentiles (overriding the index's).
    pub spam: Option<&'a SpamMap<Vec<u8>>>,
    /// Per-document statistics, whose documents are the universe: an index
    /// directory built by `sieve-index`, or a stats TSV file
    /// ([`sieve_filters::docstats`], plain or gzipped).
    pub stats: Option<&'a Path>,
    /// Force the stored list (default: the smaller).
    pub store: Option<ListKind>,
    /// Descriptions of the inputs, for the header.
    pub sources: Vec<String>,
}

impl BuildOptions {
    /// Drops the documents the filter file `path` does not keep (see
    /// [`load_filter`]) and describes it for the
    /// manifest: the path, the list it stores, its length and thresholds.
    pub fn set_filter_file(&mut self, path: &Path) -> Result<()> {
        let filter = load_filter(path)?;
        let thresholds =
            serde_json::to_string(&filter.header().thresholds).map_err(|e| Error::Input {
                path: path.to_path_buf(),
                detail: e.to_string(),
            })?;
        self.filter_desc = Some(format!(
            "{} ({:?} list of {}, thresholds {})",
            path.display(),
            filter.header().stores,
            filter.listed(),
            thresholds
        ));
        self.filter = Some(filter);
        Ok(())
    }
}

/// Builds the filter file `out`; returns its header.
pub fn build_filter(spec: &FilterSpec<'_>, out: &Path) -> Result<FilterHeader> {
    spec.thresholds.validate().map_err(|e| filt_err(out, e))?;
    match spec.stats {
        Some(dir) if dir.is_dir() => from_index(spec, dir, out),
        Some(tsv) => from_tsv(spec, tsv, out),
        None => from_spam(spec, out),
    }
}

fn from_spam(spec: &FilterSpec<'_>, out: &Path) -> Result<FilterHeader> {
    let map = spec.spam.ok_or_else(|| Error::Input {
        path: out.to_path_buf(),
        detail: "a filter needs spam scores or an index".into(),
    })?;
    if spec.thresholds.drop_near_duplicates {
        return Err(Error::RuleNeeds {
            path: out.to_path_buf(),
            needs: RuleInput::NearDuplicates,
        });
    }
    if !spec.thresholds.max_rate_per_kb.is_empty() {
        return Err(Error::RuleNeeds {
            path: out.to_path_buf(),
            needs: RuleInput::Counts,
        });
    }
    let none = Utf8Counts::default();
    let mut counts = FilterCounts::default();
    map.for_each(|_, p| {
        counts.considered += 1;
        if spec.thresholds.keeps(Some(p), &none, 0) {
            counts.kept += 1;
        } else {
            counts.excluded += 1;
        }
    });
    // Every document outside the map is unscored: the stored list must make
    // the rule for unscored documents true for them.
    let header = FilterHeader::for_scored_universe(
        spec.thresholds.clone(),
        counts,
        spec.store,
        spec.sources.clone(),
    )
    .map_err(|e| filt_err(out, e))?;
    write_filter(out, &header, |w| {
        let mut err = None;
        map.for_each(|docid, p| {
            if err.is_none() && header.lists(spec.thresholds.keeps(Some(p), &none, 0)) {
                err = w.insert(docid).err();
            }
        });
        match err {
            Some(e) => Err(filt_err(out, e)),
            None => Ok(()),
        }
    })?;
    Ok(header)
}

/// The filter over every live document of the index in `dir` (see the
/// module docs): pass 1 decides each document and spills each segment's
/// kept and excluded docids; pass 2 merges the stored list's runs into
/// the FST.
fn from_index(spec: &FilterSpec<'_>, dir: &Path, out: &Path) -> Result<FilterHeader> {
    let (index, _) = open_index(dir)?;
    let searcher = index.reader()?.searcher();
    let tmp = tempfile::tempdir().map_err(io_err(out))?;
    let mut counts = FilterCounts::default();
    let mut runs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (s, seg) in searcher.segment_readers().iter().enumerate() {
        let (ids, decision) = decide_segment(spec, dir, seg, &mut counts)?;
        let kept_path = tmp.path().join(format!("kept-{s}.txt"));
        let excl_path = tmp.path().join(format!("excluded-{s}.txt"));
        spill_decisions(&ids, &decision, dir, &kept_path, &excl_path)?;
        runs.push((kept_path, excl_path));
    }
    let header = FilterHeader::new(
        spec.thresholds.clone(),
        counts,
        spec.store,
        spec.sources.clone(),
    );
    // Pass 2: merge the chosen list's runs into the FST.
    let chosen: Vec<PathBuf> = runs
        .into_iter()
        .map(|(k, e)| {
            if header.stores == ListKind::Keep {
                k
            } else {
                e
            }
        })
        .collect();
    write_filter(out, &header, |w| {
        merge_sorted_lines(&chosen, |line| {
            w.insert(line.as_bytes()).map_err(|e| filt_err(out, e))
        })
    })?;
    Ok(header)
}

/// Pass 1 over one segment of the index in `dir`: its docid column, and
/// the decision for each of the column's ordinals (0: no live document
/// with it, 1: kept, 2: excluded), counted in `counts`.
fn decide_segment(
    spec: &FilterSpec<'_>,
    dir: &Path,
    seg: &SegmentReader,
    counts: &mut FilterCounts,
) -> Result<(StrColumn, Vec<u8>)> {
    let cols = RuleColumns::open(seg)?;
    let dups = if spec.thresholds.drop_near_duplicates {
        Some(SegmentDups::open(dir, seg)?)
    } else {
        None
    };
    let ids = docid_column(seg, dir)?;
    let mut decision = vec![0u8; ids.num_terms()];
    let mut buf = String::new();
    for doc in 0..seg.max_doc() {
        let Some(ord) = ids.term_ords(doc).next() else {
            continue;
        };
        let spam = match spec.spam {
            Some(m) => {
                buf.clear();
                ids.ord_to_str(ord, &mut buf).map_err(io_err(dir))?;
                m.get(&buf)
            }
            None => cols.spam(doc),
        };
        counts.considered += 1;
        if spam.is_none() {
            counts.unscored += 1;
        }
        let dup = dups.as_ref().is_some_and(|d| d.is_duplicate(doc));
        let keep = spec
            .thresholds
            .keeps_doc(spam, &cols.counts(doc), cols.bytes(doc), dup);
        decision[ord as usize] = if keep { 1 } else { 2 };
        if keep {
            counts.kept += 1;
        } else {
            counts.excluded += 1;
        }
    }
    Ok((ids, decision))
}

/// Writes the docids of `ids` decided kept to `kept_path` and those
/// excluded to `excl_path`, a line each in ordinal order (which is docid
/// order: each file is sorted).
fn spill_decisions(
    ids: &StrColumn,
    decision: &[u8],
    dir: &Path,
    kept_path: &Path,
    excl_path: &Path,
) -> Result<()> {
    let mut buf = String::new();
    let mut kw = BufWriter::new(File::create(kept_path).map_err(io_err(kept_path))?);
    let mut ew = BufWriter::new(File::create(excl_path).map_err(io_err(excl_path))?);
    for (ord, d) in decision.iter().enumerate() {
        if *d == 0 {
            continue;
        }
        buf.clear();
        ids.ord_to_str(ord as u64, &mut buf).map_err(io_err(dir))?;
        let w = if *d == 1 { &mut kw } else { &mut ew };
        writeln!(w, "{buf}").map_err(io_err(kept_path))?;
    }
    kw.flush().map_err(io_err(kept_path))?;
    ew.flush().map_err(io_err(excl_path))?;
    Ok(())
}

/// Writes the filter file `out` with `header`, its docids inserted by
/// `fill` in sorted order; `out` is left as it was when `fill` fails (the
/// temporary file is dropped uncommitted).
fn write_filter(
    out: &Path,
    header: &FilterHeader,
    fill: impl FnOnce(&mut FilterWriter<OutFile>) -> Result<()>,
) -> Result<()> {
    let sink = OutFile::create(out)?;
    let mut w = FilterWriter::new(sink, header).map_err(|e| filt_err(out, e))?;
    fill(&mut w)?;
    let (sink, _) = w.finish().map_err(|e| filt_err(out, e))?;
    sink.commit()?;
    Ok(())
}

/// Refuses a rule the stats TSV `path` (with columns `cols`) cannot
/// decide: a rate limit on a class it has no column for, or a spam
/// threshold with neither a spam map nor a spam column.
fn check_tsv_columns(spec: &FilterSpec<'_>, path: &Path, cols: &StatsColumns) -> Result<()> {
    let missing = cols.missing();
    for key in spec.thresholds.max_rate_per_kb.keys() {
        if ErrorClass::from_key(key).is_some_and(|c| missing.contains(&c)) {
            return Err(Error::Input {
                path: path.to_path_buf(),
                detail: format!("the rule limits {key} but the file has no {key} column"),
            });
        }
    }
    if spec.thresholds.drop_near_duplicates {
        return Err(Error::RuleNeeds {
            path: path.to_path_buf(),
            needs: RuleInput::NearDuplicates,
        });
    }
    if spec.thresholds.min_spam_percentile.is_some() && spec.spam.is_none() && !cols.has_spam() {
        return Err(Error::RuleNeeds {
            path: path.to_path_buf(),
            needs: RuleInput::Spam,
        });
    }
    Ok(())
}

/// The error detail for `n` docids on more than one line.
fn duplicates(n: u64) -> String {
    format!("{n} docid(s) appear on more than one line (docids must be unique)")
}

/// The filter over every line of the stats TSV `path` (see the module
/// docs): the docids kept and excluded are sorted externally, the list
/// not stored is merged only to count its distinct docids, the stored
/// one into the FST; a docid on two lines is an error.
fn from_tsv(spec: &FilterSpec<'_>, path: &Path, out: &Path) -> Result<FilterHeader> {
    let input = |detail: String| Error::Input {
        path: path.to_path_buf(),
        detail,
    };
    let (mut r, cols) = open_tsv(spec, path)?;
    let tmp = tempfile::tempdir().map_err(io_err(out))?;
    let mut kept = SortedRuns::new(tmp.path(), "kept", RUN_LINES);
    let mut excluded = SortedRuns::new(tmp.path(), "excluded", RUN_LINES);
    let lists = Lists {
        kept: &mut kept,
        excluded: &mut excluded,
    };
    let counts = read_tsv_rows(spec, path, &mut r, &cols, lists)?;
    let header = FilterHeader::new(
        spec.thresholds.clone(),
        counts,
        spec.store,
        spec.sources.clone(),
    );
    let (chosen, expected, other, other_expected) = if header.stores == ListKind::Keep {
        (
            kept.finish()?,
            counts.kept,
            excluded.finish()?,
            counts.excluded,
        )
    } else {
        (
            excluded.finish()?,
            counts.excluded,
            kept.finish()?,
            counts.kept,
        )
    };
    // Duplicates would inflate the counts in the header: the list not
    // stored is merged too, only to count its distinct docids.
    let mut distinct = 0u64;
    merge_sorted_lines(&other, |_| {
        distinct += 1;
        Ok::<(), Error>(())
    })?;
    if distinct != other_expected {
        return Err(input(duplicates(other_expected - distinct)));
    }
    write_filter(out, &header, |w| {
        let mut written = 0u64;
        merge_sorted_lines(&chosen, |docid| {
            written += 1;
            w.insert(docid.as_bytes()).map_err(|e| filt_err(out, e))
        })?;
        if written != expected {
            return Err(input(duplicates(expected - written)));
        }
        Ok(())
    })?;
    Ok(header)
}

/// Opens the stats TSV `path` and reads its header line, refusing a rule
/// it cannot decide; returns the reader after the header, and the
/// columns.
fn open_tsv(spec: &FilterSpec<'_>, path: &Path) -> Result<(Box<dyn BufRead>, StatsColumns)> {
    let mut r = open_text(path)?;
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line).map_err(io_err(path))?;
    let cols = StatsColumns::from_header(&line).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    check_tsv_columns(spec, path, &cols)?;
    Ok((r, cols))
}

/// Where the docids of a stats TSV go, by decision.
struct Lists<'a> {
    kept: &'a mut SortedRuns,
    excluded: &'a mut SortedRuns,
}

/// Reads the lines of the stats TSV `path` after its header (from `r`,
/// with columns `cols`), deciding each line's docid into one of `lists`;
/// returns the counts.
fn read_tsv_rows(
    spec: &FilterSpec<'_>,
    path: &Path,
    r: &mut dyn BufRead,
    cols: &StatsColumns,
    lists: Lists<'_>,
) -> Result<FilterCounts> {
    let input = |detail: String| Error::Input {
        path: path.to_path_buf(),
        detail,
    };
    let mut line = Vec::new();
    let mut counts = FilterCounts::default();
    let mut line_no = 1u64;
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).map_err(io_err(path))? == 0 {
            break;
        }
        line_no += 1;
        let Some(row) = cols
            .parse(&line, line_no)
            .map_err(|e| input(e.to_string()))?
        else {
            continue;
        };
        let docid = std::str::from_utf8(row.docid)
            .map_err(|_| input(format!("line {line_no}: the docid is not UTF-8")))?;
        let spam = match spec.spam {
            Some(m) => m.get(docid),
            None => row.spam,
        };
        counts.considered += 1;
        if spam.is_none() {
            counts.unscored += 1;
        }
        if spec.thresholds.keeps(spam, &row.counts, row.bytes) {
            counts.kept += 1;
            lists.kept.push(docid.to_string())?;
        } else {
            counts.excluded += 1;
            lists.excluded.push(docid.to_string())?;
        }
    }
    Ok(counts)
}

/// Writes the per-document statistics of the index in `dir` as a stats TSV
/// ([`sieve_filters::docstats::header_line`] first), one line per live
/// document in index order. Memory: one line. An unfinished index is read
/// as `unfinished` says.
pub fn write_stats_tsv(
    dir: &Path,
    unfinished: sieve_format::index::Unfinished,
    out: &mut impl Write,
) -> Result<u64> {
    let (index, _) = sieve_format::index::open_index_with(dir, unfinished)?;
    let searcher = index.reader()?.searcher();
    writeln!(out, "{}", sieve_filters::docstats::header_line()).map_err(io_err(dir))?;
    let mut n = 0u64;
    let mut buf = String::new();
    for seg in searcher.segment_readers() {
        let cols = RuleColumns::open(seg)?;
        let ids = docid_column(seg, dir)?;
        for doc in 0..seg.max_doc() {
            if seg.alive_bitset().is_some_and(|a| !a.is_alive(doc)) {
                continue;
            }
            let Some(ord) = ids.term_ords(doc).next() else {
                continue;
            };
            buf.clear();
            ids.ord_to_str(ord, &mut buf).map_err(io_err(dir))?;
            let row = sieve_filters::docstats::format_row(
                &buf,
                cols.bytes(doc),
                cols.spam(doc),
                &cols.counts(doc),
            );
            writeln!(out, "{row}").map_err(io_err(dir))?;
            n += 1;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sieve_filters::spam::SpamMapBuilder;

    #[test]
    fn rate_rule_without_counts_is_rule_needs_counts_naming_no_flag() {
        let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
        b.insert("d0", 42).expect("insert");
        let map = SpamMap::new(b.finish().expect("finish")).expect("map");
        let mut thresholds = Thresholds::default();
        thresholds
            .max_rate_per_kb
            .insert(ErrorClass::Invalid456.key().to_string(), 1.0);
        let spec = FilterSpec {
            thresholds,
            spam: Some(&map),
            stats: None,
            store: None,
            sources: Vec::new(),
        };
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("f.filter");
        let e = build_filter(&spec, &out).expect_err("needs counts");
        assert!(
            matches!(&e, Error::RuleNeeds { needs: RuleInput::Counts, path } if *path == out),
            "{e:?}"
        );
        assert!(!e.to_string().contains("--"), "{e}");
    }

    #[test]
    fn load_filter_names_the_file_it_cannot_read_or_parse() {
        let tmp = tempfile::tempdir().expect("tmp");
        let missing = tmp.path().join("missing.filter");
        let e = load_filter(&missing).expect_err("missing");
        assert!(
            matches!(&e, sieve_format::Error::Io { path, .. } if *path == missing),
            "{e:?}"
        );
        let junk = tmp.path().join("junk.filter");
        std::fs::write(&junk, b"not a filter").expect("write");
        let e = load_filter(&junk).expect_err("junk");
        assert!(
            matches!(&e, sieve_format::Error::Input { path, .. } if *path == junk),
            "{e:?}"
        );
    }
}
