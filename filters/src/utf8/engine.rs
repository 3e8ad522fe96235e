//! The cleaning engine: a simdutf8 fast path over valid runs and a `#[cold]`
//! exact scalar path for the bytes around each error.
//!
//! The engine is written once, generic over a [`Target`] that either writes the
//! repairs into the buffer ([`InPlace`]) or only reads it ([`ReadOnly`]), so
//! [`super::count`] and [`super::clean_in_place`] cannot disagree.

use super::Utf8Counts;

/// The buffer the engine walks. Reads go through [`Target::bytes`]; repairs
/// only ever touch bytes the engine has already read and moved past, so a
/// writing target sees exactly the same bytes ahead of the cursor as a
/// read-only one.
pub(super) trait Target {
    /// The bytes being cleaned (after any repairs already made).
    fn bytes(&self) -> &[u8];
    /// Overwrite `start..end` with spaces.
    fn blank(&mut self, start: usize, end: usize);
    /// Overwrite `at..at + src.len()` with `src`.
    fn write(&mut self, at: usize, src: &[u8]);
}

/// Cleans in place.
pub(super) struct InPlace<'a>(pub(super) &'a mut [u8]);

impl Target for InPlace<'_> {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.0
    }
    #[inline(always)]
    fn blank(&mut self, start: usize, end: usize) {
        // Spans are 1 to 6 bytes: fixed-size stores, not a memset call.
        const SPACES: [u8; 8] = [b' '; 8];
        let span = &mut self.0[start..end];
        match span.len() {
            1 => span[0] = b' ',
            2 => span.copy_from_slice(&SPACES[..2]),
            3 => span.copy_from_slice(&SPACES[..3]),
            4 => span.copy_from_slice(&SPACES[..4]),
            _ => span.fill(b' '),
        }
    }
    #[inline(always)]
    fn write(&mut self, at: usize, src: &[u8]) {
        self.0[at..at + src.len()].copy_from_slice(src);
    }
}

/// Only counts; never writes.
pub(super) struct ReadOnly<'a>(pub(super) &'a [u8]);

impl Target for ReadOnly<'_> {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.0
    }
    #[inline(always)]
    fn blank(&mut self, _start: usize, _end: usize) {}
    #[inline(always)]
    fn write(&mut self, _at: usize, _src: &[u8]) {}
}

/// Marker in [`NEED`] for a continuation byte (80–BF) met where a sequence
/// should start.
const CONT: u8 = 0x80;
/// Marker in [`NEED`] for FE and FF, which are never part of any sequence.
const NEVER: u8 = 0xFF;

/// For each byte value: how many continuation bytes it declares as a lead
/// byte (0 for ASCII), or [`CONT`], or [`NEVER`].
static NEED: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0x80;
    while b < 256 {
        t[b] = match b {
            0x80..=0xBF => CONT,
            0xC0..=0xDF => 1,
            0xE0..=0xEF => 2,
            0xF0..=0xF7 => 3,
            0xF8..=0xFB => 4,
            0xFC..=0xFD => 5,
            _ => NEVER,
        };
        b += 1;
    }
    t
};

/// Payload bits of a lead byte, indexed by the number of continuation bytes
/// it declares.
const LEAD_MASK: [u8; 6] = [0x7F, 0x1F, 0x0F, 0x07, 0x03, 0x01];

/// After this many error-free bytes the scalar path hands back to the SIMD
/// validator. Small enough that a document with one early error still runs
/// mostly on the fast path; large enough that error-dense text does not pay
/// the validator's set-up cost at every error.
const RESUME_AFTER: usize = 256;

