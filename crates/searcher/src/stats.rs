//! Collection statistics for BM25 and query likelihood: global over
//! shards, or over a subset.
//!
//! Every type implements tantivy's [`Bm25StatisticsProvider`], which is
//! what [`crate::bm25`] reads `N`, the total token count and `df` from, and
//! [`CollectionStats`], which adds a term's total frequency (`ttf`, the
//! number of its occurrences in the field: what the collection language
//! model of [`crate::weighted`] needs).
//!
//! * [`GlobalStats`] sums every shard's own statistics. Scoring each shard
//!   with it gives the scores a single index over all the shards' documents
//!   would give (per-shard statistics, the default of Elasticsearch and
//!   Quickwit, do not).
//! * [`SubsetStats`] counts only the documents of a [`Subset`]: `N` is the
//!   number of kept live documents, the total token count sums the exact
//!   per-document token counts (`body_tokens` / `title_tokens` fast fields)
//!   of the kept documents, and `df(t)` counts kept documents in `t`'s
//!   postings. These are exactly the statistics of an index built from the
//!   kept documents alone, so a query-time filtered run equals a run on an
//!   index filtered at build time.
//! * [`SubsetFamily`] is [`SubsetStats`] for several subsets at once (a
//!   batch's selections), counting a term's `df` in all of them in one
//!   pass over its postings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tantivy::postings::Postings;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, TERMINATED, Term};

use crate::bm25::{Shard, Subset};
use sieve_format::schema::TextField;

/// Collection statistics with total term frequencies: what every retrieval
/// model of [`crate::weighted`] reads.
pub trait CollectionStats: Bm25StatisticsProvider + Sync {
    /// The number of occurrences of `term` in its field over the counted
    /// documents (Lucene's `totalTermFreq`).
    fn total_term_freq(&self, term: &Term) -> tantivy::Result<u64>;
}

/// The total frequency of `term` in the documents of `shards` that
/// `keep(shard, segment, doc)` accepts, deleted documents skipped when
/// `live_only`.
fn count_term_freq(
    shards: &[Shard],
    term: &Term,
    live_only: bool,
    keep: &dyn Fn(usize, usize, u32) -> bool,
) -> tantivy::Result<u64> {
    let mut ttf = 0u64;
    for (s, shard) in shards.iter().enumerate() {
        for (g, segment) in shard.searcher.segment_readers().iter().enumerate() {
            let inverted = segment.inverted_index(term.field())?;
            let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::WithFreqs)?
            else {
                continue;
            };
            let alive = if live_only {
                segment.alive_bitset()
            } else {
                None
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) && keep(s, g, doc) {
                    ttf += u64::from(postings.term_freq());
                }
                doc = postings.advance();
            }
        }
    }
    Ok(ttf)
}

/// Sum of the shards' statistics (`N` counts deleted documents too, as
/// tantivy's own statistics do; an index keeps none: the later copies of
/// a docid that a build deletes are merged away, and the token totals of
/// such an index are the exact ones of [`Shard::token_totals`]).
pub struct GlobalStats<'a> {
    shards: &'a [Shard],
    /// Total term frequencies counted so far.
    term_freqs: Mutex<HashMap<Term, u64>>,
}

impl<'a> GlobalStats<'a> {
    /// Statistics over all of `shards`.
    pub fn new(shards: &'a [Shard]) -> Self {
        GlobalStats {
            shards,
            term_freqs: Mutex::new(HashMap::new()),
        }
    }
}

impl CollectionStats for GlobalStats<'_> {
    /// Summed over every document of every shard, deleted ones included
    /// (as `N` and `df` are, and as Lucene counts it).
    fn total_term_freq(&self, term: &Term) -> tantivy::Result<u64> {
        if let Some(n) = self.term_freqs.lock().map_err(poisoned)?.get(term) {
            return Ok(*n);
        }
        let n = count_term_freq(self.shards, term, false, &|_, _, _| true)?;
        self.term_freqs
            .lock()
            .map_err(poisoned)?
            .insert(term.clone(), n);
        Ok(n)
    }
}

