//! Java's `String.format("%.6f", f)` for a `float`, byte for byte.
//!
//! Java widens the `float` to `double`, takes the shortest decimal that
//! reads back as that `double` (JDK 19 and later: `Double.toString`'s
//! algorithm), and rounds that decimal **half up** to six places. Rust's
//! `{:.6}` rounds the exact binary value half to even instead, so the two
//! differ on values such as 0.0078125 (Java 0.007813, Rust 0.007812). Here
//! the shortest decimal is Rust's `{:e}` of the `f64` (shortest, and the
//! closest such when there are several; Java only differs for subnormal
//! doubles, which a widened `float` never is), and the rounding is done on
//! its digits.

/// `String.format("%.6f", x)` for a finite `float` `x` (as Java 21 prints
/// it; a non-finite `x` is printed as Rust prints it).
pub fn java_fixed6(x: f32) -> String {
    let v = f64::from(x);
    if !v.is_finite() {
        return format!("{v}");
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let (digits, exp) = shortest_digits(v.abs());
    let scaled = round_half_up_scaled(&digits, exp, 6);
    let padded = format!("{scaled:0>7}");
    let (int, frac) = padded.split_at(padded.len() - 6);
    format!("{sign}{int}.{frac}")
}

/// The shortest decimal digits of `v` (≥ 0) and the exponent of the
/// first: `v = d.ddd × 10^exp`. Zero is `("0", 0)`.
fn shortest_digits(v: f64) -> (Vec<u8>, i32) {
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// `d.ddd × 10^exp × 10^places` rounded half up (on the first dropped
/// digit) to an integer, as a decimal string without leading zeros.
fn round_half_up_scaled(digits: &[u8], exp: i32, places: i32) -> String {
    let n = digits.len() as i64;
    // digits kept: those before the decimal point of value × 10^places
    let keep = i64::from(exp) + i64::from(places) + 1;
    let mut out: Vec<u8> = if keep >= n {
        let zeros = (keep - n) as usize;
        digits
            .iter()
            .copied()
            .chain(std::iter::repeat_n(b'0', zeros))
            .collect()
    } else if keep < 0 {
        vec![b'0']
    } else {
        let keep = keep as usize;
        let mut kept: Vec<u8> = digits[..keep].to_vec();
        if digits[keep] >= b'5' {
            increment(&mut kept);
        }
        kept
    };
    while out.len() > 1 && out[0] == b'0' {
        out.remove(0);
    }
    if out.is_empty() {
        out.push(b'0');
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Adds one to a decimal digit string (carrying into a new leading digit).
fn increment(d: &mut Vec<u8>) {
    for c in d.iter_mut().rev() {
        if *c == b'9' {
            *c = b'0';
        } else {
            *c += 1;
            return;
        }
    }
    d.insert(0, b'1');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rounds_half_up_on_the_shortest_decimal() {
        // Java 21: String.format("%.6f", f) for each float f
        assert_eq!(java_fixed6(0.0078125), "0.007813");
        assert_eq!(format!("{:.6}", 0.0078125f32), "0.007812");
        assert_eq!(java_fixed6(0.0), "0.000000");
        assert_eq!(java_fixed6(-0.0), "-0.000000");
        assert_eq!(java_fixed6(1.0), "1.000000");
        assert_eq!(java_fixed6(12.033), "12.033000");
        assert_eq!(java_fixed6(0.1), "0.100000");
        assert_eq!(java_fixed6(1.0 / 61.0), "0.016393");
        // the float nearest 5e-7 is 4.99999987e-7: rounds down
        assert_eq!(java_fixed6(5e-7), "0.000000");
        assert_eq!(java_fixed6(5.1e-7), "0.000001");
        assert_eq!(java_fixed6(4.9e-7), "0.000000");
        assert_eq!(java_fixed6(-4.9e-7), "-0.000000");
        assert_eq!(java_fixed6(1e-5), "0.000010");
        assert_eq!(java_fixed6(0.9999995), "1.000000");
        assert_eq!(
            java_fixed6(3.4028235e38),
            "340282346638528860000000000000000000000.000000"
        );
        assert_eq!(java_fixed6(-2.5), "-2.500000");
    }

    /// Reference: the shortest round-tripping decimal found by trying each
    /// precision, then rounded half up with integer arithmetic.
    fn reference(x: f32) -> String {
        let v = f64::from(x).abs();
        let sig = (0..17)
            .map(|p| format!("{v:.p$e}"))
            .find(|s| s.parse::<f64>().ok() == Some(v))
            .unwrap_or_else(|| format!("{v:e}"));
        let (m, e) = sig.split_once('e').unwrap();
        let e: i32 = e.parse().unwrap();
        let digits: String = m.chars().filter(char::is_ascii_digit).collect();
        let mant: u128 = digits.parse().unwrap();
        // value × 10^6 = mant × 10^(e - (len-1) + 6)
        let shift = e - (digits.len() as i32 - 1) + 6;
        let n: u128 = if shift >= 0 {
            mant * 10u128.pow(shift as u32)
        } else if shift < -38 {
            0
        } else {
            let div = 10u128.pow((-shift) as u32);
            let (q, r) = (mant / div, mant % div);
            if 2 * r >= div { q + 1 } else { q }
        };
        let sign = if x.is_sign_negative() { "-" } else { "" };
        format!("{sign}{}.{:06}", n / 1_000_000, n % 1_000_000)
    }

    proptest! {
        #[test]
        fn matches_the_decimal_reference(bits in any::<u32>()) {
            let x = f32::from_bits(bits);
            prop_assume!(x.is_finite() && x.abs() < 1e20);
            prop_assert_eq!(java_fixed6(x), reference(x));
        }

        #[test]
        fn matches_the_reference_on_fusion_sized_scores(x in -100.0f32..100.0) {
            prop_assert_eq!(java_fixed6(x), reference(x));
        }
    }
}
