//! A segment's `body` postings turned around: per document, its terms with
//! their frequencies (and positions, in an index that has them), read
//! from the inverted index in two passes over the term dictionary.
//!
//! The body is not stored; its postings are the only copy of what was
//! indexed, and they are what a rewritten segment indexes again (as a
//! pre-tokenised text, so the new postings, frequencies, positions and
//! field length are the old ones). Memory: 8 bytes per posting, 4 per
//! position, and the segment's terms; a segment holds at most the build's
//! merge cap of documents ([`crate::order::MAX_MERGE_DOCS`]).

use sieve_analysis::AnalysedText;
use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, OwnedValue};
use tantivy::tokenizer::{PreTokenizedString, Token};
use tantivy::{DocSet, SegmentReader, TERMINATED};

use super::bp::Rows;
use crate::{Error, Result};

/// Maps an I/O error reading the segment `what` to [`Error::Io`].
fn io(what: &str) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: what.into(),
        source,
    }
}

/// The `body` of every document of one segment.
pub struct Forward {
    /// The segment's terms, by term ordinal.
    terms: Vec<String>,
    /// How many documents hold each term.
    dfs: Vec<u32>,
    /// Where each document's entries start (one more at the end).
    starts: Vec<usize>,
    /// (term ordinal, frequency), document after document, terms in order.
    entries: Vec<(u32, u32)>,
    /// Where each document's positions start; empty without positions.
    pos_starts: Vec<usize>,
    /// The positions of each entry (as many as its frequency), in entry
    /// order; empty without positions.
    positions: Vec<u32>,
}

