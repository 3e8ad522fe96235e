//! `sieve-index show`: documents of an index back out, as text, JSON, one
//! HTML page or the original bytes of their records.

use std::io::Write;
use std::process::ExitCode;

use sieve_cli::exit::{ExitStatus, error_chain};
use sieve_report::show::{Checked, ShowIndex, Shown};

use crate::args::ShowCmd;
use crate::{exit, warn_unfinished};

/// `sieve-index show`: each docid in turn; a docid not found or whose
/// source cannot be read is named on stderr and the others still shown.
/// Exit 1 if a source could not be read, else 4 if a docid was not found.
pub fn run_show(a: ShowCmd) -> anyhow::Result<ExitCode> {
    let index = &a.index.index;
    let ix = ShowIndex::open(index, a.unfinished.mode())?;
    warn_unfinished(index);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut missing, mut failed) = (0usize, 0usize);
    let mut page = Vec::new();
    for docid in &a.docids {
        let result = if a.raw {
            ix.raw(docid, &mut out)
                .map(|reads| say_raw_reads(docid, &reads))
        } else {
            ix.show(docid)
                .and_then(|docs| write_docs(docs, &a, &mut page, &mut out))
        };
        match result {
            Ok(()) => {}
            Err(e @ sieve_report::Error::NoSuchDocid { .. }) => {
                eprintln!("sieve-index show: {}", error_chain(&e));
                missing += 1;
            }
            // The reader of stdout stopped early: not an error.
            Err(e) if sieve_cli::exit::is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
            Err(e) => {
                eprintln!("sieve-index show: error: {}", error_chain(&e));
                failed += 1;
            }
        }
    }
    if a.html {
        let terms = a
            .query
            .as_deref()
            .map(|q| ix.query_terms(q))
            .unwrap_or_default();
        ix.write_html(&page, &terms, &mut out)?;
    }
    out.flush()?;
    Ok(exit(if failed > 0 {
        ExitStatus::Error
    } else if missing > 0 {
        ExitStatus::Empty
    } else {
        ExitStatus::Success
    }))
}

/// Says on stderr how the records of `docid` written raw were reached: a
/// one-stream gzip file decompressed from its start, or a source checked
/// by size and time only.
fn say_raw_reads(docid: &str, reads: &[(sieve_crawl::SpanRead, Checked)]) {
    for (r, checked) in reads {
        if r.skipped > 0 {
            eprintln!(
                "sieve-index show: {docid}: one gzip stream: {} bytes decompressed from the start of the file to reach the record",
                r.skipped
            );
        }
        if *checked == Checked::SizeAndTime {
            eprintln!("sieve-index show: {docid}: checked {}", checked.text());
        }
    }
}

/// Writes the documents of one docid to `out` as `a` asks (JSON or text),
/// or keeps them in `page` for the HTML page written at the end.
fn write_docs(
    docs: Vec<Shown>,
    a: &ShowCmd,
    page: &mut Vec<Shown>,
    out: &mut impl Write,
) -> sieve_report::Result<()> {
    let stdout_error = |e| sieve_report::Error::Io {
        path: "(stdout)".into(),
        source: e,
    };
    for d in docs {
        if a.html {
            page.push(d);
        } else if a.json {
            writeln!(out, "{}", serde_json::to_string(&d).unwrap_or_default())
                .map_err(stdout_error)?;
        } else {
            sieve_report::show::write_text(&d, out)
                .and_then(|()| writeln!(out))
                .map_err(stdout_error)?;
        }
    }
    Ok(())
}
