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
use tantivy::tokenizer::Token;

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

    /// Every topic's id and [`AnalysedQuery`]: its bag of words (as
    /// [`TopicQueries::analyse`]), its tokens in order and its quoted
    /// phrases.
    pub fn analyse_full(&self) -> Vec<(String, AnalysedQuery)> {
        self.analyse()
            .into_iter()
            .zip(self.topics)
            .map(|((id, bag), topic)| {
                let q = AnalysedQuery::new(self.analyzer, &topic.query(self.field), bag);
                (id, q)
            })
            .collect()
    }
}

/// How quoted text in a topic is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phrases {
    /// Quotes are punctuation: a topic is its bag of words.
    #[default]
    Ignore,
    /// A quoted phrase of two or more terms is an exact phrase clause
    /// beside the bag of words (an index with positions is needed).
    Exact,
}

/// A topic's query in every form a model searches: the bag of words, the
/// analysed tokens in query order (duplicates kept; the sequential
/// dependence model's input), and the quoted phrases.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnalysedQuery {
    /// The bag of words (capped at the unique-term limit).
    pub bag: BagOfWords,
    /// The analysed tokens in order, only those of terms in the bag.
    pub tokens: Vec<String>,
    /// Each quoted phrase of two or more terms, every term in the bag: its
    /// terms with their positions (a removed stop word leaves a gap).
    pub phrases: Vec<Vec<(String, u32)>>,
}

impl AnalysedQuery {
    /// The query of `text` whose (capped) bag of words is `bag`.
    pub fn new(analyzer: &EnglishAnalyzer, text: &str, bag: BagOfWords) -> AnalysedQuery {
        let in_bag: std::collections::HashSet<&str> =
            bag.terms.iter().map(|(t, _)| t.as_str()).collect();
        let kept = |t: &str| in_bag.contains(t);
        let tokens = analyzer
            .terms(text)
            .into_iter()
            .filter(|t| kept(t))
            .collect();
        let mut phrases = Vec::new();
        for quoted in quoted_spans(text) {
            let mut toks: Vec<Token> = Vec::new();
            analyzer.analyze_into(quoted, &mut toks);
            if toks.len() >= 2 && toks.iter().all(|t| kept(&t.text)) {
                phrases.push(
                    toks.into_iter()
                        .map(|t| (t.text, t.position as u32))
                        .collect(),
                );
            }
        }
        drop(in_bag);
        AnalysedQuery {
            bag,
            tokens,
            phrases,
        }
    }

    /// The query of a bag of words alone (no token order, no phrases).
    pub fn from_bag(bag: &BagOfWords) -> AnalysedQuery {
        AnalysedQuery {
            bag: bag.clone(),
            ..Default::default()
        }
    }
}

/// The texts between pairs of double quotes (`"`), in order; a last
/// unpaired quote opens nothing.
pub fn quoted_spans(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else { break };
        out.push(&after[..close]);
        rest = &after[close + 1..];
    }
    out
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
