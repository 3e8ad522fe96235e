//! JSON lines and TSV readers: the committed hand-made fixtures
//! (`tests/data/jsonl`, `tests/data/tsv`, `tests/data/clueweb22/txt`), the
//! losses, caps, field mapping, and a property test against serde_json's
//! encoder (what it writes, the reader decodes back).

use super::*;

fn opts() -> CrawlOptions {
    CrawlOptions::default()
}

fn read_file(rel: &str, opts: &CrawlOptions) -> (Vec<CrawlEvent>, CrawlFormat) {
    let r = open(&fixture(rel), opts).expect("open");
    let format = r.format();
    let (evs, err) = collect(r);
    assert!(err.is_none(), "{rel}: {err:?}");
    (evs, format)
}

fn text_of(d: &RawDoc) -> (String, String) {
    let s = String::from_utf8_lossy(&d.body).into_owned();
    let (t, b) = s.split_once('\n').expect("title line");
    (t.to_string(), b.to_string())
}

fn skip_details(evs: &[CrawlEvent]) -> Vec<(String, Option<String>, u64)> {
    evs.iter()
        .filter_map(|e| match e {
            CrawlEvent::Skip(s) => Some((s.reason.key(), s.record_id.clone(), s.offset)),
            _ => None,
        })
        .collect()
}

#[test]
fn anserini_json_collection_fixture() {
    let (evs, format) = read_file("jsonl/anserini.jsonl", &opts());
    assert_eq!(format, CrawlFormat::JsonLines);
    let d = docs(&evs);
    let ids: Vec<&str> = d.iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(ids, ["doc1", "doc2", "4", "doc6"]);
    assert_eq!(
        text_of(d[0]),
        (
            String::new(),
            "The quick brown fox jumps over the lazy dog.".into()
        )
    );
    // Escapes decoded; the surrogate pair is one character; the lone
    // surrogate is its three-byte form, which the cleaner will count.
    let body = &d[1].body;
    let want: &[u8] = "\nEscapes: \"quoted\", tab\there, café, 😀 and a lone ".as_bytes();
    assert!(
        body.starts_with(want),
        "{:?}",
        String::from_utf8_lossy(body)
    );
    assert!(body.windows(3).any(|w| w == [0xED, 0xA0, 0x80]), "{body:?}");
    assert!(d[2].body.contains(&0xff), "raw byte kept for the cleaner");
    assert!(d.iter().all(|d| d.utf8 && d.markup == Markup::Text));
    let skips = skip_details(&evs);
    let keys: Vec<&str> = skips.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(keys, ["malformed_line", "empty_body", "no_docid"]);
    assert_eq!(skips[0].1.as_deref(), Some("doc3"));
    let malformed = evs.iter().find_map(|e| match e {
        CrawlEvent::Skip(Skip {
            reason: SkipReason::MalformedLine(why),
            ..
        }) => Some(why.clone()),
        _ => None,
    });
    assert_eq!(
        malformed.as_deref(),
        Some("byte 48 of the line: the line ends inside a string")
    );
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::StrayBytes, 1)]);
    // Spans cover each line with its line end: the file is the spans, the
    // skipped lines and the blank line.
    let file = std::fs::read(fixture("jsonl/anserini.jsonl")).unwrap();
    for d in &d {
        let line = &file[d.span.offset as usize..(d.span.offset + d.span.len) as usize];
        assert!(line.starts_with(b"{") && line.ends_with(b"\n"), "{line:?}");
        assert_eq!(memchr::memchr(b'\n', line), Some(line.len() - 1));
        assert_eq!(d.span.member, None);
    }
}

