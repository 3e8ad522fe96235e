//! Errors: [`Error`] for starting the service (an index that cannot be
//! opened, an address that cannot be bound), and [`ApiError`] for a refused
//! request, answered as `{"error": {"status", "message", "parameter"}}`.

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error starting or running the service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--index NAME=DIR` was not of that form, or the name is not allowed.
    #[error(
        "--index {got:?}: expected NAME=DIR[,DIR...] with NAME of 1-64 letters, digits, '_', '.' or '-' (not starting with '.'): {why}"
    )]
    IndexSpec {
        /// What was given.
        got: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The same name given twice.
    #[error("--index: the name {name:?} is given twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// An index could not be opened.
    #[error("index {name:?} ({dirs:?}): {source}")]
    Open {
        /// Its name.
        name: String,
        /// Its directories.
        dirs: Vec<PathBuf>,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Another I/O error of the server (its runtime, its signals).
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A refused or failed request: its HTTP status, a message, and the
/// parameter at fault when there is one; answered as
/// `{"error": MESSAGE, "status": STATUS, "parameter": NAME or null}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong, in a sentence.
    pub message: String,
    /// The parameter at fault.
    pub parameter: Option<String>,
}

impl ApiError {
    /// A 400 naming `parameter`.
    pub fn bad_parameter(parameter: &str, message: String) -> ApiError {
        ApiError {
            status: 400,
            message,
            parameter: Some(parameter.to_string()),
        }
    }

    /// An error of `status` with `message`.
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            parameter: None,
        }
    }

    /// A 404 for an index name that is not served.
    pub fn no_index(name: &str) -> ApiError {
        ApiError::new(404, format!("no index is served under the name {name:?}"))
    }

    /// A search or document error of the library: a parameter the
    /// library refused is the client's (400); anything else is the
    /// server's (500).
    pub fn from_search(e: sieve_searcher::Error) -> ApiError {
        match e {
            sieve_searcher::Error::InvalidParameter { name, .. } => ApiError {
                status: 400,
                message: e.to_string(),
                parameter: Some(name.to_string()),
            },
            sieve_searcher::Error::IndexLacks { .. }
            | sieve_searcher::Error::UnknownTopicFormat { .. }
            | sieve_searcher::Error::TopicSyntax { .. }
            | sieve_searcher::Error::DuplicateTopic { .. } => ApiError::new(400, e.to_string()),
            other => ApiError::new(500, other.to_string()),
        }
    }

    /// The JSON body of the answer: Anserini's `{"error": MESSAGE}`, with
    /// the status and the parameter at fault beside it.
    pub fn body(&self) -> serde_json::Value {
        json!({
            "error": self.message,
            "status": self.status,
            "parameter": self.parameter,
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, axum::Json(self.body())).into_response()
    }
}