impl Bm25StatisticsProvider for GlobalStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let mut total = 0;
        for shard in self.shards {
            total += match shard.token_totals {
                Some([body, _]) if field == shard.fields.text(TextField::Body) => body,
                Some([_, title]) if field == shard.fields.text(TextField::Title) => title,
                _ => shard.searcher.total_num_tokens(field)?,
            };
        }
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        let mut total = 0;
        for shard in self.shards {
            total += Bm25StatisticsProvider::total_num_docs(&shard.searcher)?;
        }
        Ok(total)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut total = 0;
        for shard in self.shards {
            total += shard.searcher.doc_freq(term)?;
        }
        Ok(total)
    }
}

/// Statistics over the documents of a [`Subset`], across all shards.
pub struct SubsetStats<'a> {
    shards: &'a [Shard],
    subset: &'a Subset,
    num_docs: u64,
    body_tokens: u64,
    title_tokens: u64,
    doc_freqs: Mutex<HashMap<Term, u64>>,
}

impl<'a> SubsetStats<'a> {
    /// Counts the kept documents and their tokens (one pass over two fast
    /// fields per segment). `subset` is indexed `[shard][segment]`.
    pub fn new(shards: &'a [Shard], subset: &'a Subset) -> crate::Result<Self> {
        let mut num_docs = 0u64;
        let mut body_tokens = 0u64;
        let mut title_tokens = 0u64;
        for (shard, per_segment) in shards.iter().zip(subset) {
            for (segment, kept) in shard.searcher.segment_readers().iter().zip(per_segment) {
                let fast = segment.fast_fields();
                let body = fast.u64(TextField::Body.tokens_field())?;
                let title = fast.u64(TextField::Title.tokens_field())?;
                let alive = segment.alive_bitset();
                let mut add = |doc: u32| {
                    if alive.is_none_or(|a| a.is_alive(doc)) {
                        num_docs += 1;
                        body_tokens += body.first(doc).unwrap_or(0);
                        title_tokens += title.first(doc).unwrap_or(0);
                    }
                };
                match kept {
                    Some(bitmap) => bitmap.iter().for_each(&mut add),
                    None => (0..segment.max_doc()).for_each(&mut add),
                }
            }
        }
        Ok(SubsetStats {
            shards,
            subset,
            num_docs,
            body_tokens,
            title_tokens,
            doc_freqs: Mutex::new(HashMap::new()),
        })
    }

    /// Number of kept live documents.
    pub fn num_docs(&self) -> u64 {
        self.num_docs
    }

    fn count_doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut df = 0u64;
        for (shard, per_segment) in self.shards.iter().zip(self.subset) {
            for (segment, kept) in shard.searcher.segment_readers().iter().zip(per_segment) {
                let inverted = segment.inverted_index(term.field())?;
                let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)?
                else {
                    continue;
                };
                let alive = segment.alive_bitset();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    let in_subset = kept.as_ref().is_none_or(|b| b.contains(doc));
                    if in_subset && alive.is_none_or(|a| a.is_alive(doc)) {
                        df += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        Ok(df)
    }
}

impl Bm25StatisticsProvider for SubsetStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let fields = &self.shards[0].fields;
        if field == fields.body {
            Ok(self.body_tokens)
        } else if field == fields.title {
            Ok(self.title_tokens)
        } else {
            Err(tantivy::TantivyError::InvalidArgument(format!(
                "no token counts for field {field:?}"
            )))
        }
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.num_docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        if let Some(df) = self.doc_freqs.lock().map_err(poisoned)?.get(term) {
            return Ok(*df);
        }
        let df = self.count_doc_freq(term)?;
        self.doc_freqs
            .lock()
            .map_err(poisoned)?
            .insert(term.clone(), df);
        Ok(df)
    }
}

