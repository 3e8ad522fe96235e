//! `serve`: the indexes named on the command line served over HTTP
//! (`sieve_serve`), until SIGTERM or SIGINT.

use std::io::Write;
use std::time::Duration;

use anyhow::Result;
use sieve_serve::{Config, IndexSpec, Limits};

use crate::args::ServeArgs;

/// Serves the indexes of `a`; prints `listening on http://ADDR` as the
/// first line of stdout once the address is bound, and `stopped` on
/// stderr after a signal.
pub fn cmd_serve(a: ServeArgs) -> Result<()> {
    let indexes = a
        .index
        .iter()
        .map(|s| IndexSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let workers = a
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let config = Config {
        indexes,
        bind: a.bind,
        workers,
        limits: Limits {
            connections: a.max_connections,
            header: Duration::from_secs(a.header_seconds),
            io: Duration::from_secs(a.io_seconds),
            drain: Duration::from_secs(a.drain_seconds),
        },
    };
    sieve_serve::serve(&config, |addr| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
        eprintln!(
            "sieve-search: serving {} index(es), {workers} searches at once; SIGTERM or Ctrl-C stops",
            config.indexes.len()
        );
    })?;
    eprintln!("sieve-search: stopped");
    Ok(())
}
