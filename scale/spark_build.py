#!/usr/bin/env python3
"""Build sieve shards under Apache Spark, one shard per WARC file, by piping
paths through the unchanged `sieve-index build-shard` binary (RDD.pipe).

    spark-submit scale/spark_build.py --inputs 'hdfs-or-nfs/ClueWeb09/*/*.warc.gz' \
        --shards /shared/shards --sieve-index /opt/sieve/bin/sieve-index [--partitions N] \
        [--filter FILE] [--spam FILE]

Contract (the same for a Slurm array or a Kubernetes Indexed Job): task i
runs `sieve-index build-shard --input FILE_i --index SHARDS/shard-<i> --record`
and prints one JSON record. A shard is written to a temporary directory and
renamed into place, so retried and speculative tasks are harmless. Every
shard uses the same options (schema, analyser, filter file).

Then search the shards with global BM25 statistics:
    sieve-search run --index SHARDS/shard-00000 --index SHARDS/shard-00001 ...
or merge them into K serving indexes:
    sieve-index merge --shards SHARDS/shard-000{00..99} --out serving-0

Status: written against the tested `build-shard` contract; the end-to-end
equality of shards and a single index is tested without Spark
(tests/tests/pipeline.rs, shards_with_global_stats_and_merged_shards_equal_one_index).
"""
import argparse
import glob
import json
import shlex


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", required=True, help="glob of WARC files (visible to every executor)")
    ap.add_argument("--shards", required=True, help="shared directory for the shards")
    ap.add_argument("--sieve-index", default="sieve-index")
    ap.add_argument("--partitions", type=int, default=0)
    ap.add_argument("--filter")
    ap.add_argument("--spam", nargs="*", default=[])
    ap.add_argument("--master", default=None, help="e.g. local[2] for a single-machine run")
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("sieve-build-shards")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    sc = spark.sparkContext

    files = sorted(glob.glob(args.inputs))
    if not files:
        raise SystemExit(f"no input matches {args.inputs}")
    # One element per task: "index<TAB>path"; a tiny shell wrapper turns it
    # into one build-shard call per line, so the binary is used unchanged.
    work = [f"{i:05d}\t{p}" for i, p in enumerate(files)]
    extra = ""
    if args.filter:
        extra += " --filter " + shlex.quote(args.filter)
    if args.spam:
        extra += " --spam " + " ".join(shlex.quote(s) for s in args.spam)
    script = (
        "while IFS=$'\\t' read -r i p; do "
        f"{shlex.quote(args.sieve_index)} build-shard --record --input \"$p\" "
        f"--index {shlex.quote(args.shards)}/shard-$i{extra} || exit 1; done"
    )
    parts = args.partitions or len(files)
    records = sc.parallelize(work, parts).pipe(["bash", "-c", script]).collect()
    total = 0
    for line in records:
        rec = json.loads(line)
        total += rec["indexed"]
        print(json.dumps(rec))
    print(f"{len(records)} shards, {total} documents", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
