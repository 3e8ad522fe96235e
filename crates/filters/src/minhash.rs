//! Near-duplicate detection: MinHash signatures over word shingles, and
//! locality-sensitive hashing (LSH) by banding.
//!
//! Pure and deterministic: the same text gives the same signature and the
//! same band keys on every platform, for any thread count and in any
//! order, because every hash here is fixed integer arithmetic seeded by
//! [`MinHashParams::seed`] (no `std::hash`, no random state).
//!
//! # What is compared
//!
//! * **Words**: maximal runs of alphanumeric characters
//!   ([`char::is_alphanumeric`]), lower-cased ([`char::to_lowercase`]);
//!   everything else (spaces, punctuation, symbols) separates words. A
//!   Han ideograph, Hiragana or Katakana character is a word by itself
//!   (those scripts do not put spaces between words), so Chinese and
//!   Japanese pages get as many shingles as they have characters.
//!   Markup, case and whitespace therefore never tell two documents apart.
//! * **Shingles**: every run of [`MinHashParams::shingle_words`]
//!   consecutive words (default 5), hashed to 64 bits. A document with
//!   fewer words than that has one shingle, all its words. A document
//!   with no word has no signature ([`MinHasher::signature`] returns
//!   `None`) and is never anyone's near-duplicate.
//! * **Similarity**: the Jaccard similarity `|A ∩ B| / |A ∪ B|` of the two
//!   shingle *sets* (repeats count once). [`jaccard`] computes it exactly
//!   (the brute-force reference); [`Signature::estimate_jaccard`] estimates
//!   it from two signatures, with standard deviation
//!   `sqrt(J (1 - J) / hashes)`.
//!
//! # Signature and bands
//!
//! A signature has `bands × rows` values, computed by **one-permutation
//! hashing** (Li, Owen and Zhang 2012) with **optimal densification**
//! (Shrivastava 2017): each shingle's hash, salted by
//! [`MinHashParams::seed`], picks one of the `bands × rows` bins and
//! competes for that bin's minimum; each bin no shingle fell into then
//! takes the value of a non-empty bin chosen by a fixed hash sequence of
//! its own number. Two documents agree on one value with probability
//! (about) their Jaccard similarity `s`, as with `bands × rows`
//! independent hash functions, for one hash per shingle instead of one per
//! shingle and function.
//!
//! The signature is cut into `bands` bands of `rows` values; each band is
//! hashed to a 64-bit **band key** that also encodes the band's number
//! ([`Signature::band_keys`]), so two documents share a key only when they
//! agree on every value of the same band (or, with probability 2⁻⁶⁴ per
//! pair of keys, by a hash collision). Two documents are **candidates**
//! when they share at least one key; near-duplicate clusters are the
//! connected components of the candidate relation, and each cluster's
//! **representative** is its smallest docid (byte order). Documents with a
//! Jaccard similarity `s` become candidates with probability
//!
//! ```text
//! P(s) = 1 - (1 - s^rows)^bands
//! ```
//!
//! (the S-curve, [`MinHashParams::candidate_probability`]), whose steepest
//! point is near `s* = (1 / bands)^(1 / rows)`
//! ([`MinHashParams::threshold`]). The defaults, 16 bands of 8 rows (128
//! hashes), give `s* ≈ 0.707`:
//!
//! | Jaccard `s` | 0.3 | 0.5 | 0.6 | 0.7 | 0.8 | 0.9 | 1.0 |
//! |---|---|---|---|---|---|---|---|
//! | `P(s)` | 0.0010 | 0.061 | 0.237 | 0.613 | 0.947 | 0.99988 | 1 |
//!
//! Exact copies (after the word rule above) always share every key.
//! Clusters are closed under the candidate relation, so a chain of
//! candidates `A ~ B ~ C` puts `A` and `C` in one cluster even when `A`
//! and `C` are not similar themselves (as in every LSH deduplication that
//! clusters by connected components).
//!
//! [`cluster`] is the in-memory reference clustering of a list of
//! documents; `sieve-ingest` clusters a whole collection with external
//! sorts of band keys (bounded memory) and must agree with it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// The parameters of the signature and of banding. Two signatures are
/// comparable only when made with equal parameters (an index records
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinHashParams {
    /// Words per shingle (default 5).
    pub shingle_words: u32,
    /// Bands (default 16).
    pub bands: u32,
    /// Hash values per band (default 8).
    pub rows: u32,
    /// Seed of every hash function (default
    /// [`MinHashParams::DEFAULT_SEED`]).
    pub seed: u64,
}

impl MinHashParams {
    /// The default seed.
    pub const DEFAULT_SEED: u64 = 0x5133_7E5E_ED00_0022;

