//! The cleaning engine: a simdutf8 fast path over valid runs and a `#[cold]`
//! exact path, branch-free per byte, for the bytes around each error.
//!
//! The engine is written once, generic over a [`Target`] that either writes the
//! repairs into the buffer ([`InPlace`]) or only reads it ([`ReadOnly`]), so
//! [`super::count`] and [`super::clean_in_place`] cannot disagree.
//!
//! # The exact path
//!
//! The definition in the [module docs](super) cuts the input into sequences
//! from left to right, but the cut is local: every byte that is not a
//! continuation byte (80–BF) starts a sequence (it ends any run of
//! continuation bytes), and a continuation byte belongs to the nearest lead
//! byte before it if only continuation bytes lie between them and the lead
//! declares enough of them; otherwise it is an unexpected continuation byte.
//! So the exact path needs no cursor that hops from sequence to sequence
//! (a chain of unpredictable branches on random bytes). It works on blocks
//! of [`BLOCK`] bytes:
//!
//! 1. Eight-byte words give bit masks of the block's continuation bytes and
//!    of its lead bytes (C0–FF here: FE and FF are handled as leads that
//!    take no continuation byte), and the number of FE/FF bytes. A block with
//!    no byte >= 80 is done.
//! 2. A lead not followed by a continuation byte (the commonest error on
//!    random bytes) is one byte to blank: missing continuation bytes, or
//!    invalid 4/5/6-byte for FE/FF. These are decided from the masks alone,
//!    with a population count.
//! 3. Each lead followed by a continuation byte is decided from one
//!    eight-byte load: how many continuation bytes follow it, and from a
//!    table of std's ranges for the second byte ([`LEADS`]) whether a
//!    complete sequence is valid. Valid and missing continuation bytes (by
//!    far the commonest outcomes) need no branch. Anything else (over-long,
//!    surrogate, invalid 4/5/6-byte, FE/FF) branches to [`decide`], which
//!    computes the value, the class and the replacement (spaces, or the
//!    shortest form of an over-long value then spaces). Class counts go into
//!    an eight-bit field per class of one `u64`.
//! 4. The continuation bytes no lead took are unexpected continuation bytes.
//! 5. The replacements are merged into the buffer a word at a time under the
//!    mask of bytes to replace (nothing is written for an error-free block).
//!
//! A span may run up to 5 bytes past its block; those bytes are merged with
//! the block, and the next block is told which of its first bytes a lead of
//! the previous block took (the carry). The last bytes (fewer than
//! [`WINDOW`]) are copied into a zero-padded local buffer and cleaned the same
//! way: the zeros are ASCII, which ends a run exactly as the end of the input
//! does.

use super::Utf8Counts;

/// Bytes per block of the exact path: one bit each in a `u64` mask.
const BLOCK: usize = 64;

/// Bytes a block reads and may write: its own, then up to 8 more for the
/// eight-byte load at its last lead (a span runs at most 5 bytes past it).
const WINDOW: usize = BLOCK + 8;

/// After this many error-free bytes the exact path hands back to the SIMD
/// validator. Small enough that a document with one early error still runs
/// mostly on the fast path; large enough that error-dense text does not pay
/// the validator's set-up cost at every error.
const RESUME_AFTER: usize = 256;

const HI: u64 = 0x8080_8080_8080_8080;
const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const ONES: u64 = 0x0101_0101_0101_0101;
const SPACES: u64 = 0x2020_2020_2020_2020;

/// For each 8-bit mask, the `u64` with byte `j` FF where bit `j` is set.
static EXPAND: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut j = 0;
        while j < 8 {
            if m >> j & 1 == 1 {
                t[m] |= 0xFF << (8 * j);
            }
            j += 1;
        }
        m += 1;
    }
    t
};