impl Forward {
    /// Reads the postings of `field` in `seg`. `what` names the segment in
    /// errors.
    pub fn read(seg: &SegmentReader, field: Field, what: &str) -> Result<Self> {
        let inverted = seg.inverted_index(field)?;
        let with_positions = seg
            .schema()
            .get_field_entry(field)
            .field_type()
            .get_index_record_option()
            .is_some_and(|o| o.has_positions());
        let option = if with_positions {
            IndexRecordOption::WithFreqsAndPositions
        } else {
            IndexRecordOption::WithFreqs
        };
        let n = seg.max_doc() as usize;
        let mut fwd = Forward {
            terms: Vec::new(),
            dfs: Vec::new(),
            starts: Vec::new(),
            entries: Vec::new(),
            pos_starts: Vec::new(),
            positions: Vec::new(),
        };
        // Pass 1: the terms, and how many entries and positions each
        // document has.
        let mut counts = vec![0usize; n];
        let mut pos_counts = vec![0usize; if with_positions { n } else { 0 }];
        let mut stream = inverted.terms().stream().map_err(io(what))?;
        while stream.advance() {
            let text = std::str::from_utf8(stream.key()).map_err(|e| Error::Input {
                path: what.into(),
                detail: format!("a body term is not UTF-8 ({e})"),
            })?;
            fwd.terms.push(text.to_string());
            fwd.dfs.push(stream.value().doc_freq);
            let mut postings = inverted
                .read_postings_from_terminfo(stream.value(), option)
                .map_err(io(what))?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                counts[doc as usize] += 1;
                if with_positions {
                    pos_counts[doc as usize] += postings.term_freq() as usize;
                }
                doc = postings.advance();
            }
        }
        fwd.starts = prefix_sums(&counts);
        if with_positions {
            fwd.pos_starts = prefix_sums(&pos_counts);
        }
        fwd.fill(&inverted, option, with_positions, what)?;
        Ok(fwd)
    }

    /// Pass 2: the entries and positions, at the places pass 1 made.
    fn fill(
        &mut self,
        inverted: &tantivy::InvertedIndexReader,
        option: IndexRecordOption,
        with_positions: bool,
        what: &str,
    ) -> Result<()> {
        let mut next: Vec<usize> = self.starts[..self.starts.len() - 1].to_vec();
        let mut next_pos: Vec<usize> = if with_positions {
            self.pos_starts[..self.pos_starts.len() - 1].to_vec()
        } else {
            Vec::new()
        };
        self.entries = vec![(0, 0); *self.starts.last().unwrap_or(&0)];
        self.positions = vec![0; self.pos_starts.last().copied().unwrap_or(0)];
        let mut buf = Vec::new();
        let mut stream = inverted.terms().stream().map_err(io(what))?;
        let mut ord = 0u32;
        while stream.advance() {
            let mut postings = inverted
                .read_postings_from_terminfo(stream.value(), option)
                .map_err(io(what))?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let d = doc as usize;
                self.entries[next[d]] = (ord, postings.term_freq());
                next[d] += 1;
                if with_positions {
                    postings.positions(&mut buf);
                    self.positions[next_pos[d]..next_pos[d] + buf.len()].copy_from_slice(&buf);
                    next_pos[d] += buf.len();
                }
                doc = postings.advance();
            }
            ord += 1;
        }
        Ok(())
    }

    /// The rows bisection reads: per document, the terms held by at least
    /// `min_df` documents of the segment and not by all of them.
    pub fn bp_rows(&self, min_df: u32) -> Rows {
        let n = self.starts.len() - 1;
        let keep = |t: u32| {
            let df = self.dfs[t as usize];
            df >= min_df.max(2) && (df as usize) < n
        };
        let mut rows = Rows {
            starts: Vec::with_capacity(n + 1),
            terms: Vec::new(),
            n_terms: self.terms.len(),
        };
        rows.starts.push(0);
        for d in 0..n {
            let entries = &self.entries[self.starts[d]..self.starts[d + 1]];
            rows.terms
                .extend(entries.iter().map(|&(t, _)| t).filter(|&t| keep(t)));
            rows.starts.push(rows.terms.len());
        }
        rows
    }

    /// Document `doc`'s body as the value that indexes it again: each term
    /// at its positions, or (without positions) as many times as its
    /// frequency, at positions made up in term order. A pre-analysed text
    /// (one string that the index's analyser only splits, as a build hands
    /// it over), or the tokens themselves where that string could not carry
    /// them (a term holding a line feed; two terms at one position).
    pub fn value(&self, doc: u32) -> OwnedValue {
        let d = doc as usize;
        let entries = &self.entries[self.starts[d]..self.starts[d + 1]];
        let mut text = AnalysedText::new();
        if self.pos_starts.is_empty() {
            for &(t, tf) in entries {
                for _ in 0..tf {
                    text.push(text.next_position(), &self.terms[t as usize]);
                }
            }
        } else {
            let mut slots: Vec<(u32, u32)> = Vec::new();
            let mut p = self.pos_starts[d];
            for &(t, tf) in entries {
                for &pos in &self.positions[p..p + tf as usize] {
                    slots.push((pos, t));
                }
                p += tf as usize;
            }
            slots.sort_unstable();
            if slots.windows(2).any(|w| w[0].0 == w[1].0) {
                return OwnedValue::PreTokStr(self.tokens(doc));
            }
            for (pos, t) in slots {
                text.push(pos as usize, &self.terms[t as usize]);
            }
        }
        if text.is_exact() {
            OwnedValue::Str(text.into_string())
        } else {
            OwnedValue::PreTokStr(self.tokens(doc))
        }
    }

    /// Document `doc`'s body as tokens (see [`Forward::value`]).
    fn tokens(&self, doc: u32) -> PreTokenizedString {
        let d = doc as usize;
        let entries = &self.entries[self.starts[d]..self.starts[d + 1]];
        let mut tokens = Vec::new();
        let mut pos = self.pos_starts.get(d).copied();
        let mut made_up = 0usize;
        for &(t, tf) in entries {
            for _ in 0..tf {
                let position = match pos.as_mut() {
                    Some(p) => {
                        *p += 1;
                        self.positions[*p - 1] as usize
                    }
                    None => {
                        made_up += 1;
                        made_up - 1
                    }
                };
                tokens.push(Token {
                    position,
                    text: self.terms[t as usize].clone(),
                    ..Token::default()
                });
            }
        }
        PreTokenizedString {
            text: String::new(),
            tokens,
        }
    }

    /// Number of postings.
    pub fn postings(&self) -> usize {
        self.entries.len()
    }
}

/// `[0, c0, c0 + c1, ...]`: where each of `counts`' runs starts, and the end.
fn prefix_sums(counts: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(counts.len() + 1);
    let mut sum = 0;
    out.push(0);
    for &c in counts {
        sum += c;
        out.push(sum);
    }
    out
}