/// Statistics over each of several subsets at once (the selections of one
/// batch), as [`SubsetStats`] gives for one: each [`SubsetFamily::member`]
/// equals the [`SubsetStats`] of its subset. A term's document
/// frequencies in every subset are counted in **one** pass over its
/// postings (a sweep of ten thresholds reads each postings list once, not
/// ten times) and cached.
pub struct SubsetFamily<'a> {
    shards: &'a [Shard],
    subsets: &'a [Subset],
    members: Vec<SubsetStats<'a>>,
    doc_freqs: Mutex<HashMap<Term, Arc<[u64]>>>,
    /// Total term frequencies counted so far, per (subset, term).
    term_freqs: Mutex<HashMap<(usize, Term), u64>>,
}

impl<'a> SubsetFamily<'a> {
    /// Counts the kept documents and tokens of every subset.
    pub fn new(shards: &'a [Shard], subsets: &'a [Subset]) -> crate::Result<Self> {
        Ok(SubsetFamily {
            shards,
            subsets,
            members: subsets
                .iter()
                .map(|s| SubsetStats::new(shards, s))
                .collect::<crate::Result<_>>()?,
            doc_freqs: Mutex::new(HashMap::new()),
            term_freqs: Mutex::new(HashMap::new()),
        })
    }

    /// The statistics of subset `i`.
    pub fn member(&self, i: usize) -> FamilyMember<'_, 'a> {
        FamilyMember { family: self, i }
    }

    fn doc_freqs(&self, term: &Term) -> tantivy::Result<Arc<[u64]>> {
        if let Some(df) = self.doc_freqs.lock().map_err(poisoned)?.get(term) {
            return Ok(df.clone());
        }
        let mut df = vec![0u64; self.subsets.len()];
        for (s, shard) in self.shards.iter().enumerate() {
            for (g, segment) in shard.searcher.segment_readers().iter().enumerate() {
                let inverted = segment.inverted_index(term.field())?;
                let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)?
                else {
                    continue;
                };
                let kept: Vec<Option<&roaring::RoaringBitmap>> =
                    self.subsets.iter().map(|sub| sub[s][g].as_ref()).collect();
                let alive = segment.alive_bitset();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if alive.is_none_or(|a| a.is_alive(doc)) {
                        for (n, k) in df.iter_mut().zip(&kept) {
                            if k.is_none_or(|b| b.contains(doc)) {
                                *n += 1;
                            }
                        }
                    }
                    doc = postings.advance();
                }
            }
        }
        let df: Arc<[u64]> = df.into();
        self.doc_freqs
            .lock()
            .map_err(poisoned)?
            .insert(term.clone(), df.clone());
        Ok(df)
    }
}

/// One subset of a [`SubsetFamily`].
pub struct FamilyMember<'f, 'a> {
    family: &'f SubsetFamily<'a>,
    i: usize,
}

impl FamilyMember<'_, '_> {
    /// Number of kept live documents.
    pub fn num_docs(&self) -> u64 {
        self.family.members[self.i].num_docs
    }
}

impl Bm25StatisticsProvider for FamilyMember<'_, '_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.family.members[self.i].total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.num_docs())
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self.family.doc_freqs(term)?[self.i])
    }
}

impl CollectionStats for FamilyMember<'_, '_> {
    /// Summed over the kept live documents.
    fn total_term_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let family = self.family;
        let key = (self.i, term.clone());
        if let Some(n) = family.term_freqs.lock().map_err(poisoned)?.get(&key) {
            return Ok(*n);
        }
        let subset = &family.subsets[self.i];
        let n = count_term_freq(family.shards, term, true, &|s, g, doc| {
            subset[s][g].as_ref().is_none_or(|b| b.contains(doc))
        })?;
        family.term_freqs.lock().map_err(poisoned)?.insert(key, n);
        Ok(n)
    }
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> tantivy::TantivyError {
    tantivy::TantivyError::InternalError("doc-freq cache lock poisoned".into())
}
