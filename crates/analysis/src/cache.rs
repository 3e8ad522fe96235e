//! A per-thread cache of normalised terms: raw token → term (or dropped).
//!
//! Lower-casing, the stop list and Porter's stemmer are a pure function of
//! the raw token and the [`AnalyzerConfig`], and web text repeats its words
//! (Zipf), so each thread keeps the results for short tokens, as ATIRE keeps
//! a stem cache. The cache changes no output; it is bounded
//! ([`MAX_ENTRIES`] tokens of at most [`MAX_KEY_BYTES`] bytes, emptied when
//! full: at most about 4 MB per thread).

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use crate::config::AnalyzerConfig;

/// Entries kept before the cache is emptied.
pub(super) const MAX_ENTRIES: usize = 1 << 16;
/// Longer raw tokens are not cached (they are rare and rarely repeat).
pub(super) const MAX_KEY_BYTES: usize = 24;

/// A raw token of at most [`MAX_KEY_BYTES`] bytes, held inline as three
/// little-endian words, zero past its bytes (compared and hashed a word at
/// a time, without a call or a pointer chase; the length tells apart keys
/// that differ only by trailing zero bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    words: [u64; MAX_KEY_BYTES / 8],
    len: u8,
}

impl Key {
    #[inline]
    fn new(raw: &str) -> Option<Self> {
        let b = raw.as_bytes();
        if b.len() > MAX_KEY_BYTES {
            return None;
        }
        let mut bytes = [0u8; MAX_KEY_BYTES];
        bytes[..b.len()].copy_from_slice(b);
        let mut words = [0u64; MAX_KEY_BYTES / 8];
        for (w, c) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().expect("chunks of eight bytes"));
        }
        Some(Key {
            words,
            len: b.len() as u8,
        })
    }
}

impl std::hash::Hash for Key {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for w in self.words {
            h.write_u64(w);
        }
        h.write_u8(self.len);
    }
}

/// Raw token → term; an empty term means the token is dropped.
pub(super) struct TermCache {
    config: AnalyzerConfig,
    map: FxHashMap<Key, Box<str>>,
}

thread_local! {
    static CACHE: RefCell<TermCache> = RefCell::new(TermCache {
        config: AnalyzerConfig::default(),
        map: FxHashMap::default(),
    });
}

/// Runs `f` with this thread's cache for `config` (emptied if it held the
/// terms of another configuration).
pub(super) fn with_cache<R>(config: AnalyzerConfig, f: impl FnOnce(&mut TermCache) -> R) -> R {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.config != config {
            c.map.clear();
            c.config = config;
        }
        f(&mut c)
    })
}

impl TermCache {
    /// The cached result for `raw`: `Some("")` if it is dropped.
    #[inline]
    pub(super) fn get(&self, raw: &str) -> Option<&str> {
        self.map.get(&Key::new(raw)?).map(|t| &**t)
    }

    /// Remembers that `raw` normalises to `term` (`""`: dropped).
    #[inline]
    pub(super) fn insert(&mut self, raw: &str, term: &str) {
        let Some(key) = Key::new(raw) else {
            return;
        };
        if self.map.len() >= MAX_ENTRIES {
            self.map.clear();
        }
        self.map.insert(key, term.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that share their words but not their length (trailing NUL
    /// bytes), or differ only in their last byte at each word boundary,
    /// are distinct entries; a key over [`MAX_KEY_BYTES`] is never cached.
    #[test]
    fn keys_differ_by_length_and_by_each_byte() {
        let mut c = TermCache {
            config: AnalyzerConfig::default(),
            map: FxHashMap::default(),
        };
        let mut raws: Vec<String> = vec![String::new(), "a".into(), "a\0".into(), "a\0\0".into()];
        for n in [7, 8, 9, 15, 16, 17, 23, 24] {
            raws.push("x".repeat(n));
            raws.push(format!("{}y", "x".repeat(n - 1)));
        }
        for (i, raw) in raws.iter().enumerate() {
            c.insert(raw, &i.to_string());
        }
        for (i, raw) in raws.iter().enumerate() {
            assert_eq!(c.get(raw), Some(i.to_string().as_str()), "{raw:?}");
        }
        let long = "x".repeat(MAX_KEY_BYTES + 1);
        c.insert(&long, "long");
        assert_eq!(c.get(&long), None);
    }
}
