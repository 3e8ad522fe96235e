//! Tests of the MinHash module: the word and shingle rules, pinned values
//! (determinism across platforms), estimates against brute-force Jaccard,
//! the S-curve, and clustering against brute force.

use super::*;
use proptest::prelude::*;

fn words(text: &str) -> usize {
    let mut n = 0;
    for_each_word(text, |_| n += 1);
    n
}

#[test]
fn word_rule_ignores_case_markup_spacing_and_punctuation() {
    let a = shingles("The quick brown fox, jumps over the lazy dog!", 3);
    let b = shingles(
        "  the QUICK\n\nbrown   fox jumps -- over the lazy   DOG ",
        3,
    );
    assert_eq!(a, b);
    assert_eq!(words("l'été 2024: Ünïcode ÉTÉ"), 5);
    // Lower-casing is Unicode's: ÉTÉ and été are the same word.
    let mut w = Vec::new();
    for_each_word("été ÉTÉ", |h| w.push(h));
    assert_eq!(w[0], w[1]);
    // Each Han/kana character is a word; Hangul words are space separated.
    assert_eq!(words("日本語のテキスト"), 8);
    assert_eq!(words("한국어 텍스트"), 2);
    assert_eq!(words(" ... --- !!! "), 0);
}

#[test]
fn short_and_empty_documents() {
    assert_eq!(shingles("one two", 5).len(), 1);
    assert_eq!(shingles("one two three four five six", 5).len(), 2);
    assert!(shingles("", 5).is_empty());
    let h = MinHasher::new(MinHashParams::default());
    assert!(h.signature("   ").is_none());
    assert!(h.signature("<>!").is_none());
    assert!(h.signature("x").is_some());
    // A short text's one shingle is not the first shingle of a longer one.
    assert_ne!(shingles("a b", 5), shingles("a b c d e", 5)[..1].to_vec());
}

#[test]
fn pinned_values_are_the_same_on_every_platform() {
    // If one of these changes, every stored band key changes: indexes
    // built before would cluster differently. Change only with a new
    // format version.
    let h = MinHasher::new(MinHashParams::default());
    let s = h
        .signature("The quick brown fox jumps over the lazy dog near the river bank")
        .unwrap();
    assert_eq!(s.0.len(), 128);
    assert_eq!(&s.0[..4], &PINNED_SIG[..]);
    let keys = s.band_keys(h.params());
    assert_eq!(keys.len(), 16);
    assert_eq!(keys[0], PINNED_KEY0);
    assert_eq!(keys[15], PINNED_KEY15);
    assert_eq!(cluster_id("clueweb09-en0000-00-00000"), PINNED_CLUSTER_ID);
}

const PINNED_SIG: [u32; 4] = [3_320_978_111, 1_652_331_591, 525_488_298, 1_723_682_052];
const PINNED_KEY0: u64 = 0xd138_9c53_cac9_de3b;
const PINNED_KEY15: u64 = 0x1d27_866f_6419_07b3;
const PINNED_CLUSTER_ID: u64 = 0x6470_bd8e_8fc1_5802;

