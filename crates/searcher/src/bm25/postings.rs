//! A term's postings in one segment, read from tantivy's decoded blocks.
//!
//! [`BlockPostings`] gives what tantivy's `SegmentPostings` gives (`doc`,
//! `term_freq`, `seek`: the same postings in the same order), over the
//! same `BlockSegmentPostings`, and walks the postings before a doc id
//! ([`BlockPostings::for_each_before`]) by reading the decoded block's
//! arrays directly instead of one call per posting.
//!
//! tantivy decodes a list [`BLOCK`] postings at a time: every block but
//! the last holds exactly [`BLOCK`] postings; the last holds fewer (none
//! when the list's length is a multiple of [`BLOCK`]), and its decoded
//! arrays are padded with `TERMINATED` doc ids, so the position just past
//! its postings reads as the end of the list.

use tantivy::postings::BlockSegmentPostings;
use tantivy::{DocId, TERMINATED};

/// Postings per decoded block (tantivy's `COMPRESSION_BLOCK_SIZE`).
const BLOCK: usize = 128;

/// A cursor over a term's postings in a segment.
pub(super) struct BlockPostings {
    block: BlockSegmentPostings,
    /// The current posting's index in the block (at most the block's
    /// length: past its postings, the padding reads `TERMINATED`).
    cur: usize,
}

impl BlockPostings {
    /// A cursor on the first posting of `block` (freshly opened).
    pub(super) fn new(block: BlockSegmentPostings) -> BlockPostings {
        BlockPostings { block, cur: 0 }
    }

    /// The current document (`TERMINATED` past the last posting).
    #[inline(always)]
    pub(super) fn doc(&self) -> DocId {
        self.block.doc(self.cur)
    }

    /// The current posting's term frequency.
    #[inline(always)]
    pub(super) fn term_freq(&self) -> u32 {
        self.block.freq(self.cur)
    }

    /// Moves to the first posting at or after `target` (never back): by a
    /// binary search of the decoded block when `target` is in it, else
    /// through tantivy's skip list.
    #[inline]
    pub(super) fn seek(&mut self, target: DocId) {
        if self.doc() >= target {
            return;
        }
        let docs = self.block.docs();
        // The current posting is before `target`, so it is one of the
        // block's postings (not the padding).
        if docs.last().is_some_and(|&d| d >= target) {
            let from = self.cur.min(docs.len());
            self.cur = from + docs[from..].partition_point(|&d| d < target);
            return;
        }
        self.cur = self.block.seek(target);
    }

    /// Moves to the next posting.
    #[inline(always)]
    pub(super) fn advance(&mut self) {
        if self.cur == BLOCK - 1 {
            self.cur = 0;
            self.block.advance();
        } else {
            self.cur += 1;
        }
    }

    /// [`BlockPostings::seek`] for a target that is usually a few postings
    /// ahead (MaxScore's lookups in a dense list): a few `advance`s first.
    #[inline(always)]
    pub(super) fn seek_near(&mut self, target: DocId) {
        for _ in 0..8 {
            if self.doc() >= target {
                return;
            }
            self.advance();
        }
        self.seek(target);
    }

    /// Calls `f(doc, tf)` for every posting from the current one to the
    /// first at or after `end`, in order, and stops there.
    #[inline(always)]
    pub(super) fn for_each_before(&mut self, end: DocId, mut f: impl FnMut(DocId, u32)) {
        while !self.for_each_in_block_before(end, &mut f) {}
    }

