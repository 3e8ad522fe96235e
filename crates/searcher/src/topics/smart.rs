//! SMART-format topics ([`TopicFormat::Smart`]), as shipped with Cranfield,
//! CACM, CISI, MED and NPL: records start with a `.I <n>` line; the query is
//! the text after `.W` up to the next `.I` (other `.X` sections, such as
//! CACM's `.A`/`.N`, are kept in [`Topic::extra`] under their letter).
//!
//! **Ids are the 1-based position of the record in the file**, not the
//! written `.I` number, which is kept in `extra` as `("smart-i", n)`. That is
//! what the collections' qrels use: Cranfield's `cran.qry` numbers its 225
//! queries `001, 002, 004, 008, ... 365` while `cranqrel` numbers them
//! `1..=225` in file order; for CACM, CISI and MED the `.I` numbers already
//! run `1..=N` in order, so both readings agree.

use std::collections::HashMap;

use super::{Topic, TopicFormat, check_topic, insert_unique, syntax_error};
use crate::text::{collapse, line_at};
use crate::{Error, Result};

const F: TopicFormat = TopicFormat::Smart;

/// One record being read: its start offset, `.I` text and sections.
struct Record {
    start: usize,
    written_id: String,
    sections: Vec<(char, String)>,
}

/// Parses SMART topics (see the module docs). A record without a `.W`
/// section is a [`crate::Error::TopicSyntax`] naming its line; so is text
/// before the first `.I`. An empty `.W` is an empty query (searched as
/// none, with a warning: [`crate::queries::QueryNote::NoTerms`]).
pub(super) fn parse_smart(text: &str) -> Result<Vec<Topic>> {
    let mut topics = Vec::new();
    let mut seen = HashMap::new();
    let mut cur: Option<Record> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let body = line.trim_end();
        if let Some(rest) = body
            .strip_prefix(".I")
            .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
        {
            if let Some(rec) = cur.take() {
                finish(text, rec, &mut topics, &mut seen)?;
            }
            cur = Some(Record {
                start,
                written_id: rest.trim().to_string(),
                sections: Vec::new(),
            });
            continue;
        }
        let Some(rec) = cur.as_mut() else {
            if body.trim().is_empty() {
                continue;
            }
            return Err(syntax_error(F, text, start, "a `.I <id>` line", body));
        };
        let b = body.as_bytes();
        if b.len() >= 2
            && b[0] == b'.'
            && b[1].is_ascii_uppercase()
            && (b.len() == 2 || b[2].is_ascii_whitespace())
        {
            rec.sections.push((b[1] as char, body[2..].to_string()));
        } else if let Some((_, s)) = rec.sections.last_mut() {
            s.push(' ');
            s.push_str(body);
        } else if !body.trim().is_empty() {
            return Err(syntax_error(
                F,
                text,
                start,
                "a section marker such as `.W`",
                body,
            ));
        }
    }
    if let Some(rec) = cur.take() {
        finish(text, rec, &mut topics, &mut seen)?;
    }
    Ok(topics)
}

/// Turns a finished record into the next topic (id = its 1-based position).
fn finish(
    text: &str,
    rec: Record,
    topics: &mut Vec<Topic>,
    seen: &mut HashMap<String, usize>,
) -> Result<()> {
    let line = line_at(text, rec.start);
    let id = (topics.len() + 1).to_string();
    if !rec.sections.iter().any(|(letter, _)| *letter == 'W') {
        return Err(Error::TopicSyntax {
            format: F.name(),
            line,
            expected: format!("a `.W` section (the query) in topic {id:?}"),
            found: "none".into(),
        });
    }
    let mut t = Topic::new(id.clone());
    t.extra.push(("smart-i".into(), rec.written_id));
    for (letter, s) in rec.sections {
        let s = collapse(&s);
        if letter == 'W' {
            if !t.title.is_empty() {
                t.title.push(' ');
            }
            t.title.push_str(&s);
        } else {
            t.extra.push((letter.to_ascii_lowercase().to_string(), s));
        }
    }
    check_topic(F, line, &id)?;
    insert_unique(seen, &id, line)?;
    topics.push(t);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::parse_topics;
    use super::*;

    const CRAN: &str = ".I 001\n.W\nwhat similarity laws must be obeyed\nwhen constructing models .\n\
.I 002\n.W\nstructural problems .\n.I 004\n.W\nheat conduction .\n";

    #[test]
    fn smart_topics_are_numbered_in_file_order_like_cranqrel() {
        let (format, topics) = parse_topics(CRAN.as_bytes()).unwrap();
        assert_eq!(format, TopicFormat::Smart);
        let ids: Vec<&str> = topics.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"]);
        assert_eq!(topics[2].title, "heat conduction .");
        assert_eq!(
            topics[2].extra,
            [("smart-i".to_string(), "004".to_string())]
        );
        assert_eq!(
            topics[0].title,
            "what similarity laws must be obeyed when constructing models ."
        );
    }

    #[test]
    fn smart_topic_without_w_names_its_line() {
        let e = parse_topics(b".I 1\n.W\nfine\n.I 2\n.A\nsomeone\n").unwrap_err();
        assert!(
            matches!(
                e,
                Error::TopicSyntax {
                    format: "smart",
                    line: 4,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn smart_text_before_first_record_is_an_error() {
        let e = parse_smart("stray\n.I 1\n.W\nq\n").unwrap_err();
        assert!(matches!(e, Error::TopicSyntax { line: 1, .. }), "{e}");
    }

    #[test]
    fn smart_cranfield_queries_from_shared_data() {
        let Some(path) = sieve_testdata::shared_file("cranfield/cran.qry", "Cranfield queries")
        else {
            return;
        };
        let (_, topics) = super::super::read_topics(&path).unwrap();
        assert_eq!(topics.len(), 225);
        assert_eq!(topics[224].id, "225");
        assert_eq!(topics[224].extra[0].1, "365");
    }
}
