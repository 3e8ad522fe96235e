#!/usr/bin/env python3
"""Oracle for sieve-search's evaluation tests (run with .venv/bin/python).

  eval_oracle.py eval QRELS RUN   -> JSON {"trec_eval": {qid: {measure: value}},
                                           "gdeval": {qid: {"ndcg@20": v, "err@20": v}}}
      trec_eval measures from pytrec_eval (trec_eval 9 bindings): map, P_5..P_30,
      recall_1000, num_ret, num_rel, num_rel_ret, per topic.
      gdeval measures from the gdeval.pl bundled with ir_measures (run with perl,
      as ir_measures' gdeval provider does), per topic, printed by gdeval with 5 decimals.
  eval_oracle.py batch QRELS RUN MAXDOCS GDQRELS GDRUN -> the same JSON, for many
      cases at once (the test gives every case its own topic ids): trec_eval
      measures (all of TREC_MEASURES) on QRELS/RUN, each topic's ranking first
      cut at MAXDOCS[qid] (a JSON object, trec_eval -M) in trec_eval's order
      (score as float32 descending, docno descending); gdeval on GDQRELS/GDRUN;
      and "judged": {qid: {"judged_10": v, "judged_20": v}} from ir_measures'
      Judged@10 and Judged@20 on that cut ranking (scores replaced by rank, so
      ir_measures sees trec_eval's order).
  eval_oracle.py batch-J QRELS RUN MAXDOCS GDQRELS GDRUN -> the same with trec_eval -J
      (pytrec_eval's judged_docs_only_flag=True), and gdeval.pl on GDRUN without the
      documents not judged >= 0 in GDQRELS (the condensed run); no "judged".
      (A separate call: trec_eval caches the last topic's ranking across
      evaluators, so -J and plain evaluations do not share a process.)
  eval_oracle.py judged QRELS RUN -> {qid: {"judged_10": v, "judged_20": v}} from
      ir_measures' Judged@10/20 on the run as it is (ir_measures' own order).
  eval_oracle.py eval-J QRELS RUN -> as eval, with trec_eval -J and gdeval.pl on the
      condensed run (as batch-J).
  eval_oracle.py ttest A,B,..  X,Y,..  -> JSON {"t": t, "p": p} from scipy.stats.ttest_rel(B, A)
  eval_oracle.py paired CASES.json -> JSON {"pairs": [{"t", "p", "lo", "hi"}], "holm": [[p~ or null]]}
      for CASES = {"pairs": [{"a": [...], "b": [...]}], "families": [[p or null, ...]]}:
      scipy.stats.ttest_rel(b, a) with its confidence_interval(0.95) per pair (NaN -> null,
      +-inf -> "inf"/"-inf"), and Holm-adjusted p-values per family. scipy has no Holm
      correction: it is computed here with numpy as statsmodels' multipletests(method="holm")
      does (sort, multiply by m..1, running maximum, clip at 1); null p-values are left out.
"""
import json
import pkgutil
import subprocess
import sys
import tempfile


TREC_MEASURES = {"map", "P", "recall", "ndcg_cut", "Rprec", "bpref", "recip_rank", "success",
                 "num_ret", "num_rel", "num_rel_ret", "infAP"}


def trec_order(docs):
    """A topic's (docno, score) in trec_eval 9.0.8's order: float32 score
    descending, docno descending."""
    import numpy as np
    np.seterr(over="ignore")  # float32 of 1e39 is inf, as in C
    return sorted(docs.items(), key=lambda d: (np.float32(d[1]), d[0].encode()), reverse=True)


def cut_run(run, max_docs):
    """Each topic of `run` cut at max_docs[qid] in trec_eval's order."""
    for qid, m in (max_docs or {}).items():
        if qid in run:
            run[qid] = dict(trec_order(run[qid])[:m])
    return {q: d for q, d in run.items() if d}


def judged_share(qrels, run):
    """ir_measures' Judged@10 and Judged@20 per topic."""
    import ir_measures
    from ir_measures import Judged
    out = {}
    for m in ir_measures.iter_calc([Judged @ 10, Judged @ 20], qrels, run):
        out.setdefault(m.query_id, {})["judged_" + str(m.measure).split("@")[1]] = m.value
    return out


