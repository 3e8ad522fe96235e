//! `sieve-filter utf8 FILE...`: stream each file through the cleaner.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use sieve_filters::utf8::{Counting, StreamCleaner, Utf8Counts};

/// Bytes read per chunk; memory stays bounded whatever the file size.
const CHUNK: usize = 1 << 20;

/// Arguments of `sieve-filter utf8`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to scan (`-` reads standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the cleaned bytes here (needs exactly one input; `-` is stdout).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Count as ATIRE would: leftover over-long bytes also count as
    /// unexpected continuation bytes (output bytes are the same).
    #[arg(long)]
    atire_counts: bool,
}

/// One output line.
#[derive(serde::Serialize)]
struct Report<'a> {
    file: &'a str,
    bytes: u64,
    #[serde(flatten)]
    counts: Utf8Counts,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.out.is_some() && args.files.len() != 1 {
        bail!(
            "--out needs exactly one input file, got {}",
            args.files.len()
        );
    }
    let counting = if args.atire_counts {
        Counting::Atire
    } else {
        Counting::Exact
    };
    let stdout = io::stdout();
    let mut failed = Vec::new();
    for path in &args.files {
        let name = path.to_string_lossy();
        let mut sink: Option<Box<dyn Write>> = match &args.out {
            None => None,
            Some(p) if p.as_os_str() == "-" => Some(Box::new(BufWriter::new(io::stdout()))),
            Some(p) => Some(Box::new(BufWriter::new(
                File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
            ))),
        };
        let result = if path.as_os_str() == "-" {
            scan(io::stdin().lock(), counting, sink.as_deref_mut())
        } else {
            File::open(path)
                .map_err(anyhow::Error::from)
                .and_then(|f| scan(f, counting, sink.as_deref_mut()))
        };
        match result {
            Ok((bytes, counts)) => {
                let line = serde_json::to_string(&Report {
                    file: &name,
                    bytes,
                    counts,
                })?;
                // With `--out -` the cleaned bytes own stdout; the report goes to stderr.
                if matches!(&args.out, Some(p) if p.as_os_str() == "-") {
                    eprintln!("{line}");
                } else {
                    writeln!(stdout.lock(), "{line}")?;
                }
            }
            Err(e) => {
                eprintln!("sieve-filter: {name}: {e:#}");
                failed.push(name.into_owned());
            }
        }
    }
    if !failed.is_empty() {
        bail!(
            "could not read {} file(s): {}",
            failed.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// Streams `input` through a [`StreamCleaner`], writing cleaned bytes to
/// `sink` if given; returns the byte count and the error counts.
fn scan<W: Write + ?Sized>(
    mut input: impl Read,
    counting: Counting,
    mut sink: Option<&mut W>,
) -> anyhow::Result<(u64, Utf8Counts)> {
    let mut cleaner = StreamCleaner::new(counting);
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + 8);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        out.clear();
        cleaner.feed(&buf[..n], &mut out);
        if let Some(w) = sink.as_deref_mut() {
            w.write_all(&out)?;
        }
    }
    let bytes = cleaner.bytes_in();
    out.clear();
    let counts = cleaner.finish(&mut out);
    if let Some(w) = sink {
        w.write_all(&out)?;
        w.flush()?;
    }
    Ok((bytes, counts))
}
