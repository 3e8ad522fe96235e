use super::prescan::charset_from_content;
use super::*;
use encoding_rs::{BIG5, EUC_JP, EUC_KR, GBK, KOI8_R, REPLACEMENT, SHIFT_JIS, WINDOWS_1251};
use proptest::prelude::*;
use sieve_testdata::{repo_root, shared_file};

fn fixture(name: &str) -> Vec<u8> {
    let p = repo_root().join("tests/data/html/charsets").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn auto(body: &[u8], http: Option<&str>) -> Decoded {
    decode(
        body.to_vec(),
        http,
        None,
        CharsetMode::Auto,
        Counting::Exact,
    )
}

fn total(c: &Utf8Counts) -> u64 {
    c.unexpected_continuation
        + c.missing_continuation
        + c.surrogate
        + c.invalid_4_5_6
        + c.overlong_nul
        + c.overlong_ascii
        + c.overlong_non_ascii
}

#[test]
fn source_codes_are_pinned_and_round_trip() {
    let pinned = [
        (CharsetSource::HttpHeader, 1, "http_header"),
        (CharsetSource::Bom, 2, "bom"),
        (CharsetSource::Meta, 3, "meta"),
        (CharsetSource::Detector, 4, "detector"),
        (CharsetSource::ValidUtf8, 5, "valid_utf8"),
        (CharsetSource::Forced, 6, "forced"),
        (CharsetSource::Default, 7, "default"),
        (CharsetSource::XmlDecl, 8, "xml_decl"),
        (CharsetSource::Format, 9, "format"),
    ];
    assert_eq!(pinned.len(), CharsetSource::ALL.len());
    for (s, code, key) in pinned {
        assert_eq!(s.code(), code, "{s:?}");
        assert_eq!(s.key(), key);
        assert_eq!(CharsetSource::from_code(code), Some(s));
    }
    assert_eq!(CharsetSource::from_code(0), None);
    assert_eq!(CharsetSource::from_code(10), None);
}

/// Each committed chardet fixture: the encoding, the deciding source, and
/// no replacement characters.
#[test]
fn committed_fixtures_decode_with_their_declared_or_detected_encoding() {
    let cases: [(&str, &'static Encoding, CharsetSource); 10] = [
        ("GB2312--chen56.blogcn.com.xml", GBK, CharsetSource::XmlDecl),
        ("EUC-JP--tls.org.xml", EUC_JP, CharsetSource::XmlDecl),
        (
            "SHIFT_JIS--accessories-brand.com.xml",
            SHIFT_JIS,
            CharsetSource::XmlDecl,
        ),
        ("KOI8-R--susu.ac.ru.xml", KOI8_R, CharsetSource::XmlDecl),
        (
            "windows-1251-russian--forum.template-toolkit.ru.4.xml",
            WINDOWS_1251,
            CharsetSource::XmlDecl,
        ),
        (
            "iso-8859-1--_ude_2.txt",
            WINDOWS_1252,
            CharsetSource::Detector,
        ),
        (
            "Big5--kafkatseng.blogspot.com.xml",
            BIG5,
            CharsetSource::XmlDecl,
        ),
        ("UTF-16--bom-utf-16-le.srt", UTF_16LE, CharsetSource::Bom),
        (
            "utf-8--boobooo.blogspot.com.xml",
            UTF_8,
            CharsetSource::XmlDecl,
        ),
        ("EUC-KR--siwoo.org.xml", EUC_KR, CharsetSource::XmlDecl),
    ];
    for (name, enc, source) in cases {
        let d = auto(&fixture(name), None);
        assert_eq!((d.encoding, d.source), (enc, source), "{name}");
        assert!(!d.had_replacements, "{name}");
        assert!(!d.text.contains('\u{FFFD}'), "{name}");
        assert!(!d.disagree && !d.unknown_label, "{name}");
    }
    // Spot checks of the decoded text.
    let d = auto(&fixture("KOI8-R--susu.ac.ru.xml"), None);
    assert!(
        d.text.contains("Южно-Уральский") || d.text.contains("ЮУрГУ"),
        "{}",
        &d.text[..400]
    );
    let d = auto(&fixture("iso-8859-1--_ude_2.txt"), None);
    assert!(
        d.text.contains("dépend à la fois de la durée"),
        "{}",
        &d.text[..200]
    );
    let d = auto(&fixture("UTF-16--bom-utf-16-le.srt"), None);
    assert!(d.text.starts_with("1\n00:00:06,500"), "{:?}", &d.text[..20]);
}

/// The detector alone (declarations ignored) on the committed fixtures.
#[test]
fn detector_alone_recognises_committed_legacy_fixtures() {
    let cases: [(&str, &'static Encoding, Option<&str>); 8] = [
        (
            "GB2312--chen56.blogcn.com.xml",
            GBK,
            Some("http://www.blogcn.com/"),
        ),
        ("EUC-JP--tls.org.xml", EUC_JP, None),
        ("SHIFT_JIS--accessories-brand.com.xml", SHIFT_JIS, None),
        // chardetng never answers KOI8-R: it answers KOI8-U, a superset that
        // differs only in eight box-drawing positions.
        (
            "KOI8-R--susu.ac.ru.xml",
            encoding_rs::KOI8_U,
            Some("http://susu.ac.ru/"),
        ),
        (
            "windows-1251-russian--forum.template-toolkit.ru.4.xml",
            WINDOWS_1251,
            Some("http://forum.template-toolkit.ru/"),
        ),
        ("iso-8859-1--_ude_2.txt", WINDOWS_1252, None),
        ("Big5--kafkatseng.blogspot.com.xml", BIG5, None),
        ("EUC-KR--siwoo.org.xml", EUC_KR, None),
    ];
    for (name, enc, url) in cases {
        assert_eq!(detect(&fixture(name), url), enc, "{name}");
    }
}

#[test]
fn http_iso_8859_1_beats_meta_utf8_and_disagrees() {
    let body = b"<html><head><meta charset=\"utf-8\"></head><body>caf\xe9</body></html>";
    let d = auto(body, Some("ISO-8859-1"));
    assert_eq!(d.source, CharsetSource::HttpHeader);
    assert_eq!(d.encoding, WINDOWS_1252);
    assert!(d.disagree);
    assert!(d.text.contains("café"));
    assert_eq!(d.utf8_counts, Utf8Counts::default());
}

#[test]
fn agreeing_declarations_do_not_disagree() {
    let body = b"<meta charset=latin1><p>caf\xe9";
    let d = auto(body, Some("\"iso-8859-1\""));
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::HttpHeader, WINDOWS_1252, false)
    );
}

#[test]
fn bom_beats_http_header() {
    let d = auto(b"\xEF\xBB\xBFcaf\xC3\xA9", Some("windows-1252"));
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::Bom, UTF_8, true)
    );
    assert_eq!(d.text, "café");
    let d = auto(b"\xFF\xFEh\0i\0", Some("utf-8"));
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::Bom, UTF_16LE, true)
    );
    assert_eq!(d.text, "hi");
    let d = auto(b"\xFE\xFF\0h\0i", None);
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::Bom, UTF_16BE, false)
    );
    assert_eq!(d.text, "hi");
}

