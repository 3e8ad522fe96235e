//! MaxScore's choice of the essential terms: the terms whose bounds sum
//! below a threshold are looked up, not scanned (for one group, and for
//! several, each with its own bounds and threshold); each group's lowest
//! threshold over some of its variants.

use tantivy::Score;

use super::may_reach;

/// Marks in `skip` the cursors that are not essential: the longest run of
/// the smallest `bounds` (one per cursor) whose sum stays below
/// `threshold`. `order` is scratch space.
pub(super) fn non_essential(
    bounds: &[Score],
    threshold: Score,
    order: &mut Vec<usize>,
    skip: &mut [bool],
) {
    order.clear();
    order.extend(0..bounds.len());
    order.sort_unstable_by(|&a, &b| bounds[a].total_cmp(&bounds[b]).then(a.cmp(&b)));
    skip.fill(false);
    let mut sum: Score = 0.0;
    for (n, &c) in order.iter().enumerate() {
        sum += bounds[c];
        if may_reach(sum, n + 1, threshold) {
            break;
        }
        skip[c] = true;
    }
}

/// Marks in `skip` the cursors that are not essential for any group: a
/// cursor is skipped only when [`non_essential`] marks it for every group,
/// given the group's own bounds (`bounds`, cursor-major, `thresholds.len()`
/// per cursor) and threshold (negative infinity: none yet). The skipped
/// cursors' bounds sum, for every group, below the group's threshold, so a
/// document with only those terms enters no top k. `order`, `column` and
/// `group_skip` are scratch space.
pub(super) fn non_essential_groups(
    bounds: &[Score],
    thresholds: &[Score],
    order: &mut Vec<usize>,
    column: &mut Vec<Score>,
    group_skip: &mut [bool],
    skip: &mut [bool],
) {
    let ng = thresholds.len();
    skip.fill(true);
    for (g, &t) in thresholds.iter().enumerate() {
        if t == Score::NEG_INFINITY {
            skip.fill(false);
            return;
        }
        column.clear();
        column.extend(bounds.chunks_exact(ng).map(|b| b[g]));
        non_essential(column, t, order, group_skip);
        let mut any = false;
        for (s, &gs) in skip.iter_mut().zip(group_skip.iter()) {
            *s &= gs;
            any |= *s;
        }
        if !any {
            // Every cursor is essential for some group already.
            return;
        }
    }
}

/// Each group's lowest threshold over the variants picked (`active[i]`
/// is variant i's (variant, group), `thresholds[i]` its threshold,
/// `picked[i]` whether it counts), into `out` (infinity: none picked).
#[inline]
pub(super) fn lowest_per_group(
    out: &mut [Score],
    active: &[(usize, usize)],
    thresholds: &[Score],
    picked: &[bool],
) {
    out.fill(Score::INFINITY);
    for ((&(_, g), &t), &p) in active.iter().zip(thresholds).zip(picked) {
        if p {
            out[g] = out[g].min(t);
        }
    }
}
