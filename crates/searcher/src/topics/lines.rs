//! The two line formats: `id:query` ([`TopicFormat::Colon`]) and
//! `id<TAB>query` ([`TopicFormat::Tsv`]), one topic per non-blank line, split
//! at the first separator.

use std::collections::HashMap;

use super::{Topic, TopicFormat, check_topic, insert_unique};
use crate::text::{collapse, snippet};
use crate::{Error, Result};

pub(super) fn parse_lines(text: &str, sep: char, format: TopicFormat) -> Result<Vec<Topic>> {
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
        check_topic(format, lineno, id)?;
        insert_unique(&mut seen, id, lineno)?;
        let mut t = Topic::new(id.to_string());
        t.title = title;
        topics.push(t);
    }
    Ok(topics)
}
#[cfg(test)]
mod tests {
    use crate::Error;
    use crate::topics::{TopicFormat, parse_topics};

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
        let (_, t) = parse_topics(b"1:\n2: a\n").unwrap();
        assert_eq!((t[0].id.as_str(), t[0].title.as_str()), ("1", ""));
    }
}