#[test]
fn meta_after_the_first_1024_bytes_is_ignored() {
    let cyrillic = b"\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0, \xfd\xf2\xee \xf0\xf3\xf1\xf1\xea\xe8\xe9 \xf2\xe5\xea\xf1\xf2";
    let meta = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">";
    // Entirely within the first 1024 bytes: honoured.
    let mut ok = b"<html><head>".to_vec();
    ok.extend(std::iter::repeat_n(b' ', 1024 - ok.len() - meta.len()));
    ok.extend_from_slice(meta);
    assert_eq!(ok.len(), 1024);
    ok.extend_from_slice(cyrillic);
    let d = auto(&ok, None);
    assert_eq!((d.source, d.encoding), (CharsetSource::Meta, KOI8_R));
    // One byte later, the tag straddles the boundary: ignored, detector.
    let mut late = b"<html><head> ".to_vec();
    late.extend(std::iter::repeat_n(
        b' ',
        1024 - late.len() - meta.len() + 1,
    ));
    late.extend_from_slice(meta);
    late.extend_from_slice(cyrillic);
    let d = auto(&late, Some("nonsense-label"));
    assert_eq!(d.source, CharsetSource::Detector);
    assert!(d.unknown_label);
    assert_eq!(d.encoding, WINDOWS_1251, "the bytes are windows-1251");
    assert!(
        total(&d.utf8_counts) > 0,
        "raw-byte counts kept on the detector path"
    );
    assert!(d.text.contains("Привет мир"));
}

