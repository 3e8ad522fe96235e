//! `sieve-filter utf8 FILE...`: stream each file through the cleaner.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;
use sieve_filters::utf8::{Counting, Utf8Counts};
use sieve_format::outfile::OutFile;
use sieve_text::Error;
use sieve_text::utf8stream::{Sink, clean_stream};

/// Arguments of `sieve-filter utf8`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to scan (`-` reads standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the cleaned bytes here (needs exactly one input; `-` is stdout).
    #[arg(long = "output", alias = "out", value_name = "FILE")]
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

/// Runs the subcommand: each file in turn; a file that cannot be read is
/// named on stderr and the others still read, then the command fails.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.out.is_some() && args.files.len() != 1 {
        bail!(
            "--output needs exactly one input file, got {}",
            args.files.len()
        );
    }
    let counting = if args.atire_counts {
        Counting::Atire
    } else {
        Counting::Exact
    };
    if let Some(out) = args.out.as_deref().filter(|p| p.as_os_str() != "-") {
        sieve_format::outfile::refuse_same_file(out, &args.files)?;
    }
    let mut failed = Vec::new();
    for path in &args.files {
        let name = path.to_string_lossy();
        let file = match &args.out {
            Some(p) if p.as_os_str() != "-" => Some(OutFile::create(p)?),
            _ => None,
        };
        match clean_file(args, path, counting, file) {
            Ok((bytes, counts)) => print_report(args, &name, bytes, counts)?,
            // The reader of stdout (`--output -`) stopped early: not an error.
            Err(e) if sieve_cli::exit::is_broken_pipe(&e) => return Ok(()),
            Err(e) => {
                // The file is named already: print only the I/O error.
                match &e {
                    Error::Io { source, .. } => eprintln!("sieve-filter: {name}: {source}"),
                    e => eprintln!("sieve-filter: {name}: {e}"),
                }
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

/// Streams `path` (`-`: stdin) through the cleaner, the cleaned bytes to
/// `--output`: to `file`, committed only once complete, or to stdout for
/// `--output -`. Returns the bytes read and the error counts.
fn clean_file(
    args: &Args,
    path: &Path,
    counting: Counting,
    mut file: Option<OutFile>,
) -> Result<(u64, Utf8Counts), Error> {
    let mut boxed: Option<Box<dyn Write + '_>> = match (&args.out, file.as_mut()) {
        (_, Some(f)) => Some(Box::new(f)),
        (Some(_), None) => Some(Box::new(BufWriter::new(io::stdout()))),
        (None, None) => None,
    };
    let out_name = args.out.as_deref().unwrap_or(Path::new("-"));
    let sink = boxed.as_deref_mut().map(|writer| Sink {
        writer,
        name: out_name,
    });
    let result = if path.as_os_str() == "-" {
        clean_stream(io::stdin().lock(), path, counting, sink)
    } else {
        File::open(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })
            .and_then(|f| clean_stream(f, path, counting, sink))
    };
    drop(boxed);
    // The cleaned file is complete: only now does it replace `--output`.
    match (result, file) {
        // `commit` fails only on I/O, as the text layer's own `Io`.
        (Ok(done), Some(f)) => f.commit().map(|()| done).map_err(|e| match e {
            sieve_format::Error::Io { path, source } => Error::Io { path, source },
            other => Error::Io {
                path: PathBuf::from(&path.to_string_lossy().to_string()),
                source: io::Error::other(other.to_string()),
            },
        }),
        (result, _) => result,
    }
}

/// Prints the JSON line of one file: on stdout, or on stderr when the
/// cleaned bytes own stdout (`--output -`).
fn print_report(args: &Args, name: &str, bytes: u64, counts: Utf8Counts) -> anyhow::Result<()> {
    let line = serde_json::to_string(&Report {
        file: name,
        bytes,
        counts,
    })?;
    if matches!(&args.out, Some(p) if p.as_os_str() == "-") {
        eprintln!("{line}");
    } else {
        writeln!(io::stdout().lock(), "{line}")?;
    }
    Ok(())
}
