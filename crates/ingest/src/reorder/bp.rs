//! Recursive graph bisection (BP): an order of documents that puts
//! documents sharing terms next to each other, so that the gaps between
//! the documents of a posting list are small (Dhulipala et al., KDD 2016;
//! Mackenzie et al., ECIR 2019, for its use on inverted indexes).
//!
//! The documents are split in two halves; up to [`BpParams::max_iters`]
//! times, each document's gain (how much the estimated cost of the
//! postings would fall if it moved to the other half) is computed, both
//! halves are sorted by gain, and pairs are swapped while the two gains
//! add up to more than zero. Each half is then bisected the same way until
//! a part is smaller than twice [`BpParams::min_partition`] or
//! [`BpParams::max_depth`] is reached.
//!
//! The cost of a term over a half of `n` documents of which `d` hold it is
//! `d * log2(n / (d + 1))` (the bits of its gaps, about); with halves of
//! (nearly) equal size the `log2 n` parts cancel in a move, so a move's
//! gain for one term is `T(a - 1) - T(a) + T(b + 1) - T(b)` with
//! `T(x) = x * log2(x + 1)`, `a` and `b` the term's degrees in the half
//! the document leaves and the one it joins.
//!
//! **Deterministic for any thread count:** the halves are bisected in
//! parallel (`rayon::join`) but each on its own documents; gains are sums
//! in the order of a document's terms; sorts break ties by document
//! number. The same rows give the same order on one thread or many.

use std::cell::RefCell;

use rayon::prelude::*;

/// The parameters of the bisection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BpParams {
    /// Swap rounds per bisection at most (it stops earlier once nothing
    /// moves).
    pub max_iters: usize,
    /// A part of fewer than twice this many documents is not split.
    pub min_partition: usize,
    /// Levels of bisection at most.
    pub max_depth: usize,
}

impl Default for BpParams {
    /// Lucene's `BPIndexReorderer` defaults: 20 rounds, parts of 32
    /// documents, depth unbounded in practice.
    fn default() -> Self {
        BpParams {
            max_iters: 20,
            min_partition: 32,
            max_depth: 64,
        }
    }
}

/// Documents as rows of term numbers (`0..n_terms`), compressed-row form:
/// document `d` holds `terms[starts[d]..starts[d + 1]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rows {
    /// Where each row starts, with one more entry at the end.
    pub starts: Vec<usize>,
    /// The term numbers of all rows, row after row.
    pub terms: Vec<u32>,
    /// One more than the largest term number.
    pub n_terms: usize,
}

impl Rows {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there is no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn row(&self, d: u32) -> &[u32] {
        &self.terms[self.starts[d as usize]..self.starts[d as usize + 1]]
    }
}

/// The bisection order of `rows`: the document numbers, new position by
/// new position (`order[new] = old`).
pub fn bp_order(rows: &Rows, params: &BpParams) -> Vec<u32> {
    let n = rows.len();
    bp_order_parts(rows, params, (0..n as u32).collect(), &[n])
}

/// `docs` (every row once) with each part bisected on its own: part `i`
/// is `docs[ends[i - 1]..ends[i]]` (from 0 for the first), and the parts
/// stay in place, in their order. Parts are bisected in parallel; the
/// order is the same for any thread count.
pub fn bp_order_parts(
    rows: &Rows,
    params: &BpParams,
    mut docs: Vec<u32>,
    ends: &[usize],
) -> Vec<u32> {
    let table = CostTable::new(rows.len());
    let job = Job {
        rows,
        params,
        table: &table,
    };
    let mut parts: Vec<&mut [u32]> = Vec::with_capacity(ends.len());
    let mut rest: &mut [u32] = &mut docs;
    let mut start = 0;
    for &end in ends {
        let (part, tail) = rest.split_at_mut(end - start);
        parts.push(part);
        rest = tail;
        start = end;
    }
    parts.into_par_iter().for_each(|part| job.bisect(part, 0));
    docs
}