/// Sweeps the position of a meta tag across the 1024-byte boundary: it
/// counts exactly when it ends within the first 1024 bytes.
#[test]
fn meta_boundary_sweep() {
    let meta = b"<meta charset=koi8-r>";
    for start in 980..1030 {
        let mut body = vec![b' '; start];
        body.extend_from_slice(meta);
        body.extend_from_slice(b"\xf0\xd2\xc9");
        let d = auto(&body, None);
        let inside = start + meta.len() <= PRESCAN_BYTES;
        assert_eq!(
            d.source == CharsetSource::Meta,
            inside,
            "meta at {start}: {:?}",
            d.source
        );
        if inside {
            assert!(d.text.ends_with("При"));
        }
    }
}

#[test]
fn meta_prescan_variants() {
    let cases: [(&[u8], Option<&str>); 14] = [
        (b"<meta charset=utf-8>", Some("utf-8")),
        (b"<META CHARSET='KOI8-R'>", Some("koi8-r")),
        (
            b"<meta content=\"text/html; charset=gbk\" http-equiv=\"Content-Type\">",
            Some("gbk"),
        ),
        (
            b"<meta http-equiv=content-type content='text/html;charset = \"big5\"'>",
            Some("big5"),
        ),
        // content without http-equiv: no pragma, ignored.
        (b"<meta content=\"text/html; charset=gbk\">", None),
        // charset attribute wins even with a content attribute.
        (
            b"<meta content=\"charset=gbk\" charset=euc-jp>",
            Some("euc-jp"),
        ),
        // Inside a comment: ignored; after it: honoured.
        (
            b"<!-- <meta charset=gbk> --><meta charset=big5>",
            Some("big5"),
        ),
        // `<!-->` closes the comment at once.
        (b"<!--><meta charset=big5>", Some("big5")),
        // '>' inside a quoted attribute of another tag.
        (
            b"<a title='<meta charset=gbk>'><meta charset=euc-kr>",
            Some("euc-kr"),
        ),
        // Unterminated comment: stop.
        (b"<!-- <meta charset=gbk>", None),
        (b"<metal charset=gbk>", None),
        (b"<meta/charset=sjis>", Some("sjis")),
        // Duplicate attribute: the first wins.
        (b"<meta charset=gbk charset=big5>", Some("gbk")),
        (b"<?php x ?><meta charset=big5>", Some("big5")),
    ];
    for (html, want) in cases {
        let mut unknown = false;
        let want = want.map(|l| Encoding::for_label(l.as_bytes()).unwrap());
        assert_eq!(
            prescan_meta(html, &mut unknown),
            want,
            "{}",
            String::from_utf8_lossy(html)
        );
        assert!(!unknown);
    }
}

#[test]
fn meta_utf16_means_utf8_and_x_user_defined_means_windows_1252() {
    let d = auto(b"<meta charset=utf-16><p>caf\xc3\xa9", None);
    assert_eq!((d.source, d.encoding), (CharsetSource::Meta, UTF_8));
    assert_eq!(d.text, "<meta charset=utf-16><p>café");
    let d = auto(b"<meta charset=x-user-defined><p>caf\xe9", None);
    assert_eq!((d.source, d.encoding), (CharsetSource::Meta, WINDOWS_1252));
}