#[test]
fn beir_corpus_one_gzip_stream() {
    let (evs, format) = read_file("jsonl/beir-corpus.jsonl.gz", &opts());
    assert_eq!(format, CrawlFormat::JsonLines);
    let d = docs(&evs);
    assert_eq!(d.len(), 3);
    assert_eq!(
        text_of(d[0]),
        (
            "Malformed UTF-8".into(),
            "Counting invalid byte sequences in crawled pages.".into()
        )
    );
    assert_eq!(text_of(d[1]).0, "");
    assert!(
        evs.iter().all(|e| matches!(e, CrawlEvent::Doc(_))),
        "{evs:?}"
    );
    for d in &d {
        assert_eq!(d.span.member, Some(MemberPos::default()), "one stream");
    }
}

#[test]
fn clueweb22_txt_part() {
    let (evs, _) = read_file("clueweb22/txt/en0000-00.json.gz", &opts());
    let d = docs(&evs);
    let ids: Vec<&str> = d.iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(
        ids,
        [
            "clueweb22-en0000-00-00000",
            "clueweb22-en0000-00-00001",
            "clueweb22-en0000-00-00002"
        ]
    );
    // The URL's trailing newline (as in the real files) is trimmed.
    assert_eq!(
        d[0].url.as_deref(),
        Some("https://sieve.example/fixtures/first")
    );
    assert_eq!(d[2].language.as_deref(), Some("fr"));
    assert_eq!(
        text_of(d[2]),
        (String::new(), "Français\nUne page française.".into())
    );
    // One gzip member per line: each member is where the .offset file says.
    let offsets = std::fs::read_to_string(fixture("clueweb22/txt/en0000-00.offset")).unwrap();
    let offsets: Vec<u64> = offsets.lines().map(|l| l.parse().unwrap()).collect();
    for (d, want) in d.iter().zip(&offsets) {
        let m = d.span.member.expect("member");
        assert_eq!(m.compressed, *want, "{}", d.docid);
        assert_eq!(m.decompressed, d.offset);
    }
}

#[test]
fn clueweb22_offset_files_are_recognised_not_read() {
    for rel in [
        "clueweb22/txt/en0000-00.offset",
        "clueweb22/html/en0000-00.warc.offset",
    ] {
        let (evs, format) = read_file(rel, &opts());
        assert_eq!(format, CrawlFormat::OffsetIndex);
        assert_eq!(skips(&evs), ["offset_index"]);
        assert!(!SkipReason::OffsetIndex.is_response());
    }
}

#[test]
fn malformed_lines_are_skipped_and_reading_goes_on() {
    let bad: &[&[u8]] = &[
        b"{\"id\":\"a\",}",
        b"[1, 2]",
        b"{\"id\":\"a\", \"contents\":\"x\"} trailing",
        b"{\"id\":\"a\" \"contents\":\"x\"}",
        b"{\"id\":\"a\", \"contents\":\"bad \\x escape\"}",
        b"{\"id\":\"a\", \"contents\":\"\\u12\"}",
        b"{\"id\":\"a\", \"other\": [1, 2}",
        b"{\"id\":\"a\", \"other\": nope}",
        b"{\"id\":\"a\", \"contents\": \"ok\"",
    ];
    let first = b"{\"id\":\"first\",\"contents\":\"x\"}\n";
    for b in bad {
        let mut input = first.to_vec();
        input.extend_from_slice(b);
        input.extend_from_slice(b"\n{\"id\":\"good\",\"contents\":\"still read\"}\n");
        let evs = events(&input);
        assert_eq!(skips(&evs), ["malformed_line"], "{}", b.escape_ascii());
        let d = docs(&evs);
        assert_eq!(d.len(), 2, "{}", b.escape_ascii());
        assert_eq!(d[1].docid, "good");
        assert_eq!(d[1].offset, (first.len() + b.len() + 1) as u64);
    }
    // Cut at the end of the input: malformed, not an error.
    let evs = events(b"{\"id\":\"a\", \"contents\": \"cut");
    assert_eq!(skips(&evs), ["malformed_line"]);
}

