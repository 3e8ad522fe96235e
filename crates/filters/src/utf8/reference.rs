//! A slow reference cleaner written straight from the definition.

use super::{Counting, Utf8Counts};

/// Cleans `input` into a new vector by the definition in the
/// [module docs](super), slowly and obviously.
///
/// This is the oracle for the property tests and the `utf8_clean` fuzz
/// target. It shares no code with the engine: it builds a new vector rather
/// than writing in place, and decodes with plain arithmetic. Its output and
/// counts must equal [`clean_in_place_with`](super::clean_in_place_with)'s.
pub fn reference_clean(input: &[u8], counting: Counting) -> (Vec<u8>, Utf8Counts) {
    let mut out = Vec::with_capacity(input.len());
    let mut c = Utf8Counts::default();
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        let (len, payload) = match start(b) {
            Start::Ascii => {
                out.push(b);
                i += 1;
                continue;
            }
            Start::Continuation => {
                c.unexpected_continuation += 1;
                out.push(b' ');
                i += 1;
                continue;
            }
            Start::Never => {
                c.invalid_4_5_6 += 1;
                out.push(b' ');
                i += 1;
                continue;
            }
            Start::Lead(len, payload) => (len, payload),
        };
        let found = input[i + 1..]
            .iter()
            .take(len - 1)
            .take_while(|&&x| (0x80..=0xBF).contains(&x))
            .count();
        if found < len - 1 {
            c.missing_continuation += 1;
            out.extend(std::iter::repeat_n(b' ', found + 1));
            i += found + 1;
            continue;
        }
        complete(&input[i..i + len], payload, counting, &mut c, &mut out);
        i += len;
    }
    (out, c)
}

/// What a byte at the start of a sequence is, by the table of the
/// [module docs](super).
enum Start {
    /// 00–7F: a one-byte sequence.
    Ascii,
    /// 80–BF: a continuation byte with no lead.
    Continuation,
    /// FE, FF: never valid.
    Never,
    /// C0–FD: the lead of a form of this many bytes, with its payload bits.
    Lead(usize, u64),
}

/// The meaning of `b` at the start of a sequence.
fn start(b: u8) -> Start {
    match b {
        0x00..=0x7F => Start::Ascii,
        0x80..=0xBF => Start::Continuation,
        0xC0..=0xDF => Start::Lead(2, u64::from(b & 0x1F)),
        0xE0..=0xEF => Start::Lead(3, u64::from(b & 0x0F)),
        0xF0..=0xF7 => Start::Lead(4, u64::from(b & 0x07)),
        0xF8..=0xFB => Start::Lead(5, u64::from(b & 0x03)),
        0xFC..=0xFD => Start::Lead(6, u64::from(b & 0x01)),
        0xFE..=0xFF => Start::Never,
    }
}

/// Decides a sequence whose lead declared all its continuation bytes
/// (`seq`: the lead and them; `payload`: the lead's bits), counts its
/// class in `c` and appends its replacement (or itself, if valid) to `out`.
fn complete(seq: &[u8], payload: u64, counting: Counting, c: &mut Utf8Counts, out: &mut Vec<u8>) {
    let len = seq.len();
    let v = seq[1..]
        .iter()
        .fold(payload, |v, &x| (v << 6) | u64::from(x & 0x3F));
    let shortest = match v {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    };
    if len >= 5 || v > 0x10FFFF {
        c.invalid_4_5_6 += 1;
        out.extend(std::iter::repeat_n(b' ', len));
    } else if (0xD800..=0xDFFF).contains(&v) {
        c.surrogate += 1;
        out.extend(std::iter::repeat_n(b' ', len));
    } else if len > shortest {
        overlong(v, len, counting, c, out);
    } else {
        out.extend_from_slice(seq);
    }
}

/// An over-long form of `v`, `len` bytes long: counted by its class and
/// replaced by spaces (NUL) or by the shortest form of `v` then spaces.
fn overlong(v: u64, len: usize, counting: Counting, c: &mut Utf8Counts, out: &mut Vec<u8>) {
    if v == 0 {
        c.overlong_nul += 1;
        out.extend(std::iter::repeat_n(b' ', len));
        if counting == Counting::Atire {
            c.unexpected_continuation += u64::try_from(len - 1).unwrap_or(u64::MAX);
        }
        return;
    }
    if v < 0x80 {
        c.overlong_ascii += 1;
    } else {
        c.overlong_non_ascii += 1;
    }
    let ch = char::from_u32(u32::try_from(v).unwrap()).unwrap();
    let mut tmp = [0u8; 4];
    let enc = ch.encode_utf8(&mut tmp).as_bytes();
    out.extend_from_slice(enc);
    out.extend(std::iter::repeat_n(b' ', len - enc.len()));
    if counting == Counting::Atire {
        c.unexpected_continuation += u64::try_from(len - enc.len()).unwrap_or(u64::MAX);
    }
}
