//! Feedback as a query rewrite: the feedback query of a topic from
//! first-stage hits given from outside (a PyTerrier pipeline's previous
//! stage), to be searched by whatever comes next. RM3 and Rocchio only:
//! their second search is the first stage's model over the weighted terms,
//! which a weighted query says in full; BM25-PRF's is BM25 with an idf of
//! 1 and its own k1 and b, which it does not.

use sieve_format::schema::TextField;

use super::index::{IndexInput, locate, term_vectors};
use super::{Expansion, Feedback, anserini_order};
use crate::bm25::{BagOfWords, Hit, Shard};
use crate::stats::CollectionStats;
use crate::{Error, Result};

/// A topic's first stage over `shards` as feedback reads it: `hits` in
/// Anserini's order ([`anserini_order`]), with the term vectors of the
/// top `top` and the bottom `bottom` of them, and the statistics `stats`.
pub fn index_input<'a>(
    shards: &[Shard],
    field: TextField,
    stats: &'a dyn CollectionStats,
    mut hits: Vec<Hit>,
    (top, bottom): (usize, usize),
) -> Result<IndexInput<'a>> {
    anserini_order(&mut hits);
    let n = hits.len();
    let read = super::staged::feedback_ranks(n, (top, bottom));
    let places = read
        .iter()
        .map(|&r| locate(shards, &hits[r].docid))
        .collect::<Result<Vec<_>>>()?;
    let mut vectors = term_vectors(shards, field, &places)?.into_iter();
    Ok(IndexInput {
        hits: hits
            .into_iter()
            .enumerate()
            .map(|(r, h)| (h, read.binary_search(&r).ok().and_then(|_| vectors.next())))
            .collect(),
        stats,
        field: shards[0].fields.text(field),
    })
}

/// The feedback query of `setting` for the topic `query` whose first
/// stage found `hits` (any order: they are ranked as Anserini ranks them;
/// a docid the index does not hold is an error). Refuses BM25-PRF (module
/// docs).
pub fn expand_hits(
    shards: &[Shard],
    field: TextField,
    stats: &dyn CollectionStats,
    (query, hits): (&BagOfWords, Vec<Hit>),
    setting: &Feedback,
) -> Result<Expansion> {
    if matches!(setting, Feedback::Bm25Prf(_)) || shards.is_empty() {
        return Err(Error::InvalidParameter {
            name: "query rewrite",
            expected: "rm3 or rocchio over at least one index (BM25-PRF's second search is not a weighted query: use it inside the retriever)",
            got: setting.label(),
        });
    }
    let input = index_input(shards, field, stats, hits, setting.documents_read())?;
    setting.expand(&query.terms, &input)
}