    /// [`BlockPostings::for_each_before`] within the current block: true
    /// when it stopped at a posting at or after `end` (or at the end of the
    /// list), false when it went past the block's last posting (the next
    /// block is then loaded).
    #[inline(always)]
    pub(super) fn for_each_in_block_before(
        &mut self,
        end: DocId,
        mut f: impl FnMut(DocId, u32),
    ) -> bool {
        let docs = self.block.docs();
        let n = docs.len();
        let mut i = self.cur;
        while i < n {
            let doc = docs[i];
            if doc >= end {
                self.cur = i;
                return true;
            }
            f(doc, self.block.freq(i));
            i += 1;
        }
        if n < BLOCK {
            // The last block: `i` is past its postings, on the padding.
            self.cur = i;
            debug_assert_eq!(self.doc(), TERMINATED);
            return true;
        }
        self.cur = 0;
        self.block.advance();
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tantivy::postings::{Postings, SegmentPostings};
    use tantivy::schema::{IndexRecordOption, STRING, Schema};
    use tantivy::{DocSet, Index, IndexWriter, TantivyDocument, Term};

    /// A one-segment index of `n` documents where document `d` holds the
    /// term "t" `tfs[d]` times (0: not at all); its cursors on "t".
    fn cursors(tfs: &[u32]) -> (BlockPostings, SegmentPostings) {
        let mut schema = Schema::builder();
        let f = schema.add_text_field("f", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for &tf in tfs {
            let mut doc = TantivyDocument::default();
            doc.add_text(f, "other");
            for _ in 0..tf {
                doc.add_text(f, "t");
            }
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = &searcher.segment_readers()[0];
        let inverted = segment.inverted_index(f).unwrap();
        let term = Term::from_field_text(f, "t");
        let info = inverted.get_term_info(&term).unwrap().unwrap();
        let block = inverted
            .read_block_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
            .unwrap();
        let plain = inverted
            .read_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
            .unwrap();
        (BlockPostings::new(block), plain)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Walks (`for_each_before`, `for_each_in_block_before`), `seek` and
        /// `seek_near` to random targets give tantivy's `SegmentPostings`
        /// postings, with lists of exactly one or two blocks, just over and
        /// under, and longer.
        #[test]
        fn block_postings_give_segment_postings(
            len in prop_oneof![Just(128usize), Just(256), 1usize..400, 120usize..140, 250usize..260],
            density in 1u64..6,
            seed in any::<u64>(),
            steps in proptest::collection::vec((0u8..4, 1u32..400), 1..40),
        ) {
            // `len` postings spread over about `len * density` documents.
            let mut x = seed | 1;
            let mut next = move || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
            let mut tfs: Vec<u32> = Vec::new();
            let mut postings = 0;
            while postings < len {
                if next() % density == 0 {
                    tfs.push(1 + (next() % 5) as u32);
                    postings += 1;
                } else {
                    tfs.push(0);
                }
            }
            let (mut ours, mut theirs) = cursors(&tfs);
            for (op, step) in steps {
                let doc = theirs.doc();
                prop_assert_eq!(ours.doc(), doc);
                if doc == TERMINATED {
                    break;
                }
                prop_assert_eq!(ours.term_freq(), theirs.term_freq());
                let target = doc.saturating_add(step);
                match op {
                    0 => {
                        let mut seen = Vec::new();
                        ours.for_each_before(target, |d, tf| seen.push((d, tf)));
                        let mut want = Vec::new();
                        while theirs.doc() < target {
                            want.push((theirs.doc(), theirs.term_freq()));
                            theirs.advance();
                        }
                        prop_assert_eq!(seen, want);
                    }
                    1 => {
                        let mut seen = Vec::new();
                        let stopped = ours.for_each_in_block_before(target, |d, tf| seen.push((d, tf)));
                        for &(d, tf) in &seen {
                            prop_assert_eq!((theirs.doc(), theirs.term_freq()), (d, tf));
                            theirs.advance();
                        }
                        // Stopped: at `target` or past it; else the
                        // whole block was read (the next may start past
                        // `target`).
                        prop_assert!(!stopped || theirs.doc() >= target);
                    }
                    2 => {
                        ours.seek(target);
                        theirs.seek(target);
                    }
                    _ => {
                        ours.seek_near(target);
                        theirs.seek(target);
                    }
                }
            }
            prop_assert_eq!(ours.doc(), theirs.doc());
        }
    }
}
