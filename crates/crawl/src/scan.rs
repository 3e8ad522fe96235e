//! A read-only pass over crawl files (`sieve-index scan`): every record is
//! read, its HTTP head parsed and its whole body read (de-chunked and
//! gunzipped as for indexing), and nothing is indexed. It answers "how many
//! records does sieve recover from this file, and how fast does it read?"
//! for comparisons with other WARC readers (`bench/peers/warc_read.py`).
//! Gzip input is inflated on a second thread, ahead of the parser
//! ([`CrawlOptions::inflate_ahead`]): `seconds` is wall-clock time with up
//! to two cores busy, and the records read are those of a single thread.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::{CrawlEvent, CrawlOptions, open};

/// What [`scan`] found in one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ScanStats {
    /// The file, as given.
    pub file: String,
    /// Its size on disk.
    pub bytes: u64,
    /// Records of any type (WARC records, or TREC documents).
    pub records: u64,
    /// Records that are HTTP responses (TREC documents count as responses).
    pub responses: u64,
    /// Responses that would be indexed as HTML.
    pub html: u64,
    /// Recoverable framing problems met (see [`crate::Anomaly`]).
    pub anomalies: u64,
    /// Bytes those problems skipped, cut or missed.
    pub anomaly_bytes: u64,
    /// Body bytes read (after de-chunking and gunzipping, before caps).
    pub body_bytes: u64,
    /// Why reading stopped before the end of the file, if it did.
    pub error: Option<String>,
    /// Wall-clock seconds of the pass (open to last record).
    pub seconds: f64,
}

/// Reads `path` to its end (or to the first unrecoverable error).
pub fn scan(path: &Path, opts: &CrawlOptions) -> ScanStats {
    let mut s = ScanStats {
        file: path.display().to_string(),
        bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        ..ScanStats::default()
    };
    let started = Instant::now();
    // One file is read by one thread: gzip is inflated on another, ahead.
    let opts = CrawlOptions {
        inflate_ahead: true,
        ..opts.clone()
    };
    match open(path, &opts) {
        Err(e) => s.error = Some(e.to_string()),
        Ok(reader) => {
            for event in reader {
                match event {
                    Ok(CrawlEvent::Doc(d)) => {
                        s.records += 1;
                        s.responses += 1;
                        s.html += 1;
                        s.body_bytes += d.body.len() as u64;
                    }
                    Ok(CrawlEvent::Skip(k)) => {
                        s.records += 1;
                        if k.reason.is_response() {
                            s.responses += 1;
                        }
                    }
                    Ok(CrawlEvent::Anomaly(a)) => {
                        s.anomalies += 1;
                        s.anomaly_bytes += a.bytes;
                    }
                    Err(e) => s.error = Some(e.to_string()),
                }
            }
        }
    }
    s.seconds = started.elapsed().as_secs_f64();
    s
}
