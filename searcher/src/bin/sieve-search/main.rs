//! `sieve-search`: run TREC topics, evaluate and compare runs.

fn main() -> anyhow::Result<()> {
    anyhow::bail!("sieve-search: not built yet")
}
