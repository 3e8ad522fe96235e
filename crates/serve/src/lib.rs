//! # sieve-serve
//!
//! Serves sieve indexes read-only over HTTP (`sieve-search serve`): the
//! JSON API of docs/service.md, whose search and document routes answer
//! in Anserini 1.7.1's REST shape (`query`, `candidates` of `docid`,
//! `score`, `doc`) with sieve's models, filters, snippets and documents
//! added, a batch route that answers a TREC run equal byte for byte to
//! `sieve-search run`'s, and a page to look into an index.
//!
//! Parts: [`params`] reads query strings exactly; [`setting`] turns
//! parameters into a search setting (a one-run `RunSpec`); [`search`]
//! searches; [`snippet`] reads documents back and cuts snippets;
//! [`state`] holds the opened indexes; [`routes`] maps routes to
//! handlers; [`server`] accepts connections with bounds on their number
//! and time. Every refused request is a 4xx (or 503) with a JSON body
//! ([`ApiError`]); no request names a file path: indexes are named at
//! start.
//!
//! Dependencies point down: `sieve-searcher` and `sieve-report` (documents
//! shown back) below, the command line above.

pub mod error;
pub mod params;
pub mod routes;
pub mod search;
pub mod server;
pub mod setting;
pub mod snippet;
pub mod state;

use std::net::SocketAddr;
use std::path::PathBuf;

pub use error::{ApiError, Error};
pub use server::Limits;

/// An index to serve: its name and its shards' directories.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    /// The name in routes.
    pub name: String,
    /// The directories.
    pub dirs: Vec<PathBuf>,
}

impl IndexSpec {
    /// Reads `NAME=DIR[,DIR...]`. A name is 1-64 ASCII letters, digits,
    /// `_`, `.` or `-`, not starting with `.`, and not `indexes` (a route).
    pub fn parse(text: &str) -> Result<IndexSpec, Error> {
        let bad = |why| Error::IndexSpec {
            got: text.to_string(),
            why,
        };
        let (name, dirs) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
        if name.is_empty() || name.len() > 64 || name.starts_with('.') || !name.chars().all(ok) {
            return Err(bad("the name"));
        }
        if name == "indexes" {
            return Err(bad("'indexes' is a route, not a name"));
        }
        let dirs: Vec<PathBuf> = dirs
            .split(',')
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .collect();
        if dirs.is_empty() {
            return Err(bad("no directory"));
        }
        Ok(IndexSpec {
            name: name.to_string(),
            dirs,
        })
    }
}

/// What a server serves and how.
#[derive(Debug, Clone)]
pub struct Config {
    /// The indexes, in the order listed.
    pub indexes: Vec<IndexSpec>,
    /// The address.
    pub bind: SocketAddr,
    /// Searches at once (the blocking workers).
    pub workers: usize,
    /// Bounds on connections.
    pub limits: Limits,
}

/// Opens the indexes of `config` (each once; a name given twice is
/// refused) and serves them until SIGTERM or SIGINT; `ready` is called
/// with the address bound.
pub fn serve(config: &Config, ready: impl FnOnce(SocketAddr)) -> Result<(), Error> {
    let mut all = Vec::with_capacity(config.indexes.len());
    for spec in &config.indexes {
        if config
            .indexes
            .iter()
            .filter(|s| s.name == spec.name)
            .count()
            > 1
        {
            return Err(Error::DuplicateName {
                name: spec.name.clone(),
            });
        }
        all.push(state::Served::open(&spec.name, &spec.dirs)?);
    }
    let app = routes::App::new(state::Indexes { all }, config.workers);
    server::run(app, config.bind, config.limits, ready)
}
