#!/usr/bin/env python3
"""Oracle for sieve-search's evaluation tests (run with .venv/bin/python).

  eval_oracle.py eval QRELS RUN   -> JSON {"trec_eval": {qid: {measure: value}},
                                           "gdeval": {qid: {"ndcg@20": v, "err@20": v}}}
      trec_eval measures from pytrec_eval (trec_eval 9 bindings): map, P_5..P_30,
      recall_1000, num_ret, num_rel, num_rel_ret, per topic.
      gdeval measures from the gdeval.pl bundled with ir_measures (run with perl,
      as ir_measures' gdeval provider does), per topic, printed by gdeval with 5 decimals.
  eval_oracle.py ttest A,B,..  X,Y,..  -> JSON {"t": t, "p": p} from scipy.stats.ttest_rel(B, A)
"""
import json
import pkgutil
import subprocess
import sys
import tempfile


def trec_eval(qrels_path, run_path):
    import pytrec_eval
    from sievelib import read_qrels, read_run
    # unique=True: a repeated (topic, docno) is refused, as pytrec_eval.parse_qrel/parse_run do
    qrels = read_qrels(qrels_path, unique=True)
    run = read_run(run_path, unique=True)
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P_5", "P_10", "P_20", "P_30", "recall_1000", "num_ret", "num_rel", "num_rel_ret"})
    return ev.evaluate(run)


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


def main():
    if sys.argv[1] == "eval":
        q, r = sys.argv[2], sys.argv[3]
        print(json.dumps({"trec_eval": trec_eval(q, r), "gdeval": gdeval(q, r)}))
    elif sys.argv[1] == "ttest":
        from scipy.stats import ttest_rel
        a = [float(x) for x in sys.argv[2].split(",")]
        b = [float(x) for x in sys.argv[3].split(",")]
        res = ttest_rel(b, a)
        print(json.dumps({"t": float(res.statistic), "p": float(res.pvalue)}))
    else:
        sys.exit(f"unknown mode {sys.argv[1]}")


if __name__ == "__main__":
    main()