/// For each lead byte C0–FD: the continuation bytes it declares (bits 0-2),
/// and the range of second bytes for which a complete sequence is valid, as
/// its low end (bits 8-15) and width (bits 16-23; 0 when none is valid).
/// These are std's (Unicode's) ranges, so a complete sequence is valid by
/// the module's definition exactly when its second byte is in range. FE and
/// FF (and the bytes below C0, never looked up) are all zero: no valid
/// range.
static LEADS: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut b = 0xC0;
    while b <= 0xFD {
        let (need, lo, hi): (u32, u32, u32) = match b {
            0xC0..=0xC1 => (1, 0, 0),
            0xC2..=0xDF => (1, 0x80, 0xC0),
            0xE0 => (2, 0xA0, 0xC0),
            0xED => (2, 0x80, 0xA0),
            0xE1..=0xEF => (2, 0x80, 0xC0),
            0xF0 => (3, 0x90, 0xC0),
            0xF1..=0xF3 => (3, 0x80, 0xC0),
            0xF4 => (3, 0x80, 0x90),
            0xF5..=0xF7 => (3, 0, 0),
            0xF8..=0xFB => (4, 0, 0),
            _ => (5, 0, 0),
        };
        t[b] = need | lo << 8 | (hi - lo) << 16;
        b += 1;
    }
    t
};