#[test]
fn threshold_and_s_curve() {
    let p = MinHashParams::default();
    // (1/16)^(1/8) = 2^(-1/2).
    assert!((p.threshold() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    assert!((p.candidate_probability(0.5) - 0.0607).abs() < 1e-3);
    assert!((p.candidate_probability(0.9) - 0.99988).abs() < 1e-4);
    assert_eq!(p.candidate_probability(1.0), 1.0);
    assert_eq!(p.candidate_probability(0.0), 0.0);
    assert!(p.check().is_ok());
    let bad = MinHashParams { bands: 0, ..p };
    assert!(bad.check().is_err());
}

/// A document of `n` distinct shingles (as raw hashes) from `base` on.
fn set(base: u64, n: u64) -> Vec<u64> {
    (base..base + n)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x1234)
        .collect()
}

/// Two shingle sets of `n` each with exactly `shared` in common.
fn pair(seed: u64, n: u64, shared: u64) -> (Vec<u64>, Vec<u64>) {
    let a = set(seed << 20, n);
    let mut b = a[..shared as usize].to_vec();
    b.extend(set((seed << 20) + (1 << 19), n - shared));
    (a, b)
}

#[test]
fn estimates_are_unbiased_against_brute_force() {
    let h = MinHasher::new(MinHashParams::default());
    let mut sum_err = 0.0;
    let mut n = 0.0;
    for seed in 0..400u64 {
        let shared = seed % 101;
        let (a, b) = pair(seed, 100, shared);
        let j = jaccard(&a, &b);
        let est = h
            .signature_of(&a)
            .unwrap()
            .estimate_jaccard(&h.signature_of(&b).unwrap());
        sum_err += est - j;
        n += 1.0;
    }
    let bias = sum_err / n;
    assert!(bias.abs() < 0.01, "mean error {bias}");
}

#[test]
fn s_curve_holds_empirically() {
    let p = MinHashParams::default();
    let h = MinHasher::new(p);
    let rate = |shared: u64| {
        let mut hit = 0;
        let trials = 2000u64;
        for seed in 0..trials {
            let (a, b) = pair(seed + shared * 100_000, 200, shared);
            let ka = h.signature_of(&a).unwrap().band_keys(&p);
            let kb = h.signature_of(&b).unwrap().band_keys(&p);
            if ka.iter().zip(&kb).any(|(x, y)| x == y) {
                hit += 1;
            }
        }
        hit as f64 / trials as f64
    };
    // 200 shingles each, `shared` in common: J = shared / (400 - shared).
    for (shared, lo, hi) in [(190u64, 0.995, 1.0), (60, 0.0, 0.01), (133, 0.0, 0.2)] {
        let j = shared as f64 / (400 - shared) as f64;
        let expect = p.candidate_probability(j);
        let r = rate(shared);
        assert!(
            r >= lo && r <= hi && (r - expect).abs() < 0.05,
            "J={j:.3}: candidate rate {r}, S-curve {expect}"
        );
    }
}

#[test]
fn keys_of_different_bands_differ() {
    // A signature whose values are all equal: band keys still differ.
    let p = MinHashParams::default();
    let s = Signature(vec![7; p.hashes()]);
    let mut k = s.band_keys(&p);
    k.sort_unstable();
    k.dedup();
    assert_eq!(k.len(), 16);
}

/// Connected components of the pairs with similarity at least `t`.
fn brute_components(sets: &[Vec<u64>], t: f64) -> Vec<usize> {
    let n = sets.len();
    let mut comp: Vec<usize> = (0..n).collect();
    fn find(p: &[usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in 0..n {
        for j in i + 1..n {
            if jaccard(&sets[i], &sets[j]) >= t {
                let (a, b) = (find(&comp, i), find(&comp, j));
                comp[a.max(b)] = a.min(b);
            }
        }
    }
    (0..n).map(|i| find(&comp, i)).collect()
}

#[test]
fn clusters_agree_with_brute_force_jaccard() {
    // 60 originals, each with 0-4 variants at J 1.0, ~0.9, ~0.5 or ~0.95.
    let p = MinHashParams::default();
    let h = MinHasher::new(p);
    let mut sets = Vec::new();
    for o in 0..60u64 {
        let base = set(o << 24, 150);
        sets.push(base.clone());
        for v in 0..(o % 5) {
            let keep = [150usize, 142, 100, 146][v as usize % 4];
            let mut s = base[..keep].to_vec();
            s.extend(set((o << 24) + (1 << 22) + (v << 16), 150 - keep as u64));
            sets.push(s);
        }
    }
    let docs: Vec<(String, Option<Vec<u64>>)> = sets
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                format!("doc-{:04}", 1000 - i),
                h.signature_of(s).map(|g| g.band_keys(&p)),
            )
        })
        .collect();
    let reps = cluster(&docs);
    let strong = brute_components(&sets, 0.85);
    let weak = brute_components(&sets, 0.3);
    for i in 0..sets.len() {
        for j in 0..sets.len() {
            if strong[i] == strong[j] {
                assert_eq!(reps[i], reps[j], "J >= 0.85 pair {i},{j} not clustered");
            }
            if reps[i] == reps[j] {
                assert_eq!(weak[i], weak[j], "pair {i},{j} clustered below J 0.3");
            }
        }
        // The representative is the smallest docid of the cluster.
        let r = reps[i];
        assert_eq!(reps[r], r);
        assert!(docs[r].0 <= docs[i].0);
    }
}

