//! BM25 statistics files (`sieve_searcher::twostage`, sealed JSON from
//! `sieve_filters::sealed`): `open_json` never panics on arbitrary bytes,
//! and what it accepts is parsed as `ShardStats` without panicking. A
//! sealed object made from the input opens to exactly the object that was
//! sealed; with one byte changed (position and XOR mask from the input) or
//! cut short it is refused.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_filters::sealed::{open_json, seal_json};
use sieve_searcher::twostage::ShardStats;

fuzz_target!(|data: &[u8]| {
    if let Ok(object) = open_json(data) {
        let _ = serde_json::from_slice::<ShardStats>(&object);
    }
    let text = format!(
        "{{\n  \"p\": {}\n}}",
        serde_json::to_string(&String::from_utf8_lossy(data)).expect("a string serialises")
    );
    let sealed = seal_json(&text)
        .expect("an object with a member")
        .into_bytes();
    assert_eq!(
        open_json(&sealed).expect("a sealed object opens"),
        format!("{text}\n").into_bytes()
    );
    let (Some(&a), Some(&b)) = (data.first(), data.last()) else {
        return;
    };
    let mut bad = sealed.clone();
    let at = usize::from(a) * 257 % bad.len();
    bad[at] ^= b | 1;
    assert!(
        open_json(&bad).is_err(),
        "a changed byte at {at} went unnoticed"
    );
    let cut = usize::from(b) % sealed.len();
    assert!(
        open_json(&sealed[..cut]).is_err(),
        "cut at {cut} went unnoticed"
    );
});

sieve_fuzz::replay_main!();
