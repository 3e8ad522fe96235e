//! Text cut into pieces with the query's terms marked: the tokens of a
//! text whose analysed term (as the index analyses text) is one of the
//! query's. The pages wrap marked pieces in `<mark>`; the search service
//! answers them as `{"text", "mark"}` for its page to build as text.

use std::collections::HashSet;

use sieve_analysis::EnglishAnalyzer;

/// The byte ranges of `text`'s tokens whose analysed term is in `terms`,
/// in order, not overlapping.
fn marks(
    text: &str,
    terms: &HashSet<String>,
    analyzer: &EnglishAnalyzer,
) -> Vec<std::ops::Range<usize>> {
    let mut tokens = Vec::new();
    if !terms.is_empty() {
        analyzer.analyze_into(text, &mut tokens);
    }
    let mut at = 0;
    let mut out = Vec::new();
    for t in tokens.iter().filter(|t| terms.contains(&t.text)) {
        if t.offset_from < at || t.offset_to > text.len() {
            continue;
        }
        out.push(t.offset_from..t.offset_to);
        at = t.offset_to;
    }
    out
}

/// `text` cut into pieces in order, each `(piece, marked)`: marked pieces
/// are tokens whose analysed term is in `terms` (what the page marks).
pub fn pieces<'t>(
    text: &'t str,
    terms: &HashSet<String>,
    analyzer: &EnglishAnalyzer,
) -> Vec<(&'t str, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in marks(text, terms, analyzer) {
        if r.start > at {
            out.push((&text[at..r.start], false));
        }
        at = r.end;
        out.push((&text[r], true));
    }
    if at < text.len() {
        out.push((&text[at..], false));
    }
    out
}
