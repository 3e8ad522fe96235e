//! What a researcher needs to see of a document to judge a filter: its
//! URL, title, spam percentile, charset and encoding-error counts, looked
//! up by docid in an index (stored fields `url`, `title`, `charset`; fast
//! fields `spam`, `bytes` and the seven error counts).
//!
//! A docid is looked up in the exact `docid` field of every segment of
//! every shard; the first live document holding it is taken (an index may
//! hold a docid twice, see docs/reliability.md, "One document per docid").
//! Cost: one term lookup per segment and one stored-document read per docid
//! found, so the pages look up only the documents they show.

use std::collections::BTreeMap;

use sieve_filters::utf8::Utf8Counts;
use sieve_format::schema::RuleColumns;
use tantivy::fastfield::AliveBitSet;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, InvertedIndexReader, TERMINATED, TantivyDocument, Term};

use crate::bm25::Shard;
use crate::{Error, Result};

/// One document's fields, as stored in the index (text exactly as stored:
/// escape it before putting it in a page).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocInfo {
    /// The document's URL (empty when it has none).
    pub url: String,
    /// Its title (empty when it has none).
    pub title: String,
    /// Its spam percentile, if scored.
    pub spam: Option<u8>,
    /// The WHATWG name of the charset its body was decoded with.
    pub charset: String,
    /// The code of the source that decided the charset (the index's
    /// `charset_source` fast field; `sieve_text::charset::CharsetSource::from_code`
    /// names it).
    pub charset_source: u64,
    /// Its body length in bytes.
    pub bytes: u64,
    /// Its seven UTF-8 error counts.
    pub counts: Utf8Counts,
}

/// The `charset_source` code of `doc` (0 when the column is absent).
fn charset_source(seg: &tantivy::SegmentReader, doc: DocId) -> u64 {
    seg.fast_fields()
        .u64(sieve_format::schema::CHARSET_SOURCE)
        .ok()
        .and_then(|c| c.first(doc))
        .unwrap_or(0)
}

/// The documents of `docids` found in `shards`, by docid (a docid not in
/// the index is absent from the map).
pub fn lookup<'a>(
    shards: &[Shard],
    docids: impl IntoIterator<Item = &'a str>,
) -> Result<BTreeMap<String, DocInfo>> {
    let mut wanted: Vec<&str> = docids.into_iter().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = BTreeMap::new();
    for shard in shards {
        let f = &shard.fields;
        for (ord, seg) in shard.searcher.segment_readers().iter().enumerate() {
            let inverted = seg.inverted_index(f.docid)?;
            let cols = RuleColumns::open(seg)?;
            let alive = seg.alive_bitset();
            for &id in &wanted {
                if out.contains_key(id) {
                    continue;
                }
                let Some(doc) = first_live(shard, &inverted, alive, id)? else {
                    continue;
                };
                let stored: TantivyDocument =
                    shard.searcher.doc(DocAddress::new(ord as u32, doc))?;
                let text = |field| {
                    stored
                        .get_first(field)
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default()
                };
                out.insert(
                    id.to_string(),
                    DocInfo {
                        url: text(f.url),
                        title: text(f.title),
                        spam: cols.spam(doc),
                        charset: text(f.charset),
                        charset_source: charset_source(seg, doc),
                        bytes: cols.bytes(doc),
                        counts: cols.counts(doc),
                    },
                );
            }
        }
    }
    Ok(out)
}

/// The first live document of one segment whose `docid` field is `id`
/// (`inverted`: the segment's inverted index of the docid field, `alive`:
/// its alive bitset).
pub(crate) fn first_live(
    shard: &Shard,
    inverted: &InvertedIndexReader,
    alive: Option<&AliveBitSet>,
    id: &str,
) -> Result<Option<DocId>> {
    let term = Term::from_field_text(shard.fields.docid, id);
    let Some(mut postings) = inverted
        .read_postings(&term, IndexRecordOption::Basic)
        .map_err(|e| Error::Index {
            index: shard.name.clone(),
            detail: format!("docid {id:?}: {e}"),
        })?
    else {
        return Ok(None);
    };
    let mut doc = postings.doc();
    while doc != TERMINATED && alive.is_some_and(|a| !a.is_alive(doc)) {
        doc = postings.advance();
    }
    Ok((doc != TERMINATED).then_some(doc))
}
