//! Docid filters: the keep/drop rule and the filter file.
//!
//! # The rule
//!
//! [`Thresholds::keeps`] decides one document from its spam percentile (if
//! it has one), its seven UTF-8 error counts and its length in bytes:
//!
//! * with `min_spam_percentile = Some(p)`: a scored document is kept iff its
//!   percentile is `>= p` (Waterloo percentiles: 0 spammiest, 99 cleanest;
//!   the usual cut is 70); an unscored document follows `unscored`;
//! * for each `(class, x)` in `max_rate_per_kb`: the document is dropped if
//!   its rate of `class` errors per KB, `count · 1024 / bytes`, is **greater
//!   than** `x` (a 0-byte document has rate 0);
//! * a document is kept iff every rule keeps it.
//!
//! # The file (version 2)
//!
//! ```text
//! SIEVE-FILTER 2\n
//! sieve-seal crc32=XXXXXXXX bytes=NNNNNNNNNNNNNNNNNNNN\n
//! {"stores":"keep"|"exclude", ...header JSON on one line...}\n
//! <fst::Set bytes of the listed docids>
//! ```
//!
//! The second line seals the file ([`crate::sealed`]): `bytes` is the length
//! of everything after it, `crc32` the CRC-32 of the first line and of
//! everything after the second. [`DocFilter::from_bytes`] checks both before
//! it parses anything, so a truncated or damaged file is an error naming
//! the expected and found length or checksum, never a panic inside `fst`.
//!
//! Version 1 files (`SIEVE-FILTER 1`, no seal) are **refused** with an
//! error saying to rebuild them: without a checksum a damaged one cannot be
//! told from a good one, and version 1 filters built from spam rankings
//! alone could store a keep list while claiming to keep unscored documents
//! (see below), so reading them would reproduce both bugs.
//!
//! A filter is built over a *universe* of docids (every scored docid, or
//! every document of an index). It stores a list, the kept or the excluded
//! docids, and the header says which ([`ListKind`]), with the thresholds and
//! the counts. [`DocFilter::keeps`] answers:
//!
//! * listed in a `keep` file → kept; listed in an `exclude` file → dropped;
//! * not listed → the opposite. So a docid outside the universe is
//!   **dropped by a `keep` file and kept by an `exclude` file**; the header
//!   field `unlisted` states this for each file, and `sieve-filter inspect`
//!   prints it.
//!
//! Over an index or a stats file the universe is the corpus, and either
//! list may be stored (the smaller by default). Over spam rankings alone
//! the universe is the scored docids, and every document outside it is an
//! unscored one: the stored list must then be the one whose `unlisted`
//! answer is the rule's `unscored` policy, an exclude list when unscored
//! documents are kept and a keep list when they are dropped
//! ([`FilterHeader::for_scored_universe`]); the other is refused.

use std::collections::BTreeMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::utf8::{ErrorClass, Utf8Counts};
use crate::{Error, Result};

/// The kind named on the first line of every filter file.
pub const MAGIC_NAME: &str = "SIEVE-FILTER";
/// The version on the first line of the filter files this code writes and
/// reads (`SIEVE-FILTER 2`).
pub const VERSION: u32 = 2;
/// What an error says about a filter file of an older version.
const OLDER: &str =
    "a filter file of an older version, without a checksum: rebuild it from its inputs";

/// What to do with a document that has no spam score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Unscored {
    /// Keep it (the default: no evidence of spam).
    #[default]
    Keep,
    /// Drop it.
    Drop,
}

/// The keep/drop rule (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Thresholds {
    /// Keep scored documents with percentile `>=` this.
    pub min_spam_percentile: Option<u8>,
    /// Drop documents whose rate per KB of a class is greater than the value.
    /// Keys are class keys (`invalid_4_5_6`, ...).
    pub max_rate_per_kb: BTreeMap<String, f64>,
    /// Policy for documents without a spam score (only used with
    /// `min_spam_percentile`).
    pub unscored: Unscored,
    /// Drop near-duplicates: every member of a near-duplicate cluster but
    /// its representative (the smallest docid; see
    /// [`crate::minhash`]). Absent from files written before it existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop_near_duplicates: bool,
}

