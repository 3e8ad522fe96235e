use super::out::is_ws;
use super::*;
use crate::charset::{CharsetMode, decode};
use proptest::prelude::*;
use sieve_filters::utf8::Counting;
use sieve_testdata::{repo_root, shared_file};
use std::collections::HashSet;
use std::io::Read;
use std::time::{Duration, Instant};

fn ex(html: &str) -> Extracted {
    extract(html, &HtmlOptions::default())
}

fn body(html: &str) -> String {
    ex(html).body
}

#[test]
fn title_is_first_title_decoded_and_collapsed() {
    let e = ex(
        "<html><head><TITLE>\n  Fish &amp; Chips\t&copy;  2020 <b>x</b>\n</title>\
                <title>second</title></head><body>Text</body></html>",
    );
    assert_eq!(e.title, "Fish & Chips © 2020 <b>x</b>");
    assert_eq!(e.body, "Text");
    assert!(!e.title.contains('\n'));
    assert_eq!(ex("<title>a\n\n<br>b</title>").title, "a <br>b");
    assert_eq!(ex("<title>unterminated").title, "unterminated");
    assert_eq!(ex("<p>no title").title, "");
}

#[test]
fn dropped_elements() {
    assert_eq!(body("a<script>var x = 1 < 2;</script>b"), "ab");
    assert_eq!(
        body("a<style type=text/css>p { color: red }</style>b"),
        "ab"
    );
    assert_eq!(body("a<noscript>enable js</noscript>b"), "ab");
    assert_eq!(body("a<iframe src=x>fallback</iframe>b"), "ab");
    assert_eq!(body("a<!-- hidden -->b"), "ab");
    assert_eq!(body("a<![CDATA[ hidden ]]>b"), "ab");
    assert_eq!(body("<!DOCTYPE html><?xml version='1.0'?>a"), "a");
    assert_eq!(
        body("a<template><p>hidden <template>deeper</template> still</p></template>b"),
        "ab"
    );
    assert_eq!(
        body("<head><meta charset=utf-8><link rel=x><title>t</title></head>x"),
        "x"
    );
    // Attributes never become text.
    assert_eq!(body("<img alt='picture' title='tip' src=x.png>"), "");
}

#[test]
fn raw_text_ends_at_first_matching_end_tag_any_case() {
    assert_eq!(
        body("<script>s = \"</SCRIPT >\"; t()</script>after"),
        "\"; t()after"
    );
    assert_eq!(body("<script>a</scripts>b</script>c"), "c");
    assert_eq!(body("<script>never closed <p>lost"), "");
    assert_eq!(body("<style>x</style\n>y"), "y");
}

#[test]
fn comments_as_browsers_read_them() {
    assert_eq!(body("a<!-->b"), "ab");
    assert_eq!(body("a<!--->b"), "ab");
    assert_eq!(body("a<!-- unterminated <p>b"), "a");
    assert_eq!(body("a<!-- x -- y -->b"), "ab");
}

#[test]
fn block_elements_make_paragraphs() {
    assert_eq!(body("<p>one</p><p>two</p>"), "one\n\ntwo");
    assert_eq!(body("<div><div><div><p>x</p></div></div></div>y"), "x\n\ny");
    assert_eq!(
        body("<h1>Head</h1>text<ul><li>a<li>b</ul>tail"),
        "Head\n\ntext\n\na\n\nb\n\ntail"
    );
    assert_eq!(body("line<br>next<br/><br>last"), "line\nnext\nlast");
    assert_eq!(
        body("<table><tr><td>a<td>b</tr><tr><th>c</table>"),
        "a\nb\n\nc"
    );
    assert_eq!(body("<P>upper</P><DIV>case</DIV>"), "upper\n\ncase");
    assert_eq!(body("<hr>x<hr>"), "x");
}

#[test]
fn inline_elements_join_text() {
    assert_eq!(body("<b>foo</b>bar <i> baz </i> qux"), "foobar baz qux");
    assert_eq!(body("foo<img src=x>bar"), "foo bar");
    assert_eq!(
        body("  lots   of \n\n white\tspace  "),
        "lots of white space"
    );
    assert_eq!(body("a&nbsp;&nbsp;b\u{a0}c"), "a b c");
    assert_eq!(body("<span>a</span><span>b</span>"), "ab");
}

