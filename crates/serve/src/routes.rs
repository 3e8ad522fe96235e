//! The routes (docs/service.md lists them): the page and its assets, the
//! API, and the layers every answer passes through: security headers
//! (a Content-Security-Policy that allows no inline script, no framing,
//! no sniffing) and JSON errors (an answer of 4xx or 5xx that is not
//! already JSON, from routing or body limits, is replaced by
//! `{"error": MESSAGE, "status", "parameter"}` with the same status).
//!
//! Handlers that search or read documents run on the blocking pool, at
//! most [`App::workers`] at once; up to [`MAX_WAITING`] more wait their
//! turn, and a request beyond that is refused with 503 rather than queued
//! without bound.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use sieve_searcher::topics::TopicField;
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::params::Params;
use crate::search::{MAX_HITS, MAX_QUERY_BYTES, Search, doc_json, run_topics, search};
use crate::setting::{Setting, setting_params};
use crate::snippet::{find_shown, text_pieces};
use crate::state::Indexes;

/// Requests that may wait for a worker beyond those being served.
pub const MAX_WAITING: usize = 512;

/// The largest topic file `POST /v1/{name}/run` takes.
pub const MAX_TOPICS_BYTES: usize = 8 << 20;

/// The Content-Security-Policy of every answer.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
    script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// What the handlers share.
pub struct App {
    /// The served indexes.
    pub indexes: Indexes,
    /// Searches at once.
    pub workers: Arc<Semaphore>,
    /// How many: the semaphore's permits.
    worker_count: usize,
    /// Requests being served or waiting for a worker.
    waiting: AtomicUsize,
}

impl App {
    /// The state of a server of `indexes` with `workers` searches at once.
    pub fn new(indexes: Indexes, workers: usize) -> App {
        App {
            indexes,
            workers: Arc::new(Semaphore::new(workers.max(1))),
            worker_count: workers.max(1),
            waiting: AtomicUsize::new(0),
        }
    }
}

type Shared = State<Arc<App>>;

/// The router of `app`.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/openapi.yaml", get(openapi))
        .route(
            "/docs",
            get(|| async { asset("text/html; charset=utf-8", DOCS) }),
        )
        .route("/v1/indexes", get(list))
        .route("/v1/{name}", get(info))
        .route("/v1/{name}/search", get(search_route).post(search_form))
        .route("/v1/{name}/doc", get(doc_by_param))
        .route("/v1/{name}/raw", get(raw_by_param))
        .route("/v1/{name}/doc/{docid}", get(doc_route))
        .route("/v1/{name}/doc/{docid}/raw", get(raw_route))
        .route("/v1/{name}/run", post(run_route))
        .route("/api/v1.0/indexes/{name}/search", get(search_route))
        .route("/api/v1.0/indexes/{name}/documents/{docid}", get(doc_route))
        .layer(DefaultBodyLimit::max(MAX_TOPICS_BYTES));
    let page = Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/assets/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        );
    api.merge(page)
        .fallback(|| async { ApiError::new(404, "no such route (GET /docs lists them)") })
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");
const DOCS: &str = include_str!("../assets/docs.html");
/// The OpenAPI description of the API (also `docs/openapi.yaml`).
pub const OPENAPI: &str = include_str!("../../../docs/openapi.yaml");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn openapi() -> Response {
    asset("application/yaml; charset=utf-8", OPENAPI)
}

/// Adds the security headers to every answer.
async fn security_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// Replaces a non-JSON error answer with a JSON one of the same status.
async fn json_errors(r: Response) -> Response {
    let status = r.status();
    let is_json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if status.as_u16() < 400 || is_json {
        return r;
    }
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    ApiError::new(status.as_u16(), reason).into_response()
}

/// Runs `f` on the blocking pool when a worker is free (503 when too many
/// requests wait already).
async fn blocking<T, F>(app: Arc<App>, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
{
    let Some(_admitted) = Admitted::new(&app) else {
        return Err(ApiError::new(
            503,
            "the server is saturated: try again shortly",
        ));
    };
    let permit = Arc::clone(&app.workers).acquire_owned().await;
    let app2 = Arc::clone(&app);
    let out = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        f(&app2)
    })
    .await;
    out.unwrap_or_else(|e| Err(ApiError::new(500, format!("the request failed: {e}"))))
}

