//! The iteration order of a Java `HashMap<String, V>` filled by
//! `HashMap.merge`, emulated: Anserini's fusion sorts each topic's
//! documents with a stable sort over that order, so documents with tied
//! fused scores come out in it.
//!
//! What is emulated (OpenJDK 21's `java.util.HashMap`): `String.hashCode`
//! over UTF-16 code units with wrapping `i32` arithmetic, spread as
//! `h ^ (h >>> 16)`; the bucket `spread & (capacity - 1)`; a table of 16
//! buckets made at the first call, doubled at the start of a `merge` call
//! (for a new key or an existing one) when the size already exceeds 0.75 ×
//! capacity; a new key put at the head of its bucket; a bucket reaching 8
//! keys doubles the table while it has fewer than 64 buckets (`treeifyBin`),
//! and a resize keeps the relative order of the keys of a bucket. What is
//! not: the order of a bucket that Java turns into a red-black tree (8 keys
//! or more in one bucket of a table of 64 or more), which is flagged
//! ([`JavaHashMap::treeified`]) and then iterated as a list.

use std::collections::{HashMap, VecDeque};

/// Java's `String.hashCode`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16
/// code units, in wrapping 32-bit arithmetic.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `HashMap.hash(key)`: the hash code with its high half folded into its
/// low half (`h ^ (h >>> 16)`), as an unsigned word.
pub fn spread(h: i32) -> u32 {
    let h = h as u32;
    h ^ (h >> 16)
}

/// Bucket count of a new table, and the most a bucket holds before Java
/// would make it a tree (or double a small table instead).
const INITIAL_CAPACITY: usize = 16;
const TREEIFY_BIN_COUNT: usize = 7;
const MIN_TREEIFY_CAPACITY: usize = 64;

/// A map from string keys to `f32` values that iterates as a Java
/// `HashMap<String, _>` filled with the same sequence of `merge` calls.
#[derive(Debug, Default)]
pub struct JavaHashMap<'a> {
    /// Key and value of each entry, by insertion.
    entries: Vec<(&'a str, f32)>,
    /// Spread hash of each entry.
    hashes: Vec<u32>,
    /// Key -> entry.
    index: HashMap<&'a str, usize>,
    /// Buckets of entry numbers, each in Java's list order (head first).
    table: Vec<VecDeque<usize>>,
    threshold: usize,
    treeified: bool,
}

impl<'a> JavaHashMap<'a> {
    /// An empty map (no table yet, as `new HashMap<>()`).
    pub fn new() -> Self {
        Self::default()
    }

    /// `map.merge(key, value, f)`: a new key gets `value`, an existing one
    /// `f(old, value)`.
    pub fn merge(&mut self, key: &'a str, value: f32, f: impl FnOnce(f32, f32) -> f32) {
        if self.table.is_empty() || self.entries.len() > self.threshold {
            self.resize();
        }
        if let Some(&i) = self.index.get(key) {
            self.entries[i].1 = f(self.entries[i].1, value);
            return;
        }
        let h = spread(java_string_hash(key));
        let bucket = (h as usize) & (self.table.len() - 1);
        let bin_count = self.table[bucket].len();
        let id = self.entries.len();
        self.entries.push((key, value));
        self.hashes.push(h);
        self.index.insert(key, id);
        self.table[bucket].push_front(id);
        if bin_count >= TREEIFY_BIN_COUNT {
            if self.table.len() < MIN_TREEIFY_CAPACITY {
                self.resize();
            } else {
                self.treeified = true;
            }
        }
    }

    /// Doubles the table (16 buckets at first), each bucket's keys kept in
    /// their relative order.
    fn resize(&mut self) {
        let cap = if self.table.is_empty() {
            INITIAL_CAPACITY
        } else {
            self.table.len() * 2
        };
        let mut table = vec![VecDeque::new(); cap];
        for bin in &self.table {
            for &id in bin {
                table[(self.hashes[id] as usize) & (cap - 1)].push_back(id);
            }
        }
        self.table = table;
        self.threshold = cap / 4 * 3;
    }

    /// The entries in Java's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, f32)> + '_ {
        self.table
            .iter()
            .flat_map(|bin| bin.iter().map(|&id| self.entries[id]))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no key.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether Java would have turned a bucket into a tree, whose iteration
    /// order this emulation does not follow.
    pub fn treeified(&self) -> bool {
        self.treeified
    }

    /// Number of buckets (0 before the first call).
    pub fn capacity(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_is_javas() {
        // Values printed by Java 21's "...".hashCode().
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("Aa"), java_string_hash("BB"));
        assert_eq!(java_string_hash("CACM-1938"), {
            let mut h = 0i32;
            for c in "CACM-1938".bytes() {
                h = h.wrapping_mul(31).wrapping_add(i32::from(c));
            }
            h
        });
        // a supplementary character counts as two UTF-16 units
        assert_eq!(java_string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
    }

    #[test]
    fn new_keys_go_to_the_head_of_their_bucket() {
        // "Aa" and "BB" collide: the later one iterates first.
        let mut m = JavaHashMap::new();
        m.merge("Aa", 1.0, |a, b| a + b);
        m.merge("BB", 2.0, |a, b| a + b);
        m.merge("Aa", 3.0, |a, b| a + b);
        let got: Vec<_> = m.iter().collect();
        assert_eq!(got, [("BB", 2.0), ("Aa", 4.0)]);
    }

    #[test]
    fn the_table_doubles_lazily() {
        let mut m = JavaHashMap::new();
        let keys: Vec<String> = (0..13).map(|i| format!("k{i}")).collect();
        for k in &keys {
            m.merge(k, 0.0, |a, _| a);
        }
        // 13 keys > 12: the table is doubled only by the next call
        assert_eq!(m.capacity(), 16);
        m.merge("k0", 1.0, |a, b| a + b);
        assert_eq!(m.capacity(), 32);
        assert_eq!(m.len(), 13);
    }

    #[test]
    fn a_full_bucket_doubles_a_small_table() {
        // 8 keys with one hash code ("Aa"/"BB" pairs concatenated)
        let pairs = ["Aa", "BB"];
        let keys: Vec<String> = (0..8)
            .map(|i| (0..3).map(|b| pairs[(i >> b) & 1]).collect())
            .collect();
        let mut m = JavaHashMap::new();
        for k in &keys {
            m.merge(k, 0.0, |a, _| a);
        }
        assert_eq!(m.capacity(), 32, "the 8th key in one bucket doubles 16");
        assert!(!m.treeified());
        // iterated newest first: one bucket, each new key at its head
        let order: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        let newest_first: Vec<&str> = keys.iter().rev().map(String::as_str).collect();
        assert_eq!(order, newest_first);
    }

    #[test]
    fn a_full_bucket_of_a_large_table_is_flagged() {
        let pairs = ["Aa", "BB"];
        let keys: Vec<String> = (0..16)
            .map(|i| (0..4).map(|b| pairs[(i >> b) & 1]).collect())
            .collect();
        let mut m = JavaHashMap::new();
        for (i, k) in keys.iter().enumerate() {
            m.merge(k, 0.0, |a, _| a);
            // 8th key: 16 -> 32 buckets; 9th: 32 -> 64; 10th: a tree
            let (cap, tree) = match i + 1 {
                ..=7 => (16, false),
                8 => (32, false),
                9 => (64, false),
                _ => (64, true),
            };
            assert_eq!(
                (m.capacity(), m.treeified()),
                (cap, tree),
                "after {} keys",
                i + 1
            );
        }
    }
}