#[test]
fn exact_copies_form_one_cluster_with_the_smallest_docid() {
    let h = MinHasher::new(MinHashParams::default());
    let texts = [
        "alpha beta gamma delta epsilon zeta",
        "eta theta iota kappa lambda mu",
    ];
    let mut docs = Vec::new();
    for r in 0..5 {
        for (i, t) in texts.iter().enumerate() {
            docs.push((format!("r{}-{i}", 5 - r), h.band_keys(t)));
        }
    }
    docs.push(("empty".to_string(), h.band_keys("")));
    docs.push(("empty2".to_string(), h.band_keys("")));
    let reps = cluster(&docs);
    let mut distinct: Vec<usize> = reps.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4);
    assert_eq!(docs[reps[0]].0, "r1-0");
    assert_eq!(docs[reps[1]].0, "r1-1");
    assert_eq!(reps[10], 10);
    assert_eq!(reps[11], 11);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The estimate is within 5 standard deviations (plus a small slack
    /// for the 32-bit hash values) of the exact Jaccard similarity of two
    /// texts, and equal texts have equal band keys.
    #[test]
    fn estimate_tracks_brute_force(
        a in proptest::collection::vec(0u8..40, 1..300),
        edits in proptest::collection::vec((0usize..300, 0u8..60), 0..60),
    ) {
        let vocab: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
        let ta: Vec<&str> = a.iter().map(|&i| vocab[i as usize].as_str()).collect();
        let mut tb = ta.clone();
        for &(pos, w) in &edits {
            let p = pos % tb.len();
            tb[p] = vocab[w as usize].as_str();
        }
        let (ta, tb) = (ta.join(" "), tb.join(" "));
        let params = MinHashParams { bands: 64, rows: 8, ..MinHashParams::default() };
        let h = MinHasher::new(params);
        let j = jaccard(&shingles(&ta, 5), &shingles(&tb, 5));
        let est = h.signature(&ta).unwrap().estimate_jaccard(&h.signature(&tb).unwrap());
        let sd = (j * (1.0 - j) / 512.0).sqrt();
        prop_assert!((est - j).abs() <= 5.0 * sd + 0.01, "J {} estimate {}", j, est);
        if ta == tb {
            prop_assert_eq!(h.band_keys(&ta), h.band_keys(&tb));
        }
    }

    /// Shingles are a function of the words alone.
    #[test]
    fn shingles_ignore_separators(
        ws in proptest::collection::vec("[a-zA-Z0-9]{1,8}", 0..40),
        seps in proptest::collection::vec("[ ,.;:!?\\-\n\t]{1,3}", 40),
    ) {
        let plain = ws.join(" ").to_lowercase();
        let mut odd = String::new();
        for (i, w) in ws.iter().enumerate() {
            odd.push_str(&seps[i]);
            odd.push_str(&w.to_uppercase());
        }
        prop_assert_eq!(shingles(&plain, 5), shingles(&odd, 5));
    }
}

