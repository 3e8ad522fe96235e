//! Per-document statistics as tab-separated values: the input of
//! `sieve-filter build --doc-stats FILE.tsv` when there is no index, and the
//! output of `sieve-index docids --index DIR --doc-stats`.
//!
//! # Format
//!
//! * The first line is a header of tab-separated column names. It must
//!   name `docid` and `bytes`; it may name `spam` and any of the seven
//!   class keys of [`ErrorClass::key`] (`unexpected_continuation`,
//!   `missing_continuation`, `surrogate`, `invalid_4_5_6`, `overlong_nul`,
//!   `overlong_ascii`, `overlong_non_ascii`). Other columns (say `url`) are
//!   ignored. A column named twice is an error.
//! * Every other line has the same number of tab-separated fields (a
//!   trailing `\r` is dropped). `bytes` and the class counts are unsigned
//!   decimal integers; `spam` is a percentile 0–99, or empty or `-` for a
//!   document without a score. The docid is taken byte for byte (it must
//!   not be empty and must not contain a tab).
//! * Empty lines and lines starting with `#` are skipped.
//! * A class the header does not name counts 0 for every document;
//!   [`StatsColumns::missing`] tells which, so that a rule over a missing
//!   class can be refused rather than silently pass everything.
//!
//! ```
//! use sieve_filters::docstats::StatsColumns;
//! let cols = StatsColumns::from_header(b"docid\tbytes\tinvalid_4_5_6\tspam\n").unwrap();
//! let row = cols.parse(b"clueweb09-en0000-00-00001\t2048\t3\t71\n", 2).unwrap().unwrap();
//! assert_eq!(row.docid, b"clueweb09-en0000-00-00001");
//! assert_eq!((row.bytes, row.counts.invalid_4_5_6, row.spam), (2048, 3, Some(71)));
//! assert!(cols.missing().iter().any(|c| c.key() == "surrogate"));
//! ```

use crate::utf8::{ErrorClass, Utf8Counts};
use crate::{Error, Result};

/// Where each known column is in a stats TSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsColumns {
    width: usize,
    docid: usize,
    bytes: usize,
    spam: Option<usize>,
    classes: [Option<usize>; 7],
}

/// One parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsRow<'a> {
    /// The docid, as written.
    pub docid: &'a [u8],
    /// Document length in bytes.
    pub bytes: u64,
    /// Error counts (0 for classes the header does not name).
    pub counts: Utf8Counts,
    /// Spam percentile, if the file has a `spam` column and a value.
    pub spam: Option<u8>,
}

/// The header line every writer of this format should emit: `docid`,
/// `bytes`, `spam`, then the seven class keys in [`ErrorClass::ALL`] order.
pub fn header_line() -> String {
    let mut s = String::from("docid\tbytes\tspam");
    for c in ErrorClass::ALL {
        s.push('\t');
        s.push_str(c.key());
    }
    s
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn shown(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.len().min(120)]).into_owned()
}

impl StatsColumns {
    /// Reads the header line (see the [module docs](self)).
    pub fn from_header(line: &[u8]) -> Result<StatsColumns> {
        let bad = |expected: &'static str, got: String| Error::StatsLine {
            line: 1,
            expected,
            got,
        };
        let names: Vec<&[u8]> = trim_eol(line).split(|&b| b == b'\t').collect();
        let mut docid = None;
        let mut bytes = None;
        let mut spam = None;
        let mut classes = [None; 7];
        for (i, name) in names.iter().enumerate() {
            let slot = match *name {
                b"docid" => &mut docid,
                b"bytes" => &mut bytes,
                b"spam" => &mut spam,
                other => {
                    let Some(k) = std::str::from_utf8(other)
                        .ok()
                        .and_then(ErrorClass::from_key)
                        .and_then(|c| ErrorClass::ALL.iter().position(|x| *x == c))
                    else {
                        continue;
                    };
                    &mut classes[k]
                }
            };
            if slot.is_some() {
                return Err(bad("each column named once", shown(name)));
            }
            *slot = Some(i);
        }
        let (Some(docid), Some(bytes)) = (docid, bytes) else {
            return Err(bad(
                "a header naming at least the columns docid and bytes",
                shown(trim_eol(line)),
            ));
        };
        Ok(StatsColumns {
            width: names.len(),
            docid,
            bytes,
            spam,
            classes,
        })
    }

    /// The classes the header does not name (their counts read as 0).
    pub fn missing(&self) -> Vec<ErrorClass> {
        ErrorClass::ALL
            .into_iter()
            .zip(self.classes)
            .filter(|(_, i)| i.is_none())
            .map(|(c, _)| c)
            .collect()
    }

    /// True if the header has a `spam` column.
    pub fn has_spam(&self) -> bool {
        self.spam.is_some()
    }

    /// Parses one data line (`line_no` is 1-based, for errors). `Ok(None)`
    /// for an empty or `#` line.
    pub fn parse<'a>(&self, line: &'a [u8], line_no: u64) -> Result<Option<StatsRow<'a>>> {
        let line = trim_eol(line);
        if line.is_empty() || line.starts_with(b"#") {
            return Ok(None);
        }
        let fields: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        let bad = |expected: &'static str, got: &[u8]| Error::StatsLine {
            line: line_no,
            expected,
            got: shown(got),
        };
        if fields.len() != self.width {
            return Err(bad("as many tab-separated fields as the header", line));
        }
        let int = |i: usize| -> Result<u64> {
            let f = fields[i];
            if f.is_empty() || !f.iter().all(u8::is_ascii_digit) {
                return Err(bad("an unsigned decimal integer", f));
            }
            std::str::from_utf8(f)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad("an integer below 2^64", f))
        };
        let docid = fields[self.docid];
        if docid.is_empty() {
            return Err(bad("a non-empty docid", line));
        }
        let mut counts = Utf8Counts::default();
        for (class, col) in ErrorClass::ALL.into_iter().zip(self.classes) {
            if let Some(i) = col {
                *counts.get_mut(class) = int(i)?;
            }
        }
        let spam = match self.spam {
            Some(i) if !matches!(fields[i], b"" | b"-") => match int(i)? {
                p @ 0..=99 => Some(p as u8),
                _ => return Err(bad("a spam percentile 0-99, empty or -", fields[i])),
            },
            _ => None,
        };
        Ok(Some(StatsRow {
            docid,
            bytes: int(self.bytes)?,
            counts,
            spam,
        }))
    }
}

