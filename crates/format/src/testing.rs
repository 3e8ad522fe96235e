//! Made-up indexes for the tests of this crate and of the crates above it
//! (the bounds, the near-duplicate columns, BM25): one builder, so that
//! every test index is written the way a build writes one (the schema, the
//! analyser, [`IndexDoc::into_document`], segments never merged).
//!
//! Not part of the interface: hidden from the documentation, and free to
//! change with the tests.

use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use tantivy::indexer::NoMergePolicy;
use tantivy::{Index, IndexWriter};

use crate::document::{IndexDoc, SieveDocument};
use crate::schema::{Fields, IndexContents, build_schema, build_schema_with, register_analyzers};

/// A made-up document: `docid` and `body`, its length as `bytes`, UTF-8,
/// and nothing else (no title, URL, spam score or band keys; offset 0).
pub fn doc(docid: &str, body: &str) -> IndexDoc {
    IndexDoc {
        docid: docid.to_string(),
        body: body.to_string(),
        source: "made up".into(),
        bytes: body.len() as u64,
        charset: "UTF-8".into(),
        ..IndexDoc::default()
    }
}

/// A new in-RAM index of `docs` (see [`write_docs`]).
pub fn index_in_ram(docs: impl IntoIterator<Item = IndexDoc>, segments: usize) -> Index {
    write_docs(Index::create_in_ram(build_schema()), docs, segments)
}

/// A new in-RAM index of `docs` holding `contents` (see [`write_docs`]).
pub fn index_in_ram_with(
    contents: IndexContents,
    docs: impl IntoIterator<Item = IndexDoc>,
    segments: usize,
) -> Index {
    write_docs(
        Index::create_in_ram(build_schema_with(contents)),
        docs,
        segments,
    )
}

/// A new index of `docs` in the directory `dir` (see [`write_docs`]).
pub fn index_in_dir(
    dir: &std::path::Path,
    docs: impl IntoIterator<Item = IndexDoc>,
    segments: usize,
) -> Index {
    let index = Index::create_in_dir(dir, build_schema()).expect("a new index directory");
    write_docs(index, docs, segments)
}

/// Adds `docs` to the new `index` with the default analyser, in order,
/// committed in `segments` segments of equal size (the last one smaller),
/// never merged; returns the index.
pub fn write_docs(
    index: Index,
    docs: impl IntoIterator<Item = IndexDoc>,
    segments: usize,
) -> Index {
    let docs: Vec<IndexDoc> = docs.into_iter().collect();
    let per = docs.len().div_ceil(segments.max(1)).max(1);
    let mut docs = docs.into_iter().peekable();
    let mut batches = Vec::new();
    while docs.peek().is_some() {
        batches.push(docs.by_ref().take(per).collect::<Vec<_>>());
    }
    write_batches(index, batches)
}

/// Adds the documents of `batches` to the new `index` with the default
/// analyser, in order, committing after each batch (a segment each), never
/// merged; returns the index.
pub fn write_batches<B: IntoIterator<Item = IndexDoc>>(
    index: Index,
    batches: impl IntoIterator<Item = B>,
) -> Index {
    register_analyzers(&index, AnalyzerConfig::default());
    let fields = Fields::from_schema(&index.schema()).expect("the sieve schema");
    let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());
    let mut writer: IndexWriter<SieveDocument> = index
        .writer_with_num_threads(1, 50 << 20)
        .expect("an index writer");
    writer.set_merge_policy(Box::new(NoMergePolicy));
    for batch in batches {
        for doc in batch {
            writer
                .add_document(doc.into_document(&fields, &analyzer))
                .expect("a document added");
        }
        writer.commit().expect("a commit");
    }
    writer.wait_merging_threads().expect("no merge");
    index
}
