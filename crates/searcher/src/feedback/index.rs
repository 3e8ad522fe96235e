//! What feedback reads from and does to a sieve index: documents found by
//! docid ([`Addresses`]), their analysed terms with frequencies
//! ([`term_vectors`]: the postings of every term of the field, read at the
//! feedback documents: exactly the terms and frequencies the index holds),
//! statistics as a [`FeedbackInput`] wants them ([`IndexInput`]), and the
//! second search ([`weighted_search`]): BM25 of weighted terms, every
//! posting scored, as a Lucene `BooleanQuery` of `BoostQuery` clauses
//! ranks them (a term's BM25 weight is its boost times its idf, or its
//! boost alone for BM25-PRF), in trec_eval order.

use std::collections::HashMap;

use roaring::RoaringBitmap;
use sieve_format::schema::TextField;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::Postings;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, TERMINATED, Term};

use super::{Expansion, FeedbackInput, Rescoring};
use crate::bm25::{Bm25Params, Hit, Shard, Subset, idf, trec_order};
use crate::{Error, Result};

/// Where a document is: shard, segment (in `segment_readers()` order), doc id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocAt {
    /// The shard.
    pub shard: usize,
    /// The segment.
    pub segment: usize,
    /// The document in the segment.
    pub doc: DocId,
}

/// Every live document's place, by docid.
pub struct Addresses(HashMap<String, DocAt>);

impl Addresses {
    /// Reads the docid column of every segment of `shards`.
    pub fn new(shards: &[Shard]) -> Result<Addresses> {
        let mut map = HashMap::new();
        let mut buf = String::new();
        for (s, shard) in shards.iter().enumerate() {
            let columns = shard.docid_columns()?;
            for (g, (seg, ids)) in shard
                .searcher
                .segment_readers()
                .iter()
                .zip(columns)
                .enumerate()
            {
                let alive = seg.alive_bitset();
                for doc in (0..seg.max_doc()).filter(|&d| alive.is_none_or(|a| a.is_alive(d))) {
                    let Some(ord) = ids.term_ords(doc).next() else {
                        continue;
                    };
                    buf.clear();
                    ids.ord_to_str(ord, &mut buf).map_err(|e| Error::Index {
                        index: shard.name.clone(),
                        detail: format!("docid of document {doc}: {e}"),
                    })?;
                    map.insert(
                        buf.clone(),
                        DocAt {
                            shard: s,
                            segment: g,
                            doc,
                        },
                    );
                }
            }
        }
        Ok(Addresses(map))
    }

    /// The place of `docid`.
    pub fn get(&self, docid: &str) -> Result<DocAt> {
        self.0.get(docid).copied().ok_or_else(|| Error::Index {
            index: "searched shards".into(),
            detail: format!("no live document with docid {docid:?}"),
        })
    }
}

/// The analysed terms of field `field` of each of `docs`, with their
/// frequencies, in byte order: one pass over the term dictionary of each
/// segment holding some of them.
pub fn term_vectors(
    shards: &[Shard],
    field: TextField,
    docs: &[DocAt],
) -> Result<Vec<Vec<(String, u32)>>> {
    let mut out = vec![Vec::new(); docs.len()];
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by_key(|&i| docs[i]);
    for group in order
        .chunk_by(|&a, &b| (docs[a].shard, docs[a].segment) == (docs[b].shard, docs[b].segment))
    {
        let at = docs[group[0]];
        let shard = &shards[at.shard];
        let seg = shard.searcher.segment_reader(at.segment as u32);
        let inverted = seg.inverted_index(shard.fields.text(field))?;
        let io = |source| Error::Io {
            path: shard.dir.clone(),
            source,
        };
        let mut terms = inverted.terms().stream().map_err(io)?;
        while terms.advance() {
            let mut postings = inverted
                .read_postings_from_terminfo(terms.value(), IndexRecordOption::WithFreqs)
                .map_err(io)?;
            for &i in group {
                let d = docs[i].doc;
                if postings.doc() < d {
                    postings.seek(d);
                }
                if postings.doc() == d {
                    let text = String::from_utf8_lossy(terms.key()).into_owned();
                    out[i].push((text, postings.term_freq()));
                }
            }
        }
    }
    Ok(out)
}

/// A topic's first stage over an index: hits in Anserini's order, the
/// term vectors of those feedback reads, and the run's statistics.
pub struct IndexInput<'a> {
    /// `(hit, its term vector if read)`, in rank order.
    pub hits: Vec<(Hit, Option<Vec<(String, u32)>>)>,
    /// The run's statistics.
    pub stats: &'a dyn Bm25StatisticsProvider,
    /// The field's handle.
    pub field: Field,
}

impl FeedbackInput for IndexInput<'_> {
    fn hits(&self) -> usize {
        self.hits.len()
    }
    fn score(&self, rank: usize) -> f32 {
        self.hits.get(rank).map_or(0.0, |h| h.0.score)
    }
    fn vector(&self, rank: usize) -> Result<Vec<(String, u32)>> {
        match self.hits.get(rank) {
            Some((_, Some(v))) => Ok(v.clone()),
            _ => Err(Error::Index {
                index: "feedback".into(),
                detail: format!("the term vector of rank {rank} was not read"),
            }),
        }
    }
    fn num_docs(&self) -> u64 {
        self.stats.total_num_docs().unwrap_or(0)
    }
    fn doc_freq(&self, term: &str) -> Result<u64> {
        Ok(self
            .stats
            .doc_freq(&Term::from_field_text(self.field, term))?)
    }
}

