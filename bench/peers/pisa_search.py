#!/usr/bin/env python3
"""PISA (through pyterrier-pisa) on the search bench's synthetic collection.

    bench/peers/.venv/bin/python bench/peers/pisa_search.py --index DIR --topics TOPICS.tsv \
        [--docs DOCS.jsonl|-] [--k1 0.9] [--b 0.4] [--hits 10 1000] \
        [--algorithms block_max_wand block_max_maxscore maxscore] [--runs 3] [--json OUT.jsonl]

DOCS.jsonl and TOPICS.tsv come from `cargo run --release -p sieve-bench --example synth_export`:
documents and topic titles already analysed by sieve (Porter stems, stopwords removed), so PISA
indexes and queries them with no stemmer and no stopwords of its own and every system scores the
same terms. The index is built once (`--docs` is read only when DIR holds no index; `-` reads
standard input, so 10M documents need no file) with one thread, and its build time and size are
reported.

Each topic is timed alone, as the Rust bench does: one warm-up, then the median of `--runs` calls
of PISA's own retrieval entry point (`_pisathon.retrieve`, one query, one thread, docnos and
scores written out, no pandas), then mean / p50 / p99 (nearest rank) over topics. Query terms are
weighted by their count (`query_weighted`), as sieve's qtf boost. PISA computes its block-max
metadata for the given k1/b once, when the retrieval context is prepared; that time is reported
separately.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def docs_from(path):
    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    for line in f:
        d = json.loads(line)
        yield {"docno": d["docno"], "text": d["text"]}


def dir_bytes(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def latency(ms):
    ms = sorted(ms)
    n = len(ms)
    pct = lambda p: ms[min(max(math.ceil(p * n), 1), n) - 1]
    return {"mean": sum(ms) / n, "p50": pct(0.5), "p99": pct(0.99)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--topics", required=True)
    ap.add_argument("--docs")
    ap.add_argument("--k1", type=float, default=0.9)
    ap.add_argument("--b", type=float, default=0.4)
    ap.add_argument("--hits", type=int, nargs="+", default=[10, 1000])
    ap.add_argument("--algorithms", nargs="+",
                    default=["block_max_wand", "block_max_maxscore", "maxscore"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()

    import pyterrier_pisa
    from pyterrier_pisa import PisaIndex, _pisathon
    try:
        pyterrier_pisa.log_level(False)
    except AttributeError:  # not in every build of the extension
        pass

    out = open(a.json, "a") if a.json else None

    def emit(rec):
        rec["pisa"] = pyterrier_pisa.__version__
        print(json.dumps(rec), flush=True)
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()

    index = PisaIndex(a.index, text_field="text", stemmer="none", stops="none", threads=1)
    if not index.built():
        if not a.docs:
            sys.exit(f"pisa_search: no index in {a.index}; give --docs")
        t = time.perf_counter()
        c = time.process_time()
        index.index(docs_from(a.docs))
        emit({"what": "pisa index", "index": a.index, "docs": index.num_docs(),
              "wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c,
              "bytes": dir_bytes(a.index)})

    topics = []
    with open(a.topics, encoding="utf-8") as f:
        for line in f:
            qid, text = line.rstrip("\n").split("\t", 1)
            topics.append((int(qid), text))

    for algo in a.algorithms:
        retr = index.bm25(k1=a.k1, b=a.b, num_results=max(a.hits), threads=1,
                          query_algorithm=algo, query_weighted=True)
        t = time.perf_counter()
        retr.reset_retrieval_context(force=True)
        prepare = time.perf_counter() - t
        for k in a.hits:
            qidxs = np.empty(k, dtype=np.int32)
            docnos = np.empty(k, dtype=object)
            ranks = np.empty(k, dtype=np.int32)
            scores = np.empty(k, dtype=np.float32)

            def run(q):
                return _pisathon.retrieve(retr._ctxt, algo, [(0, q)], k=k, threads=1,
                                          query_weighted=1, pretokenised=False,
                                          result_qidxs=qidxs, result_docnos=docnos,
                                          result_ranks=ranks, result_scores=scores)

            per, hits = [], 0
            for _, q in topics:
                hits += run(q)  # warm-up
                times = []
                for _ in range(max(a.runs, 1)):
                    t = time.perf_counter()
                    run(q)
                    times.append(time.perf_counter() - t)
                per.append(sorted(times)[len(times) // 2] * 1e3)
            rec = {"what": "pisa search", "algorithm": algo, "k1": a.k1, "b": a.b, "hits": k,
                   "topics": len(topics), "runs": a.runs, "returned": hits,
                   "prepare_s": prepare, "load": os.getloadavg()[0]}
            rec.update({k2 + "_ms": v for k2, v in latency(per).items()})
            emit(rec)


if __name__ == "__main__":
    main()
