//! TREC topic files: readers for the five formats in use, detected from the
//! content.
//!
//! | [`TopicFormat`] | looks like | id | title |
//! |---|---|---|---|
//! | `TrecSgml` | `<top> <num> Number: 051 <title> Topic: ... <desc> Description: ... <narr> Narrative: ... </top>` | text of `<num>` without `Number:` | text of `<title>` without `Topic:` |
//! | `WebXml` | `<topic number="1" type="faceted"><query>..</query><description>..</description><subtopic ..>..</subtopic></topic>` | `number` attribute | `<query>` |
//! | `Colon` | `51:query` or `wt09-1:query`, one per line | text before the first `:` | the rest |
//! | `Tsv` | `id<TAB>query`, one per line | text before the first tab | the rest |
//! | `AnseriniCacm` | `<DOC> <DOCNO> 1 </DOCNO> text </DOC>` | `<DOCNO>` text | the text |
//! | `Smart` | `.I 001` then `.W` and the query (Cranfield, CACM, CISI, MED) | 1-based position in the file (the `.I` text is in `extra` as `smart-i`) | the `.W` text |
//!
//! All text fields (titles, descriptions, narratives, subtopics, extras) have
//! runs of ASCII whitespace collapsed to one space and are trimmed. Ids are
//! kept exactly as written (`"051"` stays `"051"`), only trimmed of
//! surrounding whitespace; an id with whitespace inside (any Unicode
//! whitespace, U+000B, U+000C, U+00A0 and U+3000 included) or a control
//! character is refused, since run files and qrels separate their columns
//! by whitespace (the rule docids follow too: [`sieve_filters::docid`]). Web Track XML character references (`&amp;`,
//! `&#38;`, ...) are decoded; TREC SGML text is kept verbatim (`AT&T`).
//! Every topic must have a non-empty id, and ids must be unique within a
//! file. A topic whose query is empty (`<title>` with no text, `<query/>`,
//! `7:`, an empty `<DOC>` or `.W`) is read, not refused: searched, it has no
//! term, so [`crate::queries`] names it in a warning and it gets no line in
//! a run.
//!
//! Input must be UTF-8 (a leading byte-order mark is skipped). Errors carry the
//! 1-based line number and what the parser expected.
//!
//! This module holds the types, [`read_topics`] / [`parse_topics`], format
//! detection and the checks every reader shares; each format has its own
//! file: [`sgml`] (TREC SGML, over the lenient tag scanner in `scan`),
//! [`webxml`] (Web Track XML, over quick-xml), [`lines`] (`id:query` and
//! `id<TAB>query`), [`cacm`] (Anserini CACM, over the same scanner) and
//! [`smart`] (SMART `.I`/`.W` records).

mod cacm;
mod lines;
mod scan;
mod sgml;
mod smart;
mod webxml;

#[cfg(test)]
mod samples;

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::text::{line_at, snippet, utf8};
use crate::{Error, Result};

/// One subtopic of a Web Track topic (`<subtopic number="1" type="nav">`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subtopic {
    /// The `number` attribute, exactly as written.
    pub number: String,
    /// The `type` attribute (`nav`, `inf`), if present.
    pub kind: Option<String>,
    /// The subtopic statement (whitespace collapsed, entities decoded).
    pub text: String,
}

/// One topic (information need).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topic {
    /// The topic id exactly as written (e.g. `"051"`, `"wt09-1"`, `"1"`).
    pub id: String,
    /// The short query (`<title>`, `<query>`, or the text of a line).
    pub title: String,
    /// `<desc>` / `<description>`, without the `Description:` label.
    pub description: Option<String>,
    /// `<narr>`, without the `Narrative:` label.
    pub narrative: Option<String>,
    /// Web Track subtopics, in file order.
    pub subtopics: Vec<Subtopic>,
    /// Web Track topic `type` attribute (`faceted`, `ambiguous`).
    pub kind: Option<String>,
    /// Other fields in file order, as (lower-case tag name, text): TREC-1
    /// `head`, `dom`, `smry`, `con`, `fac`, `def`, `nat`, `time`, ... with
    /// their labels (`Domain:`, `Concept(s):`, ...) removed; unknown Web
    /// Track elements inside `<topic>`.
    pub extra: Vec<(String, String)>,
}

