//! `html_extract`: charset decoding followed by HTML-to-text never panics,
//! and the output respects the caps and invariants documented in
//! `sieve_text::html`: body and title at most `max_text_bytes` bytes, no
//! `"\n\n\n"` in the body, no newline in the title, no leading or trailing
//! ASCII whitespace. Input layout: byte 0 picks the caps and the charset
//! mode, bytes 1..=16 are an HTTP `charset=` label (NUL-trimmed), the rest is
//! the body. Output is valid UTF-8 by construction (`String`).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_filters::utf8::Counting;
use sieve_text::charset::{CharsetMode, decode};
use sieve_text::html::{HtmlOptions, extract};

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let (label, body) = rest.split_at(rest.len().min(16));
    let label = std::str::from_utf8(label)
        .ok()
        .map(|l| l.trim_end_matches('\0'));
    let mode = if ctl & 1 == 1 {
        CharsetMode::ForceUtf8
    } else {
        CharsetMode::Auto
    };
    let counting = if ctl & 2 == 2 {
        Counting::Atire
    } else {
        Counting::Exact
    };
    let opts = HtmlOptions {
        max_depth: usize::from(ctl >> 4),
        max_text_bytes: if ctl & 4 == 4 {
            usize::from(ctl) * 3
        } else {
            1 << 20
        },
    };
    let d = decode(
        body.to_vec(),
        label,
        Some("http://example.ru/"),
        mode,
        counting,
    );
    let e = extract(&d.text, &opts);
    assert!(e.body.len() <= opts.max_text_bytes);
    assert!(e.title.len() <= opts.max_text_bytes);
    assert!(!e.body.contains("\n\n\n"));
    assert!(!e.title.contains('\n'));
    let ws = |c: char| c.is_ascii_whitespace();
    assert_eq!(e.body.trim_matches(ws), e.body);
    assert_eq!(e.title.trim_matches(ws), e.title);
});

sieve_fuzz::replay_main!();