/// `T(x) = x * log2(x + 1)` for every degree a part can have.
struct CostTable(Vec<f64>);

impl CostTable {
    fn new(n: usize) -> Self {
        CostTable(
            (0..=n + 1)
                .map(|x| x as f64 * ((x + 1) as f64).log2())
                .collect(),
        )
    }

    /// The gain of one term when a document leaves a half where `from`
    /// documents hold it for one where `to` do.
    #[inline]
    fn gain(&self, from: u32, to: u32) -> f64 {
        let t = &self.0;
        let (a, b) = (from as usize, to as usize);
        t[a - 1] - t[a] + t[b + 1] - t[b]
    }
}

/// Per-thread degree arrays, all zero between bisections.
#[derive(Default)]
struct Scratch {
    left: Vec<u32>,
    right: Vec<u32>,
    gains: Vec<Gain>,
    other: Vec<Gain>,
}

/// A document's gain, the document, and its place in its half.
type Gain = (f64, u32, u32);

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

struct Job<'a> {
    rows: &'a Rows,
    params: &'a BpParams,
    table: &'a CostTable,
}

impl Job<'_> {
    fn bisect(&self, docs: &mut [u32], depth: usize) {
        if docs.len() < 2 * self.params.min_partition.max(1) || depth >= self.params.max_depth {
            return;
        }
        let mid = docs.len() / 2;
        // The borrow ends before the recursion: nothing else runs on this
        // thread while it is held.
        SCRATCH.with(|s| self.refine(&mut s.borrow_mut(), docs, mid));
        let (left, right) = docs.split_at_mut(mid);
        if left.len() + right.len() >= 4096 {
            rayon::join(
                || self.bisect(left, depth + 1),
                || self.bisect(right, depth + 1),
            );
        } else {
            self.bisect(left, depth + 1);
            self.bisect(right, depth + 1);
        }
    }

    /// Swaps documents between `docs[..mid]` and `docs[mid..]` until no
    /// swap gains or the rounds run out.
    fn refine(&self, s: &mut Scratch, docs: &mut [u32], mid: usize) {
        if s.left.len() < self.rows.n_terms {
            s.left.resize(self.rows.n_terms, 0);
            s.right.resize(self.rows.n_terms, 0);
        }
        for &d in &docs[..mid] {
            self.count(&mut s.left, d, 1);
        }
        for &d in &docs[mid..] {
            self.count(&mut s.right, d, 1);
        }
        for _ in 0..self.params.max_iters {
            if self.swap_round(s, docs, mid) == 0 {
                break;
            }
        }
        for &d in docs.iter() {
            for &t in self.rows.row(d) {
                s.left[t as usize] = 0;
                s.right[t as usize] = 0;
            }
        }
    }

    /// One round: gains, sorts, swaps. Returns the number of swaps.
    fn swap_round(&self, s: &mut Scratch, docs: &mut [u32], mid: usize) -> usize {
        let Scratch {
            left,
            right,
            gains,
            other,
        } = s;
        self.gains_of(gains, &docs[..mid], left, right);
        self.gains_of(other, &docs[mid..], right, left);
        let mut swaps = 0;
        for (&(gl, dl, pl), &(gr, dr, pr)) in gains.iter().zip(other.iter()) {
            if gl + gr <= 0.0 {
                break;
            }
            self.count(left, dl, -1);
            self.count(right, dl, 1);
            self.count(right, dr, -1);
            self.count(left, dr, 1);
            docs.swap(pl as usize, mid + pr as usize);
            swaps += 1;
        }
        swaps
    }

    /// The gains of moving each of `docs` from the half counted in `from`
    /// to the one counted in `to`, sorted best first (ties: document
    /// number).
    fn gains_of(&self, out: &mut Vec<Gain>, docs: &[u32], from: &[u32], to: &[u32]) {
        out.clear();
        out.extend(docs.iter().zip(0u32..).map(|(&d, pos)| {
            let g: f64 = self
                .rows
                .row(d)
                .iter()
                .map(|&t| self.table.gain(from[t as usize], to[t as usize]))
                .sum();
            (g, d, pos)
        }));
        out.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    }

    fn count(&self, degrees: &mut [u32], d: u32, by: i32) {
        for &t in self.rows.row(d) {
            let x = &mut degrees[t as usize];
            *x = x.wrapping_add_signed(by);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(docs: &[&[u32]]) -> Rows {
        let mut r = Rows {
            starts: vec![0],
            terms: Vec::new(),
            n_terms: 0,
        };
        for d in docs {
            r.terms.extend_from_slice(d);
            r.starts.push(r.terms.len());
            r.n_terms = r
                .n_terms
                .max(d.iter().map(|&t| t as usize + 1).max().unwrap_or(0));
        }
        r
    }

    fn small() -> BpParams {
        BpParams {
            min_partition: 1,
            ..BpParams::default()
        }
    }

    #[test]
    fn the_order_is_a_permutation() {
        let r = rows(&[&[0, 1], &[2], &[0, 1], &[2], &[], &[1]]);
        let mut order = bp_order(&r, &small());
        order.sort_unstable();
        assert_eq!(order, (0..6).collect::<Vec<_>>());
    }

    /// Documents of four topics in a random order, each holding six of
    /// its topic's twelve terms: a random order changes topic at about
    /// three quarters of its places, the bisection's at a few (15 here;
    /// not 3, since a half of a part must hold half its documents).
    #[test]
    fn documents_sharing_terms_end_up_together() {
        let mut x = 12345u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let topic_of: Vec<u32> = (0..512).map(|_| (next() % 4) as u32).collect();
        let docs: Vec<Vec<u32>> = topic_of
            .iter()
            .map(|&t| {
                let mut terms: Vec<u32> = (0..6).map(|_| t * 12 + (next() % 12) as u32).collect();
                terms.sort_unstable();
                terms.dedup();
                terms
            })
            .collect();
        let refs: Vec<&[u32]> = docs.iter().map(Vec::as_slice).collect();
        let changes = |order: &[u32]| {
            order
                .windows(2)
                .filter(|w| topic_of[w[0] as usize] != topic_of[w[1] as usize])
                .count()
        };
        let input: Vec<u32> = (0..512).collect();
        assert!(changes(&input) > 300, "{}", changes(&input));
        let order = bp_order(&rows(&refs), &small());
        assert!(
            changes(&order) <= 24,
            "{} topic changes: {order:?}",
            changes(&order)
        );
    }

    #[test]
    fn the_same_order_on_one_thread_or_four() {
        let docs: Vec<Vec<u32>> = (0u32..9000)
            .map(|i| {
                (0..6)
                    .map(|k| (i.wrapping_mul(2654435761) >> (k * 4)) % 500)
                    .collect()
            })
            .collect();
        let refs: Vec<&[u32]> = docs.iter().map(Vec::as_slice).collect();
        let r = rows(&refs);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| bp_order(&r, &BpParams::default()))
        };
        assert_eq!(run(1), run(4));
        // Parts bisected on their own (an order by spam percentile first):
        // the same on any thread count, and each part keeps its documents
        // and its place.
        let docs: Vec<u32> = (0..9000).rev().collect();
        let ends = [100, 3000, 3001, 9000];
        let parts = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| bp_order_parts(&r, &BpParams::default(), docs.clone(), &ends))
        };
        let one = parts(1);
        assert_eq!(one, parts(4));
        let mut start = 0;
        for end in ends {
            let mut got = one[start..end].to_vec();
            let mut want = docs[start..end].to_vec();
            if end - start >= 2 * BpParams::default().min_partition {
                assert_ne!(got, want, "part {start}..{end} was not bisected");
            }
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "part {start}..{end} holds other documents");
            start = end;
        }
    }
}
