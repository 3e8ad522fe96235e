#!/usr/bin/env python3
"""Two-stage batch search of sieve shards under Apache Spark: the run that one
index over all the shards' documents gives, by the unchanged
`sieve-search` binary; with --feedback, that index's feedback run (RM3,
BM25-PRF or Rocchio), byte for byte.

    spark-submit scale/spark_search.py --manifest /shared/shards/shards.jsonl \\
        --topics topics.web.1-50.txt --hits 1000 --output run.txt \\
        --sieve-search /opt/sieve/bin/sieve-search [--k1 0.9 --b 0.4 | --model qld --mu 1000] \\
        [--feedback rm3|bm25prf|rocchio [--rerank-cutoff 50] [--rm3-fb-docs 10 ...]] \\
        [--field title] [--search-field body] [--shards-per-task N] [--master local[2]]

Stage 1 (statistics): each task runs
    sieve-search global-stats --index SHARD... --topics T
and returns the JSON statistics of its shards (N, total tokens of the
searched field, df of every analysed query term, and a header naming the
analyser, fields and topics). The driver sums them with
    sieve-search sum-stats PART... --output WORK/global-stats.json
which refuses parts with different headers (shards built with another
analyser).

Stage 2 (search): each task runs
    sieve-search run --index SHARD... --topics T --global-stats G --hits K
(scores with the global statistics, so each hit gets the score the single
index gives it) and returns its top K per topic. Spark keeps the best K per
topic (reduceByKey: score descending, docid descending, the single index's
tie-break; scores are compared as written, shortest round-trip f32, which
preserves their order), and the driver writes the final run with
    sieve-search merge-runs WORK/best-k.run --hits K --topics T --output OUT
which re-applies the same order in Rust and numbers the ranks.

With --feedback MODEL (and any of run's feedback flags: --rerank-cutoff,
--rm3-fb-terms, --rm3-fb-docs, --rm3-original-query-weight,
--rm3-no-term-filter, --bm25prf-*, --rocchio-*, passed on as given), the
staged feedback protocol of scale/README.md:
  1. stages 1 and 2 as above, D = --rerank-cutoff hits deep: the first-stage
     run WORK/first-stage.run (merge-runs --hits D);
  2. each task runs `sieve-search feedback-vectors --index SHARD... --run R1`
     (the term vectors of the feedback documents its shards hold); the
     driver merges them with `merge-vectors` into WORK/vectors.jsonl;
  3. each task runs `global-stats --vocabulary WORK/vectors.jsonl` (the
     statistics of every feedback term too); the driver sums them into
     WORK/global-stats-vocabulary.json;
  4. the driver runs `expand-queries` (no index): each topic's feedback
     query, WORK/weighted-queries.jsonl;
  5. each task runs `run --global-stats G2 --weighted-queries W --hits K`,
     Spark keeps the best K per topic, and the driver writes the run with
     `merge-runs`, tagged as `run --feedback` tags it (TAG[_MODEL]_rm3_...).

The topic file, the statistics, the first-stage run, the vectors and the
queries are broadcast to the tasks; only the shards (and the binary) must be
at the same paths on every executor.
"""
import argparse
import heapq
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sieve_spark  # noqa: E402


def shard_list(args):
    """Shard directories from --manifest (spark_build.py's shards.jsonl) and --index."""
    shards = []
    if args.manifest:
        with open(args.manifest, encoding="utf-8") as f:
            shards += [json.loads(l)["shard"] for l in f if l.strip()]
    shards += args.index
    shards = [os.path.abspath(s) for s in shards]
    if not shards:
        raise SystemExit("no shards: give --manifest SHARDS/shards.jsonl or --index DIR ...")
    if len(set(shards)) != len(shards):
        raise SystemExit("a shard is listed twice")
    return shards


def groups(shards, per_task):
    return [shards[i:i + per_task] for i in range(0, len(shards), per_task)]


def best_k(k):
    """Merge function for reduceByKey: the best k of two hit lists, each hit
    (score, docid, line), in trec order (score desc, docid desc by bytes)."""
    def key(h):
        return (h[0], h[1].encode("utf-8"))

    def merge(a, b):
        return heapq.nlargest(k, a + b, key=key)

    return merge


# run's feedback parameter flags, passed on unchanged: (flag, takes a value).
FEEDBACK_FLAGS = [
    ("--rm3-fb-terms", True), ("--rm3-fb-docs", True), ("--rm3-original-query-weight", True),
    ("--rm3-no-term-filter", False),
    ("--bm25prf-fb-terms", True), ("--bm25prf-fb-docs", True), ("--bm25prf-k1", True),
    ("--bm25prf-b", True), ("--bm25prf-new-term-weight", True),
    ("--rocchio-top-fb-terms", True), ("--rocchio-top-fb-docs", True),
    ("--rocchio-bottom-fb-terms", True), ("--rocchio-bottom-fb-docs", True),
    ("--rocchio-alpha", True), ("--rocchio-beta", True), ("--rocchio-gamma", True),
    ("--rocchio-use-negative", False),
]


