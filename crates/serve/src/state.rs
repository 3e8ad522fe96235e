//! The indexes a server serves: each opened once at start, under its
//! name, as shards searched as one collection (global statistics summed
//! over them, as `sieve-search run --index A --index B` does), with a
//! [`ShowIndex`] per shard for documents, and a small cache of document
//! selections (the bitmaps of a filter, computed by a scan of the fast
//! fields, kept for the next search with the same filter).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sieve_analysis::EnglishAnalyzer;
use sieve_format::index::Unfinished;
use sieve_report::show::ShowIndex;
use sieve_searcher::batch::{DocSelection, select_all};
use sieve_searcher::bm25::{Shard, Subset};
use sieve_searcher::stats::GlobalStats;
use tantivy::query::Bm25StatisticsProvider;

use crate::error::{ApiError, Error};

/// How many document selections an index keeps (least recently used
/// first out). Each costs a bit per document at most.
const SELECTION_CACHE: usize = 8;

/// A selection's documents, as the one-element list of bitmaps a search
/// of one filtered run takes.
pub type Selected = Arc<Vec<Subset>>;

/// One served index.
pub struct Served {
    /// Its name in routes.
    pub name: String,
    /// Its shards' directories.
    pub dirs: Vec<PathBuf>,
    /// The shards.
    pub shards: Vec<Shard>,
    /// The analyser the index was built with.
    pub analyzer: EnglishAnalyzer,
    /// One per shard, for documents.
    pub show: Vec<ShowIndex>,
    /// What `GET /v1/{name}` answers.
    pub info: Value,
    selections: Mutex<VecDeque<(String, Selected)>>,
}

impl Served {
    /// Opens the directories `dirs` as the index `name`.
    pub fn open(name: &str, dirs: &[PathBuf]) -> Result<Served, Error> {
        let fail = |source: Box<dyn std::error::Error + Send + Sync>| Error::Open {
            name: name.to_string(),
            dirs: dirs.to_vec(),
            source,
        };
        let (shards, config) =
            sieve_searcher::batch::open_shards(dirs).map_err(|e| fail(Box::new(e)))?;
        let show = dirs
            .iter()
            .map(|d| ShowIndex::open(d, Unfinished::Refuse))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(Box::new(e)))?;
        let info = info(name, &shards, &show).map_err(|e| fail(Box::new(e)))?;
        Ok(Served {
            name: name.to_string(),
            dirs: dirs.to_vec(),
            shards,
            analyzer: EnglishAnalyzer::new(config),
            show,
            info,
            selections: Mutex::new(VecDeque::new()),
        })
    }

    /// The documents `sel` keeps, from the cache or computed (and cached)
    /// now. The key is the selection's name, which says its whole rule.
    pub fn subset(&self, sel: &DocSelection) -> Result<Selected, ApiError> {
        if let Some(hit) = self.cached(&sel.name) {
            return Ok(hit);
        }
        let subset = select_all(&self.shards, std::slice::from_ref(sel));
        let subset = Arc::new(subset.map_err(ApiError::from_search)?);
        let mut cache = self.selections.lock().unwrap_or_else(|p| p.into_inner());
        cache.retain(|(k, _)| *k != sel.name);
        if cache.len() >= SELECTION_CACHE {
            cache.pop_front();
        }
        cache.push_back((sel.name.clone(), Arc::clone(&subset)));
        Ok(subset)
    }

    /// The cached selection named `key`, moved to the back (most recent).
    fn cached(&self, key: &str) -> Option<Selected> {
        let mut cache = self.selections.lock().unwrap_or_else(|p| p.into_inner());
        let i = cache.iter().position(|(k, _)| k == key)?;
        let entry = cache.remove(i)?;
        let subset = Arc::clone(&entry.1);
        cache.push_back(entry);
        Some(subset)
    }

    /// Documents in the index (live, over every shard).
    pub fn documents(&self) -> u64 {
        self.shards.iter().map(|s| s.searcher.num_docs()).sum()
    }
}

/// What the index is: its documents, shards, what it holds beyond a bag of
/// words, how it was built (analyser, charset mode, spam and filter files,
/// near-duplicate signatures) and its collection statistics.
fn info(name: &str, shards: &[Shard], show: &[ShowIndex]) -> Result<Value, sieve_searcher::Error> {
    let stats = GlobalStats::new(shards);
    let documents = stats.total_num_docs()?;
    let field = |f: sieve_format::schema::TextField| -> Result<Value, sieve_searcher::Error> {
        let tokens = stats.total_num_tokens(shards[0].fields.text(f))?;
        Ok(json!({
            "tokens": tokens,
            "average_length": if documents == 0 { 0.0 } else { tokens as f64 / documents as f64 },
        }))
    };
    let contents = shards[0].contents();
    let options = &show[0].manifest().options;
    Ok(json!({
        "name": name,
        "documents": documents,
        "shards": shards.iter().map(|s| json!({
            "documents": s.searcher.num_docs(),
            "segments": s.searcher.segment_readers().len(),
        })).collect::<Vec<_>>(),
        "positions": shards.iter().all(|s| s.contents().positions) && contents.positions,
        "docvectors": shards.iter().all(|s| s.contents().docvectors),
        "near_duplicates": options.minhash.is_some(),
        "spam_scores": options.spam.is_some(),
        "build_filter": options.filter.is_some(),
        "analyzer": {"stemmer": options.stemmer, "stopwords": options.stopwords},
        "charset": options.charset,
        "text": options.text,
        "statistics": {
            "body": field(sieve_format::schema::TextField::Body)?,
            "title": field(sieve_format::schema::TextField::Title)?,
        },
        "schema_version": show[0].manifest().schema_version,
    }))
}

/// The served indexes, by name, in the order given.
pub struct Indexes {
    /// The indexes.
    pub all: Vec<Served>,
}

impl Indexes {
    /// The index named `name` (a 404 otherwise).
    pub fn get(&self, name: &str) -> Result<&Served, ApiError> {
        self.all
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| ApiError::no_index(name))
    }
}
