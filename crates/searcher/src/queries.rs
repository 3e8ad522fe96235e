//! Topics to queries, bounded: the analysed terms of each topic, capped at
//! a number of unique terms, with a note for every topic the cap cut and
//! every topic left without a searchable term.
//!
//! A query's cost grows with its unique terms (one postings list each), so
//! a topic of a million distinct words would run for minutes. Each topic
//! keeps its **first `max_terms` unique analysed terms in query order**
//! (with their full query frequencies: every later repetition of a kept
//! term still counts); the rest are dropped. A topic whose terms are all
//! stopwords (or empty) has no searchable term: it is searched as an empty
//! query and gives no line in a run. Both facts are returned as
//! [`QueryNote`]s for the caller to report.

use sieve_analysis::EnglishAnalyzer;

use crate::bm25::BagOfWords;
use crate::topics::{Topic, TopicField};

/// The default cap on unique analysed terms per topic.
pub const DEFAULT_MAX_QUERY_TERMS: usize = 1024;

/// The topics of a search and how each becomes a query: the analyser, the
/// topic text searched, and the cap on unique analysed terms per topic.
#[derive(Clone, Copy)]
pub struct TopicQueries<'a> {
    /// The index's analyser.
    pub analyzer: &'a EnglishAnalyzer,
    /// The topics, in topic-file order.
    pub topics: &'a [Topic],
    /// Which topic text is the query.
    pub field: TopicField,
    /// Unique analysed terms searched per topic.
    pub max_terms: usize,
}

impl TopicQueries<'_> {
    /// Every topic's id and analysed query ([`analyse_topics`]).
    pub fn analyse(&self) -> Vec<(String, BagOfWords)> {
        analyse_topics(self.analyzer, self.topics, self.field, self.max_terms)
    }
}

/// Something worth telling the user about one topic's query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryNote {
    /// The topic had more unique terms than the cap: the first `kept`
    /// unique terms in query order were kept, `dropped` unique terms after
    /// them were not searched.
    Capped {
        /// The topic id.
        topic: String,
        /// Unique terms kept (the cap).
        kept: usize,
        /// Unique terms dropped.
        dropped: usize,
    },
    /// Analysis left no term (all stopwords, or no text): the topic gets no
    /// results.
    NoTerms {
        /// The topic id.
        topic: String,
    },
}

impl std::fmt::Display for QueryNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryNote::Capped {
                topic,
                kept,
                dropped,
            } => write!(
                f,
                "topic {topic}: {dropped} of its {} unique query terms dropped; \
                 the first {kept} in query order are searched",
                kept + dropped
            ),
            QueryNote::NoTerms { topic } => write!(
                f,
                "topic {topic}: no searchable terms (all stopwords or empty); \
                 it has no lines in the run"
            ),
        }
    }
}

/// Every topic's id and analysed query, in topic-file order, each capped
/// at `max_terms` unique terms, with the notes of [`QueryNote`] in topic
/// order.
pub fn analyse_topics_noted(
    analyzer: &EnglishAnalyzer,
    topics: &[Topic],
    topic_field: TopicField,
    max_terms: usize,
) -> (Vec<(String, BagOfWords)>, Vec<QueryNote>) {
    let mut notes = Vec::new();
    let queries = topics
        .iter()
        .map(|t| {
            let (bag, dropped) =
                BagOfWords::capped(analyzer.terms(&t.query(topic_field)), max_terms);
            if dropped > 0 {
                notes.push(QueryNote::Capped {
                    topic: t.id.clone(),
                    kept: bag.terms.len(),
                    dropped,
                });
            }
            if bag.is_empty() {
                notes.push(QueryNote::NoTerms {
                    topic: t.id.clone(),
                });
            }
            (t.id.clone(), bag)
        })
        .collect();
    (queries, notes)
}

/// [`analyse_topics_noted`] without the notes: exactly what
/// [`crate::batch::run_batch`] searches for.
pub fn analyse_topics(
    analyzer: &EnglishAnalyzer,
    topics: &[Topic],
    topic_field: TopicField,
    max_terms: usize,
) -> Vec<(String, BagOfWords)> {
    analyse_topics_noted(analyzer, topics, topic_field, max_terms).0
}

/// The notes of [`analyse_topics_noted`] alone.
pub fn query_notes(
    analyzer: &EnglishAnalyzer,
    topics: &[Topic],
    topic_field: TopicField,
    max_terms: usize,
) -> Vec<QueryNote> {
    analyse_topics_noted(analyzer, topics, topic_field, max_terms).1
}
