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
//!
//! All text fields (titles, descriptions, narratives, subtopics, extras) have
//! runs of ASCII whitespace collapsed to one space and are trimmed. Ids are
//! kept exactly as written (`"051"` stays `"051"`), only trimmed of
//! surrounding whitespace. Web Track XML character references (`&amp;`,
//! `&#38;`, ...) are decoded; TREC SGML text is kept verbatim (`AT&T`).
//! Every topic must have a non-empty id and a non-empty title, and ids must be
//! unique within a file.
//!
//! Input must be UTF-8 (a leading byte-order mark is skipped). Errors carry the
//! 1-based line number and what the parser expected.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

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
}

impl TopicFormat {
    /// The short name used in messages and `--json` (`trec-sgml`, `web-xml`,
    /// `colon`, `tsv`, `anserini-cacm`).
    pub fn name(self) -> &'static str {
        match self {
            TopicFormat::TrecSgml => "trec-sgml",
            TopicFormat::WebXml => "web-xml",
            TopicFormat::Colon => "colon",
            TopicFormat::Tsv => "tsv",
            TopicFormat::AnseriniCacm => "anserini-cacm",
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
/// [`TopicFormat::AnseriniCacm`]; otherwise a first line containing a tab means
/// [`TopicFormat::Tsv`] and one containing `:` means [`TopicFormat::Colon`].
/// Anything else is [`Error::UnknownTopicFormat`]. Topics are returned in file
/// order.
pub fn parse_topics(bytes: &[u8]) -> Result<(TopicFormat, Vec<Topic>)> {
    let text = utf8(bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let format = detect(text)?;
    let topics = match format {
        TopicFormat::TrecSgml => parse_sgml(text)?,
        TopicFormat::WebXml => parse_web_xml(text)?,
        TopicFormat::Colon => parse_lines(text, ':', TopicFormat::Colon)?,
        TopicFormat::Tsv => parse_lines(text, '\t', TopicFormat::Tsv)?,
        TopicFormat::AnseriniCacm => parse_cacm(text)?,
    };
    Ok((format, topics))
}

/// Checks that `bytes` is UTF-8, reporting the line and offset of the first
/// invalid byte otherwise.
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        Error::InvalidUtf8 {
            line: 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count(),
            offset,
        }
    })
}

/// At most 60 characters of `s`, for error messages.
pub(crate) fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Collapses runs of ASCII whitespace to one space and trims.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_ascii_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// 1-based line number of byte offset `pos` in `text`.
fn line_at(text: &str, pos: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..pos]).count()
}

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
    if first.contains('\t') {
        return Ok(TopicFormat::Tsv);
    }
    if first.contains(':') {
        return Ok(TopicFormat::Colon);
    }
    Err(Error::UnknownTopicFormat {
        tried: "trec-sgml (<top>), web-xml (<topic number=..>), anserini-cacm (<DOC><DOCNO>), \
                tsv (id<TAB>query), colon (id:query)"
            .to_string(),
        line: if rest.is_empty() {
            0
        } else {
            line_at(text, start)
        },
        found: snippet(first),
    })
}

// ---------------------------------------------------------------------------
// id:query and id<TAB>query lines

fn parse_lines(text: &str, sep: char, format: TopicFormat) -> Result<Vec<Topic>> {
    let mut topics = Vec::new();
    let mut seen = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let Some((id, query)) = line.split_once(sep) else {
            return Err(Error::TopicSyntax {
                format: format.name(),
                line: lineno,
                expected: format!("id{}query", if sep == '\t' { "<TAB>" } else { ":" }),
                found: snippet(line),
            });
        };
        let id = id.trim();
        let title = collapse(query);
        check_topic(format, lineno, id, &title)?;
        insert_unique(&mut seen, id, lineno)?;
        let mut t = Topic::new(id.to_string());
        t.title = title;
        topics.push(t);
    }
    Ok(topics)
}

fn check_topic(format: TopicFormat, line: usize, id: &str, title: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::TopicSyntax {
            format: format.name(),
            line,
            expected: "a non-empty topic id".into(),
            found: String::new(),
        });
    }
    if title.is_empty() {
        return Err(Error::TopicSyntax {
            format: format.name(),
            line,
            expected: format!("a non-empty query for topic {id:?}"),
            found: String::new(),
        });
    }
    Ok(())
}

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

