#!/usr/bin/env python3
"""Writes qrels.sample.txt and madeup.run (made up; deterministic): sample
qrels in sample_eval.pl's five columns (qid iter docno stratum rel) and a run
against them. See SOURCES.md for how sample_eval.out was recorded."""
import random

rng = random.Random(20081)
qrels, run = [], []
strata_names = ["1", "10", "2", "deep"]
rates = {"1": 1.0, "10": 0.5, "2": 0.3, "deep": 0.1}
for t in range(1, 31):
    pool = []
    n = rng.randint(20, 90)
    for d in range(n):
        docno = f"d{t}-{d:03d}"
        s = strata_names[min(3, int(rng.random() * 4))]
        if t == 7 and s == "deep":
            g = -1  # a stratum with no sampled document
        elif rng.random() < rates[s]:
            g = rng.choice([0, 0, 0, 1, 2]) if t != 9 else 0  # topic 9: nothing relevant
        else:
            g = -1
        pool.append((docno, s, g))
    for docno, s, g in pool:
        qrels.append(f"{t} 0 {docno} {s} {g}")
    # the run: pooled documents and documents outside the pool, with ties
    k = 1200 if t == 3 else rng.randint(10, 80)
    docs = [p[0] for p in pool if rng.random() < 0.7] + [f"u{t}-{i}" for i in range(k)]
    rng.shuffle(docs)
    docs = docs[:k]
    for i, d in enumerate(docs):
        score = round(rng.random() * 10, 1)
        run.append(f"{t} Q0 {d} {i + 1} {score} madeup")
for i in range(5):
    run.append(f"99 Q0 x{i} {i + 1} 1.0 madeup")  # not in the qrels
open("qrels.sample.txt", "w").write("\n".join(qrels) + "\n")
open("madeup.run", "w").write("\n".join(run) + "\n")