#[test]
fn xml_declaration_variants() {
    assert_eq!(
        xml_declaration(b"<?xml version='1.0' encoding='KOI8-R'?><a/>").as_deref(),
        Some(&b"KOI8-R"[..])
    );
    assert_eq!(
        xml_declaration(b"<?xml version=\"1.0\" encoding = \"gbk\" ?>").as_deref(),
        Some(&b"gbk"[..])
    );
    assert_eq!(
        xml_declaration(b"<?xml version=\"1.0\"?><encoding>").as_deref(),
        None
    );
    assert_eq!(
        xml_declaration(b" <?xml version=\"1.0\" encoding=\"gbk\"?>").as_deref(),
        None
    );
    assert_eq!(
        xml_declaration(b"<?xml version=\"1.0\" encoding=\"gbk\"").as_deref(),
        None
    );
    assert_eq!(
        xml_declaration(b"<?xml-stylesheet encoding=\"gbk\"?>").as_deref(),
        None
    );
    // A meta declaration beats the XML declaration; both count for disagree.
    let d = auto(
        b"<?xml version=\"1.0\" encoding=\"koi8-r\"?><meta charset=windows-1251>",
        None,
    );
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::Meta, WINDOWS_1251, true)
    );
}

#[test]
fn unknown_labels_fall_through_and_are_flagged() {
    let d = auto(b"plain ascii", Some("x-no-such-charset"));
    assert_eq!(
        (d.source, d.encoding, d.unknown_label),
        (CharsetSource::Default, UTF_8, true)
    );
    // WHATWG: an unresolvable meta label is skipped and the prescan goes on.
    let d = auto(b"<meta charset=bogus><meta charset=koi8-r>\xf0", None);
    assert_eq!(
        (d.source, d.encoding, d.unknown_label),
        (CharsetSource::Meta, KOI8_R, true)
    );
    let d = auto(b"<meta charset=koi8-r>\xf0\xd2\xc9", Some("bogus"));
    assert_eq!(
        (d.source, d.encoding, d.unknown_label),
        (CharsetSource::Meta, KOI8_R, true)
    );
    assert_eq!(d.text, "<meta charset=koi8-r>При");
}

#[test]
fn valid_utf8_default_and_replacement() {
    let d = auto("naïve".as_bytes(), None);
    assert_eq!(
        (d.source, d.encoding, d.text.as_str()),
        (CharsetSource::ValidUtf8, UTF_8, "naïve")
    );
    let d = auto(b"", None);
    assert_eq!((d.source, d.text.as_str()), (CharsetSource::Default, ""));
    let d = auto(b"just ascii <b>", None);
    assert_eq!(
        (d.source, d.text.as_str()),
        (CharsetSource::Default, "just ascii <b>")
    );
    // `iso-2022-kr` is the WHATWG replacement encoding: one U+FFFD.
    let d = auto(b"abc", Some("iso-2022-kr"));
    assert_eq!(
        (d.source, d.encoding),
        (CharsetSource::HttpHeader, REPLACEMENT)
    );
    assert_eq!(d.text, "\u{FFFD}");
    assert!(d.had_replacements);
}

#[test]
fn undeclared_ascii_with_escapes_goes_to_the_detector() {
    let body = b"\x1b$B$3$s$K$A$O\x1b(B world";
    let d = auto(body, None);
    assert_eq!(
        (d.source, d.encoding.name()),
        (CharsetSource::Detector, "ISO-2022-JP")
    );
    assert_eq!(d.text, "こんにちは world");
    assert_eq!(d.utf8_counts, Utf8Counts::default());
}

#[test]
fn declared_utf8_is_cleaned_and_counted() {
    let d = auto(b"ok \xff\xfe ok", Some("utf-8"));
    assert_eq!((d.source, d.encoding), (CharsetSource::HttpHeader, UTF_8));
    assert!(total(&d.utf8_counts) > 0);
    assert!(!d.had_replacements);
    assert!(d.text.starts_with("ok ") && d.text.ends_with(" ok"));
}

#[test]
fn declared_legacy_malformed_sets_had_replacements_and_zero_counts() {
    // 0x81 0x20 is not a valid Shift_JIS pair.
    let d = auto(b"\x81 \x82\xa0", Some("shift_jis"));
    assert_eq!(d.encoding, SHIFT_JIS);
    assert!(d.had_replacements);
    assert_eq!(d.utf8_counts, Utf8Counts::default());
}

