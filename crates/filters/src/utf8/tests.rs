//! Unit tests: the worked examples, every class, and fast path == scalar path.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Checks `input` cleans to `output` with `counts` through every entry point
/// (fast path, scalar path, count-only, byte-at-a-time stream).
fn check_with(input: &[u8], output: &[u8], counts: Utf8Counts, counting: Counting) {
    let mut fast = input.to_vec();
    assert_eq!(
        clean_in_place_with(&mut fast, counting),
        counts,
        "counts for {input:02X?}"
    );
    assert_eq!(fast, output, "output for {input:02X?}");

    let mut scalar = input.to_vec();
    assert_eq!(clean_in_place_scalar(&mut scalar, counting), counts);
    assert_eq!(scalar, output);

    assert_eq!(count(input, counting), counts);

    let mut streamed = Vec::new();
    let mut s = StreamCleaner::new(counting);
    for b in input {
        s.feed(std::slice::from_ref(b), &mut streamed);
    }
    assert_eq!(s.finish(&mut streamed), counts);
    assert_eq!(streamed, output);

    assert!(std::str::from_utf8(output).is_ok());
}

fn check(input: &[u8], output: &[u8], counts: Utf8Counts) {
    check_with(input, output, counts, Counting::Exact);
}

fn one(class: ErrorClass) -> Utf8Counts {
    n(class, 1)
}

fn n(class: ErrorClass, k: u64) -> Utf8Counts {
    let mut c = Utf8Counts::default();
    *c.get_mut(class) = k;
    c
}

use ErrorClass::*;

#[test]
fn worked_examples_from_the_issue() {
    check(b"\xC0\x80", b"  ", one(OverlongNul));
    check(b"\xC1\x81", b"A ", one(OverlongAscii));
    check(b"\xF0\x82\x82\xAC", b"\xE2\x82\xAC ", one(OverlongNonAscii));
    check(b"\xED\xA0\x80", b"   ", one(Surrogate));
    check(b"\xF4\x90\x80\x80", b"    ", one(Invalid456));
    check("\u{627}".as_bytes(), b"\xD8\xA7", Utf8Counts::default());
}

#[test]
fn regression_atire_d8_df_leads_are_valid() {
    // ATIRE blanks every D8–DF lead; U+0600–U+07FF must survive.
    for v in 0x600u32..=0x7FF {
        let s = char::from_u32(v).expect("scalar").to_string();
        check(s.as_bytes(), s.as_bytes(), Utf8Counts::default());
    }
    let arabic = "مرحبا بالعالم";
    check(arabic.as_bytes(), arabic.as_bytes(), Utf8Counts::default());
}

#[test]
fn unexpected_continuation_bytes_count_one_each() {
    check(b"\x80", b" ", one(UnexpectedContinuation));
    check(b"\xBF", b" ", one(UnexpectedContinuation));
    check(b"A\x80\xBF\x9FB", b"A   B", n(UnexpectedContinuation, 3));
    // A complete valid sequence followed by one continuation byte too many.
    check(b"\xC3\xA9\x80", b"\xC3\xA9 ", one(UnexpectedContinuation));
    check(
        b"\xE2\x82\xAC\xAC\xAC",
        b"\xE2\x82\xAC  ",
        n(UnexpectedContinuation, 2),
    );
}

#[test]
fn missing_continuation_bytes() {
    // Truncated by the end of input, at every length.
    check(b"\xC3", b" ", one(MissingContinuation));
    check(b"\xE2\x82", b"  ", one(MissingContinuation));
    check(b"\xE2", b" ", one(MissingContinuation));
    check(b"\xF0\x9F\x98", b"   ", one(MissingContinuation));
    check(b"\xF8\x88\x80\x80", b"    ", one(MissingContinuation));
    check(b"\xFC\x84\x80\x80\x80", b"     ", one(MissingContinuation));
    // Cut short by a non-continuation byte, which starts afresh.
    check(b"\xC3A", b" A", one(MissingContinuation));
    check(b"\xE2\x82A", b"  A", one(MissingContinuation));
    check(b"\xE2\x82\xC3\xA9", b"  \xC3\xA9", one(MissingContinuation));
    check(
        b"\xE2\xE2\x82\xAC",
        b" \xE2\x82\xAC",
        one(MissingContinuation),
    );
    check(
        b"\xF0\x9F\x98\xFE",
        b"    ",
        one(MissingContinuation) + one(Invalid456),
    );
    // Two truncated leads in a row.
    check(b"\xC3\xC3", b"  ", n(MissingContinuation, 2));
    // A truncated sequence then a stray continuation byte is impossible:
    // the continuation byte would have been taken into the run. But a
    // truncated sequence cut by a lead whose own run is complete works.
    check(
        b"\xF0\x9F\xC3\xA9\x80",
        b"  \xC3\xA9 ",
        one(MissingContinuation) + one(UnexpectedContinuation),
    );
}

