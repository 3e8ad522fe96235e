#!/usr/bin/env python3
"""How far two TREC runs of the same topics differ: top-k overlap and score differences (the Lucene
peer's run against bench/peers/bm25_exact.py's exact BM25, or against its own exhaustive run).

    python3 bench/peers/run_diff.py RUN_A RUN_B [--depths 10 1000] [--json]

Per depth k, over the topics in both runs: mean and minimum overlap@k (|A_k & B_k| / max(|A_k|,
|B_k|), the docnos at ranks 1..k), the share of topics whose top k are the same set, the largest
|score_A - score_B| of a document in both top k lists (absolute and relative to B's score), and the
largest difference of the k-th scores. A plain overlap counts tie order too; for ties see
overlap.py's tie-aware overlap.
"""
import argparse
import json
from collections import defaultdict


def read_run(path):
    run = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if len(p) >= 5:
                run[p[0]].append((int(p[3]), p[2], float(p[4])))
    return {q: [(d, s) for _, d, s in sorted(v)] for q, v in run.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--depths", type=int, nargs="+", default=[10, 1000])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    A, B = read_run(a.run_a), read_run(a.run_b)
    shared = sorted(set(A) & set(B))
    report = {"topics": len(shared), "only_a": len(set(A) - set(B)), "only_b": len(set(B) - set(A))}
    for k in a.depths:
        overlaps, same, diff, rel, kth = [], 0, 0.0, 0.0, 0.0
        for q in shared:
            ra, rb = A[q][:k], B[q][:k]
            da, db = dict(ra), dict(rb)
            common = da.keys() & db.keys()
            overlaps.append(len(common) / max(len(ra), len(rb), 1))
            same += da.keys() == db.keys()
            for d in common:
                diff = max(diff, abs(da[d] - db[d]))
                if db[d]:
                    rel = max(rel, abs(da[d] - db[d]) / abs(db[d]))
            if len(ra) == len(rb) == k:
                kth = max(kth, abs(ra[-1][1] - rb[-1][1]))
        n = max(len(overlaps), 1)
        report[f"@{k}"] = {"mean_overlap": sum(overlaps) / n, "min_overlap": min(overlaps, default=0),
                           "same_set": same / n, "max_abs_score_diff": diff,
                           "max_rel_score_diff": rel, "max_kth_score_diff": kth}
    if a.json:
        print(json.dumps(report))
        return
    print(f"{report['topics']} topics in both runs ({report['only_a']} only in A, "
          f"{report['only_b']} only in B)")
    for k in a.depths:
        r = report[f"@{k}"]
        print(f"top {k}: overlap mean {r['mean_overlap']:.4f} min {r['min_overlap']:.2f}, "
              f"same set {r['same_set']:.1%}; max |score diff| {r['max_abs_score_diff']:.6f} "
              f"({r['max_rel_score_diff']:.2%} of B's), max k-th score diff "
              f"{r['max_kth_score_diff']:.6f}")


if __name__ == "__main__":
    main()