/// Length of the shortest UTF-8 form of `v` (`v` <= 10FFFF).
#[inline(always)]
fn shortest_len(v: u32) -> usize {
    match v {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}

/// Encodes `v` (<= 10FFFF, not a surrogate) in its shortest form.
#[inline(always)]
fn encode(v: u32, out: &mut [u8; 4]) -> usize {
    // Truncating casts below keep exactly the bits UTF-8 puts in each byte.
    match v {
        0..=0x7F => {
            out[0] = v as u8;
            1
        }
        0x80..=0x7FF => {
            out[0] = 0xC0 | (v >> 6) as u8;
            out[1] = 0x80 | (v & 0x3F) as u8;
            2
        }
        0x800..=0xFFFF => {
            out[0] = 0xE0 | (v >> 12) as u8;
            out[1] = 0x80 | ((v >> 6) & 0x3F) as u8;
            out[2] = 0x80 | (v & 0x3F) as u8;
            3
        }
        _ => {
            out[0] = 0xF0 | (v >> 18) as u8;
            out[1] = 0x80 | ((v >> 12) & 0x3F) as u8;
            out[2] = 0x80 | ((v >> 6) & 0x3F) as u8;
            out[3] = 0x80 | (v & 0x3F) as u8;
            4
        }
    }
}

/// Where the engine stopped.
enum Step {
    /// Everything up to the end is decided.
    End,
    /// The bytes from this offset on are a lead byte plus fewer continuation
    /// bytes than it declares, cut off by the end of the buffer, and the
    /// caller said more input may follow.
    Pending(usize),
    /// The scalar path saw a long error-free run; continue on the fast path
    /// from this offset (always the start of a sequence).
    Resume(usize),
}

/// Cleans (or, for [`ReadOnly`], just counts) `t`, adding to `counts`, and
/// adds to `extra` the leftover bytes of over-long forms (the bytes after
/// the shortest encoding), which [`Counting::Atire`] counts as unexpected
/// continuation bytes: the caller adds them to `counts` for that counting.
///
/// Returns the number of bytes decided. If `at_end` is true the end of the
/// buffer is the end of the input, and the return value is the buffer length.
/// Otherwise the bytes from the return value on (at most 5) are an incomplete
/// sequence whose fate depends on input not seen yet; they are neither
/// modified nor counted.
pub(super) fn run<T: Target>(
    t: &mut T,
    at_end: bool,
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> usize {
    let n = t.bytes().len();
    let mut i = 0;
    loop {
        match simdutf8::compat::from_utf8(&t.bytes()[i..]) {
            Ok(_) => return n,
            Err(e) => {
                // Everything std calls valid is valid by our definition too
                // (same lead ranges, same over-long, surrogate and 10FFFF
                // rules), and a valid prefix ends on a sequence boundary.
                i += e.valid_up_to();
                match repair(t, i, at_end, counts, extra) {
                    Step::End => return n,
                    Step::Pending(p) => return p,
                    Step::Resume(r) => i = r,
                }
            }
        }
    }
}

/// Runs only the exact scalar path over the whole buffer (no SIMD).
pub(super) fn run_scalar<T: Target>(
    t: &mut T,
    at_end: bool,
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> usize {
    let n = t.bytes().len();
    let mut i = 0;
    loop {
        match repair_from(t, i, at_end, counts, extra, usize::MAX) {
            Step::End => return n,
            Step::Pending(p) => return p,
            Step::Resume(r) => i = r,
        }
    }
}

#[cold]
#[inline(never)]
fn repair<T: Target>(
    t: &mut T,
    i: usize,
    at_end: bool,
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> Step {
    repair_from(t, i, at_end, counts, extra, RESUME_AFTER)
}

/// The exact definition, one sequence at a time, starting at the start of a
/// sequence `i`. Returns [`Step::Resume`] once `resume_after` bytes in a row
/// were valid.
#[inline(always)]
fn repair_from<T: Target>(
    t: &mut T,
    mut i: usize,
    at_end: bool,
    counts: &mut Utf8Counts,
    extra: &mut u64,
    resume_after: usize,
) -> Step {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = t.bytes().len();
    // Offset just past the last malformed sequence.
    let mut clean_from = i;
    loop {
        let b = t.bytes();
        // ASCII: eight bytes at a time, then one at a time.
        while i + 8 <= n {
            let mut word = [0u8; 8];
            word.copy_from_slice(&b[i..i + 8]);
            let hi = u64::from_le_bytes(word) & HI;
            if hi != 0 {
                i += (hi.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        while i < n && b[i] < 0x80 {
            i += 1;
        }
        if i >= n {
            return Step::End;
        }
        if i - clean_from >= resume_after {
            return Step::Resume(i);
        }
        let lead = b[i];
        let need = NEED[lead as usize];
        if need == CONT {
            t.blank(i, i + 1);
            counts.unexpected_continuation += 1;
            i += 1;
            clean_from = i;
            continue;
        }
        if need == NEVER {
            t.blank(i, i + 1);
            counts.invalid_4_5_6 += 1;
            i += 1;
            clean_from = i;
            continue;
        }
        let need = need as usize;
        // Gather the run of continuation bytes, up to `need` of them.
        let mut v = u32::from(lead & LEAD_MASK[need]);
        let mut found = 0;
        while found < need {
            let j = i + 1 + found;
            if j >= n || b[j] & 0xC0 != 0x80 {
                break;
            }
            v = (v << 6) | u32::from(b[j] & 0x3F);
            found += 1;
        }
        if found < need {
            let end = i + 1 + found;
            if end == n && !at_end {
                return Step::Pending(i);
            }
            t.blank(i, end);
            counts.missing_continuation += 1;
            i = end;
            clean_from = i;
            continue;
        }
        let len = need + 1;
        if len >= 5 || v > 0x10_FFFF {
            t.blank(i, i + len);
            counts.invalid_4_5_6 += 1;
        } else if (0xD800..=0xDFFF).contains(&v) {
            t.blank(i, i + len);
            counts.surrogate += 1;
        } else {
            let short = shortest_len(v);
            if short == len {
                // Valid.
                i += len;
                continue;
            }
            if v == 0 {
                t.blank(i, i + len);
                counts.overlong_nul += 1;
            } else {
                let mut enc = [0u8; 4];
                let k = encode(v, &mut enc);
                t.write(i, &enc[..k]);
                t.blank(i + k, i + len);
                if v < 0x80 {
                    counts.overlong_ascii += 1;
                } else {
                    counts.overlong_non_ascii += 1;
                }
            }
            *extra += (len - short) as u64;
        }
        i += len;
        clean_from = i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn need_table_matches_the_declared_lengths() {
        for b in 0u16..=255 {
            let b = b as u8;
            let want = match b {
                0x00..=0x7F => 0,
                0x80..=0xBF => CONT,
                0xC0..=0xDF => 1,
                0xE0..=0xEF => 2,
                0xF0..=0xF7 => 3,
                0xF8..=0xFB => 4,
                0xFC..=0xFD => 5,
                0xFE..=0xFF => NEVER,
            };
            assert_eq!(NEED[b as usize], want, "byte {b:02X}");
        }
    }

    #[test]
    fn encode_agrees_with_std_for_every_scalar_value() {
        for v in (0u32..=0x10_FFFF).filter(|v| !(0xD800..=0xDFFF).contains(v)) {
            let c = char::from_u32(v).expect("scalar value");
            let mut want = [0u8; 4];
            let want = c.encode_utf8(&mut want).as_bytes();
            let mut got = [0u8; 4];
            let k = encode(v, &mut got);
            assert_eq!(&got[..k], want, "U+{v:04X}");
            assert_eq!(shortest_len(v), want.len(), "U+{v:04X}");
        }
    }
}
