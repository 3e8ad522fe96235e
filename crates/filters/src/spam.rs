//! Waterloo spam rankings: line parsing and an FST map from docid to
//! percentile.
//!
//! # The format
//!
//! One document per line: `PERCENTILE DOCID`, separated by one or more spaces
//! or tabs, where `PERCENTILE` is an integer 0–99. **0 is the spammiest
//! percent and 99 the cleanest**; the usual cut (Cormack, Smucker and Clarke)
//! labels `percentile < 70` as spam. Leading and trailing whitespace and a
//! trailing `\r` are ignored, blank lines are skipped, and anything after the
//! docid is an error (a docid never contains whitespace). The ClueWeb09 file
//! is sorted by docid; the ClueWeb12 files are not.
//!
//! ```
//! use sieve_filters::spam::parse_line;
//!
//! assert_eq!(parse_line(b"82 clueweb12-0716wb-21-00000\r\n", 1).unwrap(),
//!            Some((82, "clueweb12-0716wb-21-00000")));
//! assert_eq!(parse_line(b"   \n", 2).unwrap(), None);
//! assert!(parse_line(b"100 clueweb09-en0000-00-00000", 3).is_err());
//! ```
//!
//! # The map
//!
//! [`SpamMapBuilder`] writes an `fst::Map` from docid bytes to percentile;
//! keys must arrive in strictly increasing byte order (sort unsorted files
//! first; the indexer does this with bounded memory). The same docid twice
//! with the same percentile is accepted once; with two different
//! percentiles it is an error naming both. [`SpamMap`] answers lookups.

use std::io::Write;

use crate::{Error, Result};

/// Parses one line of a Waterloo spam ranking (`line_no` is 1-based, for
/// errors). `Ok(None)` for a blank line.
pub fn parse_line(line: &[u8], line_no: u64) -> Result<Option<(u8, &str)>> {
    let bad = |expected: &'static str| Error::SpamLine {
        line: line_no,
        expected,
        got: String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned(),
    };
    let mut fields = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty());
    let Some(score) = fields.next() else {
        return Ok(None);
    };
    let docid = fields
        .next()
        .ok_or_else(|| bad("`PERCENTILE DOCID`: the docid is missing"))?;
    if fields.next().is_some() {
        return Err(bad("`PERCENTILE DOCID` and nothing after the docid"));
    }
    let score = std::str::from_utf8(score)
        .ok()
        .filter(|s| s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<u8>().ok())
        .ok_or_else(|| bad("a percentile 0-99 as the first field"))?;
    let docid = std::str::from_utf8(docid).map_err(|_| bad("a UTF-8 docid"))?;
    Ok(Some((score, docid)))
}

/// Builds an FST map from docid to percentile; keys in increasing order.
pub struct SpamMapBuilder<W: Write> {
    builder: fst::MapBuilder<W>,
    last: Option<(Vec<u8>, u8)>,
    len: u64,
}

impl<W: Write> SpamMapBuilder<W> {
    /// Starts a map written to `sink`.
    pub fn new(sink: W) -> Result<Self> {
        Ok(SpamMapBuilder {
            builder: fst::MapBuilder::new(sink).map_err(Error::from_fst)?,
            last: None,
            len: 0,
        })
    }

    /// Adds `docid -> percentile`. `docid` must sort after the previous key
    /// (equal with the same percentile is ignored).
    pub fn insert(&mut self, docid: &str, percentile: u8) -> Result<()> {
        if percentile > 99 {
            return Err(Error::SpamValue {
                docid: docid.to_string(),
                got: percentile,
            });
        }
        if let Some((last, p)) = &self.last {
            match docid.as_bytes().cmp(last) {
                std::cmp::Ordering::Equal if *p == percentile => return Ok(()),
                std::cmp::Ordering::Equal => {
                    return Err(Error::SpamConflict {
                        docid: docid.to_string(),
                        first: *p,
                        second: percentile,
                    });
                }
                std::cmp::Ordering::Less => {
                    return Err(Error::Unsorted {
                        previous: String::from_utf8_lossy(last).into_owned(),
                        got: docid.to_string(),
                    });
                }
                std::cmp::Ordering::Greater => {}
            }
        }
        self.builder
            .insert(docid, u64::from(percentile))
            .map_err(Error::from_fst)?;
        self.last = Some((docid.as_bytes().to_vec(), percentile));
        self.len += 1;
        Ok(())
    }

