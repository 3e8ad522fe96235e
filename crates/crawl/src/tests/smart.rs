//! The SMART reader (`.I`/`.T`/`.W` documents): fields kept as ir_datasets'
//! Cranfield reader keeps them, and every malformed record a counted,
//! named loss. Synthetic records are our own bytes; the real slice is
//! `tests/data/cranfield/cran.all.first50`.

use super::*;
use sieve_text::html::{HtmlOptions, plain_text};

const TWO: &str = ".I 1\n.T\nexperimental investigation of the\naerodynamics of a wing .\n\
.A\nbrenckman,m.\n.B\nj. ae. scs. 25, 1958, 324.\n.W\nexperimental investigation .\n  \
an experimental study of a wing in a propeller slipstream .\n.I 002\n.W\nshear flow < b & c .\n";

fn doc_events(text: &[u8], opts: &CrawlOptions) -> Vec<CrawlEvent> {
    let (evs, err) = read_all(text.to_vec(), opts);
    assert!(err.is_none(), "unexpected error {err:?}");
    evs
}

#[test]
fn smart_records_keep_title_and_text_like_ir_datasets() {
    let r = from_reader("t", std::io::Cursor::new(TWO), &CrawlOptions::default()).unwrap();
    assert_eq!(r.format(), CrawlFormat::Smart);
    let evs = events(TWO.as_bytes());
    let d = docs(&evs);
    assert_eq!(d.len(), 2, "{evs:?}");
    assert!(
        anomalies(&evs).is_empty() && skips(&evs).is_empty(),
        "{evs:?}"
    );
    assert_eq!(d[0].docid, "1");
    assert_eq!(d[1].docid, "002", "the .I value as written");
    assert_eq!(d[0].markup, Markup::Text);
    let body = String::from_utf8(d[0].body.clone()).unwrap();
    assert_eq!(
        body,
        "experimental investigation of the aerodynamics of a wing .\n\
         experimental investigation .\n  an experimental study of a wing in a propeller slipstream ."
    );
    assert!(
        !body.contains("brenckman") && !body.contains("1958"),
        "{body}"
    );
    assert_eq!(d[0].offset, 0);
    let second = TWO.find(".I 002").unwrap();
    assert_eq!(d[0].original_len, second as u64);
    assert_eq!(d[1].offset, second as u64);
    assert_eq!(d[1].original_len, (TWO.len() - second) as u64);
    assert_eq!(
        d[1].body, b"\nshear flow < b & c .",
        "no title: empty first line"
    );
    assert!(!d[0].truncated && !d[0].capped);
}

#[test]
fn smart_plain_text_is_not_markup() {
    let x = plain_text(
        "a  title\n\nshear flow < b &amp; <i>c</i> .\n\n\nnext  line",
        &HtmlOptions::default(),
    );
    assert_eq!(x.title, "a title");
    assert_eq!(x.body, "shear flow < b &amp; <i>c</i> .\nnext line");
    assert!(!x.text_truncated);
    let x = plain_text(
        "t\nabcdefgh",
        &HtmlOptions {
            max_text_bytes: 4,
            ..HtmlOptions::default()
        },
    );
    assert_eq!((x.body.as_str(), x.text_truncated), ("abcd", true));
}

#[test]
fn smart_repeated_fields_are_appended() {
    // Cranfield 576 and 578 have two `.W`; a second `.T` joins with a space.
    let evs = events(b".I 7\n.T\none\n.W\nfirst\n.T\ntwo\n.W\nsecond\n");
    let d = docs(&evs);
    assert_eq!(d[0].body, b"one   two\nfirst\n\nsecond");
}

#[test]
fn regression_smart_record_without_number_is_no_docid() {
    let text = b".I\n.T\nlost\n.W\nlost text\n.I 2\n.W\nkept\n";
    let evs = events(text);
    assert_eq!(skips(&evs), ["no_docid"]);
    let d = docs(&evs);
    assert_eq!((d.len(), d[0].docid.as_str()), (1, "2"));
    match &evs[0] {
        CrawlEvent::Skip(s) => assert_eq!(s.offset, 0),
        e => panic!("expected the skip first, got {e:?}"),
    }
}

