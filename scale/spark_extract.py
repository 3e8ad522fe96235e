#!/usr/bin/env python3
"""Extract documents from crawl files under Apache Spark, one task per crawl
file, each by the unchanged `sieve-index extract` binary, then cluster the
near-duplicates of all of them on the driver.

    spark-submit scale/spark_extract.py --inputs '/data/ClueWeb09/*/*.warc.gz' \\
        --output /shared/corpus --sieve-index /opt/sieve/bin/sieve-index \\
        [--text all|main] [--full] [--max-paragraph-docs K] [--filter FILE] \\
        [--spam FILE ...] [--partitions N] [--master local[2]]

Contract (the same for a Slurm array or a Kubernetes Indexed Job): the
inputs (globs, expanded on the driver, sorted, duplicates dropped) are
numbered 0..n-1 and task i runs

    sieve-index extract --threads 1 --input FILE_i --output-dir OUTPUT/part-<i:05d> [options]

adding --resume when the part was started and not finished (a killed or
retried task), and nothing when it is finished (its stats.json exists), so a
rerun of the driver redoes only what is missing. A part is locked while it
is written: a speculative duplicate of a running task fails and Spark keeps
the other. Inputs, output and the binary must be at the same paths on every
executor (shared file system or image). Inputs whose name ends in .open are
never read (sieve skips them and names them in the part's stats.json).

Each part holds the documents of its input (00000-<name>.jsonl.gz, or
00000-<name>.parquet with --format parquet, see
`sieve-index extract --help`) and its band keys. The driver then runs

    sieve-index near-duplicates --extracts OUTPUT/part-00000 ... --output OUTPUT/near-duplicates.tsv.gz

(the clusters of the whole collection, in bounded memory: external sorts),
and writes OUTPUT/parts.jsonl, one record per part in part order:
    {"part": ".../part-00000", "input": "...", "documents": 23, "failed_files": []}
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sieve_spark  # noqa: E402
from spark_build import expand  # noqa: E402

MANIFEST = "parts.jsonl"
NEAR_DUPLICATES = "near-duplicates.tsv.gz"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", required=True, nargs="+", help="globs or paths of crawl files (visible to every executor)")
    ap.add_argument("--output", required=True, help="shared directory for the parts, parts.jsonl and the near-duplicates")
    ap.add_argument("--sieve-index", default="sieve-index", help="the sieve-index binary (same path on every executor)")
    ap.add_argument("--partitions", type=int, default=0, help="Spark partitions (default: one per input file)")
    ap.add_argument("--text", choices=["all", "main"], default="all")
    ap.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl", help="output files: gzipped JSON lines or Parquet")
    ap.add_argument("--full", action="store_true", help="add WARC and HTTP headers and the HTML")
    ap.add_argument("--max-paragraph-docs", type=int, help="template removal, per input file")
    ap.add_argument("--filter", help="filter file from sieve-filter build")
    ap.add_argument("--spam", nargs="*", default=[], help="spam-ranking files")
    ap.add_argument("--master", default=None, help="e.g. local[2] for a single-machine run (default: spark-submit's)")
    args = ap.parse_args()

    files = expand(args.inputs)
    tool = sieve_spark.resolve_tool(args.sieve_index)
    out = os.path.abspath(args.output)
    os.makedirs(out, exist_ok=True)
    extra = ["--text", args.text, "--format", args.format]
    if args.full:
        extra.append("--full")
    if args.max_paragraph_docs is not None:
        extra += ["--max-paragraph-docs", str(args.max_paragraph_docs)]
    if args.filter:
        extra += ["--filter", os.path.abspath(args.filter)]
    if args.spam:
        extra += ["--spam"] + [os.path.abspath(s) for s in args.spam]

    def extract(item):
        i, path = item
        import sieve_spark as ss  # on the executor: shipped by addPyFile

        part = os.path.join(out, f"part-{i:05d}")
        stats = os.path.join(part, "stats.json")
        if not os.path.exists(stats):
            resume = ["--resume"] if os.path.exists(os.path.join(part, "extract.json")) else []
            # 3 (an input not read to the end) and 4 (no document) still give
            # a finished part, reported below from its stats.json.
            ss.run(
                [tool, "extract", "--threads", "1", "--input", path, "--output-dir", part] + extra + resume,
                accept=(0, ss.PARTIAL_INPUT, ss.NOTHING_INDEXED),
            )
        with open(stats, encoding="utf-8") as f:
            st = json.load(f)
        return json.dumps(
            {
                "part": part,
                "input": path,
                "documents": st["totals"]["indexed"],
                "failed_files": st.get("failed_files", []),
            }
        )

    spark = sieve_spark.session("sieve-extract", args.master)
    sc = spark.sparkContext
    started = time.time()
    parts = args.partitions or len(files)
    records = [json.loads(r) for r in sc.parallelize(list(enumerate(files)), parts).map(extract).collect()]
    spark.stop()
    records.sort(key=lambda r: r["part"])
    nd = os.path.join(out, NEAR_DUPLICATES)
    if os.path.exists(nd):
        os.remove(nd)  # the parts may have changed: cluster again
    print(
        sieve_spark.run(
            [tool, "near-duplicates", "--extracts"] + [r["part"] for r in records] + ["--output", nd]
        ).strip(),
        flush=True,
    )
    sieve_spark.write_atomic(os.path.join(out, MANIFEST), "".join(json.dumps(r) + "\n" for r in records))
    docs = sum(r["documents"] for r in records)
    print(
        f"spark_extract: {len(records)} parts, {docs} documents, {time.time() - started:.1f}s; "
        f"manifest {os.path.join(out, MANIFEST)}, near-duplicates {nd}",
        flush=True,
    )
    for r in records:
        for failure in r["failed_files"]:
            print(f"spark_extract: {r['part']}: input not read to the end: {failure}", flush=True)


if __name__ == "__main__":
    main()