// ---------------------------------------------------------------------------
// A tiny tag scanner shared by the SGML, CACM and XML readers.

/// A markup token: a tag or a run of text, with its byte offset.
#[derive(Debug)]
enum Tok<'a> {
    /// `<name attrs>` (or `<name/>` with `empty`), name as written.
    Open {
        name: &'a str,
        attrs: &'a str,
        empty: bool,
        pos: usize,
    },
    /// `</name>`.
    Close { name: &'a str, pos: usize },
    /// Text between tags.
    Text { text: &'a str, pos: usize },
}

/// Splits `text` into tags and text. A `<` starts a tag only when followed
/// by an optional `/` and an ASCII letter and closed by a `>` on the same
/// tag; other `<` characters (e.g. `< 5`, `>= 200`) are text. With `xml`,
/// comments, `<?..?>` and `<!DOCTYPE ..[..]>` are skipped, and a `<` that
/// does not start a tag is an error.
fn scan(text: &str, xml: bool, format: TopicFormat) -> Result<Vec<Tok<'_>>> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut text_start = 0;
    let err = |pos: usize, expected: &str| Error::TopicSyntax {
        format: format.name(),
        line: line_at(text, pos),
        expected: expected.to_string(),
        found: snippet(&text[pos..]),
    };
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let lt = i + off;
        let mut j = lt + 1;
        let mut skip_to = None;
        let mut tok = None;
        if xml && text[j..].starts_with("!--") {
            let end = text[j..]
                .find("-->")
                .ok_or_else(|| err(lt, "end of comment -->"))?;
            skip_to = Some(j + end + 3);
        } else if xml && text[j..].starts_with('?') {
            let end = text[j..].find("?>").ok_or_else(|| err(lt, "?>"))?;
            skip_to = Some(j + end + 2);
        } else if xml && text[j..].starts_with('!') {
            // <!DOCTYPE name [ internal subset ]>: skip bracket-aware.
            let mut depth = 0usize;
            let mut k = j;
            loop {
                match b.get(k) {
                    None => return Err(err(lt, "end of <!DOCTYPE ...>")),
                    Some(b'[') => depth += 1,
                    Some(b']') => depth = depth.saturating_sub(1),
                    Some(b'>') if depth == 0 => break,
                    _ => {}
                }
                k += 1;
            }
            skip_to = Some(k + 1);
        } else {
            let closing = b.get(j) == Some(&b'/');
            if closing {
                j += 1;
            }
            if b.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
                let name_start = j;
                while b.get(j).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
                }) {
                    j += 1;
                }
                let name = &text[name_start..j];
                match text[j..].find('>') {
                    Some(end) if !text[j..j + end].contains('<') => {
                        let inner = &text[j..j + end];
                        let (attrs, empty) = match inner.strip_suffix('/') {
                            Some(a) => (a, true),
                            None => (inner, false),
                        };
                        let attrs_ok = attrs.is_empty()
                            || attrs.starts_with(|c: char| c.is_ascii_whitespace());
                        if attrs_ok && (xml || attrs.trim().is_empty()) && !(closing && empty) {
                            tok = Some(if closing {
                                Tok::Close { name, pos: lt }
                            } else {
                                Tok::Open {
                                    name,
                                    attrs,
                                    empty,
                                    pos: lt,
                                }
                            });
                            skip_to = Some(j + end + 1);
                        }
                    }
                    _ => {}
                }
            }
            if tok.is_none() && xml {
                return Err(err(lt, "a tag (a bare '<' must be written &lt;)"));
            }
        }
        match skip_to {
            Some(next) => {
                if text_start < lt {
                    toks.push(Tok::Text {
                        text: &text[text_start..lt],
                        pos: text_start,
                    });
                }
                toks.extend(tok);
                i = next;
                text_start = next;
            }
            None => i = lt + 1,
        }
    }
    if text_start < text.len() {
        toks.push(Tok::Text {
            text: &text[text_start..],
            pos: text_start,
        });
    }
    Ok(toks)
}

// ---------------------------------------------------------------------------
// TREC SGML

