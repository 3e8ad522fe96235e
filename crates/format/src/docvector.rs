//! Stored document vectors (`sieve-index build --docvectors`): each
//! document's analysed `body` terms with their frequencies, in the stored
//! bytes field [`crate::schema::BODY_VECTOR`], so that feedback reads a
//! document's terms from the document store instead of the postings.
//!
//! ## Encoding (version 1)
//!
//! ```text
//! version   u8 = 1
//! count     LEB128 u32: number of distinct terms
//! count times, terms in strictly increasing byte order:
//!   shared  LEB128 u32: bytes shared with the previous term (0 for the first)
//!   suffix  LEB128 u32: length of the rest of the term, in bytes
//!   bytes   the rest of the term (the term is previous[..shared] + bytes)
//!   tf      LEB128 u32: the term's frequency in the document, >= 1
//! ```
//!
//! LEB128: 7 bits per byte, low bits first, the high bit set on every
//! byte but the last, at most 5 bytes for a u32. Every term is valid UTF-8
//! and the value ends exactly after the last term. The terms and
//! frequencies are those tantivy indexes for the document's `body` (the
//! postings hold the same; `tests::vectors_equal_postings`).

use std::collections::HashMap;
use std::fmt;

/// The version byte of the encoding written by [`encode`].
pub const VERSION: u8 = 1;

/// The longest term tantivy indexes (longer ones are dropped with a
/// warning): the vector leaves them out too.
pub const MAX_TERM_BYTES: usize = tantivy::tokenizer::MAX_TOKEN_LEN;

/// What is wrong with a stored vector: the byte offset where decoding
/// stopped, what was expected there, and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset in the stored value.
    pub offset: usize,
    /// What the decoder expected.
    pub expected: &'static str,
    /// What it found.
    pub got: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "document vector: at byte {}: expected {}, got {}",
            self.offset, self.expected, self.got
        )
    }
}

impl std::error::Error for DecodeError {}

/// The vector of a field given as its terms in position order (repeats
/// counted), encoded: terms longer than [`MAX_TERM_BYTES`] are left out,
/// as tantivy leaves them out of the postings.
pub fn encode_terms<'a>(terms: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut counts: HashMap<&str, u32> = HashMap::new();
    for t in terms {
        if t.len() <= MAX_TERM_BYTES {
            *counts.entry(t).or_insert(0) += 1;
        }
    }
    let mut pairs: Vec<(&str, u32)> = counts.into_iter().collect();
    pairs.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    encode(&pairs)
}

/// Encodes `pairs`, distinct terms in increasing byte order with their
/// frequencies (version 1, see the module docs).
pub fn encode(pairs: &[(&str, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + pairs.iter().map(|p| p.0.len() + 3).sum::<usize>());
    out.push(VERSION);
    put_leb(&mut out, pairs.len() as u32);
    let mut prev: &[u8] = &[];
    for &(term, tf) in pairs {
        let t = term.as_bytes();
        let shared = prev.iter().zip(t).take_while(|(a, b)| a == b).count();
        put_leb(&mut out, shared as u32);
        put_leb(&mut out, (t.len() - shared) as u32);
        out.extend_from_slice(&t[shared..]);
        put_leb(&mut out, tf);
        prev = t;
    }
    out
}

fn put_leb(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A reader over the bytes of a stored vector, tracking its offset.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn err(&self, expected: &'static str, got: String) -> DecodeError {
        DecodeError {
            offset: self.at,
            expected,
            got,
        }
    }

    fn leb(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let start = self.at;
        let mut v: u64 = 0;
        for i in 0..5 {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(self.err(what, "the end of the value".into()));
            };
            self.at += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| DecodeError {
                    offset: start,
                    expected: what,
                    got: format!("{v}, more than a u32"),
                });
            }
        }
        Err(DecodeError {
            offset: start,
            expected: what,
            got: "more than 5 LEB128 bytes".into(),
        })
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], DecodeError> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(self.err(what, format!("{n} bytes with {left} left")));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
}