/// Errors of `class` per 1024 bytes of a `bytes`-long document (0 for an
/// empty document).
pub fn rate_per_kb(count: u64, bytes: u64) -> f64 {
    if bytes == 0 {
        0.0
    } else {
        count as f64 * 1024.0 / bytes as f64
    }
}

impl Thresholds {
    /// Checks every key names a class and every value is a finite number
    /// `>= 0`.
    pub fn validate(&self) -> Result<()> {
        for (key, x) in &self.max_rate_per_kb {
            if ErrorClass::from_key(key).is_none() {
                return Err(Error::Threshold {
                    name: key.clone(),
                    expected: "a class key such as invalid_4_5_6",
                    got: key.clone(),
                });
            }
            if !(x.is_finite() && *x >= 0.0) {
                return Err(Error::Threshold {
                    name: key.clone(),
                    expected: "a finite rate >= 0",
                    got: x.to_string(),
                });
            }
        }
        if let Some(p) = self.min_spam_percentile
            && p > 100
        {
            return Err(Error::Threshold {
                name: "min_spam_percentile".into(),
                expected: "a percentile 0-100",
                got: p.to_string(),
            });
        }
        Ok(())
    }

    /// True when no rule is set (every document is kept).
    pub fn is_empty(&self) -> bool {
        self.min_spam_percentile.is_none()
            && self.max_rate_per_kb.is_empty()
            && !self.drop_near_duplicates
    }

    /// [`Thresholds::keeps`], and with [`Thresholds::drop_near_duplicates`]
    /// also drops a document that is a near-duplicate of another
    /// (`duplicate`).
    pub fn keeps_doc(
        &self,
        spam: Option<u8>,
        counts: &Utf8Counts,
        bytes: u64,
        duplicate: bool,
    ) -> bool {
        !(self.drop_near_duplicates && duplicate) && self.keeps(spam, counts, bytes)
    }

    /// Does the rule keep a document with this spam percentile, these error
    /// counts and this length?
    pub fn keeps(&self, spam: Option<u8>, counts: &Utf8Counts, bytes: u64) -> bool {
        if let Some(min) = self.min_spam_percentile {
            let ok = match spam {
                Some(p) => p >= min,
                None => self.unscored == Unscored::Keep,
            };
            if !ok {
                return false;
            }
        }
        self.max_rate_per_kb.iter().all(|(key, max)| {
            ErrorClass::from_key(key)
                .is_none_or(|class| rate_per_kb(counts.get(class), bytes) <= *max)
        })
    }
}

/// Which list a filter file stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    /// The kept docids.
    Keep,
    /// The excluded docids.
    Exclude,
}

/// Counts over the universe a filter was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FilterCounts {
    /// Docids considered (the universe).
    pub considered: u64,
    /// Docids the rule keeps.
    pub kept: u64,
    /// Docids the rule drops.
    pub excluded: u64,
    /// Docids without a spam score (when spam scores were used).
    pub unscored: u64,
}

/// The header of a filter file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterHeader {
    /// The stored list.
    pub stores: ListKind,
    /// What [`DocFilter::keeps`] answers for a docid that is not listed
    /// (including docids outside the universe): `keep` for an exclude file,
    /// `drop` for a keep file.
    pub unlisted: Unscored,
    /// The rule the lists were computed with.
    pub thresholds: Thresholds,
    /// The counts.
    pub counts: FilterCounts,
    /// Human descriptions of the inputs (never used as paths).
    pub sources: Vec<String>,
}

impl FilterHeader {
    /// A header for `counts`, storing the smaller list unless `store` forces
    /// one (ties store the exclude list).
    pub fn new(
        thresholds: Thresholds,
        counts: FilterCounts,
        store: Option<ListKind>,
        sources: Vec<String>,
    ) -> Self {
        let stores = store.unwrap_or(if counts.kept < counts.excluded {
            ListKind::Keep
        } else {
            ListKind::Exclude
        });
        FilterHeader {
            stores,
            unlisted: match stores {
                ListKind::Keep => Unscored::Drop,
                ListKind::Exclude => Unscored::Keep,
            },
            thresholds,
            counts,
            sources,
        }
    }

