//! Placeholder target so the fuzz workspace builds; replaced by real targets.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = data.len();
});