#[test]
fn force_utf8_ignores_declarations_and_counts() {
    let body = b"<meta charset=windows-1252><p>caf\xe9";
    let d = decode(
        body.to_vec(),
        Some("windows-1252"),
        None,
        CharsetMode::ForceUtf8,
        Counting::Atire,
    );
    assert_eq!(
        (d.source, d.encoding, d.disagree),
        (CharsetSource::Forced, UTF_8, false)
    );
    assert!(total(&d.utf8_counts) > 0);
    assert!(d.text.starts_with("<meta charset=windows-1252><p>caf"));
}

#[test]
fn tld_extraction() {
    assert_eq!(
        tld_of("http://www.Example.CO.JP/x?y").as_deref(),
        Some(&b"jp"[..])
    );
    assert_eq!(
        tld_of("https://user@host.ru:8080/").as_deref(),
        Some(&b"ru"[..])
    );
    assert_eq!(tld_of("http://example.com./").as_deref(), Some(&b"com"[..]));
    assert_eq!(tld_of("http://10.0.0.1/"), None);
    assert_eq!(tld_of("http://[::1]/"), None);
    assert_eq!(tld_of("http://пример.рф/"), None);
    assert_eq!(tld_of("www.xn--p1ai").as_deref(), Some(&b"xn--p1ai"[..]));
    assert_eq!(tld_of(""), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Never panics, whatever the bytes, label, URL and mode.
    #[test]
    fn decode_never_panics(
        body in proptest::collection::vec(any::<u8>(), 0..600),
        label in proptest::option::of("[a-zA-Z0-9_ \"-]{0,16}"),
        url in proptest::option::of(".{0,40}"),
        force in any::<bool>(),
    ) {
        let mode = if force { CharsetMode::ForceUtf8 } else { CharsetMode::Auto };
        let d = decode(body.clone(), label.as_deref(), url.as_deref(), mode, Counting::Exact);
        if force {
            prop_assert_eq!(d.source, CharsetSource::Forced);
        }
        if d.source == CharsetSource::ValidUtf8 || d.source == CharsetSource::Default {
            prop_assert_eq!(d.text.as_bytes(), &body[..]);
        }
    }

    /// Meta tags embedded in random markup never panic the prescan and
    /// decode never loses a valid UTF-8 body without markup.
    #[test]
    fn prescan_never_panics(s in "(<|>|!|-|meta|charset|=|'|\"|/| |[a-z]|http-equiv|content|\\?){0,200}") {
        let _ = prescan_meta(s.as_bytes(), &mut false);
        let _ = xml_declaration(s.as_bytes());
        let _ = charset_from_content(s.as_bytes());
    }
}

/// The expected encoding_rs encoding for a chardet test directory, or
/// `None` when encoding_rs does not support it (EUC-TW, IBM855, Johab,
/// UTF-32, ISO-2022-KR).
fn expected_for_dir(dir: &str) -> Option<&'static Encoding> {
    let manual = match dir {
        "CP932" => Some(SHIFT_JIS),
        "CP949" => Some(EUC_KR),
        "MacRoman" => Encoding::for_label(b"macintosh"),
        "MacCyrillic" => Encoding::for_label(b"x-mac-cyrillic"),
        "UTF-16" => Some(UTF_16LE),
        "utf-8-sig" => Some(UTF_8),
        "EUC-TW" | "IBM855" | "Johab" | "iso-2022-kr" => return None,
        d if d.starts_with("UTF-32") => return None,
        _ => None,
    };
    if manual.is_some() {
        return manual;
    }
    let mut name = dir;
    loop {
        if let Some(e) = Encoding::for_label(name.as_bytes()) {
            return Some(e);
        }
        name = name.rsplit_once('-')?.0;
    }
}