    /// A header for a filter whose universe is the docids of spam rankings
    /// alone: every document outside it is unscored. Stores the list whose
    /// `unlisted` answer is what the rule does with an unscored document
    /// (exclude list when unscored documents are kept, keep list when they
    /// are dropped); `store` asking for the other list is
    /// [`Error::ListConflict`].
    pub fn for_scored_universe(
        thresholds: Thresholds,
        counts: FilterCounts,
        store: Option<ListKind>,
        sources: Vec<String>,
    ) -> Result<Self> {
        let unscored_kept = thresholds.keeps(None, &Utf8Counts::default(), 0);
        let required = if unscored_kept {
            ListKind::Exclude
        } else {
            ListKind::Keep
        };
        if let Some(asked) = store
            && asked != required
        {
            return Err(Error::ListConflict {
                universe: "the spam rankings",
                requested: asked.key(),
                required: required.key(),
                policy: if unscored_kept { "keep" } else { "drop" },
            });
        }
        Ok(Self::new(thresholds, counts, Some(required), sources))
    }

    /// Is a document the rule kept listed in this file?
    pub fn lists(&self, kept: bool) -> bool {
        kept == (self.stores == ListKind::Keep)
    }

    /// One sentence on what the filter does with a docid it never saw (one
    /// outside its universe): the `unlisted` answer, and why.
    pub fn unseen_rule(&self) -> String {
        match self.stores {
            ListKind::Keep => "dropped: the file lists the kept docids, so a docid it never saw is unlisted and dropped".into(),
            ListKind::Exclude => "kept: the file lists the excluded docids, so a docid it never saw is unlisted and kept".into(),
        }
    }
}

impl ListKind {
    /// `keep` or `exclude`, as in the header.
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Keep => "keep",
            ListKind::Exclude => "exclude",
        }
    }
}

/// Writes a filter file: the magic and seal lines, the header, then an FST
/// set of the listed docids, which must arrive in strictly increasing byte
/// order. The FST is built in memory (the reader holds the whole file in
/// memory too) and written to the sink, sealed, by [`FilterWriter::finish`].
pub struct FilterWriter<W: Write> {
    sink: W,
    header: Vec<u8>,
    set: fst::SetBuilder<Vec<u8>>,
    listed: u64,
}

impl<W: Write> FilterWriter<W> {
    /// A writer of a filter file with `header` to `sink` (nothing is
    /// written before [`FilterWriter::finish`]).
    pub fn new(sink: W, header: &FilterHeader) -> Result<Self> {
        let mut json = serde_json::to_vec(header).map_err(|e| Error::Header {
            offset: 0,
            detail: e.to_string(),
        })?;
        json.push(b'\n');
        Ok(FilterWriter {
            sink,
            header: json,
            set: fst::SetBuilder::memory(),
            listed: 0,
        })
    }

    /// Adds a docid to the list.
    pub fn insert(&mut self, docid: &[u8]) -> Result<()> {
        self.set.insert(docid).map_err(Error::from_fst)?;
        self.listed += 1;
        Ok(())
    }

    /// Writes the sealed file; returns the sink and the number listed.
    pub fn finish(mut self) -> Result<(W, u64)> {
        let set = self.set.into_inner().map_err(Error::from_fst)?;
        let prefix = crate::sealed::binary_prefix(MAGIC_NAME, VERSION, &[&self.header, &set]);
        self.sink
            .write_all(&prefix)
            .and_then(|()| self.sink.write_all(&self.header))
            .and_then(|()| self.sink.write_all(&set))
            .map_err(|e| Error::Fst(e.to_string()))?;
        Ok((self.sink, self.listed))
    }
}

/// A filter file opened for membership queries.
#[derive(Debug)]
pub struct DocFilter {
    header: FilterHeader,
    set: fst::Set<Vec<u8>>,
    seal: String,
}

