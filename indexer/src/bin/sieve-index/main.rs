//! `sieve-index`: build tantivy indexes from web crawls.

fn main() -> anyhow::Result<()> {
    anyhow::bail!("sieve-index: not built yet")
}
