//! The record of a build's options in the manifest of an index
//! (`sieve.json`, [`sieve_format::manifest`]).

use sieve_analysis::{Stemmer, Stopwords};
use sieve_format::manifest::ManifestOptions;
use sieve_text::charset::CharsetMode;

use crate::options::BuildOptions;

/// The options of `o` that a resume must not change.
pub(crate) fn manifest_options(o: &BuildOptions) -> ManifestOptions {
    ManifestOptions {
        stemmer: match o.analyzer.stemmer {
            Stemmer::Porter => "porter",
            Stemmer::None => "none",
        }
        .into(),
        stopwords: match o.analyzer.stopwords {
            Stopwords::Lucene => "lucene",
            Stopwords::None => "none",
        }
        .into(),
        charset: match o.charset {
            CharsetMode::Auto => "auto",
            CharsetMode::ForceUtf8 => "utf8",
        }
        .into(),
        max_record_bytes: o.crawl.max_record_bytes,
        max_decompression_ratio: o.crawl.max_decompression_ratio,
        max_html_depth: o.html.max_depth,
        max_text_bytes: o.html.max_text_bytes,
        max_doc_ms: o.max_doc_time.map_or(0, |d| {
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
        }),
        doc_timeout: o.doc_timeout.key().to_string(),
        filter: o.filter_desc.clone(),
        spam: o.spam_desc.clone(),
        docid_header: o.crawl.docid_rule(),
        json_fields: o.crawl.json_fields.clone(),
        tsv_columns: o.crawl.tsv_columns.clone(),
        text: o.text.name().to_string(),
        minhash: o.near_duplicates.then_some(sieve_format::dups::PARAMS),
        positions: o.contents.positions,
        docvectors: o.contents.docvectors,
        output: None,
    }
}
