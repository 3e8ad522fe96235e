//! What feedback reads from a sieve index: documents found by docid
//! ([`locate`]), their analysed terms with frequencies ([`term_vectors`]:
//! the stored document vector of an index built with `--docvectors`,
//! otherwise the postings of every term of the field read at the feedback
//! documents; exactly the terms and frequencies the index holds either
//! way), and
//! statistics as a [`FeedbackInput`] wants them ([`IndexInput`]). The
//! second search is [`crate::weighted::search_weighted`].

use sieve_format::schema::{BODY_VECTOR, TextField};
use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, TERMINATED, TantivyDocument, Term};

use super::FeedbackInput;
use crate::bm25::{Hit, Shard};
use crate::stats::CollectionStats;
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

/// The place of `docid`: its first live document, in shard then segment
/// order (a docid the index holds twice gives its first document's terms,
/// see docs/reliability.md, "One document per docid"). One term lookup in
/// the exact `docid` field per segment, so only the feedback documents are
/// looked up, whatever the size of the collection.
pub fn locate(shards: &[Shard], docid: &str) -> Result<DocAt> {
    find(shards, docid)?.ok_or_else(|| Error::Index {
        index: "searched shards".into(),
        detail: format!("no live document with docid {docid:?}"),
    })
}

/// [`locate`], with `None` for a docid that no live document of `shards`
/// has (a feedback document held by another shard, in the staged
/// protocol of [`super::staged`]).
pub fn find(shards: &[Shard], docid: &str) -> Result<Option<DocAt>> {
    for (s, shard) in shards.iter().enumerate() {
        let field = shard.fields.docid;
        for (g, seg) in shard.searcher.segment_readers().iter().enumerate() {
            let term = Term::from_field_text(field, docid);
            let postings = seg
                .inverted_index(field)?
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| Error::Index {
                    index: shard.name.clone(),
                    detail: format!("docid {docid:?}: {e}"),
                })?;
            let Some(mut postings) = postings else {
                continue;
            };
            let alive = seg.alive_bitset();
            let mut doc = postings.doc();
            while doc != TERMINATED && alive.is_some_and(|a| !a.is_alive(doc)) {
                doc = postings.advance();
            }
            if doc != TERMINATED {
                return Ok(Some(DocAt {
                    shard: s,
                    segment: g,
                    doc,
                }));
            }
        }
    }
    Ok(None)
}

/// Whether feedback on `field` reads stored document vectors from every
/// one of `shards` (built with `--docvectors`; only `body` has them), so
/// that it need not scan the term dictionary.
pub fn has_stored_vectors(shards: &[Shard], field: TextField) -> bool {
    field == TextField::Body && shards.iter().all(|s| s.fields.body_vector.is_some())
}

/// The analysed terms of field `field` of each of `docs`, with their
/// frequencies, in byte order: the stored document vector where the shard
/// has them ([`has_stored_vectors`]), otherwise one pass over the term
/// dictionary of each segment holding some of the documents.
pub fn term_vectors(
    shards: &[Shard],
    field: TextField,
    docs: &[DocAt],
) -> Result<Vec<Vec<(String, u32)>>> {
    let mut out = vec![Vec::new(); docs.len()];
    let mut scan: Vec<usize> = Vec::with_capacity(docs.len());
    for (i, at) in docs.iter().enumerate() {
        let shard = &shards[at.shard];
        match shard.fields.body_vector {
            Some(stored) if field == TextField::Body => out[i] = stored_vector(shard, stored, *at)?,
            _ => scan.push(i),
        }
    }
    if !scan.is_empty() {
        postings_vectors(shards, field, docs, scan, &mut out)?;
    }
    Ok(out)
}

/// The stored vector of the document at `at` (field `stored` of its shard).
/// A missing or damaged value is an error naming the index, the segment,
/// the document and the byte offset.
fn stored_vector(shard: &Shard, stored: Field, at: DocAt) -> Result<Vec<(String, u32)>> {
    let bad = |detail: String| Error::Index {
        index: shard.dir.display().to_string(),
        detail: format!(
            "segment {} document {}: stored field {BODY_VECTOR}: {detail}",
            at.segment, at.doc
        ),
    };
    let doc: TantivyDocument = shard
        .searcher
        .doc(DocAddress::new(at.segment as u32, at.doc))
        .map_err(|e| bad(e.to_string()))?;
    let value = doc.get_first(stored).ok_or_else(|| bad("missing".into()))?;
    let bytes = value
        .as_bytes()
        .ok_or_else(|| bad("expected bytes, got another type".into()))?;
    sieve_format::docvector::decode(bytes).map_err(|e| bad(e.to_string()))
}

/// [`term_vectors`] read from the postings only, whatever the index
/// stores: the reference stored vectors are checked against.
pub fn term_vectors_from_postings(
    shards: &[Shard],
    field: TextField,
    docs: &[DocAt],
) -> Result<Vec<Vec<(String, u32)>>> {
    let mut out = vec![Vec::new(); docs.len()];
    postings_vectors(shards, field, docs, (0..docs.len()).collect(), &mut out)?;
    Ok(out)
}

/// [`term_vectors`] from the postings, for the documents `order` (indexes
/// into `docs`); the others' slots of `out` are left alone.
fn postings_vectors(
    shards: &[Shard],
    field: TextField,
    docs: &[DocAt],
    mut order: Vec<usize>,
    out: &mut [Vec<(String, u32)>],
) -> Result<()> {
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
    Ok(())
}

/// A document's analysed terms with their frequencies, in byte order.
pub type TermVector = Vec<(String, u32)>;

/// A topic's first stage over an index: hits in Anserini's order, the
/// term vectors of those feedback reads, and the run's statistics.
pub struct IndexInput<'a> {
    /// `(hit, its term vector if read)`, in rank order.
    pub hits: Vec<(Hit, Option<TermVector>)>,
    /// The run's statistics.
    pub stats: &'a dyn CollectionStats,
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
