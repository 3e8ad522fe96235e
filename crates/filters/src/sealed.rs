//! Sealed files: a version and a CRC-32 over every file sieve writes and
//! later reads back, verified before anything in the file is parsed.
//!
//! Pure: the functions here turn bytes into sealed bytes and check sealed
//! bytes; the callers do the I/O and add the file name to the error.
//!
//! # Binary files ([`seal_binary`], [`open_binary`])
//!
//! ```text
//! NAME VERSION\n                                          the magic line, e.g. "SIEVE-FILTER 2"
//! sieve-seal crc32=XXXXXXXX bytes=NNNNNNNNNNNNNNNNNNNN\n  the seal line, always SEAL_LINE_LEN bytes
//! <payload>                                               exactly NNNN bytes
//! ```
//!
//! `XXXXXXXX` is the CRC-32 (IEEE, as gzip and zip use it; lower-case hex)
//! of the magic line followed by the payload; `NNNN` is the payload's length
//! in bytes, zero-padded to 20 digits. Truncation or extension shows as a
//! length mismatch, any other damage as a checksum mismatch (CRC-32 detects
//! every burst of up to 32 damaged bits), a file of another kind or version
//! as a magic-line mismatch.
//!
//! # JSON files ([`seal_json`], [`open_json`])
//!
//! A JSON object whose last member is the seal, so that the file stays
//! plain JSON (`jq .` reads it, `jq .sieve_seal` shows the seal):
//!
//! ```text
//! {
//!   "header": ...,
//!   "doc_freq": {...},
//!   "sieve_seal": {"crc32": "XXXXXXXX", "bytes": NNNN}
//! }
//! ```
//!
//! The seal covers the raw bytes of the file before the `,` that precedes
//! `"sieve_seal"` (the object without its seal and closing brace):
//! `bytes` is their number, `crc32` their CRC-32. After the seal the file
//! ends with exactly `\n}\n`. The check is on bytes, not on the parsed
//! value: a file reformatted by another tool (`jq . f > g`) no longer
//! verifies, by design. The version of a JSON file is the file's own
//! business (a header field); the seal does not have one.

use crate::{Error, Result};

/// Length in bytes of the seal line of a binary file.
pub const SEAL_LINE_LEN: usize = SEAL_PREFIX.len() + 8 + BYTES_INFIX.len() + 20 + 1;

const SEAL_PREFIX: &str = "sieve-seal crc32=";
const BYTES_INFIX: &str = " bytes=";
/// What precedes the seal member of a sealed JSON object.
const JSON_MARKER: &[u8] = b",\n  \"sieve_seal\": ";

/// CRC-32 (IEEE) of the concatenation of `parts`.
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

/// At most 60 bytes of `b`, lossy UTF-8, for error messages.
fn shown(b: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(&b[..b.len().min(60)]))
}

fn sealed_err(part: &'static str, offset: usize, expected: String, found: String) -> Error {
    Error::Sealed {
        part,
        offset: offset as u64,
        expected,
        found,
    }
}

/// The magic line and seal line of a binary file of kind `name` (no spaces,
/// e.g. `SIEVE-FILTER`), version `version`, whose payload is the
/// concatenation of `payload`. Write them, then the payload parts, and the
/// file is sealed (this lets a caller stream a large payload it already
/// holds in pieces).
pub fn binary_prefix(name: &str, version: u32, payload: &[&[u8]]) -> Vec<u8> {
    let magic = format!("{name} {version}\n");
    let mut parts = vec![magic.as_bytes()];
    parts.extend_from_slice(payload);
    let crc = crc32(&parts);
    let len: usize = payload.iter().map(|p| p.len()).sum();
    let mut out = magic.clone().into_bytes();
    out.extend_from_slice(format!("{SEAL_PREFIX}{crc:08x}{BYTES_INFIX}{len:020}\n").as_bytes());
    out
}