#[test]
fn invalid_4_5_6_byte_forms() {
    check(b"\xFE", b" ", one(Invalid456));
    check(b"\xFF", b" ", one(Invalid456));
    check(b"\xFE\xFF\xFE", b"   ", n(Invalid456, 3));
    // FE/FF after a lead cuts the run short.
    check(
        b"\xC3\xFF",
        b"  ",
        one(MissingContinuation) + one(Invalid456),
    );
    // Above 10FFFF in a 4-byte form.
    check(b"\xF4\x90\x80\x80", b"    ", one(Invalid456));
    check(b"\xF5\x80\x80\x80", b"    ", one(Invalid456));
    check(b"\xF7\xBF\xBF\xBF", b"    ", one(Invalid456));
    // Complete 5- and 6-byte forms, whatever their value.
    check(b"\xF8\x88\x80\x80\x80", b"     ", one(Invalid456));
    check(b"\xFB\xBF\xBF\xBF\xBF", b"     ", one(Invalid456));
    check(b"\xFC\x84\x80\x80\x80\x80", b"      ", one(Invalid456));
    check(b"\xFD\xBF\xBF\xBF\xBF\xBF", b"      ", one(Invalid456));
    // Rule 1 comes before the over-long and surrogate rules.
    check(b"\xF8\x80\x80\x81\x81", b"     ", one(Invalid456)); // 'A'
    check(b"\xF8\x80\x80\x80\x80", b"     ", one(Invalid456)); // NUL
    check(b"\xF8\x80\x8D\xA0\x80", b"     ", one(Invalid456)); // D800
    check(b"\xFC\x80\x80\x80\x80\x80", b"      ", one(Invalid456));
    // A 6-byte lead with 5 continuation bytes and then one more.
    check(
        b"\xFC\x80\x80\x80\x80\x80\x80",
        b"       ",
        one(Invalid456) + one(UnexpectedContinuation),
    );
}

#[test]
fn surrogate_halves() {
    check(b"\xED\xA0\x80", b"   ", one(Surrogate)); // D800
    check(b"\xED\xAF\xBF", b"   ", one(Surrogate)); // DBFF
    check(b"\xED\xB0\x80", b"   ", one(Surrogate)); // DC00
    check(b"\xED\xBF\xBF", b"   ", one(Surrogate)); // DFFF
    // A CESU-8 pair is two surrogates.
    check(b"\xED\xA0\xBD\xED\xB8\x80", b"      ", n(Surrogate, 2));
    // Surrogates in over-long 4-byte forms are surrogates, not over-long.
    check(b"\xF0\x8D\xA0\x80", b"    ", one(Surrogate));
    check(b"\xF0\x8D\xBF\xBF", b"    ", one(Surrogate));
    // Neighbours are valid.
    check(
        "\u{D7FF}\u{E000}".as_bytes(),
        "\u{D7FF}\u{E000}".as_bytes(),
        Utf8Counts::default(),
    );
}

#[test]
fn overlong_nul_in_every_form() {
    check(b"\xC0\x80", b"  ", one(OverlongNul));
    check(b"\xE0\x80\x80", b"   ", one(OverlongNul));
    check(b"\xF0\x80\x80\x80", b"    ", one(OverlongNul));
    check(b"a\xC0\x80b", b"a  b", one(OverlongNul));
}

#[test]
fn overlong_ascii_in_every_form() {
    check(b"\xC1\x81", b"A ", one(OverlongAscii));
    check(b"\xC0\xBC", b"< ", one(OverlongAscii));
    check(b"\xC1\xBF", b"\x7F ", one(OverlongAscii));
    check(b"\xC0\x81", b"\x01 ", one(OverlongAscii));
    check(b"\xE0\x81\x81", b"A  ", one(OverlongAscii));
    check(b"\xF0\x80\x81\x81", b"A   ", one(OverlongAscii));
}

