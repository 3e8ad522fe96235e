#!/usr/bin/env python3
"""Ranking overlap between two TREC run files.

    overlap.py RUN_A RUN_B [--depths 10 1000] [--json]

For each topic present in both runs and each depth k, overlap@k = |A_k & B_k| / max(|A_k|, |B_k|),
where X_k is the set of docnos at ranks 1..k of that run (ranks ordered by the rank column, ties
by file order). Reports the mean over the shared topics, plus the count of topics found in only one
of the runs (they are not averaged in).

Tie-aware overlap@k: systems break score ties differently (trec_eval order is docno descending;
Lucene keeps index order), and a corpus of replicated pages ties dozens of copies at every rank, so
plain overlap can be 0 for two identical rankings. tie_overlap@k counts a document of A_k as shared
when B ranks it with a score at least B's k-th score (B's tie group at the cut is taken whole),
and symmetrically; it is the mean of the two directions. Equal rankings up to tie order give 1.

--pages (for make_corpus.py's replicated corpus, --docids shape): every docid is mapped to its page
by dropping the four-digit ClueWeb09 directory (clueweb09-en1003-54-00007 -> clueweb09-en-54-00007,
the same page in every replica), each ranking keeps the first occurrence of each page, and the
overlaps are computed on those page rankings (page_overlap@k).
"""
import re
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from sievelib import run_lines  # noqa: E402


def read_ranked(path):
    run = {}
    for n, parts in run_lines(path):
        run.setdefault(parts[0], []).append((int(parts[3]), n, parts[2], float(parts[4])))
    return {q: [(d, s) for _, _, d, s in sorted(v)] for q, v in run.items()}


def tie_closed(ranked, k):
    """Docnos ranked with a score >= the k-th score (the whole tie group at the cut)."""
    if not ranked:
        return set()
    cut = ranked[min(k, len(ranked)) - 1][1]
    return {d for d, s in ranked if s >= cut}


def pages(run):
    out = {}
    for q, ranked in run.items():
        seen, lst = set(), []
        for d, sc in ranked:
            p = re.sub(r"^(clueweb09-[a-z]+)\d{4}-", r"\1-", d)
            if p not in seen:
                seen.add(p)
                lst.append((p, sc))
        out[q] = lst
    return out


def overlap(a, b, depths):
    shared = sorted(set(a) & set(b))
    res = {"topics_shared": len(shared), "topics_only_a": len(set(a) - set(b)), "topics_only_b": len(set(b) - set(a))}
    for k in depths:
        vals = []
        ties = []
        for q in shared:
            ak, bk = {d for d, _ in a[q][:k]}, {d for d, _ in b[q][:k]}
            denom = max(len(ak), len(bk))
            vals.append(len(ak & bk) / denom if denom else 1.0)
            ab = len(ak & tie_closed(b[q], k)) / len(ak) if ak else 1.0
            ba = len(bk & tie_closed(a[q], k)) / len(bk) if bk else 1.0
            ties.append((ab + ba) / 2)
        res[f"overlap@{k}"] = sum(vals) / len(vals) if vals else 0.0
        res[f"tie_overlap@{k}"] = sum(ties) / len(ties) if ties else 0.0
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--depths", nargs="+", type=int, default=[10, 1000])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--pages", action="store_true", help="also page-level overlap (replicated corpus)")
    a = ap.parse_args()
    ra, rb = read_ranked(a.run_a), read_ranked(a.run_b)
    res = overlap(ra, rb, a.depths)
    if a.pages:
        pr = overlap(pages(ra), pages(rb), a.depths)
        res.update({f"page_{k}": v for k, v in pr.items() if k.startswith("overlap@")})
    if a.json:
        print(json.dumps(res))
    else:
        print("\t".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
