//! Pre-analysed text: the terms of a field, analysed by the workers, handed
//! to tantivy as one string that its indexing thread only has to split.
//!
//! tantivy takes a pre-tokenised value (`PreTokenizedString`) by cloning it
//! twice in its single indexing thread (once to read the value, once to make
//! the token stream), a `String` per token each time, and drops the
//! document's tokens there too: about half of that thread's time in a build
//! (measured with `perf`), and the thread is the build's one serial
//! stage. An [`AnalysedText`] is one string instead, borrowed by tantivy:
//!
//! ```text
//! MARKER term0 \n term1 \n \n term3 ...
//! ```
//!
//! [`MARKER`], then one slot per position, slots separated by `\n`; slot `p`
//! holds the term at position `p`, or nothing where a stop word was removed
//! (so positions, and every gap, are exactly those of
//! [`EnglishAnalyzer::analyze_into`](super::EnglishAnalyzer::analyze_into)).
//! The analyser registered with tantivy ([`super::text_analyzer`]) splits a
//! text that starts with [`MARKER`] and analyses any other text, so an index
//! gets the same terms, frequencies, positions and field lengths either way
//! (`tests::preanalysed_equals_pretokenized_in_tantivy`). A term never
//! contains `\n` (UAX#29 always breaks around a line feed); a term that did
//! would make the text not [`AnalysedText::is_exact`], and the caller then
//! hands tantivy the tokens instead.

use tantivy::tokenizer::{Token, TokenStream};

/// Starts a pre-analysed text: U+0000 U+FDD0 (a NUL and a noncharacter,
/// which no text extracted by sieve starts a field's value with: sieve
/// gives tantivy the body only as an [`AnalysedText`]).
pub const MARKER: &str = "\u{0}\u{FDD0}";

/// Separates the slots of an [`AnalysedText`].
const SEP: char = '\n';

/// The analysed terms of a field as one string (a marker, then the term
/// at each position, separated by line feeds), which tantivy's indexing
/// thread only splits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysedText {
    text: String,
    /// Slots written: the position after the last term's.
    slots: usize,
    tokens: usize,
    exact: bool,
}

impl Default for AnalysedText {
    fn default() -> Self {
        Self::new()
    }
}

impl AnalysedText {
    /// An empty text (no terms).
    pub fn new() -> Self {
        AnalysedText {
            text: String::from(MARKER),
            slots: 0,
            tokens: 0,
            exact: true,
        }
    }

    /// Appends `term` at `position`, which must be at least
    /// [`next_position`](Self::next_position) (a smaller one is put there).
    #[inline]
    pub fn push(&mut self, position: usize, term: &str) {
        let position = position.max(self.slots);
        let gaps = position - self.slots + usize::from(self.slots > 0);
        // Usually one separator (no gap): a push, not an iterator.
        for _ in 0..gaps {
            self.text.push(SEP);
        }
        self.text.push_str(term);
        // Terms are short: a byte loop beats a call to memchr.
        self.exact &= !term.is_empty() && !term.bytes().any(|b| b == SEP as u8);
        self.slots = position + 1;
        self.tokens += 1;
    }

    /// The position after the last term's (0 when empty): where the terms of
    /// a following text start, as with `analyze_into`.
    pub fn next_position(&self) -> usize {
        self.slots
    }

    /// Terms pushed.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// True when splitting gives back exactly the terms pushed (no term was
    /// empty or held `\n`).
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// The terms pushed, in position order (gaps skipped), as tantivy
    /// reads them back from [`as_str`](Self::as_str) when the text
    /// [`is_exact`](Self::is_exact).
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.text[MARKER.len()..]
            .split(SEP)
            .filter(|t| !t.is_empty())
    }

    /// The string to give tantivy.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The string to give tantivy.
    pub fn into_string(self) -> String {
        self.text
    }
}

/// The tokens of a pre-analysed text (`text` without the [`MARKER`]).
pub struct SplitStream<'a> {
    text: &'a str,
    /// Byte offset of the next slot.
    at: usize,
    position: usize,
    token: Token,
}

impl<'a> SplitStream<'a> {
    /// The stream over `text` if it starts with [`MARKER`].
    pub fn new(text: &'a str) -> Option<Self> {
        let rest = text.strip_prefix(MARKER)?;
        Some(SplitStream {
            text: rest,
            at: 0,
            // The first slot is position 0; `advance` adds one per slot.
            position: usize::MAX,
            token: Token::default(),
        })
    }
}