/// Same writing system, different code page (iso-8859-2 vs windows-1250,
/// GBK vs GB18030, ...): counted separately from exact hits.
fn same_family(a: &'static Encoding, b: &'static Encoding) -> bool {
    let fam = |e: &'static Encoding| match e.name() {
        "ISO-8859-2" | "windows-1250" => "central-european",
        "ISO-8859-5" | "windows-1251" | "KOI8-R" | "KOI8-U" | "IBM866" | "x-mac-cyrillic" => {
            "cyrillic"
        }
        "ISO-8859-9" | "windows-1254" => "turkish",
        "ISO-8859-6" | "windows-1256" => "arabic",
        "ISO-8859-7" | "windows-1253" => "greek",
        "ISO-8859-8" | "ISO-8859-8-I" | "windows-1255" => "hebrew",
        "GBK" | "gb18030" => "chinese-simplified",
        "UTF-16LE" | "UTF-16BE" => "utf-16",
        "windows-1252" | "macintosh" => "western",
        n => n,
    };
    fam(a) == fam(b)
}

/// The 51 labelled encodings of the chardet test corpus (shared data):
/// per directory, which source decided and whether the encoding is right,
/// both for the full pipeline and for the detector alone. Prints a table
/// (run with `--nocapture`).
#[test]
fn chardet_corpus_accuracy_report() {
    let Some(dir) = shared_file("html/chardet-tests/tests", "chardet corpus accuracy") else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!(
            "SKIPPED: chardet corpus accuracy: {} unreadable",
            dir.display()
        );
        return;
    };
    let mut dirs: Vec<_> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .collect();
    dirs.sort_by_key(|e| e.file_name());
    let (mut files, mut supported, mut exact, mut family, mut det_exact, mut det_family) =
        (0, 0, 0, 0, 0, 0);
    let mut by_source: std::collections::BTreeMap<&str, usize> = Default::default();
    for d in &dirs {
        let name = d.file_name().to_string_lossy().into_owned();
        let expected = expected_for_dir(&name);
        let mut paths: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .collect();
        paths.sort();
        for p in paths {
            let bytes = std::fs::read(&p).unwrap();
            files += 1;
            let got = auto(&bytes, None);
            let det = detect(&bytes, None);
            *by_source.entry(got.source.key()).or_default() += 1;
            let ascii_ok = |e: &'static Encoding| {
                name == "ascii" && bytes.is_ascii() && e.is_ascii_compatible()
            };
            let (ok, fam, dok, dfam) = match expected {
                Some(exp) => {
                    supported += 1;
                    let ok = got.encoding == exp
                        || ascii_ok(got.encoding)
                        || (name == "UTF-16" && got.encoding == UTF_16BE);
                    let dok = det == exp || ascii_ok(det);
                    (
                        ok,
                        ok || same_family(got.encoding, exp),
                        dok,
                        dok || same_family(det, exp),
                    )
                }
                None => (false, false, false, false),
            };
            exact += usize::from(ok);
            family += usize::from(fam);
            det_exact += usize::from(dok);
            det_family += usize::from(dfam);
            eprintln!(
                "{:<28} {:<44} -> {:<12} via {:<11} {}   detector alone: {:<12} {}",
                name,
                p.file_name().unwrap().to_string_lossy(),
                got.encoding.name(),
                got.source.key(),
                if expected.is_none() {
                    "unsupported"
                } else if ok {
                    "ok"
                } else if fam {
                    "family"
                } else {
                    "WRONG"
                },
                det.name(),
                if expected.is_none() {
                    ""
                } else if dok {
                    "ok"
                } else if dfam {
                    "family"
                } else {
                    "WRONG"
                },
            );
        }
    }
    eprintln!(
        "chardet corpus: {files} files in {} dirs, {supported} in encodings encoding_rs supports; \
         pipeline exact {exact}/{supported}, same-family {family}/{supported}; \
         detector alone exact {det_exact}/{supported}, same-family {det_family}/{supported}; sources {by_source:?}",
        dirs.len()
    );
    assert!(dirs.len() >= 51, "expected 51 encoding directories");
    // Floors just below the measured figures, so that a regression fails.
    assert!(
        exact * 100 >= supported * 85,
        "pipeline exact {exact}/{supported}"
    );
    assert!(
        det_family * 100 >= supported * 75,
        "detector same-family {det_family}/{supported}"
    );
}

