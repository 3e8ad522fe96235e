#!/usr/bin/env python3
"""Exhaustive, exact BM25 ranking of the synthetic collection's topics, as a TREC run: the
reference the Lucene peer's top k is checked against (bench/peers/run_diff.py).

    python3 bench/peers/bm25_exact.py DOCS.jsonl TOPICS.tsv OUT.trec [--k1 0.9] [--b 0.4]
        [--hits 1000] [--lucene-lengths]

DOCS.jsonl and TOPICS.tsv are `synth_export`'s (terms already analysed, split on whitespace).
Every document containing a query term is scored, in Lucene's BM25 form so the scores compare
directly with Lucene's: sum over the topic's distinct terms of
qtf * idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)), idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
with no (k1 + 1) factor (Lucene dropped it; it scales every score alike), N the documents with at
least one term, avgdl the mean length over them. Unlike Lucene, dl is the exact length (Lucene
stores it in one byte, SmallFloat.intToByte4: exact below 24, then within about 1/8), and the
arithmetic is in doubles. Ties go to the earlier document, as Lucene's index order.
--lucene-lengths takes each dl through Lucene's one-byte encoding (encoded and decoded as
SmallFloat.intToByte4 / byte4ToInt do; avgdl stays exact, as Lucene's): then only the float
arithmetic differs from Lucene, which shows that quantisation is the whole of the difference.
Only the query terms' postings are kept, so 100,000 documents take a minute or so.
"""
import argparse
import heapq
import math
from collections import Counter, defaultdict
import json


def lucene_length(n):
    """`n` through Lucene's SmallFloat.intToByte4 and back (byte4ToInt): exact below 24, then the
    four most significant bits kept."""
    free = 24  # NUM_FREE_VALUES = 255 - longToInt4(Integer.MAX_VALUE)
    if n < free:
        return n
    v = n - free
    shift = max(v.bit_length() - 4, 0)
    return free + ((v >> shift) << shift)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("docs")
    ap.add_argument("topics")
    ap.add_argument("out")
    ap.add_argument("--k1", type=float, default=0.9)
    ap.add_argument("--b", type=float, default=0.4)
    ap.add_argument("--hits", type=int, default=1000)
    ap.add_argument("--lucene-lengths", action="store_true")
    a = ap.parse_args()

    topics = []
    with open(a.topics, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                qid, text = line.rstrip("\n").split("\t", 1)
                topics.append((qid, Counter(text.split())))
    vocab = set().union(*(q for _, q in topics))

    docnos, lengths = [], []
    postings = defaultdict(list)  # term -> [(doc, tf)]
    with open(a.docs, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            terms = d["text"].split()
            i = len(docnos)
            docnos.append(d["docno"])
            lengths.append(len(terms))
            for t, tf in Counter(t for t in terms if t in vocab).items():
                postings[t].append((i, tf))
    n = sum(1 for dl in lengths if dl > 0)
    avgdl = sum(lengths) / n
    if a.lucene_lengths:
        lengths = [lucene_length(dl) for dl in lengths]
    norm = [a.k1 * (1 - a.b + a.b * dl / avgdl) for dl in lengths]

    with open(a.out, "w", encoding="utf-8") as out:
        for qid, q in topics:
            acc = defaultdict(float)
            for t, qtf in q.items():
                p = postings.get(t, [])
                if not p:
                    continue
                idf = math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5))
                for i, tf in p:
                    acc[i] += qtf * idf * tf / (tf + norm[i])
            top = heapq.nsmallest(a.hits, acc.items(), key=lambda x: (-x[1], x[0]))
            for rank, (i, s) in enumerate(top, 1):
                out.write(f"{qid} Q0 {docnos[i]} {rank} {s:.6f} bm25-exact\n")


if __name__ == "__main__":
    main()