/// A sealed binary file: [`binary_prefix`] followed by `payload`.
pub fn seal_binary(name: &str, version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = binary_prefix(name, version, &[payload]);
    out.extend_from_slice(payload);
    out
}

/// Checks a sealed binary file of kind `name` and version `version`;
/// returns the byte offset where its payload starts (it runs to the end).
///
/// Errors ([`Error::Sealed`], with the byte offset, expected and found):
/// the first line is not `NAME VERSION` (another kind of file, or another
/// version: `older` is appended to the found value when the version is
/// lower, to say what to do), the seal line does not parse, the payload
/// length differs from the sealed one, or the CRC-32 differs.
pub fn open_binary(name: &str, version: u32, file: &[u8], older: &str) -> Result<usize> {
    let magic = format!("{name} {version}\n");
    let line_end = memchr::memchr(b'\n', &file[..file.len().min(magic.len() + 16)]);
    let first = &file[..line_end.unwrap_or(file.len().min(magic.len()))];
    if line_end.map(|e| e + 1) != Some(magic.len()) || !file.starts_with(magic.as_bytes()) {
        let mut found = shown(first);
        let other = std::str::from_utf8(first)
            .ok()
            .and_then(|l| l.strip_prefix(name)?.trim().parse::<u32>().ok());
        if other.is_some_and(|v| v < version) {
            found = format!("{found} ({older})");
        }
        return Err(sealed_err(
            "magic line",
            0,
            shown(magic.trim_end().as_bytes()),
            found,
        ));
    }
    let start = magic.len();
    let seal = &file[start..file.len().min(start + SEAL_LINE_LEN)];
    let Some((crc, len)) = parse_seal_line(seal) else {
        return Err(sealed_err(
            "seal line",
            start,
            format!("\"{SEAL_PREFIX}<8 hex digits>{BYTES_INFIX}<20 digits>\""),
            shown(seal),
        ));
    };
    let body = start + SEAL_LINE_LEN;
    let found_len = (file.len() - body) as u64;
    if found_len != len {
        return Err(sealed_err(
            "payload length",
            body,
            format!("{len} bytes (file length {})", body as u64 + len),
            format!("{found_len} bytes (file length {})", file.len()),
        ));
    }
    let found_crc = crc32(&[&file[..start], &file[body..]]);
    if found_crc != crc {
        return Err(sealed_err(
            "CRC-32 of magic line and payload",
            body,
            format!("{crc:08x}"),
            format!("{found_crc:08x}"),
        ));
    }
    Ok(body)
}

fn parse_seal_line(line: &[u8]) -> Option<(u32, u64)> {
    let s = std::str::from_utf8(line).ok()?;
    let rest = s.strip_prefix(SEAL_PREFIX)?;
    let (crc, rest) = rest.split_at_checked(8)?;
    let digits = rest.strip_prefix(BYTES_INFIX)?.strip_suffix('\n')?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    if !crc.chars().all(hex) || digits.len() != 20 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((u32::from_str_radix(crc, 16).ok()?, digits.parse().ok()?))
}

/// Seals the text of a JSON object (`{` ... `}`, optionally followed by
/// whitespace, with at least one member): see the module docs. Fails when
/// the text is not such an object.
pub fn seal_json(object: &str) -> Result<String> {
    let trimmed = object.trim_end();
    let body = trimmed
        .strip_suffix('}')
        .map(str::trim_end)
        .filter(|b| b.starts_with('{') && b.len() > 1)
        .ok_or_else(|| {
            sealed_err(
                "JSON object",
                0,
                "an object with at least one member".into(),
                shown(trimmed.as_bytes()),
            )
        })?;
    let mut out = body.to_string();
    out.push_str(&json_tail(crc32(&[body.as_bytes()]), body.len() as u64));
    Ok(out)
}

fn json_tail(crc: u32, bytes: u64) -> String {
    format!(
        "{}{{\"crc32\": \"{crc:08x}\", \"bytes\": {bytes}}}\n}}\n",
        String::from_utf8_lossy(JSON_MARKER)
    )
}