/// Labels that TREC topic files put at the start of a field's text.
fn sgml_labels(tag: &str) -> &'static [&'static str] {
    match tag {
        "num" => &["number:"],
        "title" => &["topic:"],
        "desc" => &["description:"],
        "narr" => &["narrative:"],
        "smry" => &["summary:"],
        "dom" => &["domain:"],
        "con" => &["concept(s):", "concepts:", "concept:"],
        "fac" => &["factor(s):", "factors:", "factor:"],
        "def" => &["definition(s):", "definitions:", "definition:"],
        "nat" => &["nationality:"],
        "time" => &["time:"],
        "price" => &["price:"],
        _ => &[],
    }
}

fn strip_label(tag: &str, text: &str) -> String {
    let t = text.trim_start();
    for label in sgml_labels(tag) {
        if t.len() >= label.len()
            && t.is_char_boundary(label.len())
            && t[..label.len()].eq_ignore_ascii_case(label)
        {
            return collapse(&t[label.len()..]);
        }
    }
    collapse(t)
}

/// An SGML field being collected: (tag, text, byte offset of the tag).
type SgmlField = (String, String, usize);

/// A Web Track XML child element being collected: (name, attributes, text, byte offset).
type XmlChild = (String, Vec<(String, String)>, String, usize);

fn parse_sgml(text: &str) -> Result<Vec<Topic>> {
    const F: TopicFormat = TopicFormat::TrecSgml;
    let toks = scan(text, false, F)?;
    let err = |pos: usize, expected: &str, found: &str| Error::TopicSyntax {
        format: F.name(),
        line: line_at(text, pos),
        expected: expected.to_string(),
        found: snippet(found.trim()),
    };
    let mut topics = Vec::new();
    let mut seen = HashMap::new();
    // Inside <top>: (topic start, fields so far as (tag, text, pos)).
    let mut current: Option<(usize, Vec<SgmlField>)> = None;
    // The field whose text is being collected.
    let mut field: Option<(String, String, usize)> = None;
    for tok in toks {
        match tok {
            Tok::Open { name, pos, .. } => {
                let lname = name.to_ascii_lowercase();
                if lname == "top" {
                    if current.is_some() {
                        return Err(err(pos, "</top> before the next <top>", "<top>"));
                    }
                    current = Some((pos, Vec::new()));
                    field = None;
                    continue;
                }
                let Some((_, fields)) = current.as_mut() else {
                    return Err(err(pos, "<top>", &format!("<{name}>")));
                };
                if let Some(f) = field.take() {
                    fields.push(f);
                }
                field = Some((lname, String::new(), pos));
            }
            Tok::Close { name, pos } => {
                let lname = name.to_ascii_lowercase();
                let Some((start, mut fields)) = current.take() else {
                    return Err(err(pos, "<top>", &format!("</{name}>")));
                };
                if let Some(f) = field.take() {
                    fields.push(f);
                }
                if lname != "top" {
                    // Closing a field tag ends that field; text after it is
                    // ignored until the next tag.
                    current = Some((start, fields));
                    continue;
                }
                let topic = sgml_topic(text, start, fields)?;
                insert_unique(&mut seen, &topic.id, line_at(text, start))?;
                topics.push(topic);
            }
            Tok::Text { text: t, pos } => match field.as_mut() {
                Some((_, buf, _)) => buf.push_str(t),
                None => {
                    if !t.trim().is_empty() {
                        let expected = if current.is_some() {
                            "a field tag such as <num>"
                        } else {
                            "<top>"
                        };
                        let off = t.len() - t.trim_start().len();
                        return Err(err(pos + off, expected, t));
                    }
                }
            },
        }
    }
    if let Some((start, _)) = current {
        return Err(Error::TopicSyntax {
            format: F.name(),
            line: line_at(text, text.len()),
            expected: format!("</top> closing the <top> of line {}", line_at(text, start)),
            found: "end of file".into(),
        });
    }
    Ok(topics)
}

