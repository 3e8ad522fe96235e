//! What the fuzz targets share: a `main` for builds without libFuzzer.
//!
//! `scripts/fuzz.sh` builds each target with `--cfg fuzzing` and the
//! `libfuzzer` feature, and libFuzzer's own `main` drives it. Every other
//! build (the workspace's, which the test command lints) leaves libFuzzer's
//! C++ out: there [`replay_main!`] gives each target a `main` that runs its
//! check once on each file named on the command line, so
//! `target/debug/TARGET FILE...` replays a crash or a corpus.

#[doc(hidden)]
pub use libfuzzer_sys;

/// Runs the target's check (the body of its `fuzz_target!`) on each file of
/// `args`; a panic aborts the process, as under libFuzzer. Exit code 2 for
/// an unreadable file.
pub fn replay(args: impl Iterator<Item = std::ffi::OsString>) {
    for path in args {
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e}", std::path::Path::new(&path).display());
                std::process::exit(2);
            }
        };
        // SAFETY: the pointer and length are those of a live slice.
        unsafe { libfuzzer_sys::test_input_wrap(data.as_ptr(), data.len()) };
    }
}

/// A `main` that replays files (see [`replay`]) when the target is not
/// built for libFuzzer; put it after the target's `fuzz_target!`.
#[macro_export]
macro_rules! replay_main {
    () => {
        #[cfg(not(fuzzing))]
        fn main() {
            $crate::replay(std::env::args_os().skip(1));
        }
    };
}