def feedback_args(args):
    """The feedback flags of every feedback step (empty without --feedback)."""
    if not args.feedback:
        return []
    out = ["--feedback", args.feedback, "--rerank-cutoff", str(args.rerank_cutoff)]
    for flag, valued in FEEDBACK_FLAGS:
        v = getattr(args, flag[2:].replace("-", "_"))
        if valued and v is not None:
            out += [flag, v]
        elif not valued and v:
            out.append(flag)
    return out


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", help="shards.jsonl written by spark_build.py")
    ap.add_argument("--index", action="append", default=[], help="a shard directory (repeatable; added to --manifest's)")
    ap.add_argument("--topics", required=True, help="topic file (read on the driver, shipped to the tasks)")
    ap.add_argument("--field", default="title", help="topic text: title, desc or title+desc")
    ap.add_argument("--search-field", default="body", help="index field: body or title")
    ap.add_argument("--model", default="bm25", choices=["bm25", "qld"],
                    help="bm25 (--k1, --b) or qld (query likelihood, --mu); the first stage's model with --feedback")
    ap.add_argument("--mu", default="1000", help="QLD's Dirichlet prior")
    ap.add_argument("--k1", default="0.9")
    ap.add_argument("--b", default="0.4")
    ap.add_argument("--feedback", choices=["rm3", "bm25prf", "rocchio"],
                    help="pseudo-relevance feedback (one model; its flags as `sieve-search run` names them)")
    ap.add_argument("--rerank-cutoff", type=int, default=50,
                    help="first-stage hits feedback reads (with --feedback)")
    for flag, valued in FEEDBACK_FLAGS:
        if valued:
            ap.add_argument(flag, default=None, help=f"passed on as `sieve-search run {flag}`")
        else:
            ap.add_argument(flag, action="store_true", help=f"passed on as `sieve-search run {flag}`")
    ap.add_argument("--hits", type=int, default=1000)
    ap.add_argument("--tag", default="sieve")
    ap.add_argument("--output", required=True, help="the final run file")
    ap.add_argument("--work", help="driver-side directory for the statistics and the pruned run (default: a temporary one)")
    ap.add_argument("--shards-per-task", type=int, default=1, help="shards searched by one sieve-search process")
    ap.add_argument("--sieve-search", default="sieve-search", help="the sieve-search binary (same path on every executor)")
    ap.add_argument("--master", default=None, help="e.g. local[2] for a single-machine run (default: spark-submit's)")
    args = ap.parse_args(argv)
    if args.hits < 1 or args.shards_per_task < 1 or args.rerank_cutoff < 1:
        raise SystemExit("--hits, --rerank-cutoff and --shards-per-task must be at least 1")
    given = [f for f, _ in FEEDBACK_FLAGS if getattr(args, f[2:].replace("-", "_")) not in (None, False)]
    if given and not args.feedback:
        raise SystemExit(f"{given[0]} needs --feedback")
    return args


