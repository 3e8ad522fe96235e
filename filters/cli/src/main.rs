//! `sieve-filter`: UTF-8 error counts and docid filter files.

fn main() -> anyhow::Result<()> {
    anyhow::bail!("sieve-filter: not built yet")
}