#[test]
fn pre_keeps_line_breaks() {
    assert_eq!(body("<pre>a  b\n  c\n\n\n\nd</pre>e"), "a b\nc\nd\n\ne");
    assert_eq!(body("x\ny<pre>\n</pre>z"), "x y\n\nz");
}

#[test]
fn cacm_style_record() {
    let doc = "<html>\n<pre>\n\n\nPreliminary Report-International Algebraic Language\n\nCACM December, 1958\n\nPerlis, A. J.\nSamelson,K.\n\nCA581203 JB March 22, 1978  8:28 PM\n\n</pre>\n</html>\n";
    let e = ex(doc);
    assert_eq!(
        e.body,
        "Preliminary Report-International Algebraic Language\nCACM December, 1958\nPerlis, A. J.\nSamelson,K.\nCA581203 JB March 22, 1978 8:28 PM"
    );
    assert_eq!(e.title, "");
}

#[test]
fn entities() {
    let cases = [
        ("&amp; &lt; &gt; &quot; &apos;", "& < > \" '"),
        ("&copy2020 &notit; &notin;", "©2020 ¬it; ∉"),
        ("&#65;&#x42;&#X43;&#68", "ABCD"),
        (
            "&#0; &#xD800; &#x110000; &#99999999999999;",
            "\u{FFFD} \u{FFFD} \u{FFFD} \u{FFFD}",
        ),
        ("&#150; &#x80;", "– €"),
        ("&unknown; & &; &#; &#x;", "&unknown; & &; &#; &#x;"),
        ("&CounterClockwiseContourIntegral;&nGt;", "∳≫\u{20D2}"),
        ("AT&T", "AT&T"),
        ("&AMP&LT", "&<"),
        ("x&#32;y&#10;z", "x y z"),
    ];
    for (html, want) in cases {
        assert_eq!(body(html), want, "{html}");
    }
}

#[test]
fn entity_tables_are_sorted_complete_and_consistent() {
    use html_escape::NAMED_ENTITIES;
    assert_eq!(
        NAMED_ENTITIES.len(),
        2125,
        "WHATWG entities.json has 2,125 names with ';'"
    );
    assert!(
        NAMED_ENTITIES.windows(2).all(|w| w[0].0 < w[1].0),
        "sorted for binary search"
    );
    assert!(entities::LEGACY.windows(2).all(|w| w[0].0 < w[1].0));
    for (name, value) in entities::LEGACY.iter() {
        let i = NAMED_ENTITIES
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .expect("legacy name in table");
        assert_eq!(
            NAMED_ENTITIES[i].1,
            *value,
            "{}",
            String::from_utf8_lossy(name)
        );
    }
}

#[test]
fn malformed_markup() {
    assert_eq!(body("a < b and 1<2"), "a < b and 1<2");
    assert_eq!(body("<a title=\"x > y\" href='z>'>link</a>"), "link");
    assert_eq!(body("text<a href=\"never closed"), "text");
    assert_eq!(body("text<div"), "text");
    assert_eq!(body("a</>b</ 3>c"), "abc");
    assert_eq!(
        body("<textarea>typed &amp; <b>kept</b></textarea>"),
        "typed & <b>kept</b>"
    );
    assert_eq!(
        body("<p>unclosed<div>tags<span>everywhere"),
        "unclosed\n\ntagseverywhere"
    );
}

#[test]
fn text_cap_truncates_at_char_boundary() {
    let opts = HtmlOptions {
        max_text_bytes: 10,
        ..HtmlOptions::default()
    };
    let e = extract("<p>ééééé</p>", &opts);
    assert_eq!(e.body, "ééééé");
    assert!(!e.text_truncated);
    let e = extract("<p>ééééé</p><p>more</p>", &opts);
    assert_eq!(e.body, "ééééé");
    assert!(e.text_truncated);
    let e = extract("<p>éééééé</p>", &opts);
    assert_eq!(e.body, "ééééé");
    assert!(e.text_truncated);
    let e = extract("<p>abcdefgh</p><p>ijkl</p>", &opts);
    assert_eq!(e.body, "abcdefgh");
    assert!(e.text_truncated);
    let e = extract("<title>0123456789abc</title>", &opts);
    assert_eq!(e.title, "0123456789");
    assert!(e.text_truncated);
}

