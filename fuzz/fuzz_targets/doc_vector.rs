//! Stored document vectors (`sieve_format::docvector`, the `body_vector`
//! field of an index built with `--docvectors`): decoding arbitrary bytes
//! must never panic, and whatever decodes must encode to a value that
//! decodes to the same vector. The input is also
//! tried as a valid vector edited in place (first byte the position, second
//! an XOR mask), so damage reaches past the header.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_format::docvector::{decode, encode};

fn check(bytes: &[u8]) {
    if let Ok(v) = decode(bytes) {
        let pairs: Vec<(&str, u32)> = v.iter().map(|(t, f)| (t.as_str(), *f)).collect();
        let again = encode(&pairs);
        // Non-canonical input (a shorter shared prefix, padded LEB128) may
        // decode; its canonical form must decode to the same vector.
        assert_eq!(decode(&again).expect("an encoded vector decodes"), v);
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut good = encode(&[
        ("alpha", 3),
        ("alphabet", 1),
        ("beta", 200),
        ("zeta", 70_000),
    ]);
    for e in data.chunks_exact(2) {
        let at = usize::from(e[0]) % good.len();
        good[at] ^= e[1];
    }
    check(&good);
});

sieve_fuzz::replay_main!();
