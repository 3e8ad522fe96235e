//! The one rule for ids that go into a TREC run or qrels file: document ids
//! (docids) and topic ids (qids).
//!
//! Run files are `qid Q0 docid rank score tag`, six columns split on
//! whitespace. trec_eval splits with C `isspace` (in the C locale: space,
//! `\t`, `\n`, `\v`, `\f`, `\r`); Python's `str.split()` and Rust's
//! `split_whitespace` split on Unicode whitespace as well (U+0085, U+00A0,
//! U+2028, U+3000, ...). An id is [`check_id`]-accepted exactly when it is
//! one field under every one of these splits and holds nothing a C string or
//! a terminal mangles:
//!
//! * [`IdRule::Empty`]: the id is empty;
//! * [`IdRule::Whitespace`]: it holds a character for which
//!   [`char::is_whitespace`] is true (Unicode `White_Space`: the six C
//!   `isspace` characters, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
//!   U+2029, U+202F, U+205F, U+3000);
//! * [`IdRule::Control`]: it holds a character for which
//!   [`char::is_control`] is true (general category Cc: C0 U+0000–U+001F
//!   incl. NUL, DEL U+007F, C1 U+0080–U+009F) that is not already
//!   whitespace.
//!
//! Everything else is accepted, byte for byte (an id is never changed:
//! refusing is the only remedy, since two ids repaired alike would merge).
//! Ids here are `str`: bytes that are not UTF-8 never reach this rule (the
//! readers decode ids lossily, so such bytes become U+FFFD, which the rule
//! accepts).
//!
//! [`escaped`] renders an id for messages and logs with every character the
//! rule refuses written as an escape (`vt\u{b}here`, `sp\u{20}ace`), so the
//! rendering itself is always one field.

use std::fmt;

/// Why an id was refused (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdRule {
    /// The id is empty.
    Empty,
    /// The id holds a Unicode whitespace character.
    Whitespace,
    /// The id holds a control character (not whitespace).
    Control,
}

impl IdRule {
    /// The rule's stable name: `empty`, `whitespace`, `control`.
    pub fn key(self) -> &'static str {
        match self {
            IdRule::Empty => "empty",
            IdRule::Whitespace => "whitespace",
            IdRule::Control => "control",
        }
    }
}

impl fmt::Display for IdRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A refused id: the rule it broke and, for a character rule, the first
/// offending character and its byte offset in the id. Displayed as the
/// rule's name, then for a character `: U+00A0 at byte 2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdFault {
    /// Which rule.
    pub rule: IdRule,
    /// The first refused character (`None` for [`IdRule::Empty`]).
    pub ch: Option<char>,
    /// Its byte offset in the id (0 for [`IdRule::Empty`]).
    pub at: usize,
}

impl fmt::Display for IdFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ch {
            None => f.write_str("empty"),
            Some(c) => write!(f, "{}: U+{:04X} at byte {}", self.rule, c as u32, self.at),
        }
    }
}

/// True if the rule refuses the character `c` anywhere in an id.
pub fn is_refused_char(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Checks `id` against the rule: `Ok` if it may be written into a run
/// file, else the first fault (an empty id, or the first whitespace or
/// control character).
pub fn check_id(id: &str) -> Result<(), IdFault> {
    if id.is_empty() {
        return Err(IdFault {
            rule: IdRule::Empty,
            ch: None,
            at: 0,
        });
    }
    match id.char_indices().find(|&(_, c)| is_refused_char(c)) {
        None => Ok(()),
        Some((at, c)) => Err(IdFault {
            rule: if c.is_whitespace() {
                IdRule::Whitespace
            } else {
                IdRule::Control
            },
            ch: Some(c),
            at,
        }),
    }
}

/// `id` as Rust's [`str::escape_debug`] writes it, with every character
/// the rule refuses written as an escape as well (a plain space becomes
/// `\u{20}`, U+00A0 `\u{a0}`): the result holds no whitespace or control
/// character. An empty id renders as the empty string.
pub fn escaped(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        match c {
            '\t' | '\n' | '\r' | '\0' => out.extend(c.escape_debug()),
            c if is_refused_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.extend(c.escape_debug()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every character the rule must refuse, by the standards it follows
    /// (C `isspace`, Unicode White_Space, category Cc).
    fn must_refuse() -> Vec<char> {
        let mut v: Vec<char> = (0u32..0x20)
            .chain(0x7f..0xa0)
            .filter_map(char::from_u32)
            .collect();
        v.extend([
            ' ', '\u{a0}', '\u{1680}', '\u{2028}', '\u{2029}', '\u{202f}',
        ]);
        v.extend(['\u{205f}', '\u{3000}']);
        v.extend((0x2000u32..=0x200a).filter_map(char::from_u32));
        v
    }

    #[test]
    fn refuses_each_whitespace_and_control_character() {
        for c in must_refuse() {
            let id = format!("a{c}b");
            let f = check_id(&id).unwrap_err();
            assert_eq!((f.ch, f.at), (Some(c), 1), "{id:?}");
            let want = if c.is_whitespace() {
                "whitespace"
            } else {
                "control"
            };
            assert_eq!(f.rule.key(), want, "{id:?}");
            let e = escaped(&id);
            assert!(!e.chars().any(is_refused_char), "{e:?}");
            assert!(
                e.starts_with('a') && e.ends_with('b') && e.len() > 3,
                "{e:?}"
            );
        }
        assert_eq!(check_id("").unwrap_err().rule, IdRule::Empty);
    }

    #[test]
    fn accepts_ordinary_ids_unchanged() {
        for id in [
            "clueweb09-en0000-00-00000",
            "msmarco_doc_00_0",
            "\u{fffd}x",
            "日本",
            "a\u{200b}b",
        ] {
            assert_eq!(check_id(id), Ok(()), "{id:?}");
        }
        assert_eq!(escaped("vt\u{b}here"), "vt\\u{b}here");
        assert_eq!(escaped("sp ace"), "sp\\u{20}ace");
        assert_eq!(escaped("nb\u{a0}sp"), "nb\\u{a0}sp");
        assert_eq!(escaped("t\tn\n"), "t\\tn\\n");
        assert_eq!(escaped("q\"b\\"), "q\\\"b\\\\");
    }

    proptest! {
        /// The rule refuses exactly the characters that are whitespace
        /// (C isspace or Unicode) or control, and `escaped` never
        /// leaves one.
        #[test]
        fn rule_is_the_character_classes(s in "\\PC{0,3}[\\s\\p{Cc}\u{a0}\u{3000}]?\\PC{0,3}") {
            let bad = s.is_empty()
                || s.chars().any(|c| c.is_whitespace() || c.is_control() || c.is_ascii_whitespace() || c == '\u{b}');
            prop_assert_eq!(check_id(&s).is_err(), bad);
            prop_assert!(!escaped(&s).chars().any(is_refused_char));
        }
    }
}
