//! The service's query-string reader (`sieve_serve::params`) and the
//! setting read from it (`sieve_serve::setting::Setting::read`): any bytes
//! (as a query string, lossily UTF-8, as a request line carries it) are
//! read or refused with a 4xx error, never a panic; a value read is within
//! its bounds.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_serve::params::Params;
use sieve_serve::setting::{Setting, setting_params};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut allowed: Vec<&str> = vec!["query", "hits", "qid", "snippets", "parse"];
    allowed.extend(setting_params());
    match Params::parse(Some(&text), &allowed) {
        Ok(p) => {
            if let Ok(hits) = p.number("hits", 10usize, 1, 10_000) {
                assert!((1..=10_000).contains(&hits));
            }
            if let Err(e) = Setting::read(&p) {
                assert!((400..500).contains(&e.status), "{e:?}");
            }
        }
        Err(e) => assert!((400..500).contains(&e.status), "{e:?}"),
    }
});

sieve_fuzz::replay_main!();
