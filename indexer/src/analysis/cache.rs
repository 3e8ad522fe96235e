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

use super::AnalyzerConfig;

/// Entries kept before the cache is emptied.
pub(super) const MAX_ENTRIES: usize = 1 << 16;
/// Longer raw tokens are not cached (they are rare and rarely repeat).
pub(super) const MAX_KEY_BYTES: usize = 24;

/// A raw token of at most [`MAX_KEY_BYTES`] bytes, held inline (compared
/// and hashed without a call or a pointer chase).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    len: u8,
    bytes: [u8; MAX_KEY_BYTES],
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
        Some(Key {
            len: b.len() as u8,
            bytes,
        })
    }
}

impl std::hash::Hash for Key {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(&self.bytes[..usize::from(self.len)]);
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