#[test]
fn mapped_values_of_other_types() {
    let evs = events(
        b"{\"id\": 12.5e3, \"title\": null, \"contents\": true, \"text\": [\"no\"], \"url\": \"u\"}\n",
    );
    let d = docs(&evs);
    assert_eq!(d[0].docid, "12.5e3");
    assert_eq!(text_of(d[0]), (String::new(), "true".into()));
    assert_eq!(d[0].url.as_deref(), Some("u"));
    // The array under a text key is dropped and counted.
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::UnknownField, 6)]);
}

#[test]
fn field_mapping_and_several_text_fields() {
    let mut o = opts();
    o.json_fields = JsonFields {
        id: vec!["pid".into()],
        title: vec!["heading".into()],
        text: vec!["a".into(), "b".into()],
        url: vec![],
        language: vec!["lang".into()],
    };
    let input = b"{\"id\":\"ignored\",\"pid\":\"p1\",\"b\":\"second\",\"heading\":\"H\",\"a\":\"first\",\"lang\":\"de\"}\n";
    let (evs, _) = read_all(input.to_vec(), &o);
    let d = docs(&evs);
    assert_eq!(d[0].docid, "p1");
    assert_eq!(d[0].language.as_deref(), Some("de"));
    // Text fields in line order, joined by a blank line.
    assert_eq!(text_of(d[0]), ("H".into(), "second\n\nfirst".into()));
}

#[test]
fn huge_line_is_capped_and_streamed() {
    let mut o = opts();
    o.max_record_bytes = 1000;
    let big = "x".repeat(3 << 20);
    let mut input =
        format!("{{\"id\":\"big\",\"contents\":\"{big}\",\"url\":\"after\"}}\n").into_bytes();
    input.extend_from_slice(b"{\"id\":\"next\",\"contents\":\"small\"}\n");
    let (evs, err) = read_all(input, &o);
    assert!(err.is_none());
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert!(d[0].capped && d[0].truncated);
    assert_eq!(
        d[0].body.len(),
        1000,
        "title, line end and text within the cap"
    );
    assert_eq!(d[0].original_len, 3 << 20);
    assert_eq!(d[0].url.as_deref(), Some("after"), "read past the cap");
    assert!(!d[1].capped);
}

#[test]
fn json_lines_read_the_same_in_any_read_sizes() {
    let data = std::fs::read(fixture("jsonl/anserini.jsonl")).unwrap();
    let one = dribble_events(&data, vec![usize::MAX]);
    for n in [1, 2, 3, 5, 7, 64] {
        assert_eq!(dribble_events(&data, vec![n]), one, "read size {n}");
    }
}

/// `s` as a JSON string with every non-ASCII character escaped as
/// `\uXXXX` (surrogate pairs above the BMP), as Python's `json.dumps` does.
fn ascii_json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// What serde_json writes (and an ASCII-only escaping of the same
    /// strings), the reader decodes back to the same id, title and text.
    #[test]
    fn decodes_what_serde_json_encodes(
        lines in proptest::collection::vec(
            ("[a-zA-Z0-9_:-]{1,12}", "\\PC{0,40}", any::<String>()),
            1..6,
        ),
        ascii in any::<bool>(),
    ) {
        let mut input = Vec::new();
        for (id, title, text) in &lines {
            let line = if ascii {
                format!(
                    "{{\"_id\": {}, \"title\": {}, \"text\": {}, \"n\": [1, {{\"x\": \"}}\"}}]}}",
                    ascii_json(id), ascii_json(title), ascii_json(text)
                )
            } else {
                serde_json::json!({"_id": id, "title": title, "text": text, "n": [1, {"x": "}"}]})
                    .to_string()
            };
            input.extend_from_slice(line.as_bytes());
            input.push(b'\n');
        }
        let evs = events(&input);
        let mut docs_iter = docs(&evs).into_iter();
        for (id, title, text) in &lines {
            if title.as_bytes().trim_ascii().is_empty() && text.as_bytes().trim_ascii().is_empty() {
                continue;
            }
            let d = docs_iter.next().expect("a document per line");
            prop_assert_eq!(&d.docid, id);
            let want_title: String =
                title.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
            prop_assert_eq!(d.body.clone(), format!("{want_title}\n{text}").into_bytes());
        }
        prop_assert!(docs_iter.next().is_none());
    }
}