fn sgml_topic(text: &str, start: usize, fields: Vec<SgmlField>) -> Result<Topic> {
    const F: TopicFormat = TopicFormat::TrecSgml;
    let mut topic = Topic::new(String::new());
    let mut have_num = false;
    let mut have_title = false;
    for (tag, raw, pos) in fields {
        let value = strip_label(&tag, &raw);
        let dup = |what: &str| Error::TopicSyntax {
            format: F.name(),
            line: line_at(text, pos),
            expected: format!("one <{what}> per topic"),
            found: format!("a second <{what}>"),
        };
        match tag.as_str() {
            "num" => {
                if have_num {
                    return Err(dup("num"));
                }
                have_num = true;
                topic.id = value;
            }
            "title" => {
                if have_title {
                    return Err(dup("title"));
                }
                have_title = true;
                topic.title = value;
            }
            "desc" if topic.description.is_none() => topic.description = Some(value),
            "narr" if topic.narrative.is_none() => topic.narrative = Some(value),
            _ => topic.extra.push((tag, value)),
        }
    }
    let line = line_at(text, start);
    if !have_num {
        return Err(Error::TopicSyntax {
            format: F.name(),
            line,
            expected: "<num> in this <top>".into(),
            found: "none".into(),
        });
    }
    if !have_title {
        return Err(Error::TopicSyntax {
            format: F.name(),
            line,
            expected: format!("<title> in topic {:?}", topic.id),
            found: "none".into(),
        });
    }
    check_topic(F, line, &topic.id, &topic.title)?;
    Ok(topic)
}

// ---------------------------------------------------------------------------
// Anserini CACM: <DOC> <DOCNO> n </DOCNO> text </DOC>

fn parse_cacm(text: &str) -> Result<Vec<Topic>> {
    const F: TopicFormat = TopicFormat::AnseriniCacm;
    let toks = scan(text, false, F)?;
    let err = |pos: usize, expected: &str, found: &str| Error::TopicSyntax {
        format: F.name(),
        line: line_at(text, pos),
        expected: expected.to_string(),
        found: snippet(found.trim()),
    };
    #[derive(PartialEq)]
    enum St {
        Outside,
        WantDocno,
        InDocno,
        Body,
    }
    let mut st = St::Outside;
    let mut topics = Vec::new();
    let mut seen = HashMap::new();
    let (mut id, mut body, mut start) = (String::new(), String::new(), 0);
    for tok in toks {
        match (&st, tok) {
            (
                St::Outside,
                Tok::Open {
                    name: "DOC", pos, ..
                },
            ) => {
                st = St::WantDocno;
                start = pos;
                id.clear();
                body.clear();
            }
            (St::Outside, Tok::Text { text: t, .. }) if t.trim().is_empty() => {}
            (St::WantDocno, Tok::Open { name: "DOCNO", .. }) => st = St::InDocno,
            (St::WantDocno, Tok::Text { text: t, .. }) if t.trim().is_empty() => {}
            (St::InDocno, Tok::Text { text: t, .. }) => id.push_str(t),
            (St::InDocno, Tok::Close { name: "DOCNO", .. }) => st = St::Body,
            (St::Body, Tok::Text { text: t, .. }) => body.push_str(t),
            (St::Body, Tok::Close { name: "DOC", .. }) => {
                let line = line_at(text, start);
                let tid = id.trim().to_string();
                let title = collapse(&body);
                check_topic(F, line, &tid, &title)?;
                insert_unique(&mut seen, &tid, line)?;
                let mut t = Topic::new(tid);
                t.title = title;
                topics.push(t);
                st = St::Outside;
            }
            (state, tok) => {
                let expected = match state {
                    St::Outside => "<DOC>",
                    St::WantDocno => "<DOCNO>",
                    St::InDocno => "</DOCNO>",
                    St::Body => "</DOC>",
                };
                let (pos, found) = match tok {
                    Tok::Open { name, pos, .. } => (pos, format!("<{name}>")),
                    Tok::Close { name, pos } => (pos, format!("</{name}>")),
                    Tok::Text { text: t, pos } => {
                        (pos + (t.len() - t.trim_start().len()), t.to_string())
                    }
                };
                return Err(err(pos, expected, &found));
            }
        }
    }
    if st != St::Outside {
        return Err(err(text.len(), "</DOC>", "end of file"));
    }
    Ok(topics)
}

// ---------------------------------------------------------------------------
// Web Track XML