impl DocFilter {
    /// Parses a whole filter file, after checking its version line and its
    /// seal (length and CRC-32, [`crate::sealed::open_binary`]): a file of
    /// another version, truncated, extended or with any byte changed is an
    /// [`Error::Sealed`] naming what was expected and found.
    pub fn from_bytes(mut bytes: Vec<u8>) -> Result<Self> {
        let start = crate::sealed::open_binary(MAGIC_NAME, VERSION, &bytes, OLDER)?;
        let seal = String::from_utf8_lossy(&bytes[start - crate::sealed::SEAL_LINE_LEN..start])
            .trim_end()
            .to_string();
        let end = memchr::memchr(b'\n', &bytes[start..])
            .map(|i| start + i)
            .ok_or(Error::Header {
                offset: start as u64,
                detail: "the header line has no end".into(),
            })?;
        let header: FilterHeader =
            serde_json::from_slice(&bytes[start..end]).map_err(|e| Error::Header {
                offset: start as u64,
                detail: e.to_string(),
            })?;
        bytes.drain(..=end);
        let set = fst::Set::new(bytes).map_err(Error::from_fst)?;
        // The FST's own checksum too: a second line of defence for a file
        // whose seal was recomputed over damaged bytes.
        set.as_fst().verify().map_err(Error::from_fst)?;
        Ok(DocFilter { header, set, seal })
    }

    /// The header.
    pub fn header(&self) -> &FilterHeader {
        &self.header
    }

    /// The file's seal line (`sieve-seal crc32=... bytes=...`), verified.
    pub fn seal(&self) -> &str {
        &self.seal
    }

    /// Number of listed docids.
    pub fn listed(&self) -> usize {
        self.set.len()
    }

    /// Is `docid` listed?
    pub fn contains(&self, docid: &str) -> bool {
        self.set.contains(docid)
    }