def main(argv=None):
    args = parse_args(argv)
    tool = sieve_spark.resolve_tool(args.sieve_search)
    shards = shard_list(args)
    topics_path = os.path.abspath(args.topics)
    with open(topics_path, "rb") as f:
        topics_bytes = f.read()
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="sieve-spark-search-")
    os.makedirs(os.path.join(work, "stats"), exist_ok=True)
    query = ["--field", args.field, "--search-field", args.search_field]
    model = ["--model", args.model, "--mu", args.mu, "--k1", args.k1, "--b", args.b]
    fb = feedback_args(args)
    tasks = groups(shards, args.shards_per_task)

    def with_files(files, fn):
        """Runs fn(dir) with the given {name: bytes} written to a fresh local directory."""
        with tempfile.TemporaryDirectory(prefix="sieve-task-") as d:
            for name, data in files.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data)
            return fn(d)

    def indexes(group):
        out = []
        for s in group:
            out += ["--index", s]
        return out

    def read(path):
        with open(path, "rb") as f:
            return f.read()

    spark = sieve_spark.session("sieve-two-stage-search", args.master)
    sc = spark.sparkContext
    topics_b = sc.broadcast(topics_bytes)

    def per_task(files, argv_of):
        """Runs `tool` in one task per shard group with the broadcast
        {name: bytes} `files` (and the topics) in a local directory d, the
        arguments argv_of(group, d); returns each task's stdout, in task order."""
        files_b = sc.broadcast(files)

        def task(group):
            import sieve_spark as ss

            return with_files(
                dict(files_b.value, topics=topics_b.value),
                lambda d: ss.run([tool] + argv_of(group, d)),
            )

        return sc.parallelize(tasks, len(tasks)).map(task).collect()

    def write_parts(texts, folder, name):
        os.makedirs(os.path.join(work, folder), exist_ok=True)
        paths = []
        for i, text in enumerate(texts):
            p = os.path.join(work, folder, name.format(i))
            sieve_spark.write_atomic(p, text)
            paths.append(p)
        return paths

    def stats(out_name, files, extra_of):
        """global-stats of every task's shards, summed on the driver into WORK/out_name."""
        parts = per_task(files, lambda group, d: ["global-stats"] + indexes(group)
                         + ["--topics", os.path.join(d, "topics")] + query + extra_of(d))
        stem = out_name.rsplit(".", 1)[0]
        part_files = write_parts(parts, "stats", stem + "-part-{:05d}.json")
        path = os.path.join(work, out_name)
        sieve_spark.run([tool, "sum-stats"] + part_files + ["--output", path])
        return path

    def search(stats_path, files, extra_of, hits, label, path):
        """run --global-stats on every task's shards, the best `hits` per topic
        kept by Spark (WORK/label.best-k.run), merged on the driver into
        path; returns path and the number of topics with hits."""
        files = dict(files, **{"global.json": read(stats_path)})

        def lines(group, d):
            return (["run"] + indexes(group)
                    + ["--topics", os.path.join(d, "topics"), "--global-stats", os.path.join(d, "global.json"),
                       "--hits", str(hits), "--tag", args.tag, "--threads", "1"]
                    + model + query + extra_of(d))

        files_b = sc.broadcast(files)

        def task(group):
            import sieve_spark as ss

            out = with_files(dict(files_b.value, topics=topics_b.value),
                             lambda d: ss.run([tool] + lines(group, d)))
            # One list per topic (a shard run holds at most `hits` per
            # topic), so that reduceByKey merges lists, not single hits.
            by_topic = {}
            for line in out.splitlines():
                f = line.split()
                if len(f) == 6:
                    by_topic.setdefault(f[0], []).append((float(f[4]), f[2], line))
            return list(by_topic.items())

        best = (
            sc.parallelize(tasks, len(tasks))
            .flatMap(task)
            .reduceByKey(best_k(hits))
            .collect()
        )
        # The shard runs' tag (with --weighted-queries, the feedback run's).
        tags = {h[2].split()[5] for _, hs in best for h in hs}
        if len(tags) > 1:
            raise sieve_spark.SieveTaskError(f"shard runs with several tags: {sorted(tags)}")
        tag = tags.pop() if tags else args.tag
        pruned = os.path.join(work, f"{label}.best-k.run")
        sieve_spark.write_atomic(pruned, "".join(h[2] + "\n" for _, hs in sorted(best) for h in hs))
        sieve_spark.run([tool, "merge-runs", pruned, "--hits", str(hits), "--topics", topics_path,
                         "--tag", tag, "--output", path])
        return path, len(best)

    t0 = time.time()
    global_path = stats("global-stats.json", {}, lambda d: [])
    g = json.loads(read(global_path))
    t1 = time.time()
    steps = []
    if not fb:
        _, with_hits = search(global_path, {}, lambda d: [], args.hits, "final", os.path.abspath(args.output))
    else:
        r1, _ = search(global_path, {}, lambda d: [], args.rerank_cutoff, "first-stage",
                       os.path.join(work, "first-stage.run"))
        t2 = time.time()
        parts = per_task({"first-stage.run": read(r1)}, lambda group, d: (
            ["feedback-vectors"] + indexes(group) + ["--topics", os.path.join(d, "topics"),
                                                     "--run", os.path.join(d, "first-stage.run")]
            + query + fb))
        part_files = write_parts(parts, "vectors", "part-{:05d}.jsonl")
        vectors = os.path.join(work, "vectors.jsonl")
        sieve_spark.run([tool, "merge-vectors"] + part_files + ["--output", vectors])
        t3 = time.time()
        g2 = stats("global-stats-vocabulary.json", {"vectors.jsonl": read(vectors)},
                   lambda d: ["--vocabulary", os.path.join(d, "vectors.jsonl")])
        t4 = time.time()
        weighted = os.path.join(work, "weighted-queries.jsonl")
        sieve_spark.run([tool, "expand-queries", "--topics", topics_path, "--run", r1, "--vectors", vectors,
                         "--global-stats", g2, "--output", weighted] + query + model + fb)
        t5 = time.time()
        _, with_hits = search(g2, {"weighted.jsonl": read(weighted)},
                              lambda d: ["--weighted-queries", os.path.join(d, "weighted.jsonl")],
                              args.hits, "final", os.path.abspath(args.output))
        steps = [("first stage", t2 - t1), ("vectors", t3 - t2), ("vocabulary statistics", t4 - t3),
                 ("queries", t5 - t4), ("second stage", time.time() - t5)]
    spark.stop()
    timing = "; ".join(f"{n} {s:.1f}s" for n, s in steps) or f"stage 2 + merge {time.time() - t1:.1f}s"
    print(
        f"spark_search: {len(shards)} shards in {len(tasks)} tasks, N={g['num_docs']}, "
        f"{g['header']['topics']} topics ({g['header']['terms']} terms), {with_hits} topics with hits; "
        f"stage 1 {t1 - t0:.1f}s, {timing}; "
        f"run {args.output}; work {work}",
        flush=True,
    )


if __name__ == "__main__":
    main()