#[test]
fn regression_smart_unknown_marker_is_a_named_loss() {
    let text = ".I 1\n.T\ntitle\n.Q\nsecret words\nmore\n.W\nthe text\n";
    let evs = events(text.as_bytes());
    let d = docs(&evs);
    assert_eq!(d[0].body, b"title\nthe text");
    let lost = ".Q\nsecret words\nmore\n";
    assert_eq!(
        anomalies(&evs),
        [(AnomalyKind::UnknownField, lost.len() as u64)]
    );
    let CrawlEvent::Anomaly(a) = &evs[1] else {
        panic!("the anomaly follows the record: {evs:?}");
    };
    assert_eq!(a.offset, text.find(".Q").unwrap() as u64);
    assert_eq!(a.record_id.as_deref(), Some("1"));
    assert_eq!(AnomalyKind::UnknownField.key(), "unknown_field");
}

#[test]
fn regression_smart_text_before_first_marker_is_a_named_loss() {
    let text = ".I 1\nstray words\n.W\nthe text\n.I 2\n\n.W\nok\n";
    let evs = events(text.as_bytes());
    // Blank lines before the first marker are no loss.
    assert_eq!(
        anomalies(&evs),
        [(AnomalyKind::UnknownField, "stray words\n".len() as u64)]
    );
    assert_eq!(docs(&evs).len(), 2);
}

#[test]
fn smart_garbage_and_bom_before_first_record_are_resync() {
    let text = b"\xEF\xBB\xBF.I 1\n.W\nx\n";
    let evs = events(text);
    assert_eq!(anomalies(&evs), [(AnomalyKind::Resync, 3)]);
    assert_eq!(docs(&evs)[0].offset, 3);
    // Leading blank lines are whitespace, not garbage.
    let evs = events(b"\n\n.I 1\n.W\nx\n");
    assert!(anomalies(&evs).is_empty());
    assert_eq!(docs(&evs)[0].offset, 2);
    // `.I` not at a line start is not a SMART file.
    let r = from_reader(
        "t",
        std::io::Cursor::new(b"  .I 1\n"),
        &CrawlOptions::default(),
    );
    assert!(matches!(r, Err(Error::UnknownCrawlFormat { .. })));
}

#[test]
fn smart_empty_record_is_empty_body() {
    let evs = events(b".I 1\n.A\nsomeone\n.I 2\n.W\nx\n");
    assert_eq!(skips(&evs), ["empty_body"]);
    assert_eq!(docs(&evs).len(), 1);
}

#[test]
fn regression_smart_oversized_record_is_capped() {
    let long = "word ".repeat(100);
    let text = format!(".I 1\n.T\ntitle\n.W\n{long}\n.I 2\n.W\nnext\n");
    let opts = CrawlOptions {
        max_record_bytes: 20,
        ..CrawlOptions::default()
    };
    let evs = doc_events(text.as_bytes(), &opts);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    // The cap counts the bytes read into the fields (here " title \n"
    // and 12 bytes of text), before the fields are stripped.
    assert_eq!(d[0].body, b"title\nword word wo");
    assert!(d[0].capped && d[0].truncated);
    assert_eq!(d[0].original_len, text.find(".I 2").unwrap() as u64);
    assert_eq!(d[1].body, b"\nnext");
    assert!(!d[1].capped);
}

#[test]
fn regression_smart_overlong_lines() {
    // A `.I` line over 64 KiB has no usable id; a `.Q` inside a long text
    // line (where a 64 KiB piece ends, not at a line start) is text,
    // whatever the read sizes.
    let mut text = format!(".I {}\n.W\nx\n", "9".repeat(70_000)).into_bytes();
    let pad = "y".repeat(64 * 1024);
    text.extend_from_slice(format!(".I 2\n.W\n{pad}.Q more\nz\n").as_bytes());
    let evs = events(&text);
    assert_eq!(skips(&evs), ["no_docid"]);
    assert!(anomalies(&evs).is_empty(), "{:?}", anomalies(&evs));
    let d = docs(&evs);
    assert_eq!(d[0].docid, "2");
    assert_eq!(d[0].body.len(), 1 + pad.len() + ".Q more\nz".len());
    let (dribbled, err) = dribble_events(&text, vec![1, 7, 4096, 3]);
    assert!(err.is_none());
    assert_eq!(dribbled, evs);
}