#[test]
fn overlong_non_ascii_is_re_encoded() {
    check(b"\xE0\x82\xA9", b"\xC2\xA9 ", one(OverlongNonAscii)); // ©
    check(b"\xE0\x9F\xBF", b"\xDF\xBF ", one(OverlongNonAscii)); // U+07FF
    check(b"\xF0\x80\x82\xA9", b"\xC2\xA9  ", one(OverlongNonAscii));
    check(b"\xF0\x82\x82\xAC", b"\xE2\x82\xAC ", one(OverlongNonAscii)); // €
    check(b"\xF0\x8F\xBF\xBF", b"\xEF\xBF\xBF ", one(OverlongNonAscii)); // U+FFFF
}

#[test]
fn valid_boundaries_are_untouched() {
    for s in [
        "\u{0}",
        "\u{7F}",
        "\u{80}",
        "\u{7FF}",
        "\u{800}",
        "\u{FFFD}",
        "\u{FFFF}",
        "\u{10000}",
        "\u{10FFFF}",
        "κόσμε",
        "日本語のテキスト",
        "😀 emoji",
    ] {
        check(s.as_bytes(), s.as_bytes(), Utf8Counts::default());
    }
}

#[test]
fn empty_input() {
    check(b"", b"", Utf8Counts::default());
}

#[test]
fn atire_counting_adds_leftover_overlong_bytes_as_unexpected_continuations() {
    let a = Counting::Atire;
    check_with(
        b"\xC1\x81",
        b"A ",
        one(OverlongAscii) + one(UnexpectedContinuation),
        a,
    );
    check_with(
        b"\xF0\x82\x82\xAC",
        b"\xE2\x82\xAC ",
        one(OverlongNonAscii) + one(UnexpectedContinuation),
        a,
    );
    check_with(
        b"\xF0\x80\x82\xA9",
        b"\xC2\xA9  ",
        one(OverlongNonAscii) + n(UnexpectedContinuation, 2),
        a,
    );
    check_with(
        b"\xC0\x80",
        b"  ",
        one(OverlongNul) + one(UnexpectedContinuation),
        a,
    );
    check_with(
        b"\xF0\x80\x80\x80",
        b"    ",
        one(OverlongNul) + n(UnexpectedContinuation, 3),
        a,
    );
    // Every other class counts as under Exact.
    check_with(b"\xED\xA0\x80", b"   ", one(Surrogate), a);
    check_with(b"\xF4\x90\x80\x80", b"    ", one(Invalid456), a);
    check_with(b"\xE2\x82", b"  ", one(MissingContinuation), a);
    check_with(b"\x80", b" ", one(UnexpectedContinuation), a);
}

#[test]
fn keys_labels_and_from_key_round_trip() {
    let keys: Vec<_> = ErrorClass::ALL.iter().map(|c| c.key()).collect();
    assert_eq!(
        keys,
        [
            "unexpected_continuation",
            "missing_continuation",
            "surrogate",
            "invalid_4_5_6",
            "overlong_nul",
            "overlong_ascii",
            "overlong_non_ascii"
        ]
    );
    for c in ErrorClass::ALL {
        assert_eq!(ErrorClass::from_key(c.key()), Some(c));
        assert!(!c.label().is_empty());
        assert_eq!(c.to_string(), c.label());
    }
    assert_eq!(ErrorClass::from_key("Surrogate"), None);
    assert_eq!(ErrorClass::from_key(""), None);
}

#[test]
fn counts_serialise_with_the_stable_keys_in_order() {
    let mut c = Utf8Counts::default();
    for (k, class) in ErrorClass::ALL.into_iter().enumerate() {
        *c.get_mut(class) = k as u64 + 1;
    }
    let json = serde_json::to_string(&c).expect("serialise");
    assert_eq!(
        json,
        r#"{"unexpected_continuation":1,"missing_continuation":2,"surrogate":3,"invalid_4_5_6":4,"overlong_nul":5,"overlong_ascii":6,"overlong_non_ascii":7}"#
    );
    let back: Utf8Counts = serde_json::from_str(&json).expect("deserialise");
    assert_eq!(back, c);
    assert_eq!(c.total(), 28);
    assert!(!c.is_clean());
    assert!(Utf8Counts::default().is_clean());
    let mut d = c;
    d += c;
    assert_eq!(d.overlong_non_ascii, 14);
    assert_eq!([c, c, c].into_iter().sum::<Utf8Counts>().surrogate, 9);
    assert_eq!(c.iter().map(|(_, n)| n).sum::<u64>(), 28);
}

