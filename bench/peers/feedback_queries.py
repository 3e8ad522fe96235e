#!/usr/bin/env python3
"""Anserini's printed feedback queries next to sieve's, topic by topic.

    feedback_queries.py extract LOG MODEL [--topics 1,2,3]     > anserini.tsv
    feedback_queries.py compare ANSERINI.tsv SIEVE_QUERIES.tsv TAG

`extract` reads the log of an Anserini 1.7.1 run with -rm3.outputQuery, -bm25prf.outputQuery or
-rocchio.outputQuery (MODEL: rm3, bm25prf, rocchio; one search thread) and prints
`topic<TAB>term<TAB>weight` lines, weights as Java printed them (the float's shortest form).
`compare` reads such a file and the file of `sieve-search run --feedback-queries` (lines
`tag<TAB>topic<TAB>term^weight ...`), keeps the run TAG, and prints per topic the terms only one
side has and the largest relative weight difference, then a summary.
"""
import re
import sys
from collections import defaultdict


def extract(log, model, topics):
    out = defaultdict(dict)
    qid = None
    for line in open(log, encoding="utf-8"):
        m = re.search(r" - QID: (\S+)$", line.rstrip("\n"))
        if m:
            qid = m.group(1)
            continue
        if qid is None:
            continue
        if model in ("rm3", "rocchio"):
            m = re.search(r" - Feedback term: (\S+) -> (\S+)$", line.rstrip("\n"))
            if m:
                out[qid][m.group(1)] = m.group(2)
        else:
            m = re.search(r" - Running new query: (.*)$", line.rstrip("\n"))
            if m:
                for t, w in re.findall(r"\((\S+?)\)\^(\S+)", m.group(1)):
                    out[qid][t] = w
    for qid in sorted(out, key=lambda q: int(q) if q.isdigit() else q):
        if topics and qid not in topics:
            continue
        for t in sorted(out[qid]):
            print(f"{qid}\t{t}\t{out[qid][t]}")


def read_anserini(path):
    out = defaultdict(dict)
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        q, t, w = line.rstrip("\n").split("\t")
        out[q][t] = float(w)
    return out


def read_sieve(path, tag):
    out = {}
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[0] != tag:
            continue
        terms = {}
        for tw in f[2].split(" ") if f[2] else []:
            t, w = tw.rsplit("^", 1)
            terms[t] = float(w)
        out[f[1]] = terms
    return out


def compare(anserini_path, sieve_path, tag):
    a, s = read_anserini(anserini_path), read_sieve(sieve_path, tag)
    same_terms = worst = 0
    worst_topic = None
    for q in sorted(a, key=lambda q: int(q) if q.isdigit() else q):
        sq = s.get(q, {})
        only_a = sorted(set(a[q]) - set(sq))
        only_s = sorted(set(sq) - set(a[q]))
        rel = max((abs(a[q][t] - sq[t]) / max(abs(a[q][t]), 1e-12) for t in set(a[q]) & set(sq)), default=0.0)
        if not only_a and not only_s:
            same_terms += 1
        if rel > worst:
            worst, worst_topic = rel, q
        if only_a or only_s or rel > 1e-5:
            print(f"topic {q}: only anserini {only_a} only sieve {only_s} max rel diff {rel:.2e}")
    print(f"{tag}: {same_terms}/{len(a)} topics with the same terms; largest relative weight difference {worst:.2e} (topic {worst_topic})")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "extract":
        topics = set()
        if len(sys.argv) == 6 and sys.argv[4] == "--topics":
            topics = set(sys.argv[5].split(","))
        extract(sys.argv[2], sys.argv[3], topics)
    elif len(sys.argv) == 5 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