/// The length of the slot at the start of `rest`: the index of its first
/// [`SEP`], or `rest.len()`. Terms are short, so the first eight bytes are
/// searched as one word (the lowest byte the zero-byte test flags is the
/// first equal to `SEP`: a borrow only flags bytes above a real match)
/// before `memchr`, whose set-up per call costs more than a short slot.
#[inline(always)]
fn slot_len(rest: &[u8]) -> usize {
    if let Some(w) = rest.first_chunk::<8>() {
        let x = u64::from_le_bytes(*w) ^ (u64::from(SEP as u8) * 0x0101_0101_0101_0101);
        let m = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        if m != 0 {
            return (m.trailing_zeros() / 8) as usize;
        }
    }
    memchr::memchr(SEP as u8, rest).unwrap_or(rest.len())
}

impl TokenStream for SplitStream<'_> {
    #[inline]
    fn advance(&mut self) -> bool {
        while self.at <= self.text.len() {
            let rest = &self.text.as_bytes()[self.at..];
            let len = slot_len(rest);
            let (from, to) = (self.at, self.at + len);
            self.at = to + 1;
            self.position = self.position.wrapping_add(1);
            if len > 0 {
                let t = &mut self.token;
                t.text.clear();
                t.text.push_str(&self.text[from..to]);
                t.offset_from = from + MARKER.len();
                t.offset_to = to + MARKER.len();
                t.position = self.position;
                t.position_length = 1;
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<(String, usize)> {
        let mut s = SplitStream::new(text).expect("marker");
        let mut v = Vec::new();
        while s.advance() {
            v.push((s.token().text.clone(), s.token().position));
        }
        v
    }

    #[test]
    fn slots_keep_positions_and_gaps() {
        let mut t = AnalysedText::new();
        assert_eq!(split(t.as_str()), []);
        t.push(1, "cat");
        t.push(4, "hat");
        t.push(5, "on");
        assert_eq!(t.as_str(), format!("{MARKER}\ncat\n\n\nhat\non"));
        assert_eq!(t.next_position(), 6);
        assert_eq!(t.tokens(), 3);
        assert!(t.is_exact());
        assert_eq!(
            split(t.as_str()),
            [("cat".into(), 1), ("hat".into(), 4), ("on".into(), 5)]
        );
    }

    #[test]
    fn a_term_with_a_line_feed_is_not_exact() {
        let mut t = AnalysedText::new();
        t.push(0, "a\nb");
        assert!(!t.is_exact());
        let mut t = AnalysedText::new();
        t.push(0, "");
        assert!(!t.is_exact());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 1000, ..proptest::prelude::ProptestConfig::default()
        })]

        /// Splitting gives back every term pushed, at its position, for
        /// terms of any length around the eight-byte word `slot_len`
        /// searches first (multi-byte characters, bytes just above and
        /// below `\n`, `\u{10A}` whose second byte is 0x8A), with gaps.
        #[test]
        fn split_gives_back_the_terms_pushed(
            slots in proptest::collection::vec(
                (0usize..3, "[a\u{9}\u{b}\u{10A}é一\u{1F600}]{1,20}"),
                0..40,
            ),
        ) {
            let mut t = AnalysedText::new();
            let mut want = Vec::new();
            for (gap, term) in &slots {
                let p = t.next_position() + gap;
                t.push(p, term);
                want.push((term.clone(), p));
            }
            proptest::prop_assert!(t.is_exact());
            proptest::prop_assert_eq!(split(t.as_str()), want);
        }
    }

    #[test]
    fn slot_len_finds_the_first_separator() {
        for n in 0..20 {
            for at in 0..=n {
                let mut b = vec![b'x'; n];
                if at < n {
                    b[at] = SEP as u8;
                    // A later separator, and bytes one above and below it.
                    b.iter_mut()
                        .skip(at + 1)
                        .step_by(2)
                        .for_each(|x| *x = SEP as u8 + 1);
                    if at + 1 < n {
                        b[n - 1] = SEP as u8;
                    }
                }
                assert_eq!(slot_len(&b), at.min(n), "{b:?}");
            }
        }
    }

    #[test]
    fn text_without_the_marker_is_not_split() {
        assert!(SplitStream::new("cat\nhat").is_none());
        assert!(SplitStream::new("\u{FDD0}cat").is_none());
    }
}
