#!/usr/bin/env python3
"""Two-stage batch search of sieve shards under Apache Spark: the run that one
index over all the shards' documents gives, by the unchanged
`sieve-search` binary.

    spark-submit scale/spark_search.py --manifest /shared/shards/shards.jsonl \\
        --topics topics.web.1-50.txt --hits 1000 --output run.txt \\
        --sieve-search /opt/sieve/bin/sieve-search [--k1 0.9 --b 0.4 | --model qld --mu 1000] \\
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

The topic file and the global statistics are broadcast to the tasks; only the
shards (and the binary) must be at the same paths on every executor.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", help="shards.jsonl written by spark_build.py")
    ap.add_argument("--index", action="append", default=[], help="a shard directory (repeatable; added to --manifest's)")
    ap.add_argument("--topics", required=True, help="topic file (read on the driver, shipped to the tasks)")
    ap.add_argument("--field", default="title", help="topic text: title, desc or title+desc")
    ap.add_argument("--search-field", default="body", help="index field: body or title")
    ap.add_argument("--model", default="bm25", choices=["bm25", "qld"],
                    help="bm25 (--k1, --b) or qld (query likelihood, --mu); feedback needs every shard in one process")
    ap.add_argument("--mu", default="1000", help="QLD's Dirichlet prior")
    ap.add_argument("--k1", default="0.9")
    ap.add_argument("--b", default="0.4")
    ap.add_argument("--hits", type=int, default=1000)
    ap.add_argument("--tag", default="sieve")
    ap.add_argument("--output", required=True, help="the final run file")
    ap.add_argument("--work", help="driver-side directory for the statistics and the pruned run (default: a temporary one)")
    ap.add_argument("--shards-per-task", type=int, default=1, help="shards searched by one sieve-search process")
    ap.add_argument("--sieve-search", default="sieve-search", help="the sieve-search binary (same path on every executor)")
    ap.add_argument("--master", default=None, help="e.g. local[2] for a single-machine run (default: spark-submit's)")
    args = ap.parse_args()
    if args.hits < 1 or args.shards_per_task < 1:
        raise SystemExit("--hits and --shards-per-task must be at least 1")

    tool = sieve_spark.resolve_tool(args.sieve_search)
    shards = shard_list(args)
    topics_path = os.path.abspath(args.topics)
    with open(topics_path, "rb") as f:
        topics_bytes = f.read()
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="sieve-spark-search-")
    os.makedirs(os.path.join(work, "stats"), exist_ok=True)
    query = ["--field", args.field, "--search-field", args.search_field]
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

    spark = sieve_spark.session("sieve-two-stage-search", args.master)
    sc = spark.sparkContext
    topics_b = sc.broadcast(topics_bytes)

    def stage1(group):
        import sieve_spark as ss

        return with_files(
            {"topics": topics_b.value},
            lambda d: ss.run([tool, "global-stats"] + indexes(group) + ["--topics", os.path.join(d, "topics")] + query),
        )

    t0 = time.time()
    parts = sc.parallelize(tasks, len(tasks)).map(stage1).collect()
    part_files = []
    for i, text in enumerate(parts):
        p = os.path.join(work, "stats", f"part-{i:05d}.json")
        sieve_spark.write_atomic(p, text)
        part_files.append(p)
    global_path = os.path.join(work, "global-stats.json")
    sieve_spark.run([tool, "sum-stats"] + part_files + ["--output", global_path])
    with open(global_path, "rb") as f:
        global_bytes = f.read()
    g = json.loads(global_bytes)
    global_b = sc.broadcast(global_bytes)
    t1 = time.time()

    def stage2(group):
        import sieve_spark as ss

        def search(d):
            return ss.run(
                [tool, "run"] + indexes(group)
                + ["--topics", os.path.join(d, "topics"), "--global-stats", os.path.join(d, "global.json"),
                   "--model", args.model, "--mu", args.mu,
                   "--k1", args.k1, "--b", args.b, "--hits", str(args.hits), "--tag", args.tag, "--threads", "1"]
                + query
            )

        hits = []
        for line in with_files({"topics": topics_b.value, "global.json": global_b.value}, search).splitlines():
            f = line.split()
            if len(f) == 6:
                hits.append((f[0], [(float(f[4]), f[2], line)]))
        return hits

    best = (
        sc.parallelize(tasks, len(tasks))
        .flatMap(stage2)
        .reduceByKey(best_k(args.hits))
        .collect()
    )
    spark.stop()
    t2 = time.time()
    pruned = os.path.join(work, "best-k.run")
    sieve_spark.write_atomic(pruned, "".join(h[2] + "\n" for _, hs in sorted(best) for h in hs))
    sieve_spark.run([tool, "merge-runs", pruned, "--hits", str(args.hits), "--topics", topics_path,
                     "--tag", args.tag, "--output", os.path.abspath(args.output)])
    print(
        f"spark_search: {len(shards)} shards in {len(tasks)} tasks, N={g['num_docs']}, "
        f"{g['header']['topics']} topics ({g['header']['terms']} terms), {len(best)} topics with hits; "
        f"stage 1 {t1 - t0:.1f}s, stage 2 + merge {time.time() - t1:.1f}s (Spark {t2 - t1:.1f}s); "
        f"run {args.output}; work {work}",
        flush=True,
    )


if __name__ == "__main__":
    main()
