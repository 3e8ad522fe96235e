//! `html_main`: main-content extraction (`sieve_text::html::extract_main`,
//! `--text main`) never panics, keeps the caps, and its body is a
//! subsequence of the paragraphs `--text all` gives for the same input,
//! spelled the same, with the same title; every paragraph is non-empty and
//! its lines are non-empty and trimmed. Input layout: byte 0 picks the caps,
//! the rest is the page (decoded as UTF-8 with replacement: the charset
//! layer has its own target).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_text::html::{HtmlOptions, TextMode, extract_text, paragraphs};

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let opts = HtmlOptions {
        max_depth: usize::from(ctl >> 4) * 4,
        max_text_bytes: if ctl & 4 == 4 {
            usize::from(ctl) * 3
        } else {
            1 << 20
        },
    };
    let html = String::from_utf8_lossy(rest);
    let all = extract_text(&html, &opts, TextMode::All, None);
    let main = extract_text(&html, &opts, TextMode::Main, None);
    assert!(main.body.len() <= opts.max_text_bytes);
    assert_eq!(main.title, all.title);
    assert_eq!(main.depth_capped, all.depth_capped);
    assert!(!main.body.contains("\n\n\n"));
    let ap: Vec<&str> = paragraphs(&all.body).collect();
    let mut it = ap.iter();
    for p in paragraphs(&main.body) {
        assert!(
            it.any(|a| *a == p),
            "{p:?} is not a paragraph of all, in order"
        );
        for line in p.split('\n') {
            assert!(
                !line.is_empty() && line.trim_matches(|c: char| c.is_ascii_whitespace()) == line
            );
        }
    }
});

sieve_fuzz::replay_main!();
