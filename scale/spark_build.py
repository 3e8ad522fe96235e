#!/usr/bin/env python3
"""Build sieve shards under Apache Spark, one shard per crawl file, each by
the unchanged `sieve-index build-shard` binary.

    spark-submit scale/spark_build.py --inputs '/data/ClueWeb09/*/*.warc.gz' \\
        --shards /shared/shards --sieve-index /opt/sieve/bin/sieve-index \\
        [--partitions N] [--filter FILE] [--spam FILE ...] [--master local[2]]

Contract (the same for a Slurm array or a Kubernetes Indexed Job): the
inputs (globs, expanded on the driver, sorted, duplicates dropped) are
numbered 0..n-1 and task i runs

    sieve-index build-shard --record --input FILE_i --index SHARDS/shard-<i:05d> [--filter F] [--spam S ...]

A shard is built in a temporary directory and renamed into place, so retried
and speculative tasks are harmless, and a rerun of the driver rebuilds only
missing shards. Inputs, shards and the binary must be at the same paths on
every executor (shared file system or image).

The driver writes the shard manifest SHARDS/shards.jsonl: one JSON record per
shard in shard order, as build-shard prints it:
    {"shard": ".../shard-00000", "inputs": ["..."], "indexed": 23, "built": true,
     "failed_files": []}
(`built` is false when an earlier attempt had already built the shard;
`failed_files` are inputs that could not be read to the end, from the shard's
stats.json: such a shard is finished with what could be read, and is not
rebuilt by a rerun, so the driver lists them).

Then search the shards with global BM25 statistics: in one process,
    sieve-search run --index SHARDS/shard-00000 --index SHARDS/shard-00001 ...
or under Spark, two stages (scale/spark_search.py --manifest SHARDS/shards.jsonl),
or merge them into serving indexes:
    sieve-index merge --shards SHARDS/shard-000{00..99} --index serving-0
"""
import argparse
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sieve_spark  # noqa: E402

MANIFEST = "shards.jsonl"


def expand(patterns):
    """Every file matching any pattern, absolute, sorted, each once."""
    files = set()
    for pat in patterns:
        matched = [p for p in glob.glob(pat) if os.path.isfile(p)]
        if not matched:
            raise SystemExit(f"no input file matches {pat}")
        files.update(os.path.abspath(p) for p in matched)
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", required=True, nargs="+", help="globs or paths of crawl files (visible to every executor)")
    ap.add_argument("--shards", required=True, help="shared directory for the shards and shards.jsonl")
    ap.add_argument("--sieve-index", default="sieve-index", help="the sieve-index binary (same path on every executor)")
    ap.add_argument("--partitions", type=int, default=0, help="Spark partitions (default: one per input file)")
    ap.add_argument("--filter", help="filter file from sieve-filter build, passed to every build-shard")
    ap.add_argument("--spam", nargs="*", default=[], help="spam-ranking files, passed to every build-shard")
    ap.add_argument("--master", default=None, help="e.g. local[2] for a single-machine run (default: spark-submit's)")
    args = ap.parse_args()

    files = expand(args.inputs)
    tool = sieve_spark.resolve_tool(args.sieve_index)
    shards = os.path.abspath(args.shards)
    os.makedirs(shards, exist_ok=True)
    extra = []
    if args.filter:
        extra += ["--filter", os.path.abspath(args.filter)]
    if args.spam:
        extra += ["--spam"] + [os.path.abspath(s) for s in args.spam]

    def build(item):
        i, path = item
        import sieve_spark as ss  # on the executor: shipped by addPyFile

        shard = os.path.join(shards, f"shard-{i:05d}")
        # 3 (an input not read to the end) and 4 (no document) still give a
        # finished shard: reported below from its stats.json and record.
        out = ss.run(
            [tool, "build-shard", "--record", "--input", path, "--index", shard] + extra,
            accept=(0, ss.PARTIAL_INPUT, ss.NOTHING_INDEXED),
        )
        lines = [l for l in out.splitlines() if l.strip()]
        if len(lines) != 1:
            raise ss.SieveTaskError(f"build-shard for {path}: expected one JSON record, got {out!r}")
        rec = json.loads(lines[0])
        # Files that could not be read to the end (named in the shard's stats.json).
        with open(os.path.join(shard, "stats.json"), encoding="utf-8") as f:
            rec["failed_files"] = json.load(f).get("failed_files", [])
        return json.dumps(rec)

    spark = sieve_spark.session("sieve-build-shards", args.master)
    sc = spark.sparkContext
    started = time.time()
    parts = args.partitions or len(files)
    records = [json.loads(r) for r in sc.parallelize(list(enumerate(files)), parts).map(build).collect()]
    spark.stop()
    records.sort(key=lambda r: r["shard"])
    sieve_spark.write_atomic(os.path.join(shards, MANIFEST), "".join(json.dumps(r) + "\n" for r in records))
    docs = sum(r["indexed"] for r in records)
    built = sum(1 for r in records if r["built"])
    empty = [r["shard"] for r in records if r["indexed"] == 0]
    print(
        f"spark_build: {len(records)} shards ({built} built now, {len(records) - built} already there), "
        f"{docs} documents, {time.time() - started:.1f}s; manifest {os.path.join(shards, MANIFEST)}",
        flush=True,
    )
    if empty:
        print(f"spark_build: {len(empty)} shards have no document: {', '.join(empty)}", flush=True)
    for r in records:
        for failure in r["failed_files"]:
            print(f"spark_build: {r['shard']}: input not read to the end: {failure}", flush=True)


if __name__ == "__main__":
    main()