/// Splits an uncompressed WARC/0.18 file into records at `WARC/0.18` lines
/// (robust to the ClueWeb09 samples' Content-Length quirks).
fn warc018_records(data: &[u8]) -> Vec<&[u8]> {
    let marker = b"\nWARC/0.18";
    let mut starts = vec![0];
    let mut pos = 0;
    while let Some(i) = memchr::memmem::find(&data[pos..], marker) {
        starts.push(pos + i + 1);
        pos += i + 1;
    }
    starts.push(data.len());
    starts.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

fn header_value<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// ClueWeb09 Chinese sample: GBK/GB2312 bodies. Every body that is not
/// valid UTF-8 is also run through the detector alone (declarations
/// ignored, URL TLD as hint); it must say GBK for nearly all.
#[test]
fn clueweb09_chinese_sample_gbk_bodies() {
    let Some(path) = shared_file(
        "warc/freequery__ClueWeb09_Chinese_Sample.warc",
        "ClueWeb09 Chinese sample",
    ) else {
        return;
    };
    let Ok(data) = std::fs::read(&path) else {
        eprintln!(
            "SKIPPED: ClueWeb09 Chinese sample: {} unreadable",
            path.display()
        );
        return;
    };
    let (mut responses, mut invalid, mut det_gbk, mut declared, mut agree) = (0, 0, 0, 0, 0);
    let mut by: std::collections::BTreeMap<(String, &str), usize> = Default::default();
    for rec in warc018_records(&data) {
        let Some(h) =
            memchr::memmem::find(rec, b"\n\n").or_else(|| memchr::memmem::find(rec, b"\r\n\r\n"))
        else {
            continue;
        };
        let warc_head = String::from_utf8_lossy(&rec[..h]);
        if header_value(&warc_head, "WARC-Type") != Some("response") {
            continue;
        }
        let url = header_value(&warc_head, "WARC-Target-URI").map(str::to_owned);
        let http = &rec[h..];
        let http = &http[http
            .iter()
            .position(|&c| c != b'\n' && c != b'\r')
            .unwrap_or(0)..];
        let (hh, body) = match memchr::memmem::find(http, b"\r\n\r\n") {
            Some(i) if memchr::memmem::find(http, b"\n\n").is_none_or(|j| i < j) => {
                (&http[..i], &http[i + 4..])
            }
            _ => match memchr::memmem::find(http, b"\n\n") {
                Some(j) => (&http[..j], &http[j + 2..]),
                None => continue,
            },
        };
        let hh = String::from_utf8_lossy(hh);
        let charset = header_value(&hh, "Content-Type").and_then(|ct| {
            ct.to_ascii_lowercase()
                .split_once("charset=")
                .map(|(_, c)| c.trim().to_owned())
        });
        responses += 1;
        let d = decode(
            body.to_vec(),
            charset.as_deref(),
            url.as_deref(),
            CharsetMode::Auto,
            Counting::Exact,
        );
        *by.entry((d.encoding.name().to_owned(), d.source.key()))
            .or_default() += 1;
        if std::str::from_utf8(body).is_err() {
            invalid += 1;
            let det = detect(body, url.as_deref());
            if det == GBK || det.name() == "gb18030" {
                det_gbk += 1;
            }
            if matches!(d.source, CharsetSource::HttpHeader | CharsetSource::Meta)
                && d.encoding != UTF_8
            {
                declared += 1;
                agree += usize::from(det == d.encoding);
            }
        }
    }
    eprintln!(
        "ClueWeb09 zh sample: {responses} responses, {invalid} not valid UTF-8, detector alone says GBK for \
         {det_gbk}/{invalid} and agrees with the declared legacy charset for {agree}/{declared}; \
         decisions (encoding, source): {by:?}"
    );
    assert_eq!(responses, 100);
    assert!(invalid >= 80);
    assert!(
        det_gbk * 100 >= invalid * 90,
        "detector GBK {det_gbk}/{invalid}"
    );
    assert!(
        agree * 100 >= declared * 95,
        "detector agrees {agree}/{declared}"
    );
}