/// The topic file formats [`parse_topics`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopicFormat {
    /// Classic TREC SGML (`<top>` ... `</top>`), including TREC-1/TIPSTER topics.
    TrecSgml,
    /// TREC Web Track 2009-2012 XML (`<topic number=.. type=..>`).
    WebXml,
    /// One `id:query` per line.
    Colon,
    /// One `id<TAB>query` per line.
    Tsv,
    /// Anserini's CACM topics (`<DOC><DOCNO> n </DOCNO> text </DOC>`).
    AnseriniCacm,
    /// SMART records (`.I n`, `.W` query), numbered in file order.
    Smart,
}

impl TopicFormat {
    /// The short name used in messages and `--json` (`trec-sgml`, `web-xml`,
    /// `colon`, `tsv`, `anserini-cacm`, `smart`).
    pub fn name(self) -> &'static str {
        match self {
            TopicFormat::TrecSgml => "trec-sgml",
            TopicFormat::WebXml => "web-xml",
            TopicFormat::Colon => "colon",
            TopicFormat::Tsv => "tsv",
            TopicFormat::AnseriniCacm => "anserini-cacm",
            TopicFormat::Smart => "smart",
        }
    }
}

impl std::fmt::Display for TopicFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of a topic becomes the query text (`--field title|desc|title+desc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TopicField {
    /// The title / query only.
    #[default]
    Title,
    /// The description only (empty if the topic has none).
    Description,
    /// Title, a space, then the description (just the title if there is none).
    TitleDescription,
}

impl std::str::FromStr for TopicField {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "title" => Ok(TopicField::Title),
            "desc" | "description" => Ok(TopicField::Description),
            "title+desc" => Ok(TopicField::TitleDescription),
            _ => Err(format!(
                "unknown topic field {s:?}; expected title, desc or title+desc"
            )),
        }
    }
}

impl Topic {
    /// The query text for `field`: see [`TopicField`].
    pub fn query(&self, field: TopicField) -> String {
        match field {
            TopicField::Title => self.title.clone(),
            TopicField::Description => self.description.clone().unwrap_or_default(),
            TopicField::TitleDescription => match &self.description {
                Some(d) if !d.is_empty() => format!("{} {}", self.title, d),
                _ => self.title.clone(),
            },
        }
    }

    fn new(id: String) -> Topic {
        Topic {
            id,
            title: String::new(),
            description: None,
            narrative: None,
            subtopics: Vec::new(),
            kind: None,
            extra: Vec::new(),
        }
    }
}

/// Reads and parses a topic file; see [`parse_topics`]. Errors name the path.
pub fn read_topics(path: &Path) -> Result<(TopicFormat, Vec<Topic>)> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_topics(&bytes).map_err(|e| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    })
}

/// Detects the format of a topic file from its content and parses it.
///
/// Detection looks at the first non-blank text (after an optional UTF-8 BOM):
/// `<?xml`, `<!DOCTYPE`, `<webtrack` or `<topic` means [`TopicFormat::WebXml`];
/// `<top>` (any case) means [`TopicFormat::TrecSgml`]; `<DOC>` means
/// [`TopicFormat::AnseriniCacm`]; a first line `.I` followed by a space or
/// tab means [`TopicFormat::Smart`]; otherwise a first line containing a tab means
/// [`TopicFormat::Tsv`] and one containing `:` means [`TopicFormat::Colon`].
/// Anything else is [`Error::UnknownTopicFormat`]. Topics are returned in file
/// order.
pub fn parse_topics(bytes: &[u8]) -> Result<(TopicFormat, Vec<Topic>)> {
    let text = utf8(bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let format = detect(text)?;
    let topics = match format {
        TopicFormat::TrecSgml => sgml::parse_sgml(text)?,
        TopicFormat::WebXml => webxml::parse_web_xml(text)?,
        TopicFormat::Colon => lines::parse_lines(text, ':', TopicFormat::Colon)?,
        TopicFormat::Tsv => lines::parse_lines(text, '\t', TopicFormat::Tsv)?,
        TopicFormat::AnseriniCacm => cacm::parse_cacm(text)?,
        TopicFormat::Smart => smart::parse_smart(text)?,
    };
    Ok((format, topics))
}

/// The format of `text` (BOM already removed): see [`parse_topics`].
fn detect(text: &str) -> Result<TopicFormat> {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    let lower: String = rest
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if lower.starts_with("<?xml")
        || lower.starts_with("<!doctype")
        || lower.starts_with("<webtrack")
        || lower.starts_with("<topic")
        || lower.starts_with("<!--")
    {
        return Ok(TopicFormat::WebXml);
    }
    if lower.starts_with("<top>") {
        return Ok(TopicFormat::TrecSgml);
    }
    if rest.starts_with("<DOC>") || lower.starts_with("<doc>") {
        return Ok(TopicFormat::AnseriniCacm);
    }
    let first = rest.lines().next().unwrap_or("");
    if first.starts_with(".I ") || first.starts_with(".I\t") {
        return Ok(TopicFormat::Smart);
    }
    if first.contains('\t') {
        return Ok(TopicFormat::Tsv);
    }
    if first.contains(':') {
        return Ok(TopicFormat::Colon);
    }
    Err(Error::UnknownTopicFormat {
        tried: "trec-sgml (<top>), web-xml (<topic number=..>), anserini-cacm (<DOC><DOCNO>), \
                smart (.I n / .W), tsv (id<TAB>query), colon (id:query)"
            .to_string(),
        line: if rest.is_empty() {
            0
        } else {
            line_at(text, start)
        },
        found: snippet(first),
    })
}

/// The syntax error every topic reader reports: `format`, the line of byte
/// offset `pos` in `text`, what was expected, and a snippet of what was found
/// (trimmed).
fn syntax_error(format: TopicFormat, text: &str, pos: usize, expected: &str, found: &str) -> Error {
    Error::TopicSyntax {
        format: format.name(),
        line: line_at(text, pos),
        expected: expected.to_string(),
        found: snippet(found.trim()),
    }
}

/// Checks that a topic has an id the run-file id rule accepts
/// ([`sieve_filters::docid::check_id`], as docids: non-empty, no
/// whitespace, C `isspace` or Unicode, vertical tab, form feed, U+00A0 and
/// U+3000 included, no control character: run files and qrels separate
/// their columns by whitespace, so such an id would shift every column
/// after it) ; `line` is where it starts. An empty title is
/// allowed (see the module docs).
fn check_topic(format: TopicFormat, line: usize, id: &str) -> Result<()> {
    if let Err(fault) = sieve_filters::docid::check_id(id) {
        let expected = match fault.rule {
            sieve_filters::docid::IdRule::Empty => "a non-empty topic id".to_string(),
            _ => format!("a topic id without whitespace or control characters ({fault})"),
        };
        return Err(Error::TopicSyntax {
            format: format.name(),
            line,
            expected,
            found: format!("\"{}\"", sieve_filters::docid::escaped(id)),
        });
    }
    Ok(())
}

/// Records `id` as seen at `line`; [`Error::DuplicateTopic`] if it was seen before.
fn insert_unique(seen: &mut HashMap<String, usize>, id: &str, line: usize) -> Result<()> {
    if let Some(&first_line) = seen.get(id) {
        return Err(Error::DuplicateTopic {
            id: id.to_string(),
            first_line,
            line,
        });
    }
    seen.insert(id.to_string(), line);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_format_lists_formats() {
        let e = parse_topics(b"\n\nhello world\n").unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, Error::UnknownTopicFormat { line: 3, .. }),
            "{msg}"
        );
        for f in ["trec-sgml", "web-xml", "anserini-cacm", "tsv", "colon"] {
            assert!(msg.contains(f), "{msg}");
        }
        assert!(matches!(
            parse_topics(b"").unwrap_err(),
            Error::UnknownTopicFormat { line: 0, .. }
        ));
    }

    #[test]
    fn invalid_utf8_reports_line() {
        let e = parse_topics(b"1:a\n2:\xff\n").unwrap_err();
        assert!(
            matches!(e, Error::InvalidUtf8 { line: 2, offset: 6 }),
            "{e}"
        );
    }

    #[test]
    fn field_parsing() {
        assert_eq!(
            "title+desc".parse::<TopicField>().unwrap(),
            TopicField::TitleDescription
        );
        assert!("x".parse::<TopicField>().is_err());
    }
}