/// Checks a sealed JSON file; returns the object without its seal member
/// (the text [`seal_json`] was given, up to its closing brace), ready to
/// parse.
///
/// Errors ([`Error::Sealed`]): no seal member, a seal member that does not
/// read `{"crc32": "<8 hex digits>", "bytes": N}` followed by `\n}\n` and
/// the end of the file, a length or a CRC-32 that differs.
pub fn open_json(file: &[u8]) -> Result<Vec<u8>> {
    let Some(at) = memchr::memmem::rfind(file, JSON_MARKER) else {
        return Err(sealed_err(
            "seal member",
            file.len(),
            format!(
                "a last member \"sieve_seal\" (files written before seals existed have none: regenerate the file), in {} bytes",
                file.len()
            ),
            "none".into(),
        ));
    };
    let rest = &file[at + JSON_MARKER.len()..];
    let seal = parse_json_seal(rest);
    let expected_tail = seal.map(|(crc, n)| json_tail(crc, n));
    let Some(((crc, bytes), tail)) = seal.zip(expected_tail) else {
        return Err(sealed_err(
            "seal member",
            at,
            "{\"crc32\": \"<8 hex digits>\", \"bytes\": N}".into(),
            shown(rest),
        ));
    };
    if &file[at..] != tail.as_bytes() {
        let (expected_len, found_len) = (at + tail.len(), file.len());
        let (what, expected, found) = if expected_len != found_len {
            (
                "file length",
                expected_len.to_string(),
                found_len.to_string(),
            )
        } else {
            ("end of file", shown(tail.as_bytes()), shown(&file[at..]))
        };
        return Err(sealed_err(what, at, expected, found));
    }
    if at as u64 != bytes {
        return Err(sealed_err(
            "length before the seal",
            at,
            format!("{bytes} bytes"),
            format!("{at} bytes"),
        ));
    }
    let found = crc32(&[&file[..at]]);
    if found != crc {
        return Err(sealed_err(
            "CRC-32 before the seal",
            at,
            format!("{crc:08x}"),
            format!("{found:08x}"),
        ));
    }
    let mut out = file[..at].to_vec();
    out.extend_from_slice(b"\n}\n");
    Ok(out)
}

