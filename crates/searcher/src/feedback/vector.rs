//! The arithmetic the three feedback models share, written to give the
//! values Anserini 1.7.1's `FeatureVector` gives: term order as Java's
//! `String.compareTo` and `String.length` see it (UTF-16 code units), the
//! pruning order (weight descending, then term ascending), L1 and L2
//! normalisation in `f64` cast to `f32`, the term filters, and the
//! iteration order of a Java `HashMap<String, _>` where a model's result
//! depends on it (the stable sort of BM25-PRF).

use std::cmp::Ordering;
use std::collections::HashMap;

use super::FeedbackInput;
use crate::Result;

/// A term and its weight.
pub type Weighted = (String, f32);

/// Java's `String.compareTo`: UTF-16 code units, lexicographically.
pub fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Java's `String.length()`: the number of UTF-16 code units.
pub fn java_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// True when `s` matches the Java regular expression `[a-z0-9]+`.
pub fn is_ascii_lower_alnum(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// True when `s` matches `[0-9]+`.
pub fn is_ascii_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())
}

/// True when a feedback term's length passes Anserini's rule: 2 to 20
/// UTF-16 code units.
pub fn length_ok(term: &str) -> bool {
    (2..=20).contains(&java_len(term))
}

/// Anserini's stopword rule for feedback terms: a term in more than this
/// share of the documents is not a feedback term (`(float) df / numDocs >
/// 0.1f`).
pub const MAX_DF_RATIO: f32 = 0.1;

/// Document frequencies read once per topic from a [`FeedbackInput`].
pub struct DfCache<'a> {
    input: &'a dyn FeedbackInput,
    seen: HashMap<String, u64>,
}