/// A request counted in [`App::waiting`] while it lives: dropped when the
/// request ends, or when its client goes away and the handler's future
/// is dropped while it waits (so an abandoned request is never counted
/// for ever).
struct Admitted(Arc<App>);

impl Admitted {
    /// Counts a request in, unless as many as the workers and
    /// [`MAX_WAITING`] are already in.
    fn new(app: &Arc<App>) -> Option<Admitted> {
        let before = app.waiting.fetch_add(1, Ordering::SeqCst);
        let admitted = Admitted(Arc::clone(app));
        (before < MAX_WAITING + app.worker_count).then_some(admitted)
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn health(State(app): Shared) -> Response {
    let names: Vec<&str> = app.indexes.all.iter().map(|s| s.name.as_str()).collect();
    axum::Json(json!({"status": "ok", "indexes": names})).into_response()
}

async fn list(State(app): Shared, RawQuery(q): RawQuery) -> Result<Response, ApiError> {
    Params::parse(q.as_deref(), &[])?;
    let all: Vec<&Value> = app.indexes.all.iter().map(|s| &s.info).collect();
    Ok(axum::Json(json!({"indexes": all})).into_response())
}

async fn info(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    Params::parse(q.as_deref(), &[])?;
    Ok(axum::Json(app.indexes.get(&name)?.info.clone()).into_response())
}

/// The parameters `GET .../search` takes.
fn search_params() -> Vec<&'static str> {
    let own = ["query", "hits", "qid", "snippets", "parse"];
    own.into_iter().chain(setting_params()).collect()
}

async fn search_route(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    search_with(app, name, q.as_deref()).await
}

/// `POST .../search`: the parameters as a form body
/// (`application/x-www-form-urlencoded`), for queries longer than a URL
/// may be (hyper refuses a request line over 64 KiB with a bare 414).
async fn search_form(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    if q.as_deref().is_some_and(|q| !q.is_empty()) {
        return Err(ApiError::new(
            400,
            "POST .../search takes its parameters in the body only",
        ));
    }
    let form = std::str::from_utf8(&body)
        .map_err(|_| ApiError::new(400, "the form body is not UTF-8 (percent-encode it)"))?;
    search_with(app, name, Some(form)).await
}

/// The search of the parameters `q` over the index `name`.
async fn search_with(app: Arc<App>, name: String, q: Option<&str>) -> Result<Response, ApiError> {
    let p = Params::parse(q, &search_params())?;
    let query = p
        .text("query")
        .ok_or_else(|| ApiError::bad_parameter("query", "query is required".into()))?;
    if query.len() > MAX_QUERY_BYTES {
        return Err(ApiError::bad_parameter(
            "query",
            format!(
                "the query has {} bytes: at most {MAX_QUERY_BYTES}",
                query.len()
            ),
        ));
    }
    let s = Search {
        query: query.to_string(),
        qid: p.text("qid").unwrap_or("q").to_string(),
        hits: p.number("hits", 10, 1, MAX_HITS)?,
        setting: Setting::read(&p)?,
        parse: p.flag("parse", true)?,
        snippets: p.flag("snippets", false)?,
    };
    let answer = blocking(app, move |app| search(app.indexes.get(&name)?, &s)).await?;
    Ok(axum::Json(answer).into_response())
}

async fn doc_route(
    State(app): Shared,
    Path((name, docid)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref(), &["query", "parse"])?;
    document(app, name, docid, DocOptions::of(&p)?).await
}

/// `GET /v1/{name}/doc?docid=ID`: the document route for any docid,
/// `.` and `..` included (a browser resolves those as path segments).
async fn doc_by_param(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref(), &["docid", "query", "parse"])?;
    let docid = required(&p, "docid")?;
    document(app, name, docid, DocOptions::of(&p)?).await
}

/// The text of the required parameter `name`.
fn required(p: &Params, name: &str) -> Result<String, ApiError> {
    p.text(name)
        .map(str::to_string)
        .ok_or_else(|| ApiError::bad_parameter(name, format!("{name} is required")))
}

/// A 404 for a docid not in the index.
fn no_doc(docid: &str, name: &str) -> ApiError {
    ApiError::new(
        404,
        format!("no document with docid {docid:?} in index {name:?}"),
    )
}