#[test]
fn depth_cap_flags_and_extraction_goes_on() {
    let opts = HtmlOptions {
        max_depth: 3,
        ..HtmlOptions::default()
    };
    let e = extract("<div><span><b>x</b></span></div>", &opts);
    assert!(!e.depth_capped);
    let e = extract("<div><span><b><i>deep</i></b></span></div>after", &opts);
    assert!(e.depth_capped);
    assert_eq!(e.body, "deep\n\nafter");
    // Void elements and end tags do not count.
    let e = extract("<br><br><br><br><img><a></a><a></a><a></a><a></a>", &opts);
    assert!(!e.depth_capped);
}

/// A million nested `<div>`s (and other adversarial shapes) must be
/// processed in linear time: each within a generous budget for an
/// unoptimised test build.
#[test]
fn adversarial_inputs_run_in_linear_time() {
    let budget = Duration::from_secs(10);
    let inputs = [
        (
            "nested divs",
            "<div>".repeat(1_000_000) + "x" + &"</div>".repeat(1_000_000),
        ),
        ("nested templates", "<template>".repeat(500_000) + "x"),
        ("unterminated titles", "<title>".repeat(500_000)),
        (
            "script end prefixes",
            "<script>".to_owned() + &"</scrip".repeat(500_000),
        ),
        (
            "ampersand runs",
            "&a".repeat(1_000_000) + &"&#".repeat(1_000_000),
        ),
        ("lt runs", "< <a <!".repeat(500_000)),
        ("long entity names", format!("&{};", "a".repeat(3_000_000))),
    ];
    for (what, html) in inputs {
        let t = Instant::now();
        let e = ex(&html);
        let took = t.elapsed();
        assert!(took < budget, "{what}: {took:?} for {} bytes", html.len());
        assert!(!e.body.contains("\n\n\n"));
    }
    let e = ex(&("<div>".repeat(1_000_000) + "x"));
    assert!(e.depth_capped);
    assert_eq!(e.body, "x");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_and_invariants_hold(s in any::<String>(), cap in 0usize..64) {
        let opts = HtmlOptions { max_depth: 8, max_text_bytes: cap };
        let e = extract(&s, &opts);
        prop_assert!(e.body.len() <= cap && e.title.len() <= cap);
        prop_assert!(!e.body.contains("\n\n\n"));
        prop_assert!(!e.title.contains('\n'));
    }

    #[test]
    fn html_like_input_invariants(
        s in "(<|>|/|!|-|\\?|&|#|;|=|\"|'| |\n|a|p|b|r|div|pre|script|style|title|template|textarea|amp|x41|[0-9]|é|\u{a0}){0,300}"
    ) {
        let e = ex(&s);
        prop_assert!(!e.body.contains("\n\n\n"), "{:?}", e.body);
        prop_assert!(!e.title.contains('\n'));
        prop_assert_eq!(e.body.trim(), e.body.as_str());
        prop_assert_eq!(e.title.trim(), e.title.as_str());
    }

    /// Script content never reaches the body.
    #[test]
    fn script_content_never_in_body(
        pre in "(<p>|</div>|<b>|&amp;|[a-z ]){0,20}",
        script in "[^<]{0,40}",
        post in "(<p>|</div>|<b>|&amp;|[a-z ]){0,20}",
    ) {
        let html = format!("{pre}<script type='text/javascript'>SECRETXYZ{script}</script>{post}");
        let e = ex(&html);
        prop_assert!(!e.body.contains("SECRETXYZ"), "{:?}", e.body);
    }
}

