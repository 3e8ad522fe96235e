//! Build progress on stderr: a spinner on a terminal; otherwise (a cluster
//! log, a redirected file) one plain line every N seconds, as Anserini logs
//! every minute. Rates are rounded to three significant figures.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use sieve_ingest::options::Progress;
use sieve_ingest::summary::three_figures;

/// What the plain reporter's thread reads.
struct Shared {
    docs: AtomicU64,
    file: Mutex<String>,
    started: Instant,
}

/// The plain reporter: a thread printing a line every `every` until stopped.
struct Plain {
    shared: Arc<Shared>,
    stop: Sender<()>,
    thread: JoinHandle<()>,
}

/// The progress shown during a build (see the module doc).
pub struct Reporter {
    bar: Option<ProgressBar>,
    plain: Option<Plain>,
}

impl Progress for Reporter {
    fn file(&self, path: &Path, index: usize, total: usize) {
        let msg = format!("[{}/{}] {}", index + 1, total, path.display());
        if let Some(b) = &self.bar {
            b.set_message(msg);
        } else if let Some(p) = &self.plain
            && let Ok(mut f) = p.shared.file.lock()
        {
            *f = msg;
        }
    }
    fn docs(&self, docs: u64) {
        if let Some(b) = &self.bar {
            b.inc(docs);
        } else if let Some(p) = &self.plain {
            p.shared.docs.fetch_add(docs, Ordering::Relaxed);
        }
    }
}

/// `h`m`ss`s, or `s`s under a minute.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// One plain progress line.
fn line(shared: &Shared) -> String {
    let elapsed = shared.started.elapsed();
    let docs = shared.docs.load(Ordering::Relaxed);
    let rate = docs as f64 / elapsed.as_secs_f64().max(1e-9);
    let file = shared.file.lock().map(|f| f.clone()).unwrap_or_default();
    format!(
        "sieve-index: progress: {docs} docs indexed in {} ({} docs/s), file {file}",
        clock(elapsed),
        three_figures(rate)
    )
}

impl Reporter {
    /// A spinner when stderr is a terminal; otherwise a plain line every
    /// `every` (`None`: nothing).
    pub fn new(terminal: bool, every: Option<Duration>) -> Reporter {
        if terminal {
            return Reporter {
                bar: Some(spinner()),
                plain: None,
            };
        }
        let plain = every.map(|every| {
            let shared = Arc::new(Shared {
                docs: AtomicU64::new(0),
                file: Mutex::new(String::new()),
                started: Instant::now(),
            });
            let (stop, stopped) = channel::<()>();
            let s = Arc::clone(&shared);
            let thread = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    eprintln!("{}", line(&s));
                }
            });
            Plain {
                shared,
                stop,
                thread,
            }
        });
        Reporter { bar: None, plain }
    }

    /// Clears the spinner or stops the plain reporter.
    pub fn finish(self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if let Some(p) = self.plain {
            let _ = p.stop.send(());
            let _ = p.thread.join();
        }
    }
}

/// The terminal spinner, its rate rounded.
fn spinner() -> ProgressBar {
    let b = ProgressBar::new_spinner();
    b.set_style(
        ProgressStyle::with_template("{spinner} {pos} docs {rate} {elapsed} {wide_msg}")
            .map(|s| {
                s.with_key("rate", |st: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}/s", three_figures(st.per_sec()));
                })
            })
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    b.enable_steady_tick(Duration::from_millis(200));
    b
}