def trec_eval(qrels_path, run_path, max_docs=None, judged_only=False, with_judged=False):
    import pytrec_eval
    from sievelib import read_qrels, read_run
    # unique=True: a repeated (topic, docno) is refused, as pytrec_eval.parse_qrel/parse_run do
    qrels = read_qrels(qrels_path, unique=True)
    run = read_run(run_path, unique=True)
    run = cut_run(run, max_docs)
    ev = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, judged_docs_only_flag=judged_only)
    res = ev.evaluate(run)
    if not with_judged:
        return res, None
    ranked = {q: {d: float(-i) for i, (d, _) in enumerate(trec_order(docs))}
              for q, docs in run.items()}
    return res, judged_share(qrels, ranked)


def condensed(qrels_path, run_path, out_path):
    """Writes run_path without the documents not judged >= 0 in qrels_path."""
    from sievelib import read_qrels
    qrels = read_qrels(qrels_path, unique=True)
    with open(run_path) as f, open(out_path, "w") as out:
        for line in f:
            fields = line.split()
            if fields and qrels.get(fields[0], {}).get(fields[2], -1) >= 0:
                out.write(line)


def gdeval(qrels_path, run_path):
    script = pkgutil.get_data("ir_measures", "bin/gdeval.pl")
    with tempfile.NamedTemporaryFile(suffix=".pl") as f:
        f.write(script)
        f.flush()
        out = subprocess.check_output(["perl", f.name, qrels_path, run_path, "20"], stderr=subprocess.DEVNULL).decode()
    res = {}
    for i, line in enumerate(out.splitlines()):
        if i == 0 or not line:
            continue
        _, qid, ndcg, err = line.split(",")
        if qid != "amean":
            res[qid] = {"ndcg@20": float(ndcg), "err@20": float(err)}
    return res


def paired(cases):
    import warnings
    import math
    import numpy as np
    from scipy.stats import ttest_rel

    def num(x):
        x = float(x)
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x

    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in cases["pairs"]:
            r = ttest_rel(c["b"], c["a"])
            ci = r.confidence_interval(0.95)
            out.append({"t": num(r.statistic), "p": num(r.pvalue), "lo": num(ci.low), "hi": num(ci.high)})
    holm = []
    for fam in cases["families"]:
        idx = [i for i, p in enumerate(fam) if p is not None]
        p = np.array([fam[i] for i in idx], dtype=float)
        m = len(p)
        order = np.argsort(p, kind="mergesort")
        adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
        res = [None] * len(fam)
        for k, o in enumerate(order):
            res[idx[o]] = float(adj[k])
        holm.append(res)
    return {"pairs": out, "holm": holm}


def main():
    if sys.argv[1] == "eval":
        q, r = sys.argv[2], sys.argv[3]
        print(json.dumps({"trec_eval": trec_eval(q, r)[0], "gdeval": gdeval(q, r)}))
    elif sys.argv[1] in ("eval-J", "batch", "batch-J"):
        judged_only = sys.argv[1].endswith("-J")
        if sys.argv[1] == "eval-J":
            q, r = sys.argv[2], sys.argv[3]
            max_docs, gq, gr = None, q, r
        else:
            q, r, m, gq, gr = sys.argv[2:7]
            with open(m) as f:
                max_docs = json.load(f)
        te, judged = trec_eval(q, r, max_docs, judged_only, with_judged=not judged_only)
        with tempfile.NamedTemporaryFile("w", suffix=".run") as cr:
            if judged_only:
                condensed(gq, gr, cr.name)
                gr = cr.name
            out = {"trec_eval": te, "gdeval": gdeval(gq, gr)}
        if judged is not None:
            out["judged"] = judged
        print(json.dumps(out))
    elif sys.argv[1] == "judged":
        from sievelib import read_qrels, read_run
        qrels = read_qrels(sys.argv[2], unique=True)
        run = read_run(sys.argv[3], unique=True)
        print(json.dumps(judged_share(qrels, run)))
    elif sys.argv[1] == "ttest":
        from scipy.stats import ttest_rel
        a = [float(x) for x in sys.argv[2].split(",")]
        b = [float(x) for x in sys.argv[3].split(",")]
        res = ttest_rel(b, a)
        print(json.dumps({"t": float(res.statistic), "p": float(res.pvalue)}))
    elif sys.argv[1] == "paired":
        with open(sys.argv[2]) as f:
            cases = json.load(f)
        print(json.dumps(paired(cases)))
    else:
        sys.exit(f"unknown mode {sys.argv[1]}")


if __name__ == "__main__":
    main()