#[test]
fn scalar_path_resumes_the_fast_path_after_long_clean_runs() {
    // Errors separated by clean runs longer and shorter than the resume
    // threshold, with multi-byte text on both sides of each error.
    let mut input = Vec::new();
    let mut want = Vec::new();
    for run in [0usize, 1, 7, 8, 9, 255, 256, 257, 1000] {
        for _ in 0..run {
            input.extend_from_slice("é".as_bytes());
            want.extend_from_slice("é".as_bytes());
        }
        input.extend_from_slice(b"\xC1\x81");
        want.extend_from_slice(b"A ");
    }
    check(&input, &want, n(OverlongAscii, 9));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn scalar_path_leaves_valid_text_alone(s in any::<String>()) {
        let mut buf = s.clone().into_bytes();
        prop_assert!(clean_in_place_scalar(&mut buf, Counting::Exact).is_clean());
        prop_assert_eq!(&buf, s.as_bytes());
    }

    #[test]
    fn fast_and_scalar_paths_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        atire in any::<bool>(),
    ) {
        let counting = if atire { Counting::Atire } else { Counting::Exact };
        let mut fast = bytes.clone();
        let mut scalar = bytes.clone();
        prop_assert_eq!(
            clean_in_place_with(&mut fast, counting),
            clean_in_place_scalar(&mut scalar, counting)
        );
        prop_assert_eq!(fast, scalar);
    }

    #[test]
    fn fast_and_scalar_paths_agree_on_mostly_valid_text(
        parts in proptest::collection::vec((".{0,300}", proptest::collection::vec(any::<u8>(), 0..4)), 0..8),
    ) {
        let mut bytes = Vec::new();
        for (text, junk) in &parts {
            bytes.extend_from_slice(text.as_bytes());
            bytes.extend_from_slice(junk);
        }
        let mut fast = bytes.clone();
        let mut scalar = bytes.clone();
        prop_assert_eq!(
            clean_in_place(&mut fast),
            clean_in_place_scalar(&mut scalar, Counting::Exact)
        );
        prop_assert_eq!(fast, scalar);
    }
}

use super::reference::reference_clean as reference;

