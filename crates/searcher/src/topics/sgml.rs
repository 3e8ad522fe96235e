//! TREC SGML topics ([`TopicFormat::TrecSgml`]): `<top>` blocks with
//! `<num>`, `<title>`, `<desc>`, `<narr>` and the TREC-1/TIPSTER fields,
//! read through the lenient scanner of `scan` (these files are not XML: see
//! there). Field labels (`Number:`, `Topic:`, `Description:`, ...) are
//! removed; text is kept verbatim apart from whitespace collapsing.

use std::collections::HashMap;

use super::scan::{Tok, scan};
use super::{Topic, TopicFormat, check_topic, insert_unique, syntax_error};
use crate::text::{collapse, line_at};
use crate::{Error, Result};

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

/// `text` without `tag`'s label (matched ignoring ASCII case), collapsed.
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

/// Parses TREC SGML topics: `<top>` ... `</top>` blocks whose field tags
/// (`<num>`, `<title>`, `<desc>`, `<narr>`, TREC-1's `<dom>`, `<con>`, ...)
/// may be left unclosed; a field's text runs to the next tag.
pub(super) fn parse_sgml(text: &str) -> Result<Vec<Topic>> {
    const F: TopicFormat = TopicFormat::TrecSgml;
    let toks = scan(text);
    let err = |pos: usize, expected: &str, found: &str| syntax_error(F, text, pos, expected, found);
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

/// The topic of one `<top>` block starting at byte `start`, from its fields.
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
    check_topic(F, line, &topic.id)?;
    Ok(topic)
}

#[cfg(test)]
mod tests {
    use crate::Error;
    use crate::topics::{TopicField, TopicFormat, parse_topics};

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

    /// Found by the `topics_reader` fuzz target: `<num> Number:  050 ` then a
    /// vertical tab on a later line gave the id `"050 \u{b}"` (ASCII
    /// whitespace collapsing keeps U+000B), which would have shifted every
    /// column of the run file written for it.
    #[test]
    fn topic_id_with_vertical_tab_is_refused() {
        let e = parse_topics(b"<top>\n<num> Number:  050 \n\n\x0b<title> a\n</top>\n").unwrap_err();
        assert!(e.to_string().contains("without whitespace"), "{e}");
        let e = parse_topics(b"1\x0b2:query\n").unwrap_err();
        assert!(e.to_string().contains("without whitespace"), "{e}");
        let e = parse_topics("1\u{a0}2\tquery\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("without whitespace"), "{e}");
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
}