    /// `bands × rows`: the length of a signature.
    pub fn hashes(&self) -> usize {
        self.bands as usize * self.rows as usize
    }

    /// The similarity at which the S-curve is steepest, approximately
    /// `(1 / bands)^(1 / rows)`: pairs well above it are almost always
    /// candidates, pairs well below almost never.
    pub fn threshold(&self) -> f64 {
        (1.0 / f64::from(self.bands)).powf(1.0 / f64::from(self.rows))
    }

    /// The probability `1 - (1 - s^rows)^bands` that two documents of
    /// Jaccard similarity `s` share at least one band key.
    pub fn candidate_probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// Checks the parameters: every count at least 1, at most 1024 hashes
    /// and 64 words per shingle.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.shingle_words == 0 || self.shingle_words > 64 {
            return Err("words per shingle must be 1..=64");
        }
        if self.bands == 0 || self.rows == 0 || self.hashes() > 1024 {
            return Err("bands and rows must be at least 1, bands × rows at most 1024");
        }
        Ok(())
    }
}

impl Default for MinHashParams {
    fn default() -> Self {
        MinHashParams {
            shingle_words: 5,
            bands: 16,
            rows: 8,
            seed: Self::DEFAULT_SEED,
        }
    }
}

/// splitmix64's output function: a bijective 64-bit mixer.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `i`-th output of splitmix64 started at `seed`.
fn splitmix(seed: u64, i: u64) -> u64 {
    mix64(seed.wrapping_add((i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

/// Scripts written without spaces between words: each character (here its
/// scalar value) is a word.
#[inline]
fn is_char_word(c: u32) -> bool {
    matches!(c,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B and later
}

/// The characters of U+3000..=U+303F (CJK symbols and punctuation) and of
/// U+FF00..=U+FF3F (fullwidth punctuation, digits and capitals) that are
/// neither alphanumeric nor a word by themselves, one bit each (bit `i`:
/// the block's start plus `i`): they separate words
/// (`tests::separator_masks_are_the_non_word_characters` checks them
/// against `char::is_alphanumeric`).
const SEPARATORS: [(u32, u64); 2] = [
    (0x3000, 0xE0C1_FC01_FFFF_FF1F),
    (0xFF00, 0xF800_0001_FC00_FFFF),
];

/// `c` is one of [`SEPARATORS`].
#[inline]
fn is_separator(c: u32) -> bool {
    SEPARATORS
        .iter()
        .any(|&(start, bits)| c & !63 == start && bits >> (c & 63) & 1 != 0)
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

#[inline]
fn fnv_bytes(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    }
    h
}

/// Calls `f` with the 64-bit hash of each word of `text` in order (the
/// word rule of the [module docs](self)). The hash of a word is FNV-1a
/// over the UTF-8 bytes of its lower-cased characters, then mixed.
///
/// ASCII bytes are taken one at a time through a table (no character is
/// decoded); other characters are decoded and go through the exact path.
pub fn for_each_word(text: &str, mut f: impl FnMut(u64)) {
    let bytes = text.as_bytes();
    let mut h = FNV_OFFSET;
    let mut in_word = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            let l = ASCII_WORD[b as usize];
            if l != 0 {
                h = (h ^ u64::from(l)).wrapping_mul(FNV_PRIME);
                in_word = true;
            } else if in_word {
                f(mix64(h));
                h = FNV_OFFSET;
                in_word = false;
            }
            continue;
        }
        // A three-byte character of U+3000..=U+FFFF (lead E3..EF) that is
        // a word by itself (Hiragana, Katakana, CJK ideographs: most of a
        // Chinese or Japanese page) is hashed from its bytes in the text,
        // which are its UTF-8 encoding; CJK and fullwidth punctuation
        // (`SEPARATORS`) ends the word being read. Both as `word_char`
        // does, without decoding the character and encoding it again.
        if (0xE3..=0xEF).contains(&b)
            && let Some(&[_, b1, b2]) = bytes.get(i..i + 3)
        {
            let u =
                (u32::from(b & 0x0F) << 12) | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F);
            if is_char_word(u) {
                if in_word {
                    f(mix64(h));
                    in_word = false;
                }
                f(mix64(fnv_bytes(FNV_OFFSET, &bytes[i..i + 3])));
                h = FNV_OFFSET;
                i += 3;
                continue;
            }
            if is_separator(u) {
                if in_word {
                    f(mix64(h));
                    h = FNV_OFFSET;
                    in_word = false;
                }
                i += 3;
                continue;
            }
        }
        // `i` is at a character boundary: every step is a whole character.
        let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else {
            break;
        };
        i += c.len_utf8();
        word_char(c, &mut h, &mut in_word, &mut f);
    }
    if in_word {
        f(mix64(h));
    }
}

/// Each ASCII byte lower-cased when it is alphanumeric, 0 when it is not
/// (it then separates words).
const ASCII_WORD: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// The word rule for one non-ASCII character: `h` is the hash of the word
/// being read, `in_word` whether there is one.
#[cold]
fn word_char(c: char, h: &mut u64, in_word: &mut bool, f: &mut impl FnMut(u64)) {
    let mut buf = [0u8; 4];
    if is_char_word(c as u32) {
        if *in_word {
            f(mix64(*h));
            *in_word = false;
        }
        f(mix64(fnv_bytes(
            FNV_OFFSET,
            c.encode_utf8(&mut buf).as_bytes(),
        )));
        *h = FNV_OFFSET;
    } else if c.is_alphanumeric() {
        for l in c.to_lowercase() {
            *h = fnv_bytes(*h, l.encode_utf8(&mut buf).as_bytes());
        }
        *in_word = true;
    } else if *in_word {
        f(mix64(*h));
        *h = FNV_OFFSET;
        *in_word = false;
    }
}

/// The 64-bit hashes of the shingles of `text` (`k` words each), in text
/// order, repeats included. Empty when the text has no word; one shingle
/// when it has fewer than `k` words.
pub fn shingles(text: &str, k: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for_each_shingle(text, k, |s| out.push(s));
    out
}

/// Calls `f` with each shingle hash of [`shingles`], without collecting.
///
/// A shingle of the words `w_0 .. w_{len-1}` (oldest first) hashes to
/// `mix64(len · φ ^ S)` with `S = ⊕_j rotl(w_j, 13 j)`. `S` is kept as the
/// window slides (rotations distribute over xor): dropping the oldest word
/// and rotating right by 13 moves every word down one place, and the new
/// word comes in at place `len - 1`; two rotations per word, whatever `len`.
pub fn for_each_shingle(text: &str, k: usize, mut f: impl FnMut(u64)) {
    // The last (up to) 64 word hashes, as a ring indexed by the word's
    // number modulo 64 (a mask, not a division per word).
    let mut ring = [0u64; RING];
    let k = k.clamp(1, RING);
    let top = ((k as u32 - 1) * 13) % 64;
    let seed = (k as u64).wrapping_mul(SHINGLE_LEN);
    let mut sum = 0u64;
    let mut n = 0usize;
    for_each_word(text, |w| {
        if n < k {
            sum ^= w.rotate_left((n as u32 * 13) % 64);
        } else {
            // Word `n - k` leaves (read before word `n` may take its slot).
            let oldest = ring[(n - k) & (RING - 1)];
            sum = (sum ^ oldest).rotate_right(13) ^ w.rotate_left(top);
        }
        ring[n & (RING - 1)] = w;
        n += 1;
        if n >= k {
            f(mix64(seed ^ sum));
        }
    });
    if n > 0 && n < k {
        f(mix64((n as u64).wrapping_mul(SHINGLE_LEN) ^ sum));
    }
}

/// Words a shingle may have at most (the ring's size, a power of two).
const RING: usize = 64;

/// A shingle's length, times this, seeds its hash.
const SHINGLE_LEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The exact Jaccard similarity of two lists of shingle hashes read as
/// sets: `|A ∩ B| / |A ∪ B|`, and 0 when both are empty. The brute-force
/// reference for [`Signature::estimate_jaccard`].
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// Computes signatures and band keys with fixed parameters.
#[derive(Debug, Clone)]
pub struct MinHasher {
    params: MinHashParams,
    salt: u64,
}

/// Marks a bin no shingle fell into.
const EMPTY: u64 = u64::MAX;

impl MinHasher {
    /// The hash functions of `params`.
    ///
    /// # Panics
    ///
    /// If `params` fail [`MinHashParams::check`]: check user-given values
    /// first.
    pub fn new(params: MinHashParams) -> Self {
        if let Err(e) = params.check() {
            panic!("MinHashParams: {e}");
        }
        MinHasher {
            params,
            salt: splitmix(params.seed, 0),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &MinHashParams {
        &self.params
    }

    /// The signature of `text`, or `None` when it has no word.
    pub fn signature(&self, text: &str) -> Option<Signature> {
        let mut mins = vec![EMPTY; self.params.hashes()];
        let mut any = false;
        for_each_shingle(text, self.params.shingle_words as usize, |s| {
            any = true;
            self.add(&mut mins, s);
        });
        any.then(|| self.densify(&mins))
    }

    /// The signature of a list of shingle hashes (`None` when empty).
    pub fn signature_of(&self, shingles: &[u64]) -> Option<Signature> {
        if shingles.is_empty() {
            return None;
        }
        let mut mins = vec![EMPTY; self.params.hashes()];
        for &s in shingles {
            self.add(&mut mins, s);
        }
        Some(self.densify(&mins))
    }

    /// One permutation: the shingle's salted hash picks a bin (its high 32
    /// bits, scaled to the number of bins) and competes for that bin's
    /// minimum with its low 32 bits.
    #[inline]
    fn add(&self, mins: &mut [u64], shingle: u64) {
        let h = mix64(shingle ^ self.salt);
        let bin = ((h >> 32) * mins.len() as u64) >> 32;
        let m = &mut mins[bin as usize];
        *m = (*m).min(h & 0xFFFF_FFFF);
    }

    /// Fills every empty bin with the value of a non-empty one, chosen by
    /// a hash sequence of the empty bin's number alone (Shrivastava's
    /// optimal densification), so that two documents agree on a bin with
    /// probability equal to their Jaccard similarity. `mins` has at least
    /// one non-empty bin.
    fn densify(&self, mins: &[u64]) -> Signature {
        let k = mins.len() as u64;
        let values = mins
            .iter()
            .enumerate()
            .map(|(j, &m)| {
                if m != EMPTY {
                    return m as u32;
                }
                for attempt in 1..=64 * k {
                    let h = splitmix(self.salt ^ 0xDE45_1F00, (j as u64) << 32 | attempt);
                    let from = mins[(((h >> 32) * k) >> 32) as usize];
                    if from != EMPTY {
                        return from as u32;
                    }
                }
                // Not reached in practice (64 k draws all empty has
                // probability below e^-64); stay deterministic anyway.
                mins.iter()
                    .cycle()
                    .skip(j)
                    .find(|&&m| m != EMPTY)
                    .map_or(0, |&m| m as u32)
            })
            .collect();
        Signature(values)
    }

    /// The band keys of `text` ([`Signature::band_keys`]), or `None`.
    pub fn band_keys(&self, text: &str) -> Option<Vec<u64>> {
        self.signature(text).map(|s| s.band_keys(&self.params))
    }
}

/// A MinHash signature: the minimum of each hash function over a
/// document's shingles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature(pub Vec<u32>);

impl Signature {
    /// The fraction of positions where the two signatures agree: an
    /// estimate of the Jaccard similarity of the two shingle sets.
    /// Signatures of different lengths give 0.
    pub fn estimate_jaccard(&self, other: &Signature) -> f64 {
        if self.0.len() != other.0.len() || self.0.is_empty() {
            return 0.0;
        }
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        same as f64 / self.0.len() as f64
    }

    /// One 64-bit key per band, in band order: band `j` (values
    /// `j·rows .. (j+1)·rows`) hashed together with `j` and the seed, so
    /// keys of different bands differ.
    pub fn band_keys(&self, params: &MinHashParams) -> Vec<u64> {
        let r = params.rows as usize;
        self.0
            .chunks(r)
            .enumerate()
            .map(|(j, band)| {
                let mut h = splitmix(params.seed ^ 0xBA9D_0000_0000_0000, j as u64);
                for &v in band {
                    h = mix64(h ^ u64::from(v));
                }
                h
            })
            .collect()
    }
}

/// Near-duplicate clusters of a list of documents, in memory: the
/// reference for the external-sort clustering of `sieve-ingest`.
///
/// `docs` are `(docid, band keys)` pairs (`None` or empty: no signature).
/// Returns, for each document in input order, the index in `docs` of its
/// cluster's representative: the member with the smallest docid (byte
/// order; among equal docids, the first). Documents without keys are
/// their own representatives.
pub fn cluster<S: AsRef<str>>(docs: &[(S, Option<Vec<u64>>)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..docs.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let better = |a: usize, b: usize| -> bool {
        (docs[a].0.as_ref().as_bytes(), a) < (docs[b].0.as_ref().as_bytes(), b)
    };
    let mut first: HashMap<u64, usize> = HashMap::new();
    for (i, (_, keys)) in docs.iter().enumerate() {
        for &k in keys.iter().flatten() {
            match first.get(&k) {
                None => {
                    first.insert(k, i);
                }
                Some(&j) => {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    if ri != rj {
                        if better(ri, rj) {
                            parent[rj] = ri;
                        } else {
                            parent[ri] = rj;
                        }
                    }
                }
            }
        }
    }
    (0..docs.len()).map(|i| find(&mut parent, i)).collect()
}

/// A 64-bit cluster id for a representative's docid: FNV-1a of its bytes,
/// mixed. Stable across platforms and versions of sieve's format 1.
pub fn cluster_id(representative: &str) -> u64 {
    mix64(fnv_bytes(FNV_OFFSET, representative.as_bytes()))
}

#[cfg(test)]
mod tests;
