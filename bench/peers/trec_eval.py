#!/usr/bin/env python3
"""Evaluate TREC run files with pytrec_eval (trec_eval 9.x measures).

    trec_eval.py QRELS RUN [RUN ...] [--measures map P_30] [--json]

Averages are over the topics that have judgements in QRELS (like `trec_eval -c`): a judged
topic missing from the run scores 0. Prints one line per run, or JSON with --json.
"""
import argparse
import json
import os
import sys

import pytrec_eval

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from sievelib import read_qrels, read_run  # noqa: E402


def evaluate(qrels, run, measures):
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures))
    per_query = ev.evaluate(run)
    judged = [q for q, docs in qrels.items() if any(r > 0 for r in docs.values())]
    out = {}
    for m in measures:
        total = sum(per_query.get(q, {}).get(m, 0.0) for q in judged)
        out[m] = total / len(judged) if judged else 0.0
    out["topics"] = len(judged)
    out["topics_in_run"] = len(run)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("qrels")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--measures", nargs="+", default=["map", "P_30"])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    qrels = read_qrels(a.qrels)
    results = {r: evaluate(qrels, read_run(r), a.measures) for r in a.runs}
    if a.json:
        print(json.dumps(results, indent=1))
    else:
        for r, res in results.items():
            print(r + "\t" + "\t".join(f"{m}={res[m]:.4f}" for m in a.measures) + f"\ttopics={res['topics']}")


if __name__ == "__main__":
    main()