/// The word rule as first written (every character decoded), the oracle
/// of [`for_each_word`]'s ASCII table.
fn reference_words(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut h = FNV_OFFSET;
    let mut in_word = false;
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                h = (h ^ u64::from(c.to_ascii_lowercase() as u8)).wrapping_mul(FNV_PRIME);
                in_word = true;
                continue;
            }
        } else if is_char_word(c as u32) {
            if in_word {
                out.push(mix64(h));
                in_word = false;
            }
            out.push(mix64(fnv_bytes(
                FNV_OFFSET,
                c.encode_utf8(&mut buf).as_bytes(),
            )));
            h = FNV_OFFSET;
            continue;
        } else if c.is_alphanumeric() {
            for l in c.to_lowercase() {
                h = fnv_bytes(h, l.encode_utf8(&mut buf).as_bytes());
            }
            in_word = true;
            continue;
        }
        if in_word {
            out.push(mix64(h));
            h = FNV_OFFSET;
            in_word = false;
        }
    }
    if in_word {
        out.push(mix64(h));
    }
    out
}

/// Shingles hashed from scratch, each from its own `len` words, the oracle
/// of [`for_each_shingle`]'s sliding sum.
fn reference_shingles(text: &str, k: usize) -> Vec<u64> {
    let words = reference_words(text);
    let k = k.clamp(1, RING);
    let hash = |ws: &[u64]| {
        let mut h = (ws.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for (j, w) in ws.iter().enumerate() {
            h ^= w.rotate_left((j as u32 * 13) % 64);
        }
        mix64(h)
    };
    if words.is_empty() {
        return Vec::new();
    }
    if words.len() < k {
        return vec![hash(&words)];
    }
    words.windows(k).map(hash).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Words and shingles are those of the reference (every character
    /// decoded, every shingle hashed from scratch) on text mixing ASCII,
    /// Latin with accents and case, CJK, marks and separators, and the
    /// three-byte characters at each edge of the word-per-character ranges
    /// and the separators that `for_each_word` takes from their bytes
    /// (U+3000..=U+FFFF, with alphanumeric characters among the
    /// separators' blocks, and the lead byte E2 below), for any shingle
    /// length up to past the ring.
    #[test]
    fn words_and_shingles_equal_the_reference(
        text in "([ -~\\n\\t\\x00\\x7f]|[àÉßİǅΣσς]|[一-龥ぁ-ゟァ-ヿ]|[\u{300}-\u{36f}\u{200d}]|[\u{1F600}-\u{1F64F}\u{20000}-\u{20010}]|[\u{2FFF}\u{3000}\u{3001}\u{3002}\u{300C}\u{3005}\u{3007}\u{3021}\u{302A}\u{3030}\u{3031}\u{303F}\u{3040}\u{30FF}\u{3100}\u{31EF}\u{31F0}\u{31FF}\u{3200}\u{33FF}\u{3400}\u{4DBF}\u{4DC0}\u{4DFF}\u{4E00}\u{9FFF}\u{A000}\u{AC00}\u{F900}\u{FF00}\u{FF01}\u{FF0C}\u{FF10}\u{FF19}\u{FF1A}\u{FF21}\u{FF3A}\u{FF3F}\u{FF40}\u{FF41}\u{FF66}\u{FF9F}\u{FFFD}]){0,160}",
        k in 1usize..70,
    ) {
        let mut got = Vec::new();
        for_each_word(&text, |w| got.push(w));
        prop_assert_eq!(&got, &reference_words(&text));
        prop_assert_eq!(shingles(&text, k), reference_shingles(&text, k));
    }
}

/// [`SEPARATORS`] holds exactly the characters of its two blocks that are
/// neither alphanumeric nor words by themselves: what `word_char` treats
/// as separators.
#[test]
fn separator_masks_are_the_non_word_characters() {
    for (start, bits) in SEPARATORS {
        for i in 0..64 {
            let c = char::from_u32(start + i).expect("a scalar value");
            let separator = !c.is_alphanumeric() && !is_char_word(c as u32);
            assert_eq!(bits >> i & 1 == 1, separator, "{c:?} U+{:04X}", start + i);
            assert_eq!(is_separator(start + i), separator);
        }
    }
}