#[test]
fn smart_kept_bytes_are_the_input() {
    let text = b"\xEF\xBB\xBF.I\n.W\nno id\n.I 2\n.Q\nlost\n.W\nkept\n";
    let opts = CrawlOptions {
        keep_skipped: true,
        ..CrawlOptions::default()
    };
    let evs = doc_events(text, &opts);
    let mut seen = 0;
    for ev in &evs {
        let (offset, raw) = match ev {
            CrawlEvent::Skip(s) => (s.offset, s.raw.as_ref()),
            CrawlEvent::Anomaly(a) => (a.offset, a.raw.as_ref()),
            CrawlEvent::Doc(_) => continue,
        };
        let raw = raw.expect("kept bytes");
        let at = offset as usize;
        assert_eq!(&text[at..at + raw.bytes.len()], raw.bytes.as_slice());
        assert!(!raw.truncated);
        seen += 1;
    }
    assert_eq!(seen, 3, "resync, no_docid, unknown_field: {evs:?}");
}

#[test]
fn smart_truncated_gzip_flags_the_last_record() {
    let text = format!(".I 1\n.W\n{}\n", "word ".repeat(20_000));
    let mut gz = gzip(text.as_bytes());
    gz.truncate(gz.len() / 2);
    let (evs, err) = read_all(gz, &CrawlOptions::default());
    assert!(err.is_some(), "the stream error is reported");
    let d = docs(&evs);
    assert_eq!(d.len(), 1);
    assert!(d[0].truncated && !d[0].capped);
}

#[test]
fn smart_cranfield_slice_reads_fifty_documents() {
    let path = fixture("cranfield/cran.all.first50");
    let (evs, err) = collect(open(&path, &CrawlOptions::default()).unwrap());
    assert!(err.is_none());
    assert!(
        anomalies(&evs).is_empty() && skips(&evs).is_empty(),
        "{evs:?}"
    );
    let d = docs(&evs);
    let ids: Vec<String> = d.iter().map(|d| d.docid.clone()).collect();
    let want: Vec<String> = (1..=50).map(|i| i.to_string()).collect();
    assert_eq!(ids, want);
    let first = String::from_utf8_lossy(&d[0].body);
    assert!(
        first.starts_with(
            "experimental investigation of the aerodynamics of a wing in a slipstream .\n\
             experimental investigation of the aerodynamics of a\nwing"
        ),
        "{first}"
    );
    assert!(!first.contains("brenckman"));
    let total: u64 = d.iter().map(|d| d.original_len).sum();
    assert_eq!(total, std::fs::metadata(&path).unwrap().len());
}

#[test]
fn smart_cacm_original_from_shared_data() {
    let Some(path) =
        sieve_testdata::shared_file("cacm/smart-original/cacm.all", "CACM in SMART form")
    else {
        return;
    };
    let (evs, err) = collect(open(&path, &CrawlOptions::default()).unwrap());
    assert!(err.is_none());
    assert_eq!(docs(&evs).len(), 3204);
    assert!(skips(&evs).is_empty());
    // `.C` (CR categories) is a known field. This copy breaks `.I 2856`
    // over two lines (`.I 28`, then `56`): the stray `56` is the one loss.
    assert_eq!(anomalies(&evs), [(AnomalyKind::UnknownField, 3)]);
}

proptest! {
    #[test]
    fn prop_smart_chunking_independent(sizes in proptest::collection::vec(1usize..64, 1..6)) {
        let data = format!("{TWO}.I\n.Q\nx\n.I 3\nstray\n.W\n{}\n", "w ".repeat(500));
        let one = dribble_events(data.as_bytes(), vec![usize::MAX]);
        prop_assert_eq!(dribble_events(data.as_bytes(), sizes), one);
    }
}
