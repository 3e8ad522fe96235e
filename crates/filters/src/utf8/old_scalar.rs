//! The previous exact path (one sequence at a time, with branches), kept
//! only as a second oracle for the tests: the block engine must agree with it
//! byte for byte and count for count, including the bytes held back when more
//! input may follow.

use super::Utf8Counts;

const CONT: u8 = 0x80;
const NEVER: u8 = 0xFF;

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

const LEAD_MASK: [u8; 6] = [0x7F, 0x1F, 0x0F, 0x07, 0x03, 0x01];

fn shortest_len(v: u32) -> usize {
    match v {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}

fn encode(v: u32, out: &mut [u8; 4]) -> usize {
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

/// Cleans `b` in place as the engine did before the block path, returning
/// the exact counts, the ATIRE extra and the number of bytes decided (less
/// than `b.len()` only when `at_end` is false and `b` ends inside a
/// sequence).
pub(super) fn clean(b: &mut [u8], at_end: bool) -> (Utf8Counts, u64, usize) {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let mut counts = Utf8Counts::default();
    let mut extra = 0u64;
    let mut i = 0;
    loop {
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
            return (counts, extra, n);
        }
        let lead = b[i];
        let need = NEED[lead as usize];
        if need == CONT {
            b[i] = b' ';
            counts.unexpected_continuation += 1;
            i += 1;
            continue;
        }
        if need == NEVER {
            b[i] = b' ';
            counts.invalid_4_5_6 += 1;
            i += 1;
            continue;
        }
        let need = need as usize;
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
                return (counts, extra, i);
            }
            b[i..end].fill(b' ');
            counts.missing_continuation += 1;
            i = end;
            continue;
        }
        let len = need + 1;
        if len >= 5 || v > 0x10_FFFF {
            b[i..i + len].fill(b' ');
            counts.invalid_4_5_6 += 1;
        } else if (0xD800..=0xDFFF).contains(&v) {
            b[i..i + len].fill(b' ');
            counts.surrogate += 1;
        } else {
            let short = shortest_len(v);
            if short == len {
                i += len;
                continue;
            }
            if v == 0 {
                b[i..i + len].fill(b' ');
                counts.overlong_nul += 1;
            } else {
                let mut enc = [0u8; 4];
                let k = encode(v, &mut enc);
                b[i..i + k].copy_from_slice(&enc[..k]);
                b[i + k..i + len].fill(b' ');
                if v < 0x80 {
                    counts.overlong_ascii += 1;
                } else {
                    counts.overlong_non_ascii += 1;
                }
            }
            extra += (len - short) as u64;
        }
        i += len;
    }
}