    /// Number of distinct docids inserted.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Finishes the map and returns the sink.
    pub fn finish(self) -> Result<W> {
        self.builder.into_inner().map_err(Error::from_fst)
    }
}

/// A docid → percentile map over FST bytes.
pub struct SpamMap<D: AsRef<[u8]>> {
    map: fst::Map<D>,
}

impl<D: AsRef<[u8]>> SpamMap<D> {
    /// Opens map bytes written by [`SpamMapBuilder`].
    pub fn new(bytes: D) -> Result<Self> {
        Ok(SpamMap {
            map: fst::Map::new(bytes).map_err(Error::from_fst)?,
        })
    }

    /// The percentile of `docid`, if it has one.
    pub fn get(&self, docid: &str) -> Option<u8> {
        self.map.get(docid).and_then(|v| u8::try_from(v).ok())
    }

    /// Number of docids in the map.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when the map is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every `(docid, percentile)` in docid order.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], u8)) {
        use fst::Streamer;
        let mut s = self.map.stream();
        while let Some((k, v)) = s.next() {
            f(k, u8::try_from(v).unwrap_or(u8::MAX));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_waterloo_lines() {
        assert_eq!(
            parse_line(b"0 clueweb09-en0000-00-00000", 1).unwrap(),
            Some((0, "clueweb09-en0000-00-00000"))
        );
        assert_eq!(parse_line(b"\t99\tx  \r", 1).unwrap(), Some((99, "x")));
        assert_eq!(parse_line(b"", 1).unwrap(), None);
        for bad in [
            &b"x docid"[..],
            b"-1 d",
            b"100 d",
            b"70",
            b"70 a b",
            b"7.5 d",
        ] {
            let err = parse_line(bad, 42).unwrap_err().to_string();
            assert!(err.contains("line 42"), "{err}");
        }
    }

    #[test]
    fn map_round_trip_and_errors() {
        let mut b = SpamMapBuilder::new(Vec::new()).unwrap();
        b.insert("a", 10).unwrap();
        b.insert("a", 10).unwrap();
        assert!(b.insert("a", 11).unwrap_err().to_string().contains("11"));
        b.insert("b", 99).unwrap();
        assert!(b.insert("aa", 1).unwrap_err().to_string().contains("aa"));
        assert!(b.insert("c", 100).is_err());
        assert_eq!(b.len(), 2);
        let m = SpamMap::new(b.finish().unwrap()).unwrap();
        assert_eq!(
            (m.get("a"), m.get("b"), m.get("c")),
            (Some(10), Some(99), None)
        );
    }

    proptest! {
        #[test]
        fn map_answers_like_a_btreemap(
            entries in proptest::collection::btree_map("[a-z0-9-]{1,12}", 0u8..100, 0..200),
            probes in proptest::collection::vec("[a-z0-9-]{1,12}", 0..50),
        ) {
            let mut b = SpamMapBuilder::new(Vec::new()).unwrap();
            for (k, v) in &entries {
                b.insert(k, *v).unwrap();
            }
            let m = SpamMap::new(b.finish().unwrap()).unwrap();
            for k in entries.keys().chain(&probes) {
                prop_assert_eq!(m.get(k), entries.get(k).copied());
            }
        }

        #[test]
        fn parse_line_never_panics(line in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = parse_line(&line, 1);
        }
    }
}
