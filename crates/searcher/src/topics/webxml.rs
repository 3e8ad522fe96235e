//! TREC Web Track 2009-2012 XML topics ([`TopicFormat::WebXml`]):
//! `<topic number=".." type=".."><query>..</query><description>..</description>
//! <subtopic number=".." type="..">..</subtopic></topic>`, inside any root
//! element.
//!
//! The file is read with quick-xml: declarations, `<!DOCTYPE ..[..]>`,
//! comments and processing instructions are skipped, character references
//! (the five predefined entities, `&#N;`, `&#xH;`) are decoded, and anything
//! quick-xml finds ill-formed (a bare `<` or `&`, a broken attribute) is an
//! error with its line. This module checks the structure itself, so its
//! errors name the open element and its line: end tags must match their
//! start tag, text may only stand in an element directly inside `<topic>`,
//! elements nest at most one level inside `<topic>`, and every `<topic>` has
//! a non-empty `number` and exactly one `<query>`. CDATA sections are text.

use std::borrow::Cow;
use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::{Subtopic, Topic, TopicFormat, check_topic, insert_unique, syntax_error};
use crate::text::{collapse, line_at, snippet};
use crate::{Error, Result};

const F: TopicFormat = TopicFormat::WebXml;

/// What a bad character reference was expected to be.
const ENTITY: &str = "an entity (&amp; &lt; &gt; &quot; &apos; &#N; &#xH;)";

/// A child element of `<topic>` being read: name, attributes, text so far,
/// byte offset of its start tag.
struct Child {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    pos: usize,
}

/// The reader's state between events.
struct WebXml<'t> {
    text: &'t str,
    /// Open elements: (name, byte offset of the start tag).
    stack: Vec<(String, usize)>,
    topics: Vec<Topic>,
    seen: HashMap<String, usize>,
    /// The topic being read: (topic, byte offset, has a `<query>`).
    topic: Option<(Topic, usize, bool)>,
    child: Option<Child>,
}

/// Parses Web Track XML topics (see the module documentation).
pub(super) fn parse_web_xml(text: &str) -> Result<Vec<Topic>> {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.trim_text(false);
    config.check_end_names = false;
    config.expand_empty_elements = false;
    let mut st = WebXml {
        text,
        stack: Vec::new(),
        topics: Vec::new(),
        seen: HashMap::new(),
        topic: None,
        child: None,
    };
    loop {
        let pos = offset(reader.buffer_position());
        let event = reader
            .read_event()
            .map_err(|e| xml_error(text, offset(reader.error_position()), &e))?;
        match event {
            Event::Start(e) => st.open(&e, pos, false)?,
            Event::Empty(e) => st.open(&e, pos, true)?,
            Event::End(e) => st.close(&String::from_utf8_lossy(e.name().as_ref()), pos)?,
            Event::Text(e) => st.text(&String::from_utf8_lossy(&e), pos)?,
            Event::CData(e) => st.text(&String::from_utf8_lossy(&e), pos)?,
            Event::GeneralRef(e) => st.text(&resolve_ref(&e, text, pos)?, pos)?,
            Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    st.finish()
}

/// A reader position as a byte offset (the input is in memory, so it fits).
fn offset(pos: u64) -> usize {
    usize::try_from(pos).unwrap_or(usize::MAX)
}

/// The character a reference (`&amp;`, `&#38;`, `&#x26;`) stands for.
/// `&#X26;` is accepted as `&#x26;` (it was before quick-xml read these files).
fn resolve_ref<'a>(r: &BytesRef<'_>, text: &str, pos: usize) -> Result<Cow<'a, str>> {
    let name = String::from_utf8_lossy(r);
    let bad = || syntax_error(F, text, pos, ENTITY, &text[pos..]);
    if let Some(hex) = name.strip_prefix("#X") {
        let c = BytesRef::new(format!("#x{hex}")).resolve_char_ref();
        return Ok(Cow::Owned(c.ok().flatten().ok_or_else(bad)?.to_string()));
    }
    match r.resolve_char_ref() {
        Ok(Some(c)) => Ok(Cow::Owned(c.to_string())),
        Ok(None) => resolve_predefined_entity(&name)
            .map(Cow::Borrowed)
            .ok_or_else(bad),
        Err(_) => Err(bad()),
    }
}

/// A quick-xml error at byte `pos`, as a topic syntax error.
fn xml_error(text: &str, pos: usize, e: &quick_xml::Error) -> Error {
    use quick_xml::errors::IllFormedError;
    let pos = pos.min(text.len());
    let expected = match e {
        quick_xml::Error::IllFormed(IllFormedError::UnclosedReference)
        | quick_xml::Error::Escape(_) => ENTITY.to_string(),
        _ => format!("well-formed XML ({e})"),
    };
    Error::TopicSyntax {
        format: F.name(),
        line: line_at(text, pos),
        expected,
        found: snippet(text[pos..].trim()),
    }
}

