//! One segment written again with its documents in a new order.
//!
//! Every field comes back from where the segment keeps it, read through
//! the schema rather than by name: a stored field from the document store
//! (the title with its tokens, as the build stored it), a fast field that
//! is not stored from its column (the docid, the counts, the spam score,
//! the band keys), and the one indexed field that is neither (`body`)
//! from its postings ([`super::forward::Forward`]). So the new segment
//! holds the same terms, frequencies, positions, field lengths, columns
//! and stored values per document; only the document numbers change
//! (and, when asked, the band keys are left out: [`Rewritten::dropped`]).

use tantivy::columnar::{Cardinality, Column, StrColumn};
use tantivy::index::SegmentMeta;
use tantivy::indexer::{AddOperation, SegmentWriter};
use tantivy::schema::{Field, FieldType, OwnedValue, Schema};
use tantivy::store::StoreReader;
use tantivy::{Index, SegmentReader};

use super::forward::Forward;
use sieve_format::document::SieveDocument;

use crate::{Error, Result};

/// The writer's heap for one rewritten segment (its table sizes follow it;
/// the segment is written whole, whatever its size).
const WRITER_HEAP: usize = 256 << 20;
/// Document-store blocks kept decompressed while documents are read out
/// of order.
const STORE_CACHE_BLOCKS: usize = 256;

/// Where each field of a document comes back from.
enum Source {
    Stored,
    U64(Column<u64>, bool),
    Bool(Column<bool>),
    Str(StrColumn),
    Postings,
}

/// The fields a rewrite treats apart from the schema's rule.
#[derive(Debug, Clone, Copy)]
pub struct Rewritten {
    /// The field read back from its postings.
    pub body: Field,
    /// A fast field left out of the new segment (the band keys, when
    /// dropped).
    pub dropped: Option<Field>,
}

/// Writes `seg`'s documents into a new segment of `out` in `order`
/// (`order[new] = old`) and returns its meta (not yet in `meta.json`).
/// `body` is the segment's [`Forward`] postings of `fields.body`.
pub fn rewrite_segment(
    out: &Index,
    seg: &SegmentReader,
    order: &[u32],
    body: &Forward,
    fields: Rewritten,
    what: &str,
) -> Result<SegmentMeta> {
    let schema = seg.schema().clone();
    let sources = field_sources(seg, &schema, fields, what)?;
    let store = seg
        .get_store_reader(STORE_CACHE_BLOCKS)
        .map_err(|source| Error::Io {
            path: what.into(),
            source,
        })?;
    let segment = out.new_segment();
    let mut writer = SegmentWriter::for_segment(WRITER_HEAP, segment.clone())?;
    let mut text = String::new();
    for (opstamp, &old) in (0u64..).zip(order) {
        let doc = document(&store, &sources, body, old, &mut text, what)?;
        writer.add_document(AddOperation {
            opstamp,
            document: doc,
        })?;
    }
    writer.finalize()?;
    let meta = segment.with_max_doc(order.len() as u32).meta().clone();
    meta.untrack_temp_docstore();
    Ok(meta)
}

/// For each field of `schema`, where its values come back from.
fn field_sources(
    seg: &SegmentReader,
    schema: &Schema,
    fields: Rewritten,
    what: &str,
) -> Result<Vec<(Field, Source)>> {
    let fast = seg.fast_fields();
    let mut sources = Vec::new();
    for (field, entry) in schema.fields() {
        if Some(field) == fields.dropped {
            continue;
        }
        let source = if entry.is_stored() {
            Source::Stored
        } else if field == fields.body {
            Source::Postings
        } else if entry.is_fast() {
            match entry.field_type() {
                FieldType::U64(_) => {
                    let col = fast.u64(entry.name())?;
                    let multi = col.get_cardinality() == Cardinality::Multivalued;
                    Source::U64(col, multi)
                }
                FieldType::Bool(_) => Source::Bool(fast.bool(entry.name())?),
                FieldType::Str(_) => match fast.str(entry.name())? {
                    Some(col) => Source::Str(col),
                    None => continue,
                },
                other => return Err(unsupported(what, entry.name(), other)),
            }
        } else {
            return Err(unsupported(what, entry.name(), entry.field_type()));
        };
        sources.push((field, source));
    }
    Ok(sources)
}

fn unsupported(what: &str, name: &str, ty: &FieldType) -> Error {
    Error::Input {
        path: what.into(),
        detail: format!(
            "field {name:?} ({:?}) is neither stored, nor a fast field, nor the body: \
             a reordered segment could not hold it again",
            ty.value_type()
        ),
    }
}

/// Document `old` of the segment, whole again.
fn document(
    store: &StoreReader,
    sources: &[(Field, Source)],
    body: &Forward,
    old: u32,
    text: &mut String,
    what: &str,
) -> Result<SieveDocument> {
    let mut doc: SieveDocument = store.get(old)?;
    let io = |source| Error::Io {
        path: what.into(),
        source,
    };
    for (field, source) in sources {
        let value = match source {
            Source::Stored => continue,
            Source::Postings => body.value(old),
            Source::U64(col, true) => {
                OwnedValue::Array(col.values_for_doc(old).map(OwnedValue::U64).collect())
            }
            Source::U64(col, false) => match col.first(old) {
                Some(v) => OwnedValue::U64(v),
                None => continue,
            },
            Source::Bool(col) => match col.first(old) {
                Some(v) => OwnedValue::Bool(v),
                None => continue,
            },
            Source::Str(col) => match col.term_ords(old).next() {
                Some(ord) => {
                    text.clear();
                    col.ord_to_str(ord, text).map_err(io)?;
                    OwnedValue::Str(text.clone())
                }
                None => continue,
            },
        };
        if !matches!(&value, OwnedValue::Array(v) if v.is_empty()) {
            doc.insert(*field, value);
        }
    }
    Ok(doc)
}