/// Byte strings rich in the interesting cases: leads of every length,
/// continuation bytes, surrogate and over-long prefixes, FE/FF, ASCII.
fn adversarial() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        any::<u8>().prop_map(|b| vec![b]),
        (0x80u8..=0xBF).prop_map(|b| vec![b]),
        Just(vec![0xC0, 0x80]),
        Just(vec![0xC1, 0xBF]),
        Just(vec![0xE0, 0x80, 0x80]),
        Just(vec![0xE0, 0x9F, 0xBF]),
        Just(vec![0xED, 0xA0, 0x80]),
        Just(vec![0xED, 0xBF, 0xBF]),
        Just(vec![0xF0, 0x8D, 0xA0, 0x80]),
        Just(vec![0xF0, 0x82, 0x82, 0xAC]),
        Just(vec![0xF4, 0x90, 0x80, 0x80]),
        Just(vec![0xF8, 0x88, 0x80, 0x80, 0x80]),
        Just(vec![0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]),
        (
            0xC0u8..=0xFF,
            proptest::collection::vec(0x80u8..=0xBF, 0..6)
        )
            .prop_map(|(l, mut c)| {
                c.insert(0, l);
                c
            }),
        ".{0,8}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(atom, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn matches_the_reference_on_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        atire in any::<bool>(),
    ) {
        let counting = if atire { Counting::Atire } else { Counting::Exact };
        let (want, want_counts) = reference(&bytes, counting);
        let mut got = bytes.clone();
        prop_assert_eq!(clean_in_place_with(&mut got, counting), want_counts);
        prop_assert_eq!(got, want);
    }

    /// One pass gives both countings: the exact counts and the ATIRE extra
    /// equal the reference's two runs.
    #[test]
    fn atire_extra_in_one_pass_matches_the_reference(bytes in adversarial()) {
        let (want, exact) = reference(&bytes, Counting::Exact);
        let (_, atire) = reference(&bytes, Counting::Atire);
        let mut got = bytes.clone();
        let (counts, extra) = clean_in_place_atire_extra(&mut got);
        prop_assert_eq!(counts, exact);
        prop_assert_eq!(extra, atire.unexpected_continuation - exact.unexpected_continuation);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn matches_the_reference_on_adversarial_bytes(bytes in adversarial(), atire in any::<bool>()) {
        let counting = if atire { Counting::Atire } else { Counting::Exact };
        let (want, want_counts) = reference(&bytes, counting);
        let mut got = bytes.clone();
        prop_assert_eq!(clean_in_place_with(&mut got, counting), want_counts);
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(count(&bytes, counting), want_counts);
    }

    /// std's decoder is the oracle for validity: the output always decodes,
    /// has the input's length, and input std accepts is returned unchanged
    /// with zero counts; cleaning is idempotent.
    #[test]
    fn output_is_what_std_accepts(bytes in adversarial()) {
        let mut got = bytes.clone();
        let counts = clean_in_place(&mut got);
        prop_assert!(std::str::from_utf8(&got).is_ok());
        prop_assert_eq!(got.len(), bytes.len());
        if std::str::from_utf8(&bytes).is_ok() {
            prop_assert!(counts.is_clean());
            prop_assert_eq!(&got, &bytes);
        } else {
            prop_assert!(!counts.is_clean());
        }
        let mut again = got.clone();
        prop_assert!(clean_in_place(&mut again).is_clean());
        prop_assert_eq!(again, got);
    }

    /// Chunk-boundary sweep: any split of the input into chunks gives the
    /// same bytes and counts as one call over the whole input.
    #[test]
    fn stream_is_chunking_independent(
        bytes in adversarial(),
        sizes in proptest::collection::vec(0usize..9, 1..20),
    ) {
        let mut whole = bytes.clone();
        let want = clean_in_place(&mut whole);
        let mut out = Vec::new();
        let mut s = StreamCleaner::new(Counting::Exact);
        let mut rest: &[u8] = &bytes;
        let mut k = 0;
        while !rest.is_empty() {
            // A zero size feeds an empty chunk, then one byte.
            if sizes[k % sizes.len()] == 0 {
                s.feed(&[], &mut out);
            }
            let n = sizes[k % sizes.len()].clamp(1, rest.len());
            s.feed(&rest[..n], &mut out);
            rest = &rest[n..];
            k += 1;
        }
        prop_assert_eq!(s.finish(&mut out), want);
        prop_assert_eq!(out, whole);
    }
}

#[test]
fn stream_every_split_point_of_every_fixed_chunk_size() {
    let input: Vec<u8> = [
        &b"ab\xC3\xA9\xF0\x9F\x98\x80"[..],
        b"\xC0\x80\xF0\x82\x82\xAC\xED\xA0\x80\xFC\x84\x80\x80\x80\x80\xE2\x82",
        "ا€😀".as_bytes(),
        b"\xFE\xFF\x80",
    ]
    .concat();
    let mut whole = input.clone();
    let want = clean_in_place(&mut whole);
    for size in 1..=input.len() {
        for offset in 0..size {
            let mut out = Vec::new();
            let mut s = StreamCleaner::new(Counting::Exact);
            s.feed(&input[..offset], &mut out);
            for chunk in input[offset..].chunks(size) {
                s.feed(chunk, &mut out);
            }
            assert_eq!(s.finish(&mut out), want, "size {size} offset {offset}");
            assert_eq!(out, whole, "size {size} offset {offset}");
        }
    }
}

/// The previous exact path (one sequence at a time), kept as a second oracle.
use super::old_scalar;