/// Tokens for recall: lower-cased alphanumeric runs.
fn tokens(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn recall(truth: &str, body: &str) -> (usize, usize) {
    let have: HashSet<String> = tokens(body).into_iter().collect();
    let want = tokens(truth);
    let hit = want.iter().filter(|t| have.contains(*t)).count();
    (hit, want.len())
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

fn article_page(html: Vec<u8>) -> Extracted {
    let d = decode(html, None, None, CharsetMode::Auto, Counting::Exact);
    ex(&d.text)
}

fn article_body(v: &serde_json::Value, key: &str) -> String {
    v[key]["articleBody"]
        .as_str()
        .expect("articleBody")
        .to_owned()
}

/// The committed article page: nearly all ground-truth tokens are found.
#[test]
fn committed_article_page_recall() {
    let dir = repo_root().join("tests/data/html/articles");
    let key = "14cc2a0ca59c62a8c9f205a171e9ccf4ef4cf69b0c642f51c8c65c051b39024f";
    let html = gunzip(&std::fs::read(dir.join(format!("{key}.html.gz"))).unwrap());
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("{key}.json"))).unwrap()).unwrap();
    let e = article_page(html);
    let (hit, n) = recall(&article_body(&truth, key), &e.body);
    assert!(n > 100);
    assert!(hit * 100 >= n * 98, "recall {hit}/{n}");
    assert!(e.title.contains("Europa"), "{}", e.title);
    assert!(!e.body.contains("function("), "script text leaked");
}

/// Article-extraction benchmark (shared data): token recall of the
/// ground-truth article text in our body text, per page and overall.
#[test]
fn article_extraction_benchmark_recall() {
    let Some(dir) = shared_file(
        "html/article-extraction-benchmark",
        "article-extraction recall",
    ) else {
        return;
    };
    let Ok(gt) = std::fs::read(dir.join("ground-truth.subset.json")) else {
        eprintln!(
            "SKIPPED: article-extraction recall: {} lacks ground-truth.subset.json (set SIEVE_SHARED_DATA)",
            dir.display()
        );
        return;
    };
    let truth: serde_json::Value = serde_json::from_slice(&gt).unwrap();
    let mut keys: Vec<&String> = truth.as_object().unwrap().keys().collect();
    keys.sort();
    let (mut hit_all, mut n_all, mut pages, mut sum) = (0, 0, 0, 0.0);
    let (mut body_bytes, mut html_bytes) = (0usize, 0usize);
    let mut worst = (1.0f64, String::new());
    for key in keys {
        let Ok(gz) = std::fs::read(dir.join(format!("html/{key}.html.gz"))) else {
            continue;
        };
        let html = gunzip(&gz);
        let html_len = html.len();
        let e = article_page(html);
        if std::env::var_os("SIEVE_DUMP_ARTICLE").is_some_and(|k| k == key.as_str()) {
            eprintln!("TITLE {}\nBODY\n{}", e.title, e.body);
        }
        let (hit, n) = recall(&article_body(&truth, key), &e.body);
        if n == 0 {
            continue;
        }
        let r = hit as f64 / n as f64;
        if r < worst.0 {
            worst = (r, key.clone());
        }
        pages += 1;
        sum += r;
        body_bytes += e.body.len();
        html_bytes += html_len;
        assert!(
            !e.body.contains("<div") && !e.body.contains("<script"),
            "{key}: markup leaked"
        );
        hit_all += hit;
        n_all += n;
        assert!(!e.body.contains("\n\n\n"));
    }
    let micro = hit_all as f64 / n_all as f64;
    let macro_ = sum / pages as f64;
    eprintln!(
        "article-extraction benchmark: {pages} pages, token recall micro {micro:.4} ({hit_all}/{n_all}), \
         macro {macro_:.4}, worst {:.4} ({}); body text is {body_bytes} bytes of {html_bytes} HTML bytes",
        worst.0, worst.1
    );
    assert!(pages >= 40);
    assert!(micro >= 0.95, "micro recall {micro}");
}