impl<'a> DfCache<'a> {
    /// An empty cache over `input`.
    pub fn new(input: &'a dyn FeedbackInput) -> DfCache<'a> {
        DfCache {
            input,
            seen: HashMap::new(),
        }
    }

    /// The document frequency of `term`.
    pub fn df(&mut self, term: &str) -> Result<u64> {
        if let Some(&df) = self.seen.get(term) {
            return Ok(df);
        }
        let df = self.input.doc_freq(term)?;
        self.seen.insert(term.to_string(), df);
        Ok(df)
    }

    /// True when `term` is in more than [`MAX_DF_RATIO`] of the documents,
    /// computed in `f32` as Anserini does.
    pub fn too_common(&mut self, term: &str) -> Result<bool> {
        let n = self.input.num_docs();
        let ratio = self.df(term)? as f32 / n as f32;
        Ok(ratio > MAX_DF_RATIO)
    }
}

/// The first `k` of `v` by weight descending, then term ascending (Java
/// order): `FeatureVector.pruneToSize`. `k` is at least 1 (the parameters
/// are checked before).
pub fn prune(mut v: Vec<Weighted>, k: usize) -> Vec<Weighted> {
    v.sort_by(prune_cmp);
    v.truncate(k);
    v
}

/// [`prune`]'s order: weight descending, equal weights by term (Java
/// order). Total over distinct terms, so a stable and an unstable sort
/// agree.
pub fn prune_cmp(a: &Weighted, b: &Weighted) -> Ordering {
    // Java: equal values compare by term; otherwise larger first.
    if a.1 == b.1 {
        java_cmp(&a.0, &b.0)
    } else if a.1 > b.1 {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// `scaleToUnitL1Norm`: each weight divided by the sum of absolute
/// weights, in `f64`, cast to `f32`. Weights summing to zero leave the
/// vector empty (Anserini would divide by zero; sieve keeps no term).
pub fn scale_l1(v: Vec<Weighted>) -> Vec<Weighted> {
    let norm: f64 = v.iter().map(|(_, w)| f64::from(w.abs())).sum();
    scale_by(v, norm)
}

/// `scaleToUnitL2Norm`: each weight divided by the square root of the sum
/// of squares, in `f64`, cast to `f32`; a zero norm leaves it empty.
pub fn scale_l2(v: Vec<Weighted>) -> Vec<Weighted> {
    let norm = v
        .iter()
        .map(|(_, w)| f64::from(*w) * f64::from(*w))
        .sum::<f64>()
        .sqrt();
    scale_by(v, norm)
}

fn scale_by(v: Vec<Weighted>, norm: f64) -> Vec<Weighted> {
    if !(norm > 0.0 && norm.is_finite()) {
        return Vec::new();
    }
    v.into_iter()
        .map(|(t, w)| (t, (f64::from(w) / norm) as f32))
        .collect()
}

/// Java's `String.hashCode()`.
pub fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java `HashMap`'s spread of a hash (`h ^ (h >>> 16)`).
fn spread(h: i32) -> u32 {
    let h = h as u32;
    h ^ (h >> 16)
}

/// The order in which a Java `HashMap` (or `HashSet`) created empty and
/// given the distinct `keys` in this order iterates them, as positions in
/// `keys`. The table starts at 16 buckets and doubles when it holds more
/// than three quarters of its size, or when a bucket of a table smaller
/// than 64 reaches 9 keys; iteration goes bucket by bucket, each in the
/// order its keys were inserted (a resize keeps that order). A bucket of a
/// table of 64 or more reaching 9 keys becomes a tree in Java, whose order
/// this does not follow: with `String` hashes that needs 9 keys colliding
/// in their low bits at once, and none is known to occur in practice.
pub fn java_hash_order<S: AsRef<str>>(keys: &[S]) -> Vec<usize> {
    let hashes: Vec<u32> = keys.iter().map(|k| spread(java_hash(k.as_ref()))).collect();
    let mut cap = 16usize;
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); cap];
    for (i, &h) in hashes.iter().enumerate() {
        let b = h as usize & (cap - 1);
        buckets[b].push(i);
        if buckets[b].len() >= 9 && cap < 64 {
            buckets = resize(&buckets, &hashes, &mut cap);
        }
        if i + 1 > cap / 4 * 3 {
            buckets = resize(&buckets, &hashes, &mut cap);
        }
    }
    buckets.concat()
}

/// The table doubled, each old bucket's keys split in order between their
/// two new buckets.
fn resize(old: &[Vec<usize>], hashes: &[u32], cap: &mut usize) -> Vec<Vec<usize>> {
    *cap *= 2;
    let mut new = vec![Vec::new(); *cap];
    for &i in old.iter().flatten() {
        new[hashes[i] as usize & (*cap - 1)].push(i);
    }
    new
}

/// A document's term vector as Lucene's `TermsEnum` gives it: terms in
/// byte order (what sieve's inputs give need not be sorted), each once.
pub fn sorted_vector(mut v: Vec<(String, u32)>) -> Vec<(String, u32)> {
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v.dedup_by(|a, b| {
        if a.0 == b.0 {
            b.1 += a.1;
            true
        } else {
            false
        }
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_matches_known_values() {
        // Values printed by Java's "...".hashCode().
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("hello"), 99_162_322);
        assert_eq!(java_hash("polygenelubricants"), i32::MIN);
        // A supplementary character counts as two code units.
        assert_eq!(java_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
    }

    #[test]
    fn java_order_small_table_is_bucket_order() {
        // "a".."e" hash to 97..101: buckets 1..5 of 16, in that order
        // whatever the insertion order.
        let keys = ["e", "c", "a", "d", "b"];
        let order: Vec<&str> = java_hash_order(&keys).iter().map(|&i| keys[i]).collect();
        assert_eq!(order, ["a", "b", "c", "d", "e"]);
        // "q" is 113 = bucket 1 too: after "a", its insertion order.
        let keys = ["q", "a"];
        let order: Vec<&str> = java_hash_order(&keys).iter().map(|&i| keys[i]).collect();
        assert_eq!(order, ["q", "a"]);
    }

    #[test]
    fn java_order_follows_resizes() {
        // 13 keys make the table 32 buckets: "a" (97 = bucket 1 of 32)
        // and "q" (113 = bucket 17) separate.
        let keys: Vec<String> = ["q", "a"]
            .into_iter()
            .map(String::from)
            .chain((0..11).map(|i| format!("k{i}")))
            .collect();
        let order = java_hash_order(&keys);
        let pos = |k: &str| order.iter().position(|&i| keys[i] == k).unwrap();
        assert!(pos("a") < pos("q"), "{order:?}");
        assert_eq!(order.len(), 13);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..13).collect::<Vec<_>>());
    }

    #[test]
    fn java_string_order_and_length_are_utf16() {
        // U+FF21 is one unit above U+D83D's surrogate: Java puts the
        // emoji (surrogates 0xD83D...) first, UTF-8 bytes would not.
        assert_eq!(java_cmp("\u{1F600}", "\u{FF21}"), Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FF21}"), Ordering::Greater);
        assert_eq!(java_len("\u{1F600}"), 2);
        assert!(length_ok("ab") && !length_ok("a") && !length_ok(&"x".repeat(21)));
    }

    #[test]
    fn prune_breaks_ties_by_term() {
        let v = vec![
            ("zeta".to_string(), 2.0),
            ("beta".to_string(), 2.0),
            ("alpha".to_string(), 1.0),
            ("gamma".to_string(), 3.0),
        ];
        let p = prune(v, 2);
        assert_eq!(p, [("gamma".to_string(), 3.0), ("beta".to_string(), 2.0)]);
    }

    #[test]
    fn norms_scale_and_zero_norm_empties() {
        let v = vec![("a".to_string(), 1.0), ("b".to_string(), 3.0)];
        assert_eq!(
            scale_l1(v.clone()),
            [("a".into(), 0.25), ("b".into(), 0.75)]
        );
        let l2 = scale_l2(vec![("a".to_string(), 3.0), ("b".to_string(), 4.0)]);
        assert_eq!(l2, [("a".into(), 0.6), ("b".into(), 0.8)]);
        assert!(scale_l1(vec![("a".to_string(), 0.0)]).is_empty());
    }

    #[test]
    fn filters() {
        assert!(is_ascii_lower_alnum("abc12") && !is_ascii_lower_alnum("Abc"));
        assert!(!is_ascii_lower_alnum("café") && !is_ascii_lower_alnum(""));
        assert!(is_ascii_digits("1984") && !is_ascii_digits("19a4"));
    }

    #[test]
    fn sorted_vector_orders_bytes_and_merges() {
        let v = vec![
            ("b".to_string(), 1),
            ("a".to_string(), 2),
            ("b".to_string(), 3),
        ];
        assert_eq!(sorted_vector(v), [("a".into(), 2), ("b".into(), 4)]);
    }
}