/// What a document answer holds beyond its fields.
struct DocOptions {
    /// Mark the terms of this query in the title and text.
    query: Option<String>,
    /// Anserini's `parse`: `doc` is the stored fields (true) or the text
    /// (false).
    parse: bool,
}

impl DocOptions {
    fn of(p: &Params) -> Result<DocOptions, ApiError> {
        Ok(DocOptions {
            query: p.text("query").map(str::to_string),
            parse: p.flag("parse", true)?,
        })
    }
}

/// The document answer: Anserini's `api`, `index`, `docid` and `doc`
/// (stored fields, or the text with `parse=false`), and `show`'s objects
/// (with the title and text as marked pieces when a query is given).
async fn document(
    app: Arc<App>,
    name: String,
    docid: String,
    DocOptions { query, parse }: DocOptions,
) -> Result<Response, ApiError> {
    let answer = blocking(app, move |app| {
        let index = app.indexes.get(&name)?;
        let info = sieve_searcher::docinfo::lookup(&index.shards, [docid.as_str()])
            .map_err(ApiError::from_search)?;
        let d = info.get(&docid).ok_or_else(|| no_doc(&docid, &name))?;
        let terms: HashSet<String> = query
            .as_deref()
            .map(|q| index.analyzer.terms(q).into_iter().collect())
            .unwrap_or_default();
        let shown: Vec<Value> = find_shown(index, &docid)?
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                if query.is_some() {
                    v["text_pieces"] = text_pieces(index, &s.text, &terms);
                    v["title_pieces"] = text_pieces(index, &s.title, &terms);
                }
                v
            })
            .collect();
        let doc = match parse {
            true => doc_json(d),
            false => crate::search::doc_text(index, &docid),
        };
        Ok(json!({"api": "v1", "index": name, "docid": docid, "doc": doc, "shown": shown}))
    })
    .await?;
    Ok(axum::Json(answer).into_response())
}

async fn raw_route(
    State(app): Shared,
    Path((name, docid)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    Params::parse(q.as_deref(), &[])?;
    raw(app, name, docid).await
}

/// `GET /v1/{name}/raw?docid=ID`: the raw route for any docid.
async fn raw_by_param(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref(), &["docid"])?;
    raw(app, name, required(&p, "docid")?).await
}

/// The record's bytes, as `sieve-index show --raw` writes them.
async fn raw(app: Arc<App>, name: String, docid: String) -> Result<Response, ApiError> {
    let bytes = blocking(app, move |app| {
        let index = app.indexes.get(&name)?;
        for show in &index.show {
            let mut out = Vec::new();
            match show.raw(&docid, &mut out) {
                Ok(_) => return Ok(out),
                Err(sieve_report::Error::NoSuchDocid { .. }) => continue,
                Err(e) => return Err(ApiError::new(500, format!("document {docid:?}: {e}"))),
            }
        }
        Err(no_doc(&docid, &name))
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CONTENT_DISPOSITION, "attachment"),
        ],
        bytes,
    )
        .into_response())
}

/// The parameters `POST .../run` takes.
fn run_params() -> Vec<&'static str> {
    ["hits", "tag", "topic_field"]
        .into_iter()
        .chain(setting_params())
        .collect()
}

async fn run_route(
    State(app): Shared,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref(), &run_params())?;
    let setting = Setting::read(&p)?;
    let hits = p.number("hits", 1000, 1, MAX_HITS)?;
    let tag = p.text("tag").unwrap_or("sieve").to_string();
    if tag.is_empty() || tag.len() > 200 || tag.chars().any(char::is_whitespace) {
        return Err(ApiError::bad_parameter(
            "tag",
            format!("a run tag is 1-200 characters without whitespace, got {tag:?}"),
        ));
    }
    let field: TopicField = p
        .text("topic_field")
        .unwrap_or("title")
        .parse()
        .map_err(|e: String| ApiError::bad_parameter("topic_field", e))?;
    let run = blocking(app, move |app| {
        run_topics(
            app.indexes.get(&name)?,
            &body,
            field,
            (&setting, &tag, hits),
        )
    })
    .await?;
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        run,
    )
        .into_response())
}
