//! The one exit-status scheme of `sieve-index`, `sieve-search` and
//! `sieve-filter`, so that scripts can tell a complete result from a
//! partial or empty one without parsing output.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | done: every input was read to its end |
//! | 1 | error: nothing usable was done (bad argument value, missing or damaged input or index, refused directory, lock held) |
//! | 2 | usage error (clap's own code: unknown flag, missing argument) |
//! | 3 | done, but part of the input was lost at file level (a file unreadable or read only in part; named in `stats.json` and `losses.jsonl`) |
//! | 4 | done, but nothing was indexed or found (empty or useless input; for `sieve-filter contains`, a docid the filter does not keep) |
//!
//! 4 wins over 3: an index with no document is not usable whatever the
//! reason. Code 1 is also what Rust gives a `main` that returns an error.

use sieve_format::stats::BuildStats;

/// An exit status of the scheme above; `code()` is the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: done, every input read to its end.
    Success,
    /// 1: an error; nothing usable done.
    Error,
    /// 2: a usage error (produced by clap itself).
    Usage,
    /// 3: done, but at least one input file was lost in whole or in part.
    PartialInput,
    /// 4: done, but nothing was indexed or found.
    Empty,
}

impl ExitStatus {
    /// The process exit code (0 to 4).
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Error => 1,
            ExitStatus::Usage => 2,
            ExitStatus::PartialInput => 3,
            ExitStatus::Empty => 4,
        }
    }

    /// The status of a run that found `found` items (documents indexed,
    /// records read) with `lost_files` input files not read to their end.
    pub fn of_outcome(found: u64, lost_files: usize) -> ExitStatus {
        if found == 0 {
            ExitStatus::Empty
        } else if lost_files > 0 {
            ExitStatus::PartialInput
        } else {
            ExitStatus::Success
        }
    }

    /// The status of a build (or merge) with these statistics: documents
    /// indexed, and files with an error or a damaged gzip member skipped.
    pub fn of_build(stats: &BuildStats) -> ExitStatus {
        let lost = stats
            .files
            .iter()
            .filter(|f| f.error.is_some() || !f.gzip_members.is_empty())
            .count();
        ExitStatus::of_outcome(stats.totals.indexed, lost)
    }
}

/// The message of `error` followed by its causes, joined by `: `, leaving
/// out each cause whose message the text before it already contains (an
/// error that names its path and its I/O cause is printed once, not twice).
/// This is what the binaries print for an error, instead of a `Debug` dump
/// (which would add a backtrace when `RUST_BACKTRACE` is set).
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let msg = c.to_string();
        if !msg.is_empty() && !text.contains(&msg) {
            text.push_str(": ");
            text.push_str(&msg);
        }
        cause = c.source();
    }
    text
}

/// Whether `error`, or one of its causes, is a write to a closed pipe
/// (`EPIPE`): the reader of the output stopped early, as `| head` does.
/// That is not an error of the command: [`report_error`] ends it quietly.
pub fn is_broken_pipe(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The one error path of the three binaries: `NAME: error: ...` on stderr
/// ([`error_chain`]) and exit status 1; but a write to a closed pipe
/// ([`is_broken_pipe`]: the reader of stdout stopped early) ends the
/// program quietly with status 0, as `ripgrep` does.
pub fn report_error(
    name: &str,
    error: &(dyn std::error::Error + 'static),
) -> std::process::ExitCode {
    if is_broken_pipe(error) {
        return std::process::ExitCode::SUCCESS;
    }
    eprintln!("{name}: error: {}", error_chain(error));
    std::process::ExitCode::from(ExitStatus::Error.code())
}

/// Whether a panic message is Rust's own for a `print!` to a closed
/// stdout (`failed printing to stdout: Broken pipe`).
fn is_print_to_closed_pipe(message: &str) -> bool {
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

/// Panic messages recorded by the hook [`run_guarded`] installs, in the
/// order they happened (a worker's panic, then the main thread's).
static PANICS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Runs a binary's whole `run` so that a panic anywhere in it ends the
/// process like any other error: one line on stderr, exit status 1, and
/// never Rust's `thread 'main' panicked at ...` dump.
///
/// sieve's own code returns errors, but the libraries below it may panic
/// on a damaged file (tantivy asserts on a corrupt fast-field file, for
/// one). The hook records each panic's message and location instead of
/// printing it; a panic that reaches `run` (directly, or propagated from a
/// worker thread as rayon does) is printed as
/// `NAME: error: internal failure: MESSAGE (at FILE:LINE)` with a hint to
/// check the index, and a panic that did not (a worker whose failure the
/// library reported as an error of its own) is printed as a warning once
/// `run` returns, so that nothing is lost.
pub fn run_guarded(
    name: &str,
    run: impl FnOnce() -> std::process::ExitCode,
) -> std::process::ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        let place = info
            .location()
            .map(|l| format!(" (at {}:{})", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let who = match thread.name() {
            Some("main") | None => String::new(),
            Some(t) => format!("in thread '{t}': "),
        };
        let line = format!("{who}{}{place}", message.replace('\n', " "));
        if let Ok(mut p) = PANICS.lock() {
            p.push(line);
        }
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
    let recorded = PANICS
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default();
    match outcome {
        Ok(code) => {
            for p in recorded {
                eprintln!("{name}: warning: a worker panicked: {p}");
            }
            code
        }
        Err(_) => {
            let first = recorded
                .first()
                .cloned()
                .unwrap_or_else(|| "(no message)".to_string());
            if is_print_to_closed_pipe(&first) {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!(
                "{name}: error: internal failure: {first}; if an index was being read, it may \
                 be damaged (`sieve-index verify --index DIR` checks every file's checksum)"
            );
            std::process::ExitCode::from(ExitStatus::Error.code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{0}")]
    struct Msg(String, #[source] Option<Box<Msg>>);

    #[test]
    fn error_chain_joins_causes_once() {
        let io = Msg("No such file or directory (os error 2)".into(), None);
        let named = Msg(format!("ix/sieve.json: {io}"), Some(Box::new(io)));
        let ctx = Msg("opening the index".into(), Some(Box::new(named)));
        assert_eq!(
            error_chain(&ctx),
            "opening the index: ix/sieve.json: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn a_closed_pipe_is_seen_through_the_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("writing stdout")]
        struct Ctx(#[source] std::io::Error);
        let pipe = Ctx(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&pipe));
        let other = Ctx(std::io::Error::from(std::io::ErrorKind::StorageFull));
        assert!(!is_broken_pipe(&other));
        assert!(is_print_to_closed_pipe(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
    }

    #[test]
    fn empty_wins_over_partial_and_codes_are_the_documented_ones() {
        assert_eq!(ExitStatus::of_outcome(0, 1), ExitStatus::Empty);
        assert_eq!(ExitStatus::of_outcome(5, 1), ExitStatus::PartialInput);
        assert_eq!(ExitStatus::of_outcome(5, 0), ExitStatus::Success);
        let codes: Vec<u8> = [
            ExitStatus::Success,
            ExitStatus::Error,
            ExitStatus::Usage,
            ExitStatus::PartialInput,
            ExitStatus::Empty,
        ]
        .iter()
        .map(|s| s.code())
        .collect();
        assert_eq!(codes, [0, 1, 2, 3, 4]);
    }
}