impl WebXml<'_> {
    fn err(&self, pos: usize, expected: &str, found: &str) -> Error {
        syntax_error(F, self.text, pos, expected, found)
    }

    /// The attributes of a start tag at `pos`, values decoded.
    fn attrs(&self, e: &BytesStart<'_>, pos: usize) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for a in e.attributes().with_checks(false) {
            let a = a.map_err(|err| xml_error(self.text, pos, &err.into()))?;
            let value = a
                .unescape_value()
                .map_err(|_| self.err(pos, ENTITY, &self.text[pos..]))?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            out.push((key, value.into_owned()));
        }
        Ok(out)
    }

    /// A start tag (`empty`: `<name/>`) at byte `pos`.
    fn open(&mut self, e: &BytesStart<'_>, pos: usize, empty: bool) -> Result<()> {
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        if !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            // quick-xml reads `< b ...>` as a tag without a name.
            let found = &self.text[pos..];
            return Err(self.err(pos, "a tag (a bare '<' must be written &lt;)", found));
        }
        let attrs = self.attrs(e, pos)?;
        let depth_in_topic = self
            .stack
            .iter()
            .position(|(n, _)| n == "topic")
            .map(|p| self.stack.len() - p);
        if name == "topic" && depth_in_topic.is_none() {
            let number = attrs
                .iter()
                .find(|(k, _)| k == "number")
                .map(|(_, v)| v.trim().to_string());
            let Some(number) = number.filter(|n| !n.is_empty()) else {
                return Err(self.err(pos, "<topic number=\"...\">", "<topic>"));
            };
            let mut t = Topic::new(number);
            t.kind = attrs
                .iter()
                .find(|(k, _)| k == "type")
                .map(|(_, v)| v.clone());
            self.topic = Some((t, pos, false));
        } else if depth_in_topic == Some(1) {
            let text = String::new();
            self.child = Some(Child {
                name: name.clone(),
                attrs,
                text,
                pos,
            });
        } else if depth_in_topic.is_some() {
            let open = self.stack.last().map_or("", |s| s.0.as_str());
            return Err(self.err(pos, &format!("text or </{open}>"), &format!("<{name}>")));
        }
        if !empty {
            self.stack.push((name, pos));
        } else if let Some(c) = self.child.take() {
            self.finish_child(c)?;
        } else if name == "topic" {
            return Err(self.err(pos, "<topic> with a <query>", "<topic/>"));
        }
        Ok(())
    }

    /// An end tag `</name>` at byte `pos`.
    fn close(&mut self, name: &str, pos: usize) -> Result<()> {
        let Some((open, open_pos)) = self.stack.pop() else {
            return Err(self.err(pos, "no closing tag at top level", &format!("</{name}>")));
        };
        if open != name {
            let line = line_at(self.text, open_pos);
            let expected = format!("</{open}> closing <{open}> of line {line}");
            return Err(self.err(pos, &expected, &format!("</{name}>")));
        }
        if let Some(c) = self.child.take() {
            return self.finish_child(c);
        }
        if name != "topic" {
            return Ok(());
        }
        let Some((t, tpos, has_query)) = self.topic.take() else {
            return Err(self.err(pos, "<topic>", "</topic>"));
        };
        if !has_query {
            return Err(self.err(tpos, &format!("<query> in topic {:?}", t.id), "none"));
        }
        let line = line_at(self.text, tpos);
        check_topic(F, line, &t.id)?;
        insert_unique(&mut self.seen, &t.id, line)?;
        self.topics.push(t);
        Ok(())
    }

    /// Decoded text at byte `pos`: part of the child being read, else it
    /// must be whitespace.
    fn text(&mut self, t: &str, pos: usize) -> Result<()> {
        if let Some(c) = self.child.as_mut() {
            c.text.push_str(t);
        } else if !t.trim().is_empty() {
            let off = t.len() - t.trim_start().len();
            let expected = if self.topic.is_some() {
                "a child element of <topic>"
            } else {
                "<topic>"
            };
            return Err(self.err(pos + off, expected, t));
        }
        Ok(())
    }

    /// Stores a finished child element in the topic being read.
    fn finish_child(&mut self, c: Child) -> Result<()> {
        let Some((t, _, has_query)) = self.topic.as_mut() else {
            return Ok(());
        };
        let value = collapse(&c.text);
        match c.name.as_str() {
            "query" => {
                if *has_query {
                    let (text, pos) = (self.text, c.pos);
                    return Err(Error::TopicSyntax {
                        format: F.name(),
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
                let get = |k: &str| c.attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
                t.subtopics.push(Subtopic {
                    number: get("number").unwrap_or_default(),
                    kind: get("type"),
                    text: value,
                });
            }
            _ => t.extra.push((c.name, value)),
        }
        Ok(())
    }

    /// The topics read, or an error for an element left open at the end.
    fn finish(self) -> Result<Vec<Topic>> {
        if let Some((open, pos)) = self.stack.last() {
            let line = line_at(self.text, *pos);
            return Err(Error::TopicSyntax {
                format: F.name(),
                line: line_at(self.text, self.text.len()),
                expected: format!("</{open}> closing <{open}> of line {line}"),
                found: "end of file".into(),
            });
        }
        Ok(self.topics)
    }
}

#[cfg(test)]
mod tests {
    use crate::Error;
    use crate::topics::{TopicFormat, parse_topics};

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
    fn web_xml_bare_lt_is_named() {
        let e = parse_topics(b"<topic number=\"1\">\n<query>a < b</query></topic>").unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("a bare '<'"), "{e}");
    }
}
