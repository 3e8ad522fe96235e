//! The sealed JSON files of an index (`sieve.json`, `stats.json`, read by
//! `sieve_format::jsonfile::read_json`): arbitrary bytes that pass the
//! seal check are parsed as a `Manifest` and as `BuildStats` without
//! panicking. So that the parsers see more than what survives a CRC-32,
//! the input is also sealed as it is (when it is a JSON object's text):
//! `open_json` must give back the text sealed (up to its closing brace), and both parsers
//! must accept or refuse it without panicking; any one byte of the sealed
//! file changed must then be refused. Seeds: a real `sieve.json` and
//! `stats.json` (`fuzz/seeds/index_json`, used by `scripts/fuzz.sh`).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_filters::sealed::{open_json, seal_json};
use sieve_format::manifest::Manifest;
use sieve_format::stats::BuildStats;

fn parse(object: &[u8]) {
    let _ = serde_json::from_slice::<Manifest>(object);
    let _ = serde_json::from_slice::<BuildStats>(object);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(object) = open_json(data) {
        parse(&object);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sealed) = seal_json(text) else {
        return;
    };
    let object = open_json(sealed.as_bytes()).expect("a file just sealed opens");
    // The object comes back as the text up to its closing brace (trailing
    // whitespace before it dropped), closed by "\n}\n".
    let body = object.strip_suffix(b"\n}\n").expect("closed by \\n}\\n");
    assert!(
        text.as_bytes().starts_with(body),
        "open_json gave back other text"
    );
    parse(&object);
    if !sealed.is_empty() {
        let mut bad = sealed.into_bytes();
        let at = data.len() % bad.len();
        bad[at] ^= 0x01;
        assert!(
            open_json(&bad).is_err(),
            "a changed byte at {at} went unnoticed"
        );
    }
});

sieve_fuzz::replay_main!();
