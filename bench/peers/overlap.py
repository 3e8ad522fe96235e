#!/usr/bin/env python3
"""Ranking overlap between two TREC run files.

    overlap.py RUN_A RUN_B [--depths 10 1000] [--json]

For each topic present in both runs and each depth k, overlap@k = |A_k & B_k| / max(|A_k|, |B_k|),
where X_k is the set of docnos at ranks 1..k of that run (ranks ordered by the rank column, ties
by file order). Reports the mean over the shared topics, plus the count of topics found in only one
of the runs (they are not averaged in).
"""
import argparse
import json
import sys


def read_ranked(path):
    run = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                sys.exit(f"{path}:{n}: expected 6 fields, got {len(parts)}")
            run.setdefault(parts[0], []).append((int(parts[3]), n, parts[2]))
    return {q: [d for _, _, d in sorted(v)] for q, v in run.items()}


def overlap(a, b, depths):
    shared = sorted(set(a) & set(b))
    res = {"topics_shared": len(shared), "topics_only_a": len(set(a) - set(b)), "topics_only_b": len(set(b) - set(a))}
    for k in depths:
        vals = []
        for q in shared:
            ak, bk = set(a[q][:k]), set(b[q][:k])
            denom = max(len(ak), len(bk))
            vals.append(len(ak & bk) / denom if denom else 1.0)
        res[f"overlap@{k}"] = sum(vals) / len(vals) if vals else 0.0
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--depths", nargs="+", type=int, default=[10, 1000])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    res = overlap(read_ranked(a.run_a), read_ranked(a.run_b), a.depths)
    if a.json:
        print(json.dumps(res))
    else:
        print("\t".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