// ---------------------------------------------------------------- TSV

#[test]
fn msmarco_collection_tsv_fixture() {
    let (evs, format) = read_file("tsv/collection.tsv", &opts());
    assert_eq!(format, CrawlFormat::Tsv);
    let d = docs(&evs);
    let ids: Vec<&str> = d.iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(ids, ["0", "1", "4"]);
    assert_eq!(
        text_of(d[2]),
        (
            String::new(),
            "A passage with a\ttab inside it, and café.".into()
        )
    );
    assert!(d.iter().all(|d| !d.utf8 && d.markup == Markup::Text));
    let skips = skip_details(&evs);
    assert_eq!(
        skips,
        [
            ("malformed_line".to_string(), None, 158),
            ("empty_body".to_string(), Some("3".to_string()), 183)
        ]
    );
}

#[test]
fn msmarco_documents_tsv_with_columns() {
    let mut o = opts();
    o.tsv_columns = parse_tsv_columns("id,url,title,text").unwrap();
    let (evs, _) = read_file("tsv/msmarco-docs.tsv.gz", &o);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].docid, "D1");
    assert_eq!(d[0].url.as_deref(), Some("https://sieve.example/d1"));
    assert_eq!(
        text_of(d[0]),
        (
            "First document".into(),
            "Body text of the first document.".into()
        )
    );
}

#[test]
fn tsv_lines_crlf_blank_lines_and_caps() {
    let mut o = opts();
    o.max_record_bytes = 10;
    let input = b"a\tshort\r\n\r\n\nb\t0123456789abcdef\nc\tlast line without a line end";
    let (evs, err) = read_all(input.to_vec(), &o);
    assert!(err.is_none());
    let d = docs(&evs);
    assert_eq!(d.len(), 3);
    assert_eq!(text_of(d[0]).1, "short");
    assert_eq!(d[0].span.len, 9, "the line and its CRLF");
    assert!(d[1].capped && d[1].original_len == 16);
    assert_eq!(
        d[1].body, b"\n012345678",
        "line end and text within the cap"
    );
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::StrayBytes, 3)]);
}

#[test]
fn tsv_column_lists_are_checked() {
    assert_eq!(
        parse_tsv_columns("id,-,text").unwrap(),
        [TsvColumn::Id, TsvColumn::Ignore, TsvColumn::Text]
    );
    for bad in ["text", "id", "id,id,text", "id,text,title,title", "id,body"] {
        assert!(parse_tsv_columns(bad).is_err(), "{bad}");
    }
}

#[test]
fn detection_of_the_line_formats() {
    let fmt = |b: &[u8]| {
        from_reader("t", std::io::Cursor::new(b.to_vec()), &opts())
            .map(|r| r.format())
            .map_err(|e| e.to_string())
    };
    assert_eq!(fmt(b"\xEF\xBB\xBF  {\"id\":1}"), Ok(CrawlFormat::JsonLines));
    assert_eq!(fmt(b"123\ttext\n"), Ok(CrawlFormat::Tsv));
    assert_eq!(
        fmt(b"0000000000\n0000000412\n"),
        Ok(CrawlFormat::OffsetIndex)
    );
    assert!(fmt(b"a b\tc\n").is_err(), "blank in the first column");
    assert!(fmt(b"<html>\t</html>").is_err());
    assert!(fmt(b"plain text\n").is_err());
}