/// Formats one line of the format [`header_line`] describes (without the
/// newline).
pub fn format_row(docid: &str, bytes: u64, spam: Option<u8>, counts: &Utf8Counts) -> String {
    let mut s = format!("{docid}\t{bytes}\t");
    if let Some(p) = spam {
        s.push_str(&p.to_string());
    }
    for c in ErrorClass::ALL {
        s.push('\t');
        s.push_str(&counts.get(c).to_string());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let cols = StatsColumns::from_header(header_line().as_bytes()).unwrap();
        assert!(cols.missing().is_empty());
        assert!(cols.has_spam());
        let mut counts = Utf8Counts::default();
        for (i, c) in ErrorClass::ALL.into_iter().enumerate() {
            *counts.get_mut(c) = i as u64 * 10 + 1;
        }
        for spam in [None, Some(0), Some(99)] {
            let line = format_row("d-1", 4096, spam, &counts);
            let row = cols.parse(line.as_bytes(), 2).unwrap().unwrap();
            assert_eq!(row.docid, b"d-1");
            assert_eq!(row.bytes, 4096);
            assert_eq!(row.spam, spam);
            assert_eq!(row.counts, counts);
        }
    }

    #[test]
    fn columns_in_any_order_and_unknown_ignored() {
        let cols = StatsColumns::from_header(b"url\tinvalid_4_5_6\tbytes\tdocid\r\n").unwrap();
        let row = cols.parse(b"http://x/\t7\t100\tD\r\n", 2).unwrap().unwrap();
        assert_eq!(
            (row.docid, row.bytes, row.counts.invalid_4_5_6),
            (&b"D"[..], 100, 7)
        );
        assert_eq!(row.spam, None);
        assert!(!cols.has_spam());
        assert_eq!(cols.missing().len(), 6);
    }

    #[test]
    fn errors_carry_line_and_text() {
        assert!(StatsColumns::from_header(b"docid\tspam\n").is_err());
        assert!(StatsColumns::from_header(b"docid\tbytes\tbytes\n").is_err());
        let cols = StatsColumns::from_header(b"docid\tbytes\tspam\n").unwrap();
        for (line, want) in [
            (&b"D\t12\n"[..], "as many"),
            (b"D\tx\t1\n", "unsigned"),
            (b"D\t-1\t1\n", "unsigned"),
            (b"D\t1\t100\n", "0-99"),
            (b"\t1\t1\n", "non-empty"),
            (b"D\t99999999999999999999999\t1\n", "below 2^64"),
        ] {
            let e = cols.parse(line, 7).unwrap_err().to_string();
            assert!(e.contains("line 7") && e.contains(want), "{e}");
        }
        assert_eq!(cols.parse(b"# comment\n", 3).unwrap(), None);
        assert_eq!(cols.parse(b"\n", 3).unwrap(), None);
        assert_eq!(cols.parse(b"D\t1\t-\n", 3).unwrap().unwrap().spam, None);
    }
}
