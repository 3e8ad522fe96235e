//! # sieve-searcher
//!
//! Runs TREC topic files over sieve indexes with BM25 of any k1 and b, writes
//! TREC run files, evaluates runs as trec_eval and gdeval do, and compares
//! them.
//!
//! # Roles
//!
//! The crate has three kinds of parts: readers that turn files into plain
//! values, the search, and the evaluation.
//!
//! **Inputs.** [`topics`] reads topic files in five formats, detected from
//! the content (SGML, Web Track XML, `id:query` lines or TSV, CACM);
//! [`qrels`] reads relevance judgments (qrels and prels); [`run`] reads and
//! writes TREC run files. Every reader takes bytes, so the same code reads a
//! file, a test's string and a fuzzer's input.
//!
//! **Search.** A search is described by a [`QueryPlan`]: the shards searched
//! as one collection and the index field, the runs (each a BM25 setting, an
//! optional document selection and a tag), which collection statistics a run
//! with a selection uses, and how many hits per topic. [`TopicQueries`] says
//! which topics are the queries and how they are analysed ([`queries`] caps
//! each at a number of unique terms). [`run_batch`] searches them, every
//! setting and selection of a topic in one pass over the postings ([`bm25`]:
//! exact BM25 with MaxScore and block-max pruning), topics in parallel, the
//! output in topic order. Runs of other models (query likelihood with
//! Dirichlet smoothing) are scored by [`weighted`]: any weighted-term query,
//! each term scored by a per-term model, exhaustively document at a time.
//! Queries that need term positions (Anserini's sequential dependence
//! model, quoted phrases) are scored by [`sdm`], with BM25, from postings
//! with positions; [`queries`] gives each topic's tokens in order and its
//! quoted phrases beside its bag of words.
//! [`batch`] holds the plan, the selections (rules
//! over the index's fast fields, or a filter file) and the shards; [`stats`]
//! the statistics (summed over shards, or recomputed over a selection);
//! [`runspec`] turns the settings of `sieve-search run` into runs with their
//! tags and files; [`twostage`] splits a search over machines (statistics
//! files, their sums, the merge of shard runs). [`docinfo`] reads documents'
//! stored fields back by docid.
//! [`feedback`] adds pseudo-relevance feedback (RM3, BM25-PRF, Rocchio, as
//! Anserini computes them): a run's first stage, each topic's feedback
//! query, and its second search.
//!
//! **Evaluation.** [`eval`] computes the trec_eval and gdeval measures of a
//! run against qrels; [`paired`] the paired statistics of per-topic
//! differences (t-test, confidence interval, Holm's correction); [`robust`]
//! the randomisation and Wilcoxon tests and a bootstrap interval; [`risk`]
//! URisk, TRisk and GeoRisk; [`compare`]
//! compares two runs topic by topic; [`judged`] counts what a document
//! filter removed that was judged; [`sweep`] searches many filter
//! thresholds (and BM25 settings) in one pass, evaluates each against the
//! unfiltered run and tabulates them.
//!
//! **Fusion.** [`fusion`] fuses runs (reciprocal rank fusion,
//! interpolation, average, weighted sums) byte for byte as Anserini's
//! `FuseRuns`.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, line, expected and found values). No module cycles:
//! `text` <- [`topics`], [`qrels`], [`run`]; [`bm25`] <- [`queries`] <-
//! [`stats`] <- [`weighted`], [`sdm`] <- [`twostage`] <- [`batch`] <- [`runspec`]; [`bm25`] <-
//! [`docinfo`]; [`batch`] <- [`feedback`]; [`paired`]; [`qrels`], [`run`]
//! <- [`eval`] <- [`compare`]
//! <- [`sweep`] (also [`batch`], [`judged`]); [`risk`] <- [`robust`] <-
//! [`compare`]; [`batch`], [`docinfo`],
//! [`run`] <- [`judged`].
//!
//! # Example
//!
//! Topics become queries, and a run is evaluated against judgments (a search
//! needs an index: see `examples/index_and_query.rs` in the repository):
//!
//! ```
//! use sieve_searcher::eval::{EvalOptions, Measure, evaluate};
//! use sieve_searcher::qrels::parse_qrels;
//! use sieve_searcher::run::{Duplicates, parse_run};
//! use sieve_searcher::topics::{TopicField, parse_topics};
//! use sieve_searcher::TopicQueries;
//!
//! let (_, topics) = parse_topics(b"7:the web pages\n")?;
//! let analyzer = sieve_analysis::EnglishAnalyzer::new(Default::default());
//! let queries = TopicQueries {
//!     analyzer: &analyzer,
//!     topics: &topics,
//!     field: TopicField::Title,
//!     max_terms: sieve_searcher::queries::DEFAULT_MAX_QUERY_TERMS,
//! };
//! let analysed = queries.analyse();
//! assert_eq!(analysed[0].0, "7");
//! assert_eq!(analysed[0].1.terms, [("web".to_string(), 1), ("page".to_string(), 1)]);
//!
//! let qrels = parse_qrels(b"7 0 doc-a 1\n7 0 doc-b 0\n")?;
//! let run = parse_run(b"7 Q0 doc-b 1 2.5 t\n7 Q0 doc-a 2 1.5 t\n", Duplicates::Error)?;
//! let evaluation = evaluate(&qrels, &run, "t", EvalOptions::default())?;
//! assert_eq!(evaluation.mean(Measure::Map), 0.5);
//! # Ok::<(), sieve_searcher::Error>(())
//! ```

pub mod batch;
pub mod bm25;
pub mod compare;
pub mod docinfo;
mod error;
pub mod eval;
pub mod feedback;
pub mod fusion;
pub mod judged;
pub mod paired;
pub mod qrels;
pub mod queries;
pub mod risk;
pub mod robust;
pub mod run;
pub mod runspec;
pub mod sdm;
pub mod stats;
pub mod sweep;
mod text;
pub mod topics;
pub mod twostage;
pub mod weighted;

pub use crate::batch::{QueryPlan, RunVariant, StatsMode, open_shards, run_batch};
pub use crate::bm25::{Bm25Params, Hit};
pub use crate::error::Error;
pub use crate::queries::TopicQueries;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