/// How the second search scores: the first stage's BM25 setting, the
/// run's statistics and selection.
pub struct Rescore<'a> {
    /// The first stage's BM25 parameters.
    pub params: Bm25Params,
    /// The run's statistics.
    pub stats: &'a dyn Bm25StatisticsProvider,
    /// The run's selection (`None`: every document).
    pub subset: Option<&'a Subset>,
}

/// The top `k` documents for the weighted terms of `e`, in trec_eval
/// order: `Σ_t weight(t) · idf(t) · tf / (tf + k1 · (1 − b + b · dl / avgdl))`
/// in `f32`, terms in the expansion's order; `idf` is 1 for
/// [`Rescoring::Bm25UnitIdf`], whose `k1` and `b` replace the run's.
pub fn weighted_search(
    shards: &[Shard],
    field: TextField,
    e: &Expansion,
    r: &Rescore<'_>,
    k: usize,
) -> Result<Vec<Hit>> {
    let Some(handle) = shards.first().map(|s| s.fields.text(field)) else {
        return Ok(Vec::new());
    };
    let n = r.stats.total_num_docs()?;
    if n == 0 || e.terms.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let (params, unit_idf) = match e.rescoring {
        Rescoring::FirstStage => (r.params, false),
        Rescoring::Bm25UnitIdf(p) => (p, true),
    };
    let avgdl = r.stats.total_num_tokens(handle)? as Score / n as Score;
    let norm: Vec<Score> = (0..=255u8)
        .map(|id| {
            let dl = FieldNormReader::id_to_fieldnorm(id) as Score;
            let ratio = if avgdl > 0.0 { dl / avgdl } else { 0.0 };
            params.k1 * (1.0 - params.b + params.b * ratio)
        })
        .collect();
    let mut weights = Vec::with_capacity(e.terms.len());
    for (t, boost) in &e.terms {
        let term = Term::from_field_text(handle, t);
        let df = r.stats.doc_freq(&term)?;
        let w = if unit_idf {
            *boost
        } else if df == 0 {
            0.0
        } else {
            boost * idf(df, n)
        };
        weights.push((term, w));
    }
    let mut hits: Vec<(Score, DocAt)> = Vec::new();
    for (s, shard) in shards.iter().enumerate() {
        for (g, seg) in shard.searcher.segment_readers().iter().enumerate() {
            let kept = r.subset.and_then(|sub| sub[s][g].as_ref());
            let scores = score_segment(seg, shard.fields.text(field), &weights, &norm, kept)?;
            hits.extend(scores.into_iter().map(|(doc, sc)| {
                (
                    sc,
                    DocAt {
                        shard: s,
                        segment: g,
                        doc,
                    },
                )
            }));
        }
    }
    top_k(shards, hits, k)
}

/// Every matching live document of one segment (in `kept` when given)
/// with its score.
fn score_segment(
    seg: &tantivy::SegmentReader,
    field: Field,
    weights: &[(Term, Score)],
    norm: &[Score],
    kept: Option<&RoaringBitmap>,
) -> Result<Vec<(DocId, Score)>> {
    let inverted = seg.inverted_index(field)?;
    let fieldnorms = seg.get_fieldnorms_reader(field)?;
    let alive = seg.alive_bitset();
    let mut acc: HashMap<DocId, Score> = HashMap::new();
    for (term, w) in weights {
        let postings = inverted
            .read_postings(term, IndexRecordOption::WithFreqs)
            .map_err(tantivy::TantivyError::from)?;
        let Some(mut postings) = postings else {
            continue;
        };
        let mut doc = postings.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc)) && kept.is_none_or(|b| b.contains(doc)) {
                let tf = postings.term_freq() as Score;
                let nm = norm[fieldnorms.fieldnorm_id(doc) as usize];
                *acc.entry(doc).or_insert(0.0) += w * (tf / (tf + nm));
            }
            doc = postings.advance();
        }
    }
    Ok(acc.into_iter().collect())
}

/// The best `k` of `hits`, with their docids, in trec_eval order.
fn top_k(shards: &[Shard], hits: Vec<(Score, DocAt)>, k: usize) -> Result<Vec<Hit>> {
    let mut named = Vec::with_capacity(hits.len());
    let mut buf = String::new();
    for (score, at) in hits {
        let shard = &shards[at.shard];
        let ids = &shard.docid_columns()?[at.segment];
        buf.clear();
        if let Some(ord) = ids.term_ords(at.doc).next() {
            ids.ord_to_str(ord, &mut buf).map_err(|e| Error::Index {
                index: shard.name.clone(),
                detail: format!("docid of document {}: {e}", at.doc),
            })?;
        }
        named.push(Hit {
            docid: buf.clone(),
            score,
        });
    }
    named.sort_by(trec_order);
    named.truncate(k);
    Ok(named)
}