/// decode + extract on a UTF-16LE page with a BOM and on a KOI8-R page
/// declared in a meta tag: the pipeline the indexer runs.
#[test]
fn pipeline_decode_then_extract() {
    let html = "<html><head><title>Тест</title></head><body><p>Привет,&nbsp;мир</p><script>x()</script></body></html>";
    let mut utf16 = vec![0xFF, 0xFE];
    for u in html.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let d = decode(utf16, None, None, CharsetMode::Auto, Counting::Exact);
    let e = ex(&d.text);
    assert_eq!((e.title.as_str(), e.body.as_str()), ("Тест", "Привет, мир"));

    let (koi, _, _) = encoding_rs::KOI8_R.encode(html);
    let mut page = b"<meta http-equiv=Content-Type content='text/html; charset=KOI8-R'>".to_vec();
    page.extend_from_slice(&koi);
    let d = decode(
        page,
        None,
        Some("http://example.ru/"),
        CharsetMode::Auto,
        Counting::Exact,
    );
    assert_eq!(d.source, crate::charset::CharsetSource::Meta);
    let e = ex(&d.text);
    assert_eq!((e.title.as_str(), e.body.as_str()), ("Тест", "Привет, мир"));
}

#[test]
fn deadline_stops_the_scan_and_keeps_the_text_so_far() {
    let html: String = (0..10 * DEADLINE_STEPS)
        .map(|i| format!("<b>w{i}</b> "))
        .collect();
    let opts = HtmlOptions::default();
    let full = extract_until(
        &html,
        &opts,
        Some(Instant::now() + Duration::from_secs(3600)),
    );
    assert!(!full.timed_out);
    assert_eq!(full, extract(&html, &opts));
    let past = extract_until(&html, &opts, Some(Instant::now()));
    assert!(past.timed_out);
    assert!(past.body.starts_with("w0 w1 "), "{}", &past.body[..20]);
    assert!(full.body.starts_with(&past.body));
    assert!(past.body.len() < full.body.len() / 4, "{}", past.body.len());
    // Short input finishes before the first look at the clock.
    assert!(!extract_until("<p>x</p>", &opts, Some(Instant::now())).timed_out);
}

/// [`Out::text`] as it was before words joined by single spaces went in
/// as one span: word by word (the reference for the test below).
fn text_word_by_word(out: &mut Out, s: &str, pre: bool) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && !out.truncated {
        let c = b[i];
        if is_ws(c) {
            let start = i;
            while i < b.len() && is_ws(b[i]) {
                i += 1;
            }
            let nl = pre && b[start..i].iter().any(|&c| c == b'\n' || c == b'\r');
            out.brk(if nl { LINE } else { SPACE });
        } else if c == 0xC2 && b.get(i + 1) == Some(&0xA0) {
            out.brk(SPACE);
            i += 2;
        } else {
            let start = i;
            while i < b.len() && !is_ws(b[i]) && !(b[i] == 0xC2 && b.get(i + 1) == Some(&0xA0)) {
                i += 1;
            }
            out.word(&s[start..i]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Appending text in spans of words leaves the output exactly as word
    /// by word did: text, pending break, word count, truncation, for any
    /// cap, starting state and mix of spaces, tabs, line breaks, form feeds,
    /// U+00A0 and other characters whose first byte is 0xC2 (`©`).
    #[test]
    fn text_in_spans_equals_word_by_word(
        before in "(ab| |\n){0,4}",
        parts in proptest::collection::vec("( |  |\t|\n|\r\n|\u{c}|\u{a0}|©|é|ab|x|日本|\u{c2})", 0..40),
        cap in 0usize..80,
        pre in any::<bool>(),
        max_break in prop_oneof![Just(SPACE), Just(LINE), Just(PARA)],
        pending in 0u8..4,
    ) {
        let s: String = parts.concat();
        let start = |out: &mut Out| {
            out.text(&before, false);
            out.brk(pending);
        };
        let (mut a, mut b) = (Out::new(cap, max_break), Out::new(cap, max_break));
        start(&mut a);
        start(&mut b);
        a.text(&s, pre);
        text_word_by_word(&mut b, &s, pre);
        prop_assert_eq!(&a.buf, &b.buf);
        prop_assert_eq!(a.pending, b.pending);
        prop_assert_eq!(a.words, b.words);
        prop_assert_eq!(a.truncated, b.truncated);
    }
}