/// Decodes XML character references in `s` (the five predefined entities and
/// numeric references). Unknown entities are an error.
fn decode_entities(s: &str, text: &str, pos: usize) -> Result<String> {
    if !s.contains('&') {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let bad = || Error::TopicSyntax {
            format: TopicFormat::WebXml.name(),
            line: line_at(text, pos + (s.len() - rest.len()) + amp),
            expected: "an entity (&amp; &lt; &gt; &quot; &apos; &#N; &#xH;)".into(),
            found: snippet(&rest[amp..]),
        };
        let semi = after.find(';').filter(|&n| n <= 10).ok_or_else(bad)?;
        let name = &after[..semi];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code =
                    if let Some(h) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                        u32::from_str_radix(h, 16).ok()
                    } else if let Some(d) = name.strip_prefix('#') {
                        d.parse::<u32>().ok()
                    } else {
                        None
                    };
                code.and_then(char::from_u32).ok_or_else(bad)?
            }
        };
        out.push(c);
        rest = &after[semi + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses `name="value"` pairs; values are entity-decoded.
fn parse_attrs(attrs: &str, text: &str, pos: usize) -> Result<Vec<(String, String)>> {
    let err = |expected: &str, found: &str| Error::TopicSyntax {
        format: TopicFormat::WebXml.name(),
        line: line_at(text, pos),
        expected: expected.to_string(),
        found: snippet(found),
    };
    let mut out = Vec::new();
    let mut rest = attrs.trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or_else(|| err("name=\"value\"", rest))?;
        let name = rest[..eq].trim();
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(err("an attribute name", rest));
        }
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next().filter(|&c| c == '"' || c == '\'');
        let Some(q) = quote else {
            return Err(err("a quoted attribute value", after));
        };
        let end = after[1..]
            .find(q)
            .ok_or_else(|| err("a closing quote", after))?;
        let value = decode_entities(&after[1..1 + end], text, pos)?;
        out.push((name.to_string(), value));
        rest = after[end + 2..].trim_start();
    }
    Ok(out)
}

fn parse_web_xml(text: &str) -> Result<Vec<Topic>> {
    const F: TopicFormat = TopicFormat::WebXml;
    let toks = scan(text, true, F)?;
    let err = |pos: usize, expected: String, found: String| Error::TopicSyntax {
        format: F.name(),
        line: line_at(text, pos),
        expected,
        found: snippet(found.trim()),
    };
    // Element stack: (name, pos). Topic under construction, and the text of
    // the element directly inside <topic> being read.
    let mut stack: Vec<(&str, usize)> = Vec::new();
    let mut topics = Vec::new();
    let mut seen = HashMap::new();
    let mut topic: Option<(Topic, usize, bool)> = None; // (topic, pos, has query)
    let mut child: Option<XmlChild> = None;
    for tok in toks {
        match tok {
            Tok::Open {
                name,
                attrs,
                empty,
                pos,
            } => {
                let attrs = parse_attrs(attrs, text, pos)?;
                let depth_in_topic = stack
                    .iter()
                    .position(|(n, _)| *n == "topic")
                    .map(|p| stack.len() - p);
                if name == "topic" && depth_in_topic.is_none() {
                    let number = attrs
                        .iter()
                        .find(|(k, _)| k == "number")
                        .map(|(_, v)| v.trim().to_string());
                    let Some(number) = number.filter(|n| !n.is_empty()) else {
                        return Err(err(
                            pos,
                            "<topic number=\"...\">".into(),
                            format!("<topic{}>", ""),
                        ));
                    };
                    let mut t = Topic::new(number);
                    t.kind = attrs
                        .iter()
                        .find(|(k, _)| k == "type")
                        .map(|(_, v)| v.clone());
                    topic = Some((t, pos, false));
                } else if depth_in_topic == Some(1) {
                    child = Some((name.to_string(), attrs, String::new(), pos));
                } else if depth_in_topic.is_some() {
                    return Err(err(
                        pos,
                        format!("text or </{}>", stack.last().map_or("", |s| s.0)),
                        format!("<{name}>"),
                    ));
                }
                if empty {
                    // <name/>: open and close at once.
                    if let Some(c) = child.take() {
                        finish_child(&mut topic, c, text)?;
                    } else if name == "topic" {
                        return Err(err(pos, "<topic> with a <query>".into(), "<topic/>".into()));
                    }
                } else {
                    stack.push((name, pos));
                }
            }
            Tok::Close { name, pos } => {
                let Some((open, open_pos)) = stack.pop() else {
                    return Err(err(
                        pos,
                        "no closing tag at top level".into(),
                        format!("</{name}>"),
                    ));
                };
                if open != name {
                    return Err(err(
                        pos,
                        format!(
                            "</{open}> closing <{open}> of line {}",
                            line_at(text, open_pos)
                        ),
                        format!("</{name}>"),
                    ));
                }
                if let Some(c) = child.take() {
                    finish_child(&mut topic, c, text)?;
                } else if name == "topic" {
                    let Some((t, tpos, has_query)) = topic.take() else {
                        return Err(err(pos, "<topic>".into(), "</topic>".into()));
                    };
                    let line = line_at(text, tpos);
                    if !has_query {
                        return Err(err(
                            tpos,
                            format!("<query> in topic {:?}", t.id),
                            "none".into(),
                        ));
                    }
                    check_topic(F, line, &t.id, &t.title)?;
                    insert_unique(&mut seen, &t.id, line)?;
                    topics.push(t);
                }
            }
            Tok::Text { text: t, pos } => {
                if let Some((_, _, buf, _)) = child.as_mut() {
                    buf.push_str(&decode_entities(t, text, pos)?);
                } else if !t.trim().is_empty() {
                    let off = t.len() - t.trim_start().len();
                    let expected = if topic.is_some() {
                        "a child element of <topic>"
                    } else {
                        "<topic>"
                    };
                    return Err(err(pos + off, expected.into(), t.into()));
                }
            }
        }
    }
    if let Some((open, pos)) = stack.last() {
        return Err(Error::TopicSyntax {
            format: F.name(),
            line: line_at(text, text.len()),
            expected: format!("</{open}> closing <{open}> of line {}", line_at(text, *pos)),
            found: "end of file".into(),
        });
    }
    Ok(topics)
}

