//! Documents read back for the service, and snippets of their text.
//!
//! The body text is not stored in the index: a document's text is
//! extracted again from its record ([`ShowIndex::show`], as
//! `sieve-index show` does), from the first shard holding the docid.
//!
//! A snippet is a window of about [`WINDOW`] bytes of one paragraph
//! (line) of the text: the first paragraph holding a query term, the
//! window starting about [`BEFORE`] bytes before the term's first
//! occurrence (cut at whitespace when one is near, always at a character
//! boundary), else the start of the first non-empty paragraph. It is
//! answered as pieces `{"text", "mark"}`, `mark` true for a token whose
//! analysed term is a query term, with `…` pieces where the window cuts
//! the paragraph. Pieces are data: the page shows them as text.

use std::collections::HashSet;

use serde_json::{Value, json};
use sieve_report::show::{Shown, pieces};

use crate::error::ApiError;
use crate::state::Served;

/// The snippet's length in bytes (about: cuts move to whitespace).
pub const WINDOW: usize = 320;

/// How far before the first query term the window starts.
pub const BEFORE: usize = 100;

/// Every document with `docid` in the first shard of `index` that holds
/// it, its text extracted again from its record (a 404 when no shard
/// holds it).
pub fn find_shown(index: &Served, docid: &str) -> Result<Vec<Shown>, ApiError> {
    for show in &index.show {
        match show.show(docid) {
            Ok(found) => return Ok(found),
            Err(sieve_report::Error::NoSuchDocid { .. }) => continue,
            Err(e) => return Err(ApiError::new(500, format!("document {docid:?}: {e}"))),
        }
    }
    Err(ApiError::new(
        404,
        format!("no document with docid {docid:?} in index {:?}", index.name),
    ))
}

/// `text` as pieces with the tokens of `terms` marked.
pub fn text_pieces(index: &Served, text: &str, terms: &HashSet<String>) -> Value {
    let list: Vec<Value> = pieces(text, terms, &index.analyzer)
        .into_iter()
        .map(|(t, mark)| json!({"text": t, "mark": mark}))
        .collect();
    Value::Array(list)
}

/// The snippet of document `docid` for the analysed query `terms`; `null`
/// when its record cannot be read again (moved, changed).
pub fn snippet(index: &Served, docid: &str, terms: &[String]) -> Value {
    let Ok(shown) = find_shown(index, docid) else {
        return Value::Null;
    };
    let Some(doc) = shown.first() else {
        return Value::Null;
    };
    let terms: HashSet<String> = terms.iter().cloned().collect();
    let (line, from) = window_start(index, &doc.text, &terms);
    let to = cut_at(line, (from + WINDOW).min(line.len()), true);
    let mut list = Vec::new();
    if from > 0 {
        list.push(json!({"text": "… ", "mark": false}));
    }
    if let Value::Array(p) = text_pieces(index, &line[from..to], &terms) {
        list.extend(p);
    }
    if to < line.len() {
        list.push(json!({"text": " …", "mark": false}));
    }
    Value::Array(list)
}

/// The paragraph the snippet comes from and the window's start in it.
fn window_start<'t>(index: &Served, text: &'t str, terms: &HashSet<String>) -> (&'t str, usize) {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.clone().next().unwrap_or("");
    for line in lines.by_ref() {
        if let Some((at, _)) = pieces(line, terms, &index.analyzer)
            .iter()
            .scan(0, |pos, (p, mark)| {
                let start = *pos;
                *pos += p.len();
                Some((start, *mark))
            })
            .find(|(_, mark)| *mark)
        {
            return (line, cut_at(line, at.saturating_sub(BEFORE), false));
        }
    }
    (first, 0)
}

/// A cut of `line` near `at`: at a character boundary, moved to the
/// nearest whitespace within 24 bytes (forward when `forward`).
fn cut_at(line: &str, at: usize, forward: bool) -> usize {
    if at == 0 || at >= line.len() {
        return at.min(line.len());
    }
    let mut at = at;
    while !line.is_char_boundary(at) {
        at -= 1;
    }
    let near = if forward {
        line[at..]
            .char_indices()
            .take(24)
            .find(|(_, c)| c.is_whitespace())
            .map(|(i, _)| at + i)
    } else {
        line[..at]
            .char_indices()
            .rev()
            .take(24)
            .find(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i + 1)
    };
    near.unwrap_or(at)
}