/// The buffer the engine walks. Reads go through [`Target::bytes`]; repairs
/// only ever touch bytes of sequences already decided, so a writing target
/// and a read-only one decide every sequence alike.
pub(super) trait Target {
    /// The bytes being cleaned (after any repairs already made).
    fn bytes(&self) -> &[u8];
    /// For each bit `j` set in `mask`, overwrite byte `at + j` with
    /// `repl[j]`.
    fn merge(&mut self, at: usize, repl: &[u8; WINDOW], mask: u128);
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
    fn merge(&mut self, at: usize, repl: &[u8; WINDOW], mask: u128) {
        let dst = &mut self.0[at..at + WINDOW];
        for (j, (d, r)) in dst
            .chunks_exact_mut(8)
            .zip(repl.chunks_exact(8))
            .enumerate()
        {
            // Truncation keeps the eight mask bits of this word.
            let m = EXPAND[usize::from((mask >> (8 * j)) as u8)];
            let old = u64::from_le_bytes(d.try_into().expect("8 bytes"));
            let new = u64::from_le_bytes(r.try_into().expect("8 bytes"));
            d.copy_from_slice(&((old & !m) | (new & m)).to_le_bytes());
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
    fn merge(&mut self, _at: usize, _repl: &[u8; WINDOW], _mask: u128) {}
    #[inline(always)]
    fn write(&mut self, _at: usize, _src: &[u8]) {}
}

/// Packs the high bit of each byte of `x` into the low 8 bits (byte `j` to
/// bit `j`). The multiplier moves bit `8j + 7` to bit `56 + j`; every other
/// pair of a set bit and a multiplier bit lands at a distinct product bit
/// outside 56–63, so nothing carries into the result.
#[inline(always)]
fn movemask(x: u64) -> u64 {
    (x & HI).wrapping_mul(0x0002_0408_1020_4081) >> 56
}

/// Classes of a lead (or FE/FF) followed by a continuation byte, as the bit
/// offset (divided by 8) of its counter in the packed per-block counts.
const VALID: u32 = 0;
const MISSING: u32 = 1;
const INVALID: u32 = 2;
const SURROGATE: u32 = 3;
const NUL: u32 = 4;
const OVERLONG_ASCII: u32 = 5;
const OVERLONG_NON_ASCII: u32 = 6;
/// FE or FF: invalid 4/5/6-byte, a span of one byte. Counted apart from
/// [`INVALID`] so that the block can tell how many FE/FF bytes were not
/// followed by a continuation byte.
const NEVER: u32 = 7;

/// One lead's sequence, decided from the eight bytes `w` that start with
/// the lead (little-endian: byte 0 is the lead) by the exact definition.
#[derive(Debug, PartialEq, Eq)]
struct Lead {
    /// One of the class constants above.
    class: u32,
    /// Bytes of the sequence: the lead and the continuation bytes it took.
    span: u32,
    /// Its replacement: the shortest form of an over-long value then spaces,
    /// or all spaces (only the first `span` bytes are used, and only when
    /// `class` is not [`VALID`]).
    repl: u64,
    /// Bytes after the shortest form in an over-long form (the ATIRE extra).
    extra: u32,
}

/// Decides the sequence of the lead byte `w as u8` (C0–FF) in full, without
/// branches: `w`'s bytes 1 to 7 are the bytes after the lead. The block
/// calls it only for the rare classes; the tests check it on every lead.
#[inline(always)]
fn decide(w: u64) -> Lead {
    let lead = w as u8;
    // Continuation bytes the lead declares: 1 (C0–DF) to 5 (FC, FD); 6 and
    // 7 for FE and FF, which are no leads.
    let need = (!lead).leading_zeros() - 1;
    let never = need > 5;
    // Continuation bytes directly after the lead (8 when all 7 are).
    let cont = w & !(w << 1) & HI;
    let run = ((!cont & HI) >> 8).trailing_zeros() / 8;
    let complete = run >= need;
    let found = if never { 0 } else { run.min(need) };
    // The value, for need <= 3 (longer forms are invalid whatever it is).
    let full = (u32::from(lead) & (0x7F >> (need + 1))) << 18
        | ((w >> 8) as u32 & 0x3F) << 12
        | ((w >> 16) as u32 & 0x3F) << 6
        | ((w >> 24) as u32 & 0x3F);
    let v = full >> (6 * (3 - need.min(3)));
    let short = 1 + u32::from(v >= 0x80) + u32::from(v >= 0x800) + u32::from(v >= 0x1_0000);
    let len = need + 1;
    let invalid = need >= 4 || v > 0x10_FFFF;
    let surrogate = v >> 11 == 0xD800 >> 11;
    let overlong = short < len;
    let class = if never {
        NEVER
    } else if !complete {
        MISSING
    } else if invalid {
        INVALID
    } else if surrogate {
        SURROGATE
    } else if !overlong {
        VALID
    } else if v == 0 {
        NUL
    } else if v < 0x80 {
        OVERLONG_ASCII
    } else {
        OVERLONG_NON_ASCII
    };
    // The shortest form of v (1 to 3 bytes for an over-long form).
    let v64 = u64::from(v);
    let enc = match short {
        1 => v64,
        2 => (0xC0 | v64 >> 6) | (0x80 | (v64 & 0x3F)) << 8,
        _ => {
            (0xE0 | (v64 >> 12 & 0x0F))
                | (0x80 | (v64 >> 6 & 0x3F)) << 8
                | (0x80 | (v64 & 0x3F)) << 16
        }
    };
    let reencode = class == OVERLONG_ASCII || class == OVERLONG_NON_ASCII;
    let repl = if reencode {
        enc | SPACES << (8 * short)
    } else {
        SPACES
    };
    let extra = if (NUL..=OVERLONG_NON_ASCII).contains(&class) {
        len - short
    } else {
        0
    };
    Lead {
        class,
        span: found + 1,
        repl,
        extra,
    }
}

/// Decides the sequences that start in `b[at..at + BLOCK]` (`b` holds at
/// least `at + WINDOW` bytes), adds their counts, and returns the mask of
/// bytes (from `at`, up to `WINDOW`) to replace by `repl`'s, the carry for
/// the next block, and whether `repl` now holds anything but spaces.
/// `carry` has bit `j` set when byte `at + j` was taken by a lead of the
/// previous block. `repl` must be all spaces on entry.
///
/// The cleaner's hot loop (one call per 64 input bytes that hold a
/// non-ASCII byte). Its first and last steps are [`classes`] and
/// [`add_counts`], inlined: splitting them out changed the instructions
/// of `bench/examples/utf8_clean` under cachegrind by -0.2% (8 MiB of
/// random bytes, 3 passes: 355.78 M before, 355.00 M after), -0.1%
/// (ClueWeb09 Chinese sample) and +0.01% (English sample).
#[inline(always)]
fn block(
    b: &[u8],
    at: usize,
    carry: u64,
    repl: &mut [u8; WINDOW],
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> (u128, u64, bool) {
    let win: &[u8; WINDOW] = b[at..at + WINDOW].try_into().expect("a window");
    let Some(Classes { cont, lead, never }) = classes(win) else {
        // All ASCII (bytes a previous lead took were blanked to spaces).
        return (0, 0, false);
    };
    // Bit j: byte at + j + 1 is a continuation byte.
    let next_cont = cont >> 1 | u64::from(win[BLOCK] & 0xC0 == 0x80) << 63;
    // A lead followed by no continuation byte is one byte, blanked: missing
    // continuation bytes, or invalid 4/5/6-byte for FE and FF (told apart
    // by the count of FE/FF bytes, less those the loop below decides).
    let lone = lead & !next_cont;
    let mut missing = 0u64;
    let mut mask = lone;
    let mut taken = carry;
    // The last lead's offset, and the bytes it took and the bytes to replace
    // (as masks from the lead): only its span can run past the block.
    let mut last = (0, 0, 0);
    let mut packed = 0u64;
    let mut ext = 0u64;
    let mut reencoded = false;
    let mut leads = lead & next_cont;
    while leads != 0 {
        let k = leads.trailing_zeros() as usize;
        leads &= leads - 1;
        let w = u64::from_le_bytes(win[k..k + 8].try_into().expect("8 bytes"));
        // FE and FF have width 0, so they are decided by `decide`.
        let info = LEADS[usize::from(w as u8)];
        let need = info & 7;
        // Continuation bytes directly after the lead (at least 1 here).
        let c = w & !(w << 1) & HI;
        let run = ((!c & HI) >> 8).trailing_zeros() / 8;
        let complete = run >= need;
        // Is the byte after the lead in the range that makes a complete
        // sequence valid (std's table: E0 A0–BF, ED 80–9F, F0 90–BF, ...)?
        let second = ((w >> 8) as u32 & 0xFF).wrapping_sub(info >> 8 & 0xFF);
        let (bits, replaced) = if complete && second >= info >> 16 {
            // Rare: an over-long form, a surrogate, an invalid 4/5/6-byte
            // form or FE/FF. Decided in full, with its replacement.
            let s = decide(w);
            repl[k..k + 8].copy_from_slice(&s.repl.to_le_bytes());
            reencoded |= s.repl != SPACES;
            packed += 1 << (8 * s.class);
            ext += u64::from(s.extra);
            let bits = (1 << s.span) - 1;
            (bits, if s.class == VALID { 0 } else { bits })
        } else {
            // Valid, or missing continuation bytes (the span is blanked):
            // about even odds on random bytes, so no branch (a conditional
            // move) between them.
            missing += u64::from(!complete);
            let bits = (2 << run.min(need)) - 1;
            (bits, std::hint::select_unpredictable(complete, 0, bits))
        };
        mask |= replaced << k;
        taken |= (bits & !1) << k;
        last = (k, bits & !1, replaced);
    }
    // The last span's bytes past the block (bit 0: byte `at + BLOCK`).
    let past = |span: u64| (span >> 1) >> (63 - last.0);
    let taken_past = past(last.1);
    let mask = u128::from(mask) | u128::from(past(last.2)) << BLOCK;
    let unexpected = cont & !taken;
    counts.unexpected_continuation += u64::from(unexpected.count_ones());
    let mask = mask | u128::from(unexpected);
    let lone_leads = u64::from(lone.count_ones()) + missing;
    add_counts(counts, packed, never, lone_leads);
    *extra += ext;
    (mask, taken_past, reencoded)
}

/// The byte classes of a window's first [`BLOCK`] bytes, as bit masks.
struct Classes {
    /// Continuation bytes (80–BF).
    cont: u64,
    /// Leads (C0–FF: FE and FF go with the leads, see [`block`]).
    lead: u64,
    /// The number of FE and FF bytes.
    never: u64,
}

/// The classes of `win`'s first [`BLOCK`] bytes, or `None` when they are
/// all ASCII.
#[inline(always)]
fn classes(win: &[u8; WINDOW]) -> Option<Classes> {
    let mut words = [0u64; 8];
    let mut any = 0;
    for (w, c) in words.iter_mut().zip(win.chunks_exact(8)) {
        *w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        any |= *w;
    }
    if any & HI == 0 {
        return None;
    }
    let (mut cont, mut lead, mut never) = (0u64, 0u64, 0u64);
    for (j, &w) in words.iter().enumerate() {
        let c = w & !(w << 1) & HI; // 80–BF
        let l = w & (w << 1) & HI; // C0–FF
        // Bits 1-6 all set: adding 1 to the low seven bits (bit 0 forced
        // on) carries into bit 7, never out of the byte.
        let f = (((w | ONES) & LO7) + ONES) & l; // FE, FF
        cont |= movemask(c) << (8 * j);
        lead |= movemask(l) << (8 * j);
        never += f >> 7; // one count per byte lane, at most 8 each
    }
    // The sum of the byte lanes lands in the top byte (no carries: <= 64).
    let never = never.wrapping_mul(ONES) >> 56;
    Some(Classes { cont, lead, never })
}

/// Adds a block's counts: `packed` holds the count of each class
/// [`decide`] found in an 8-bit field (at most 64 leads per block), `never`
/// the block's FE/FF bytes, `lone_leads` the leads without their
/// continuation bytes (FE/FF among them, told apart here).
#[inline(always)]
fn add_counts(counts: &mut Utf8Counts, packed: u64, never: u64, lone_leads: u64) {
    let field = |class: u32| packed >> (8 * class) & 0xFF;
    let lone_never = never - field(NEVER);
    counts.missing_continuation += lone_leads - lone_never;
    counts.invalid_4_5_6 += never + field(INVALID);
    counts.surrogate += field(SURROGATE);
    counts.overlong_nul += field(NUL);
    counts.overlong_ascii += field(OVERLONG_ASCII);
    counts.overlong_non_ascii += field(OVERLONG_NON_ASCII);
}

/// Runs [`block`] from `at` while a whole window fits before `limit`, merging
/// each block's repairs into `t`. Returns where it stopped (a block start),
/// the carry there, and whether it stopped because `resume_after` error-free
/// bytes went by.
#[inline(always)]
fn blocks<T: Target>(
    t: &mut T,
    mut at: usize,
    limit: usize,
    counts: &mut Utf8Counts,
    extra: &mut u64,
    resume_after: usize,
) -> (usize, u64, bool) {
    let mut repl = [b' '; WINDOW];
    let mut carry = 0;
    let mut clean = 0;
    while at + WINDOW <= limit {
        let (mask, next, reencoded) = block(t.bytes(), at, carry, &mut repl, counts, extra);
        if mask != 0 {
            t.merge(at, &repl, mask);
            clean = 0;
        } else {
            clean += BLOCK;
        }
        if reencoded {
            repl = [b' '; WINDOW];
        }
        carry = next;
        at += BLOCK;
        if clean >= resume_after {
            return (at, carry, true);
        }
    }
    (at, carry, false)
}

/// Where the exact path stopped.
enum Step {
    /// Everything up to the limit is decided.
    End,
    /// A long error-free run: continue on the fast path from this offset
    /// (always the start of a sequence).
    Resume(usize),
}

/// The offset up to which `b` can be decided when more input may follow:
/// `b.len()`, or the start of a final lead byte followed by fewer
/// continuation bytes than it declares (at most 5 bytes from the end), whose
/// fate depends on input not seen yet.
fn decidable(b: &[u8]) -> usize {
    let n = b.len();
    for q in (n.saturating_sub(5)..n).rev() {
        let x = b[q];
        if x & 0xC0 == 0x80 {
            continue;
        }
        // x is not a continuation byte, so a sequence starts at q.
        let need = if (0xC0..=0xFD).contains(&x) {
            (!x).leading_zeros() as usize - 1
        } else {
            0
        };
        return if n - q - 1 < need { q } else { n };
    }
    n
}

/// Cleans (or, for [`ReadOnly`], just counts) `t`, adding to `counts`, and
/// adds to `extra` the leftover bytes of over-long forms (the bytes after
/// the shortest encoding), which [`Counting::Atire`](super::Counting::Atire)
/// counts as unexpected continuation bytes: the caller adds them to `counts`
/// for that counting.
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
    let limit = if at_end {
        t.bytes().len()
    } else {
        decidable(t.bytes())
    };
    let mut i = 0;
    loop {
        match simdutf8::compat::from_utf8(&t.bytes()[i..limit]) {
            Ok(_) => return limit,
            Err(e) => {
                // Everything std calls valid is valid by our definition too
                // (same lead ranges, same over-long, surrogate and 10FFFF
                // rules), and a valid prefix ends on a sequence boundary.
                i += e.valid_up_to();
                match repair(t, i, limit, counts, extra) {
                    Step::End => return limit,
                    Step::Resume(r) => i = r,
                }
            }
        }
    }
}

/// Runs only the exact path over the whole buffer (no SIMD validator).
pub(super) fn run_scalar<T: Target>(
    t: &mut T,
    at_end: bool,
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> usize {
    let limit = if at_end {
        t.bytes().len()
    } else {
        decidable(t.bytes())
    };
    match exact(t, 0, limit, counts, extra, usize::MAX) {
        Step::End | Step::Resume(_) => limit,
    }
}

#[cold]
#[inline(never)]
fn repair<T: Target>(
    t: &mut T,
    i: usize,
    limit: usize,
    counts: &mut Utf8Counts,
    extra: &mut u64,
) -> Step {
    exact(t, i, limit, counts, extra, RESUME_AFTER)
}

/// The exact definition over `i..limit`, `i` the start of a sequence and
/// `limit` the end of the input (or of what can be decided). Returns
/// [`Step::Resume`] once `resume_after` bytes in a row were error-free.
#[inline(always)]
fn exact<T: Target>(
    t: &mut T,
    i: usize,
    limit: usize,
    counts: &mut Utf8Counts,
    extra: &mut u64,
    resume_after: usize,
) -> Step {
    let (at, carry, resume) = blocks(t, i, limit, counts, extra, resume_after);
    // The first sequence start at or after `at`: past the bytes the last
    // lead took (they follow it without a gap).
    let start = at + carry.trailing_ones() as usize;
    if resume {
        return Step::Resume(start);
    }
    if start < limit {
        // Fewer than WINDOW bytes are left: clean them in a zero-padded copy
        // (two blocks' worth), then copy them back.
        let len = limit - start;
        let mut tail = [0u8; 2 * BLOCK + 8];
        tail[..len].copy_from_slice(&t.bytes()[start..limit]);
        // One block when the bytes fit in it, else two.
        let end = if len <= BLOCK { WINDOW } else { tail.len() };
        blocks(&mut InPlace(&mut tail), 0, end, counts, extra, usize::MAX);
        t.write(start, &tail[..len]);
    }
    Step::End
}

#[cfg(test)]
mod tests {
    use super::super::old_scalar;
    use super::*;

    fn word(bytes: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        w[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(w)
    }

    #[test]
    fn movemask_packs_the_high_bit_of_every_byte() {
        for m in 0u64..256 {
            let x = EXPAND[m as usize] & HI | !HI & 0x1234_5678_9ABC_DEF0;
            assert_eq!(movemask(x), m, "{x:016X}");
            assert_eq!(EXPAND[m as usize].count_ones(), 8 * m.count_ones());
        }
    }

    #[test]
    fn leads_table_says_valid_exactly_when_std_does() {
        for lead in 0xC0u8..=0xFF {
            let info = LEADS[usize::from(lead)];
            let need = (info & 7) as usize;
            let want_need = match lead {
                0xC0..=0xDF => 1,
                0xE0..=0xEF => 2,
                0xF0..=0xF7 => 3,
                0xF8..=0xFB => 4,
                0xFC..=0xFD => 5,
                _ => 0,
            };
            assert_eq!(need, want_need, "{lead:02X}");
            for second in 0x80u8..=0xBF {
                for rest in [0x80u8, 0xBF] {
                    let mut seq = vec![lead, second];
                    seq.resize(need.max(1) + 1, rest);
                    let in_range = (u32::from(second)).wrapping_sub(info >> 8 & 0xFF) < info >> 16;
                    assert_eq!(in_range, std::str::from_utf8(&seq).is_ok(), "{seq:02X?}");
                }
            }
        }
    }

    /// `decide` against the previous exact path on the first sequence of
    /// every lead byte with every second byte and a spread of later bytes.
    #[test]
    fn decide_agrees_with_the_old_path_on_every_lead_and_second_byte() {
        let later = [0x00u8, 0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC3, 0xFF];
        for lead in 0xC0u8..=0xFF {
            for second in 0u8..=0xFF {
                for &third in &later {
                    for &fourth in &later {
                        let bytes = [lead, second, third, fourth, 0x80, 0x80, 0xBF, 0x80];
                        let s = decide(word(&bytes));
                        let span = s.span as usize;
                        // The span: the lead and the continuation bytes it takes.
                        let need = match lead {
                            0xFE | 0xFF => 0,
                            _ => (!lead).leading_zeros() as usize - 1,
                        };
                        let run = bytes[1..].iter().take_while(|&&b| b & 0xC0 == 0x80).count();
                        assert_eq!(span, run.min(need) + 1, "{bytes:02X?}");
                        // Class, replacement and extra: the old path on the span.
                        let mut old = bytes[..span].to_vec();
                        let (counts, extra, _) = old_scalar::clean(&mut old, true);
                        let class = match s.class {
                            VALID => None,
                            MISSING => Some(super::super::ErrorClass::MissingContinuation),
                            INVALID | NEVER => Some(super::super::ErrorClass::Invalid456),
                            SURROGATE => Some(super::super::ErrorClass::Surrogate),
                            NUL => Some(super::super::ErrorClass::OverlongNul),
                            OVERLONG_ASCII => Some(super::super::ErrorClass::OverlongAscii),
                            OVERLONG_NON_ASCII => Some(super::super::ErrorClass::OverlongNonAscii),
                            c => panic!("class {c}"),
                        };
                        let mut want = Utf8Counts::default();
                        if let Some(c) = class {
                            *want.get_mut(c) = 1;
                        }
                        assert_eq!(counts, want, "{bytes:02X?}");
                        assert_eq!(u64::from(s.extra), extra, "{bytes:02X?}");
                        let repl = s.repl.to_le_bytes();
                        let got = if s.class == VALID {
                            &bytes[..span]
                        } else {
                            &repl[..span]
                        };
                        assert_eq!(got, &old[..], "{bytes:02X?}");
                    }
                }
            }
        }
    }

    #[test]
    fn decide_re_encodes_every_over_long_value_as_std_encodes_it() {
        for v in (1u32..0x1_0000).filter(|v| !(0xD800..=0xDFFF).contains(v)) {
            let c = char::from_u32(v).expect("scalar value");
            let mut buf = [0u8; 4];
            let want = c.encode_utf8(&mut buf).as_bytes();
            let four = [
                0xF0,
                0x80 | (v >> 12) as u8,
                0x80 | (v >> 6 & 0x3F) as u8,
                0x80 | (v & 0x3F) as u8,
            ];
            let mut forms = vec![four.to_vec()];
            if v < 0x800 {
                forms.push(vec![0xE0, four[2], four[3]]);
            }
            if v < 0x80 {
                forms.push(vec![0xC0 | (v >> 6) as u8, four[3]]);
            }
            for form in forms {
                let s = decide(word(&form));
                let want_class = if v < 0x80 {
                    OVERLONG_ASCII
                } else {
                    OVERLONG_NON_ASCII
                };
                assert_eq!(s.class, want_class, "{form:02X?}");
                assert_eq!(s.span as usize, form.len());
                let repl = s.repl.to_le_bytes();
                assert_eq!(&repl[..want.len()], want, "{form:02X?}");
                assert!(repl[want.len()..].iter().all(|&b| b == b' '));
                assert_eq!(s.extra as usize, form.len() - want.len());
            }
        }
    }

    #[test]
    fn decidable_holds_back_only_an_incomplete_final_sequence() {
        let cases: [(&[u8], usize); 10] = [
            (b"", 0),
            (b"abc", 3),
            (b"ab\xC3", 2),
            (b"ab\xC3\xA9", 4),
            (b"ab\xE2\x82", 2),
            (b"\xFC\x80\x80\x80\x80", 0),
            (b"\xFC\x80\x80\x80\x80\x80", 6),
            (b"\x80\x80\x80\x80\x80\x80", 6),
            (b"a\xFE", 2),
            (b"\xF0\x9F\x98\x80\x80", 5),
        ];
        for (bytes, want) in cases {
            assert_eq!(decidable(bytes), want, "{bytes:02X?}");
        }
    }
}