fn finish_child(
    topic: &mut Option<(Topic, usize, bool)>,
    (name, attrs, buf, pos): XmlChild,
    text: &str,
) -> Result<()> {
    let Some((t, _, has_query)) = topic.as_mut() else {
        return Ok(());
    };
    let value = collapse(&buf);
    match name.as_str() {
        "query" => {
            if *has_query {
                return Err(Error::TopicSyntax {
                    format: TopicFormat::WebXml.name(),
                    line: line_at(text, pos),
                    expected: "one <query> per topic".into(),
                    found: "a second <query>".into(),
                });
            }
            *has_query = true;
            t.title = value;
        }
        "description" if t.description.is_none() => t.description = Some(value),
        "narrative" if t.narrative.is_none() => t.narrative = Some(value),
        "subtopic" => {
            let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
            t.subtopics.push(Subtopic {
                number: get("number").unwrap_or_default(),
                kind: get("type"),
                text: value,
            });
        }
        _ => t.extra.push((name, value)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colon_and_tsv() {
        let (f, t) = parse_topics(b"51:horse racing\nwt09-2: a: b \n\n").unwrap();
        assert_eq!(f, TopicFormat::Colon);
        assert_eq!(t.len(), 2);
        assert_eq!((t[1].id.as_str(), t[1].title.as_str()), ("wt09-2", "a: b"));
        let (f, t) = parse_topics(b"1\tfoo  bar\n2\tx:y\n").unwrap();
        assert_eq!(f, TopicFormat::Tsv);
        assert_eq!(t[1].title, "x:y");
        assert_eq!(t[0].title, "foo bar");
    }

    #[test]
    fn line_errors_carry_line_numbers() {
        let e = parse_topics(b"1:a\n2 b\n").unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 2, .. }), "{e}");
        let e = parse_topics(b"1:a\n1:b\n").unwrap_err();
        assert!(
            matches!(
                e,
                Error::DuplicateTopic {
                    first_line: 1,
                    line: 2,
                    ..
                }
            ),
            "{e}"
        );
        let e = parse_topics(b"1:\n").unwrap_err();
        assert!(e.to_string().contains("non-empty query"), "{e}");
    }

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
    fn sgml_unclosed_fields_and_labels() {
        let src = b"<top>\n<num> Number: 051 \n<dom> Domain: Econ\n<title> Topic: Airbus  Subsidies\n\
                    <desc> Description:\nGovernment\n assistance.\n<fac> Factor(s):\n<nat> Nationality: U.S.\n</fac>\n\
                    <price> Price: >= 200 < 300\n</top>\n";
        let (f, t) = parse_topics(src).unwrap();
        assert_eq!(f, TopicFormat::TrecSgml);
        let t = &t[0];
        assert_eq!(t.id, "051");
        assert_eq!(t.title, "Airbus Subsidies");
        assert_eq!(t.description.as_deref(), Some("Government assistance."));
        assert_eq!(t.narrative, None);
        assert_eq!(
            t.extra,
            vec![
                ("dom".to_string(), "Econ".to_string()),
                ("fac".to_string(), String::new()),
                ("nat".to_string(), "U.S.".to_string()),
                ("price".to_string(), ">= 200 < 300".to_string()),
            ]
        );
        assert_eq!(
            t.query(TopicField::TitleDescription),
            "Airbus Subsidies Government assistance."
        );
    }

    #[test]
    fn sgml_closed_num_tags() {
        let (_, t) = parse_topics(
            b"<top>\n<num>1</num><title>measurement of dielectric constant</title>\n</top>\n",
        )
        .unwrap();
        assert_eq!(t[0].id, "1");
        assert_eq!(t[0].title, "measurement of dielectric constant");
    }

    #[test]
    fn sgml_errors() {
        let e = parse_topics(b"<top>\n<num> 1\n<title> a\n").unwrap_err();
        assert!(e.to_string().contains("</top>"), "{e}");
        let e = parse_topics(b"<top>\n<title> a\n</top>\n").unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 1, .. }), "{e}");
        assert!(e.to_string().contains("<num>"), "{e}");
        let e = parse_topics(b"<top>\n<num> 1\n</top>\n").unwrap_err();
        assert!(e.to_string().contains("<title>"), "{e}");
        let e = parse_topics(b"<top><num>1<title>a</top>\ngarbage\n").unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 2, .. }), "{e}");
    }

    #[test]
    fn web_xml_entities_subtopics() {
        let src = br#"<?xml version="1.0"?>
<!DOCTYPE webtrack2009 [
  <!ELEMENT webtrack2009 (topic)*>
]>
<webtrack2009>
<!-- a comment -->
<topic number="7" type="faceted">
  <query>at&amp;t
   phones</query>
  <description>Find &quot;x&quot; &#65;&#x42;</description>
  <subtopic number="1" type="nav">Go to AT&amp;T's
    page.</subtopic>
  <subtopic number="2">b</subtopic>
</topic>
</webtrack2009>
"#;
        let (f, t) = parse_topics(src).unwrap();
        assert_eq!(f, TopicFormat::WebXml);
        let t = &t[0];
        assert_eq!(t.id, "7");
        assert_eq!(t.kind.as_deref(), Some("faceted"));
        assert_eq!(t.title, "at&t phones");
        assert_eq!(t.description.as_deref(), Some("Find \"x\" AB"));
        assert_eq!(t.subtopics.len(), 2);
        assert_eq!(t.subtopics[0].text, "Go to AT&T's page.");
        assert_eq!(t.subtopics[0].kind.as_deref(), Some("nav"));
        assert_eq!(t.subtopics[1].kind, None);
    }

    #[test]
    fn web_xml_errors() {
        let e = parse_topics(b"<webtrack>\n<topic number=\"1\">\n<query>a</query>\n</webtrack>\n")
            .unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 4, .. }), "{e}");
        let e =
            parse_topics(b"<topic number=\"1\"><description>a</description></topic>").unwrap_err();
        assert!(e.to_string().contains("<query>"), "{e}");
        let e = parse_topics(b"<topic number=\"1\"><query>a &foo; b</query></topic>").unwrap_err();
        assert!(e.to_string().contains("entity"), "{e}");
        let e = parse_topics(b"<topic><query>a</query></topic>").unwrap_err();
        assert!(e.to_string().contains("number"), "{e}");
    }

    #[test]
    fn cacm() {
        let (f, t) = parse_topics(b"<DOC>\n<DOCNO> 1 </DOCNO>\n\n What articles\n exist?\n</DOC>\n<DOC>\n<DOCNO> 2 </DOCNO>\nb\n</DOC>\n").unwrap();
        assert_eq!(f, TopicFormat::AnseriniCacm);
        assert_eq!(t.len(), 2);
        assert_eq!(
            (t[0].id.as_str(), t[0].title.as_str()),
            ("1", "What articles exist?")
        );
        let e = parse_topics(b"<DOC>\n<DOCNO> 1 </DOCNO>\nx\n").unwrap_err();
        assert!(e.to_string().contains("</DOC>"), "{e}");
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

/// The sample topic files committed under `topics/` (see `topics/SOURCES.md`).
#[cfg(test)]
mod sample_files {
    use super::*;

    fn read(name: &str) -> (TopicFormat, Vec<Topic>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../topics")
            .join(name);
        read_topics(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn robust04() {
        let (f, t) = read("topics.robust04.txt");
        assert_eq!(f, TopicFormat::TrecSgml);
        assert_eq!(t.len(), 250);
        assert_eq!((t[0].id.as_str(), t[249].id.as_str()), ("301", "700"));
        assert_eq!(t[0].title, "International Organized Crime");
        assert_eq!(t[249].title, "gasoline tax U.S.");
        assert_eq!(
            t[249].description.as_deref(),
            Some(
                "What are the arguments for and against an increase in gasoline taxes in the U.S.?"
            )
        );
        assert!(
            t[249]
                .narrative
                .as_deref()
                .unwrap()
                .starts_with("Relevant documents present")
        );
        assert!(
            t.iter()
                .all(|t| t.description.is_some() && t.narrative.is_some())
        );
        // 301-450 and 601-700
        let ids: Vec<u32> = t.iter().map(|t| t.id.parse().unwrap()).collect();
        let want: Vec<u32> = (301..=450).chain(601..=700).collect();
        assert_eq!(ids, want);
    }

    #[test]
    fn adhoc_51_100_tipster() {
        let (f, t) = read("topics.adhoc.51-100.txt");
        assert_eq!(f, TopicFormat::TrecSgml);
        assert_eq!(t.len(), 50);
        assert_eq!((t[0].id.as_str(), t[49].id.as_str()), ("051", "100"));
        assert_eq!(t[0].title, "Airbus Subsidies");
        assert_eq!(t[49].title, "Controlling the Transfer of High Technology");
        let dom = t[0]
            .extra
            .iter()
            .find(|(k, _)| k == "dom")
            .map(|(_, v)| v.as_str());
        assert_eq!(dom, Some("International Economics"));
        for tag in ["head", "smry", "con", "fac"] {
            assert!(
                t[0].extra.iter().any(|(k, _)| k == tag),
                "missing <{tag}>: {:?}",
                t[0].extra
            );
        }
        assert!(
            t[0].description
                .as_deref()
                .unwrap()
                .starts_with("Document will discuss government")
        );
    }

    #[test]
    fn web_track_1_200() {
        let files = [
            ("topics.web.1-50.txt", 1, 50, 243),
            ("topics.web.51-100.txt", 51, 100, 218),
            ("topics.web.101-150.txt", 101, 150, 168),
            ("topics.web.151-200.txt", 151, 200, 195),
        ];
        for (name, first, last, subtopics) in files {
            let (f, t) = read(name);
            assert_eq!(f, TopicFormat::WebXml, "{name}");
            assert_eq!(t.len(), 50, "{name}");
            assert_eq!(t[0].id, first.to_string(), "{name}");
            assert_eq!(t[49].id, last.to_string(), "{name}");
            assert_eq!(
                t.iter().map(|t| t.subtopics.len()).sum::<usize>(),
                subtopics,
                "{name}"
            );
            assert!(
                t.iter()
                    .all(|t| t.kind.is_some() && t.description.is_some()),
                "{name}"
            );
        }
        let (_, t) = read("topics.web.1-50.txt");
        assert_eq!(t[0].title, "obama family tree");
        assert_eq!(t[0].kind.as_deref(), Some("faceted"));
        assert!(
            t[0].description
                .as_deref()
                .unwrap()
                .starts_with("Find information on President Barack Obama's family")
        );
        let (_, t) = read("topics.web.151-200.txt");
        assert_eq!(t[49].title, "ontario california airport");
    }

    #[test]
    fn cacm() {
        let (f, t) = read("topics.cacm.txt");
        assert_eq!(f, TopicFormat::AnseriniCacm);
        assert_eq!(t.len(), 64);
        assert_eq!((t[0].id.as_str(), t[63].id.as_str()), ("1", "64"));
        assert!(
            t[0].title
                .starts_with("What articles exist which deal with TSS (Time Sharing System), an"),
            "{}",
            t[0].title
        );
        assert!(
            t[63].title.starts_with(
                "List all articles on EL1 and ECL (EL1 may be given as EL/1; I don't remember"
            ),
            "{}",
            t[63].title
        );
    }
}