/// Checks every entry point against the previous exact path on `bytes`:
/// output bytes, the seven counts, the ATIRE extra, and (with more input to
/// follow) how many bytes are decided.
fn agrees_with_old(bytes: &[u8]) -> Result<(), TestCaseError> {
    let mut want = bytes.to_vec();
    let (want_counts, want_extra, decided) = old_scalar::clean(&mut want, true);
    prop_assert_eq!(decided, bytes.len());

    let mut fast = bytes.to_vec();
    prop_assert_eq!(
        clean_in_place_atire_extra(&mut fast),
        (want_counts, want_extra)
    );
    prop_assert_eq!(&fast, &want);

    let mut scalar = bytes.to_vec();
    let atire = clean_in_place_scalar(&mut scalar, Counting::Atire);
    let mut exact = want_counts;
    exact.unexpected_continuation += want_extra;
    prop_assert_eq!(atire, exact);
    prop_assert_eq!(&scalar, &want);

    prop_assert_eq!(count(bytes, Counting::Exact), want_counts);

    // More input may follow: the same bytes are held back.
    let mut open = bytes.to_vec();
    let (open_counts, open_extra, open_decided) = old_scalar::clean(&mut open, false);
    for scalar_only in [false, true] {
        let mut got = bytes.to_vec();
        let mut counts = Utf8Counts::default();
        let mut extra = 0;
        let target = &mut engine::InPlace(&mut got);
        let decided = if scalar_only {
            engine::run_scalar(target, false, &mut counts, &mut extra)
        } else {
            engine::run(target, false, &mut counts, &mut extra)
        };
        prop_assert_eq!(decided, open_decided);
        prop_assert_eq!((counts, extra), (open_counts, open_extra));
        prop_assert_eq!(&got, &open);
    }
    Ok(())
}

/// Like [`adversarial`], but long enough to cross many blocks of the exact
/// path, and with runs of valid text between the errors.
fn adversarial_long() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        4 => adversarial(),
        1 => ".{0,200}".prop_map(String::into_bytes),
        1 => proptest::collection::vec(0x80u8..=0xBF, 0..12),
        1 => proptest::collection::vec(any::<u8>(), 0..300),
    ];
    proptest::collection::vec(atom, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn block_path_matches_the_old_scalar_path_on_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..3000),
    ) {
        agrees_with_old(&bytes)?;
    }

    #[test]
    fn block_path_matches_the_old_scalar_path_on_adversarial_bytes(bytes in adversarial_long()) {
        agrees_with_old(&bytes)?;
    }

    /// Random bytes drawn mostly from the bytes that matter to the block
    /// path: leads of every length, continuation bytes, FE/FF.
    #[test]
    fn block_path_matches_the_old_scalar_path_on_non_ascii_bytes(
        bytes in proptest::collection::vec(
            prop_oneof![3 => 0x80u8..=0xBF, 2 => 0xC0u8..=0xFF, 1 => Just(b'a')],
            0..1000,
        ),
    ) {
        agrees_with_old(&bytes)?;
    }
}

/// Every sequence of interest at every offset across two block boundaries,
/// between ASCII, between valid multi-byte text, and before the end of the
/// input (where the tail is cleaned in a padded copy).
#[test]
fn block_path_matches_the_old_scalar_path_at_every_offset() {
    let patterns: [&[u8]; 24] = [
        b"\xC0\x80",
        b"\xC1\x81",
        b"\xC3\xA9",
        b"\xE0\x80\x80",
        b"\xE0\x81\x81",
        b"\xE0\x82\xA9",
        b"\xE2\x82\xAC",
        b"\xE2\x82",
        b"\xED\xA0\x80",
        b"\xF0\x80\x80\x80",
        b"\xF0\x80\x82\xA9",
        b"\xF0\x82\x82\xAC",
        b"\xF0\x8D\xA0\x80",
        b"\xF0\x9F\x98\x80",
        b"\xF0\x9F\x98",
        b"\xF4\x90\x80\x80",
        b"\xF7\xBF\xBF\xBF\xBF",
        b"\xF8\x88\x80\x80\x80",
        b"\xFC\x84\x80\x80\x80\x80\x80",
        b"\xFD\xBF\xBF\xBF",
        b"\xFE\x80",
        b"\xFF",
        b"\x80\xBF",
        b"\xC3\xC3\xC3\xA9\xA9",
    ];
    let fills: [&[u8]; 3] = [b"a", "é".as_bytes(), b"\x80"];
    for fill in fills {
        for p in patterns {
            for offset in 0..150 {
                let mut input: Vec<u8> = fill.iter().copied().cycle().take(offset).collect();
                input.extend_from_slice(p);
                for len in [0, 1, 5, 70, 150] {
                    let mut bytes = input.clone();
                    bytes.extend(fill.iter().copied().cycle().take(len));
                    if let Err(e) = agrees_with_old(&bytes) {
                        panic!("{e} for {bytes:02X?}");
                    }
                }
            }
        }
    }
}
