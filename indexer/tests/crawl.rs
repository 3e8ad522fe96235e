//! Crawl readers over the shared sample data (`SIEVE_SHARED_DATA`), and the
//! `warc` crate measurement (ignored tests).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sieve_indexer::crawl::{self, CrawlEvent, CrawlOptions};

fn shared_data() -> Option<PathBuf> {
    let env = std::env::var_os("SIEVE_SHARED_DATA").map(PathBuf::from);
    let candidates = [
        env,
        Some(PathBuf::from("/work/shared/data")),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")),
    ];
    candidates.into_iter().flatten().find(|p| p.is_dir())
}

/// Per-file summary of what our reader produced.
#[derive(Debug, Default)]
struct Summary {
    /// Records (docs + skips).
    records: usize,
    docs: usize,
    docids: Vec<String>,
    skips: BTreeMap<String, usize>,
    anomalies: BTreeMap<String, u64>,
    truncated_docs: usize,
    error: Option<String>,
}

fn summarize(path: &Path) -> Summary {
    let mut s = Summary::default();
    let reader = match crawl::open(path, &CrawlOptions::default()) {
        Ok(r) => r,
        Err(e) => {
            s.error = Some(e.to_string());
            return s;
        }
    };
    let mut last_off = 0u64;
    for ev in reader {
        match ev {
            Ok(CrawlEvent::Doc(d)) => {
                assert!(d.offset >= last_off, "offsets must be monotonic");
                last_off = d.offset;
                s.records += 1;
                s.docs += 1;
                s.truncated_docs += usize::from(d.truncated);
                s.docids.push(d.docid);
            }
            Ok(CrawlEvent::Skip(k)) => {
                assert!(k.offset >= last_off, "offsets must be monotonic");
                last_off = k.offset;
                s.records += 1;
                *s.skips.entry(k.reason.key()).or_default() += 1;
            }
            Ok(CrawlEvent::Anomaly(a)) => {
                *s.anomalies.entry(a.kind.key().to_string()).or_default() += a.bytes.max(1);
            }
            Err(e) => s.error = Some(e.to_string()),
        }
    }
    s
}

#[test]
fn print_summaries() {
    let Some(root) = shared_data() else {
        eprintln!("SKIPPED: shared data not found (set SIEVE_SHARED_DATA)");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(root.join("warc")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        if f.extension().is_some_and(|e| e == "tsv") { continue; }
        let s = summarize(&f);
        eprintln!("{}: records {} docs {} trunc {} skips {:?} anomalies {:?} err {:?}", f.display(), s.records, s.docs, s.truncated_docs, s.skips, s.anomalies, s.error);
    }
    for f in ["cacm/cacm.derived.trec", "trecweb-wt10g/wt10g-sample-B01", "trecweb-wt10g/wt10g-sample-B02", "trecweb-wt10g/wt10g-sample-B03"] {
        let s = summarize(&root.join(f));
        eprintln!("{}: records {} docs {} trunc {} skips {:?} anomalies {:?} err {:?}", f, s.records, s.docs, s.truncated_docs, s.skips, s.anomalies, s.error);
    }
}

#[test]
fn debug_anoms() {
    let Some(root) = shared_data() else { return; };
    for ev in crawl::open(&root.join("trecweb-wt10g/wt10g-sample-B01"), &CrawlOptions::default()).unwrap() {
        if let Ok(CrawlEvent::Anomaly(a)) = ev { eprintln!("{a:?}"); }
    }
}
