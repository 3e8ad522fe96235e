//! Anserini's CACM topics ([`TopicFormat::AnseriniCacm`]):
//! `<DOC> <DOCNO> n </DOCNO> text </DOC>`, read through the lenient scanner
//! of `scan` (the query text may hold bare `<` and `&`).

use std::collections::HashMap;

use super::scan::{Tok, scan};
use super::{Topic, TopicFormat, check_topic, insert_unique, syntax_error};
use crate::Result;
use crate::text::{collapse, line_at};

/// Parses Anserini CACM topics: `<DOC>`, `<DOCNO>` id `</DOCNO>`, the query
/// text, `</DOC>`, in that order (tag names in upper case), blank text
/// between them allowed.
pub(super) fn parse_cacm(text: &str) -> Result<Vec<Topic>> {
    const F: TopicFormat = TopicFormat::AnseriniCacm;
    let toks = scan(text);
    let err = |pos: usize, expected: &str, found: &str| syntax_error(F, text, pos, expected, found);
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
                check_topic(F, line, &tid)?;
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

#[cfg(test)]
mod tests {
    use crate::topics::{TopicFormat, parse_topics};

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
}
