//! Where a command's result goes: a file given with `--output`, written
//! complete or not at all, or stdout; and the check that an output is not
//! one of the command's inputs.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use sieve_format::outfile::OutFile;

/// Where a command's result goes: a file given with `--output`, written
/// at a temporary name and renamed into place by [`Out::finish`] (complete
/// or absent: dropped on an error, it leaves the previous file as it
/// was), or stdout.
pub enum Out {
    File(OutFile),
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Out {
    /// Commits the file (or flushes stdout).
    pub fn finish(self) -> Result<()> {
        match self {
            Out::File(f) => f.commit()?,
            Out::Stdout(mut w) => w.flush()?,
        }
        Ok(())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Stdout(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(w) => w.flush(),
        }
    }
}

/// The output `path` (checked already with [`refuse_inputs`]), or stdout.
pub fn sink(path: Option<&Path>) -> Result<Out> {
    Ok(match path {
        Some(p) => Out::File(OutFile::create(p)?),
        None => Out::Stdout(std::io::BufWriter::new(std::io::stdout())),
    })
}

/// Refuses an output that is one of the command's inputs (same file, by
/// any path), before anything is written.
pub fn refuse_inputs(output: Option<&Path>, inputs: &[&Path]) -> Result<()> {
    if let Some(o) = output {
        sieve_format::outfile::refuse_same_file(o, inputs)?;
    }
    Ok(())
}