/// Decodes a stored vector: `(term, tf)` in increasing byte order. Any
/// damage (unknown version, truncation, a shared prefix longer than the
/// previous term, terms out of order or repeated, invalid UTF-8, a zero
/// frequency, trailing bytes) is an error naming the byte offset.
pub fn decode(bytes: &[u8]) -> Result<Vec<(String, u32)>, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let version = r.take(1, "the version byte")?[0];
    if version != VERSION {
        return Err(DecodeError {
            offset: 0,
            expected: "version 1",
            got: format!("version {version}"),
        });
    }
    let count = r.leb("the number of terms")? as usize;
    // Every term takes at least 3 bytes: no allocation beyond the value.
    let mut out: Vec<(String, u32)> = Vec::with_capacity(count.min(bytes.len() / 3));
    for _ in 0..count {
        let at = r.at;
        let prev: &[u8] = out.last().map_or(&[], |(t, _)| t.as_bytes());
        let shared = r.leb("a shared prefix length")? as usize;
        if shared > prev.len() {
            return Err(DecodeError {
                offset: at,
                expected: "a shared prefix no longer than the previous term",
                got: format!("{shared} bytes, previous term {} bytes", prev.len()),
            });
        }
        let len = r.leb("a suffix length")? as usize;
        let suffix = r.take(len, "the bytes of a term")?;
        let mut term = Vec::with_capacity(shared + len);
        term.extend_from_slice(&prev[..shared]);
        term.extend_from_slice(suffix);
        if !out.is_empty() && term.as_slice() <= prev {
            return Err(DecodeError {
                offset: at,
                expected: "terms in strictly increasing byte order",
                got: format!(
                    "{:?} after {:?}",
                    String::from_utf8_lossy(&term),
                    String::from_utf8_lossy(prev)
                ),
            });
        }
        let tf_at = r.at;
        let tf = r.leb("a term frequency")?;
        if tf == 0 {
            return Err(DecodeError {
                offset: tf_at,
                expected: "a term frequency >= 1",
                got: "0".into(),
            });
        }
        let text = String::from_utf8(term).map_err(|e| DecodeError {
            offset: at,
            expected: "a UTF-8 term",
            got: format!("invalid UTF-8 ({})", e.utf8_error()),
        })?;
        out.push((text, tf));
    }
    if r.at != bytes.len() {
        return Err(r.err(
            "the end of the value",
            format!("{} more bytes", bytes.len() - r.at),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_front_coding() {
        let v = encode(&[("appl", 2), ("apple", 1), ("banana", 300)]);
        assert_eq!(
            v,
            [
                &[1u8, 3, 0, 4][..],
                b"appl",
                &[2, 4, 1],
                b"e",
                &[1, 0, 6],
                b"banana",
                &[0xac, 0x02]
            ]
            .concat()
        );
        assert_eq!(
            decode(&v).unwrap(),
            vec![
                ("appl".into(), 2),
                ("apple".into(), 1),
                ("banana".into(), 300)
            ]
        );
        assert_eq!(decode(&encode(&[])).unwrap(), vec![]);
    }

    #[test]
    fn counts_and_sorts() {
        let v = encode_terms(["b", "a", "b", "c", "b"]);
        assert_eq!(
            decode(&v).unwrap(),
            vec![("a".into(), 1), ("b".into(), 3), ("c".into(), 1)]
        );
    }

    #[test]
    fn damage_is_an_error_with_its_offset() {
        let v = encode(&[("ab", 1), ("ac", 2)]);
        let e = decode(&v[..v.len() - 1]).unwrap_err();
        assert_eq!((e.offset, e.expected), (v.len() - 1, "a term frequency"));
        assert_eq!(decode(&[2]).unwrap_err().got, "version 2");
        assert_eq!(decode(&[]).unwrap_err().expected, "the version byte");
        let mut extra = v.clone();
        extra.push(0);
        assert_eq!(decode(&extra).unwrap_err().offset, v.len());
        // The second term repeats the first.
        let dup = [&[1u8, 2, 0, 1][..], b"a", &[1, 1, 0, 1]].concat();
        assert_eq!(
            decode(&dup).unwrap_err().expected,
            "terms in strictly increasing byte order"
        );
        let zero = [&[1u8, 1, 0, 1][..], b"a", &[0]].concat();
        assert_eq!(decode(&zero).unwrap_err().expected, "a term frequency >= 1");
        let long = [1u8, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert!(decode(&long).unwrap_err().got.contains("LEB128"));
        let huge = [1u8, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert!(decode(&huge).unwrap_err().got.contains("more than a u32"));
    }

    proptest! {
        #[test]
        fn any_vector_round_trips(terms in proptest::collection::btree_map("[a-z\u{e0}-\u{ff}]{1,12}", 1u32..100_000, 0..40)) {
            let pairs: Vec<(&str, u32)> = terms.iter().map(|(t, f)| (t.as_str(), *f)).collect();
            let back = decode(&encode(&pairs)).unwrap();
            let want: Vec<(String, u32)> = terms.into_iter().collect();
            prop_assert_eq!(back, want);
        }

        #[test]
        fn any_bytes_decode_or_fail_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode(&bytes);
        }
    }
}