/// Found by the `jsonl_reader` and `tsv_reader` fuzz targets: the body is
/// title, `\n`, text, and the line end made it one byte over the record cap
/// when title and text filled it.
#[test]
fn regression_fuzz_body_with_its_title_line_end_over_the_cap() {
    let mut o = opts();
    o.max_record_bytes = 8;
    let (evs, _) = read_all(
        b"{\"id\":\"a\",\"title\":\"tt\",\"text\":\"xxxxxx\"}\n".to_vec(),
        &o,
    );
    assert_eq!(docs(&evs)[0].body, b"tt\nxxxxx");
    assert!(docs(&evs)[0].capped);
    let (evs, _) = read_all(b"a\txxxxxxxxxx\n".to_vec(), &o);
    assert_eq!(docs(&evs)[0].body.len(), 8);
}

/// Found by the `record_span` fuzz target: a TSV line after the first may
/// have a first column that alone would not be detected as TSV (it held a
/// blank; such an id is now skipped as `bad_docid`, one starting with `<`
/// still reads so), so a record is read back as its file's format, never
/// re-detected.
#[test]
fn regression_fuzz_tsv_record_with_a_blank_in_its_id_reads_back_alone() {
    let input = b"t\tfirst\n8 19\t 3 \n<8\t 3 \n".to_vec();
    let (evs, _) = read_all(input.clone(), &opts());
    assert_eq!(skips(&evs), vec!["bad_docid".to_string()]);
    let d = docs(&evs);
    assert_eq!(d[1].docid, "<8");
    let s = d[1].span;
    let alone = input[s.offset as usize..(s.offset + s.len) as usize].to_vec();
    assert!(from_reader("alone", std::io::Cursor::new(alone.clone()), &opts()).is_err());
    let r = from_reader_as(
        "alone",
        std::io::Cursor::new(alone),
        &opts(),
        CrawlFormat::Tsv,
    )
    .expect("open");
    let (again, _) = collect(r);
    assert_eq!(docs(&again)[0].docid, "<8");
    assert_eq!(docs(&again)[0].body, d[1].body);
}

/// Found by the `tsv_reader` and `record_span` fuzz targets: a byte order
/// mark starting a later line (files concatenated) became part of the
/// docid, and the record read alone (BOM dropped at its start) had another.
#[test]
fn regression_fuzz_byte_order_mark_starting_a_later_line() {
    let (evs, _) = read_all(b"a\tone\n\xEF\xBB\xBFb\ttwo\n".to_vec(), &opts());
    let d = docs(&evs);
    assert_eq!(d[1].docid, "b");
    assert_eq!(d[1].offset, 9);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::StrayBytes, 3)]);
    let (evs, _) = read_all(
        b"{\"id\":\"a\",\"text\":\"x\"}\n\xEF\xBB\xBF{\"id\":\"b\",\"text\":\"y\"}\n".to_vec(),
        &opts(),
    );
    assert_eq!(docs(&evs)[1].docid, "b");
    assert!(skips(&evs).is_empty());
}

/// Found by the `tsv_reader` fuzz target: a record whose first bytes are
/// the gzip magic (`1f 8b`), cut from a plain file, was gunzipped when read
/// back alone; a record read back is decompressed bytes, never gunzipped.
#[test]
fn regression_fuzz_record_starting_with_the_gzip_magic_reads_back_alone() {
    // The id now holds a control character (U+001F): the line is a
    // `bad_docid` skip, and read back alone it is that skip again, not
    // gunzipped.
    let input = b"a\tone\n\x1f\x8b\tgz magic\n".to_vec();
    let (evs, _) = read_all(input.clone(), &opts());
    assert_eq!(docs(&evs).len(), 1);
    assert_eq!(skips(&evs), vec!["bad_docid".to_string()]);
    let alone = input[6..].to_vec();
    let r = from_reader_as(
        "alone",
        std::io::Cursor::new(alone),
        &opts(),
        CrawlFormat::Tsv,
    )
    .expect("open");
    let (again, err) = collect(r);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(skips(&again), vec!["bad_docid".to_string()]);
}