/// `{"crc32": "XXXXXXXX", "bytes": N}` at the start of `rest`.
fn parse_json_seal(rest: &[u8]) -> Option<(u32, u64)> {
    let rest = rest.strip_prefix(b"{\"crc32\": \"")?;
    let crc = std::str::from_utf8(rest.get(..8)?).ok()?;
    if !crc
        .bytes()
        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        return None;
    }
    let rest = rest[8..].strip_prefix(b"\", \"bytes\": ")?;
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || n > 20 {
        return None;
    }
    let bytes = std::str::from_utf8(&rest[..n]).ok()?.parse().ok()?;
    Some((u32::from_str_radix(crc, 16).ok()?, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const OLDER: &str = "older: rebuild it";

    fn err(r: Result<impl std::fmt::Debug>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn binary_round_trip_and_layout() {
        let f = seal_binary("SIEVE-TEST", 3, b"hello");
        let text = String::from_utf8(f.clone()).unwrap();
        assert!(
            text.starts_with("SIEVE-TEST 3\nsieve-seal crc32="),
            "{text}"
        );
        assert!(
            text.ends_with(" bytes=00000000000000000005\nhello"),
            "{text}"
        );
        let at = open_binary("SIEVE-TEST", 3, &f, OLDER).unwrap();
        assert_eq!(&f[at..], b"hello");
        assert_eq!(at, "SIEVE-TEST 3\n".len() + SEAL_LINE_LEN);
    }

    #[test]
    fn binary_damage_names_expected_and_found() {
        let f = seal_binary("SIEVE-TEST", 3, b"hello world");
        let e = err(open_binary("SIEVE-TEST", 3, &f[..f.len() - 1], OLDER));
        assert!(
            e.contains("expected 11 bytes") && e.contains("found 10 bytes"),
            "{e}"
        );
        let mut g = f.clone();
        *g.last_mut().unwrap() ^= 1;
        let e = err(open_binary("SIEVE-TEST", 3, &g, OLDER));
        assert!(
            e.contains("CRC-32") && e.contains("expected") && e.contains("found"),
            "{e}"
        );
        let mut g = f.clone();
        g[2] ^= 0x20;
        let e = err(open_binary("SIEVE-TEST", 3, &g, OLDER));
        assert!(e.contains("magic line") && e.contains("SIeVE-TEST"), "{e}");
        let old = seal_binary("SIEVE-TEST", 2, b"hello");
        let e = err(open_binary("SIEVE-TEST", 3, &old, OLDER));
        assert!(e.contains(OLDER) && e.contains("SIEVE-TEST 2"), "{e}");
        let newer = seal_binary("SIEVE-TEST", 4, b"hello");
        assert!(!err(open_binary("SIEVE-TEST", 3, &newer, OLDER)).contains(OLDER));
        let e = err(open_binary(
            "SIEVE-TEST",
            3,
            b"SIEVE-TEST 3\nsieve-seal",
            OLDER,
        ));
        assert!(e.contains("seal line"), "{e}");
        assert!(open_binary("SIEVE-TEST", 3, b"", OLDER).is_err());
    }

    #[test]
    fn json_round_trip_stays_json() {
        let text = "{\n  \"a\": 1,\n  \"b\": [2, 3]\n}";
        let sealed = seal_json(text).unwrap();
        let v: serde_json::Value = serde_json::from_str(&sealed).unwrap();
        assert_eq!(v["b"][1], 3);
        assert_eq!(v["sieve_seal"]["bytes"], 25);
        assert_eq!(
            open_json(sealed.as_bytes()).unwrap(),
            format!("{text}\n").into_bytes()
        );
        assert!(seal_json("{}").is_err());
        assert!(seal_json("[1]").is_err());
    }

    #[test]
    fn json_damage_names_expected_and_found() {
        let sealed = seal_json("{\n  \"num_docs\": 44\n}\n")
            .unwrap()
            .into_bytes();
        let e = err(open_json(&sealed[..sealed.len() - 1]));
        assert!(e.contains("file length") && e.contains("expected"), "{e}");
        let mut g = sealed.clone();
        g[16] = b'5';
        let e = err(open_json(&g));
        assert!(e.contains("CRC-32") && e.contains("found"), "{e}");
        let e = err(open_json(b"{\n  \"num_docs\": 44\n}\n"));
        assert!(e.contains("sieve_seal") && e.contains("found none"), "{e}");
        let mut g = sealed.clone();
        let n = g.len();
        g[n - 6] = b'x';
        assert!(err(open_json(&g)).contains("seal member"));
    }

    proptest! {
        /// Any single-byte change or truncation of a sealed file is refused.
        #[test]
        fn every_damage_is_detected(
            payload in proptest::collection::vec(any::<u8>(), 1..200),
            at in any::<prop::sample::Index>(),
            flip in 1u8..=255,
            cut in any::<prop::sample::Index>(),
        ) {
            let f = seal_binary("SIEVE-TEST", 1, &payload);
            let mut g = f.clone();
            g[at.index(f.len())] ^= flip;
            prop_assert!(open_binary("SIEVE-TEST", 1, &g, OLDER).is_err());
            prop_assert!(open_binary("SIEVE-TEST", 1, &f[..cut.index(f.len())], OLDER).is_err());
            let text = format!("{{\"p\": {}}}", serde_json::to_string(&payload).unwrap());
            let j = seal_json(&text).unwrap().into_bytes();
            let mut g = j.clone();
            g[at.index(j.len())] ^= flip;
            prop_assert!(open_json(&g).is_err());
            prop_assert!(open_json(&j[..cut.index(j.len())]).is_err());
        }
    }
}