    /// Does the filter keep `docid`? (See the module docs for docids outside
    /// the universe.)
    pub fn keeps(&self, docid: &str) -> bool {
        self.contains(docid) == (self.header.stores == ListKind::Keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn counts_456(n: u64) -> Utf8Counts {
        Utf8Counts {
            invalid_4_5_6: n,
            ..Default::default()
        }
    }

    #[test]
    fn rule_semantics() {
        let mut t = Thresholds {
            min_spam_percentile: Some(70),
            ..Default::default()
        };
        let clean = Utf8Counts::default();
        assert!(t.keeps(Some(70), &clean, 100));
        assert!(!t.keeps(Some(69), &clean, 100));
        assert!(t.keeps(None, &clean, 100));
        t.unscored = Unscored::Drop;
        assert!(!t.keeps(None, &clean, 100));
        t.max_rate_per_kb.insert("invalid_4_5_6".into(), 1.0);
        // 1 error in 1024 bytes is exactly 1.0 per KB: kept; 2 is dropped.
        assert!(t.keeps(Some(80), &counts_456(1), 1024));
        assert!(!t.keeps(Some(80), &counts_456(2), 1024));
        assert!(t.keeps(Some(80), &counts_456(0), 0));
        t.max_rate_per_kb.insert("bogus".into(), 1.0);
        assert!(t.validate().unwrap_err().to_string().contains("bogus"));
    }

    #[test]
    fn smaller_list_is_stored() {
        let c = |kept, excluded| FilterCounts {
            considered: kept + excluded,
            kept,
            excluded,
            unscored: 0,
        };
        let h = FilterHeader::new(Thresholds::default(), c(30, 70), None, vec![]);
        assert_eq!((h.stores, h.unlisted), (ListKind::Keep, Unscored::Drop));
        let h = FilterHeader::new(Thresholds::default(), c(70, 30), None, vec![]);
        assert_eq!((h.stores, h.unlisted), (ListKind::Exclude, Unscored::Keep));
        let h = FilterHeader::new(
            Thresholds::default(),
            c(70, 30),
            Some(ListKind::Keep),
            vec![],
        );
        assert_eq!(h.stores, ListKind::Keep);
    }

    #[test]
    fn bad_files_are_errors_with_offsets() {
        assert!(DocFilter::from_bytes(b"nope".to_vec()).is_err());
        let f = crate::sealed::seal_binary(MAGIC_NAME, VERSION, b"{not json}\n");
        let err = DocFilter::from_bytes(f).unwrap_err().to_string();
        let at = "SIEVE-FILTER 2\n".len() + crate::sealed::SEAL_LINE_LEN;
        assert!(err.contains(&format!("offset {at}")), "{err}");
    }

    #[test]
    fn version_1_files_are_refused_with_rebuild_it() {
        let mut v1 = b"SIEVE-FILTER 1\n".to_vec();
        v1.extend_from_slice(br#"{"stores":"keep"}"#);
        let err = DocFilter::from_bytes(v1).unwrap_err().to_string();
        assert!(
            err.contains("SIEVE-FILTER 1")
                && err.contains("SIEVE-FILTER 2")
                && err.contains("rebuild it"),
            "{err}"
        );
    }

    #[test]
    fn spam_only_filter_stores_the_list_its_unscored_policy_needs() {
        let mut t = Thresholds {
            min_spam_percentile: Some(70),
            ..Default::default()
        };
        let c = FilterCounts {
            considered: 10,
            kept: 1,
            excluded: 9,
            unscored: 0,
        };
        // Unscored kept: the exclude list even though the keep list is smaller.
        let h = FilterHeader::for_scored_universe(t.clone(), c, None, vec![]).unwrap();
        assert_eq!((h.stores, h.unlisted), (ListKind::Exclude, Unscored::Keep));
        let e = FilterHeader::for_scored_universe(t.clone(), c, Some(ListKind::Keep), vec![]);
        let e = e.unwrap_err().to_string();
        assert!(
            e.contains("must store the exclude list, not the keep list"),
            "{e}"
        );
        t.unscored = Unscored::Drop;
        let h = FilterHeader::for_scored_universe(t.clone(), c, None, vec![]).unwrap();
        assert_eq!((h.stores, h.unlisted), (ListKind::Keep, Unscored::Drop));
        assert!(FilterHeader::for_scored_universe(t, c, Some(ListKind::Exclude), vec![]).is_err());
    }

    proptest! {
        /// Whatever list is stored, `keeps` agrees with the rule on every
        /// docid of the universe.
        #[test]
        fn file_round_trip_agrees_with_the_rule(
            docs in proptest::collection::btree_map("[a-z0-9]{1,10}", (proptest::option::of(0u8..100), 0u64..5, 1u64..4000), 0..100),
            min in 0u8..100,
            store in proptest::option::of(any::<bool>()),
        ) {
            let t = Thresholds {
                min_spam_percentile: Some(min),
                max_rate_per_kb: [("invalid_4_5_6".to_string(), 0.5)].into(),
                unscored: Unscored::Drop,
                drop_near_duplicates: false,
            };
            let decide = |(spam, n, bytes): &(Option<u8>, u64, u64)| t.keeps(*spam, &counts_456(*n), *bytes);
            let kept = docs.values().filter(|d| decide(d)).count() as u64;
            let counts = FilterCounts { considered: docs.len() as u64, kept, excluded: docs.len() as u64 - kept, unscored: 0 };
            let store = store.map(|k| if k { ListKind::Keep } else { ListKind::Exclude });
            let header = FilterHeader::new(t.clone(), counts, store, vec!["made up".into()]);
            let mut w = FilterWriter::new(Vec::new(), &header).unwrap();
            for (id, d) in &docs {
                if header.lists(decide(d)) {
                    w.insert(id.as_bytes()).unwrap();
                }
            }
            let (bytes, listed) = w.finish().unwrap();
            let f = DocFilter::from_bytes(bytes).unwrap();
            prop_assert_eq!(f.header(), &header);
            prop_assert_eq!(f.listed() as u64, listed);
            prop_assert!(listed <= counts.kept.max(counts.excluded));
            if store.is_none() {
                prop_assert_eq!(listed, counts.kept.min(counts.excluded));
            }
            for (id, d) in &docs {
                prop_assert_eq!(f.keeps(id), decide(d), "{}", id);
            }
        }
    }
}
