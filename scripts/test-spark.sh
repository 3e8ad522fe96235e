#!/usr/bin/env bash
# Opt-in end-to-end test of the Spark drivers (not part of CI: it installs
# PySpark, about 450 MB, and needs Java 17+). One command:
#
#     bash scripts/test-spark.sh
#
# 1. scripts/setup-spark.sh (pinned PySpark in .venv-spark/), debug binaries.
# 2. Builds one shard per real WARC sample under Spark local[2]
#    (scale/spark_build.py via spark-submit): tests/data/warc/*.warc.gz plus,
#    when the shared data is there, every WARC file of shared/data/warc,
#    WAT and WET included (they give empty shards); files with the same name
#    are taken once. The build is run twice: the second run must find every
#    shard built (a rerun or retried task is harmless).
# 3. Searches the shards with the two-stage Spark search
#    (scale/spark_search.py): statistics per shard, summed on the driver,
#    then each shard searched with the global statistics, best K per topic;
#    and with --feedback rm3 (the staged feedback protocol).
# 4. Builds ONE index over the same files with `sieve-index build` and runs
#    the same topics with `sieve-search run` (and `run --feedback rm3`), and
#    asserts: the shards hold the single index's docids; for K = 10, K = 1000
#    and the RM3 run (K = 1000) the Spark run has the same
#    (topic, docid, rank) lines as the single-index run and the same scores up
#    to float rounding (it reports whether the files are byte-identical).
#
# 5. Extracts the same files under Spark (scale/spark_extract.py), as JSON
#    lines and as Parquet, and asserts that every part's document files are
#    byte-identical to `sieve-index extract` run on its input alone, and that
#    the driver wrote the collection's near-duplicates.
#
# Environment: SPARK_MASTER (default local[2]); SIEVE_SHARED_DATA (the rule of
# scripts/lib.sh, as in the Rust tests); KEEP=1 keeps the work directory; TOPICS (default
# topics/topics.robust04.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
MASTER=${SPARK_MASTER:-local[2]}
TOPICS=${TOPICS:-topics/topics.robust04.txt}
step() { printf '\n==> %s\n' "$*"; }

step "PySpark (.venv-spark)"
bash scripts/setup-spark.sh
export PYSPARK_PYTHON=$PWD/.venv-spark/bin/python
export PYSPARK_DRIVER_PYTHON=$PYSPARK_PYTHON
step "build the sieve binaries (debug)"
cargo build --locked --bins -p sieve
BIN=$PWD/target/debug

OUT=$(mktemp -d "${TMPDIR:-/tmp}/sieve-test-spark.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$OUT"' EXIT; else echo "work directory: $OUT"; fi

# Inputs: the committed samples and the shared ones, each file name once.
source scripts/lib.sh
shared=""
if d=$(sieve_shared_data) && [[ -d $d/warc ]]; then shared=$d/warc; fi
declare -A seen=()
inputs=()
for f in ${shared:+$shared/*.warc*} tests/data/warc/*.warc.gz; do
  [[ -f $f ]] || continue
  b=$(basename "$f")
  [[ -n ${seen[$b]:-} ]] && continue
  seen[$b]=1
  inputs+=("$(realpath "$f")")
done
echo "inputs: ${#inputs[@]} files (shared data: ${shared:-not found})"

step "Spark build: one shard per file, $MASTER"
.venv-spark/bin/spark-submit --master "$MASTER" scale/spark_build.py \
  --inputs "${inputs[@]}" --shards "$OUT/shards" --sieve-index "$BIN/sieve-index" 2> "$OUT/spark-build.log" \
  || { tail -40 "$OUT/spark-build.log"; exit 1; }

step "Spark build again: every shard is already there"
.venv-spark/bin/spark-submit --master "$MASTER" scale/spark_build.py \
  --inputs "${inputs[@]}" --shards "$OUT/shards" --sieve-index "$BIN/sieve-index" 2> "$OUT/spark-build-2.log" \
  || { tail -40 "$OUT/spark-build-2.log"; exit 1; }

step "single index over the same files"
"$BIN/sieve-index" build --input "${inputs[@]}" --index "$OUT/single" --threads 2 > "$OUT/single-build.log" 2>&1 \
  || [[ $? == 3 ]]  # exit 3: part of a file lost (the truncated sample; the shards saw the same)
grep '^read ' "$OUT/single-build.log"

step "Spark two-stage search and single-index runs"
for hits in 10 1000; do
  .venv-spark/bin/spark-submit --master "$MASTER" scale/spark_search.py \
    --manifest "$OUT/shards/shards.jsonl" --topics "$TOPICS" --hits "$hits" \
    --output "$OUT/spark-$hits.run" --work "$OUT/work-$hits" --sieve-search "$BIN/sieve-search" \
    2> "$OUT/spark-search-$hits.log" || { tail -40 "$OUT/spark-search-$hits.log"; exit 1; }
  "$BIN/sieve-search" run --index "$OUT/single" --topics "$TOPICS" --hits "$hits" \
    --output "$OUT/single-$hits.run" 2> /dev/null
done
# Feedback (the staged protocol of scale/README.md) against run --feedback.
.venv-spark/bin/spark-submit --master "$MASTER" scale/spark_search.py \
  --manifest "$OUT/shards/shards.jsonl" --topics "$TOPICS" --hits 1000 --feedback rm3 \
  --output "$OUT/spark-rm3.run" --work "$OUT/work-rm3" --sieve-search "$BIN/sieve-search" \
  2> "$OUT/spark-search-rm3.log" || { tail -40 "$OUT/spark-search-rm3.log"; exit 1; }
"$BIN/sieve-search" run --index "$OUT/single" --topics "$TOPICS" --hits 1000 --feedback rm3 \
  --output "$OUT/single-rm3.run" 2> /dev/null

step "compare"
"$PYSPARK_PYTHON" - "$OUT" "$BIN/sieve-index" <<'EOF'
import json, os, subprocess, sys
out, sieve_index = sys.argv[1], sys.argv[2]
passed = failed = 0
def check(name, ok, detail=""):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    passed, failed = passed + ok, failed + (not ok)
def docids(ix):
    return subprocess.run([sieve_index, "docids", "--index", ix], check=True,
                          capture_output=True, text=True).stdout.split()
shards = [json.loads(l) for l in open(os.path.join(out, "shards", "shards.jsonl"))]
shard_ids = sorted(d for r in shards for d in docids(r["shard"]))
single_ids = docids(os.path.join(out, "single"))
check(f"{len(shards)} shards hold the single index's {len(single_ids)} docids", shard_ids == sorted(single_ids),
      f"{len(shard_ids)} vs {len(single_ids)}")
check("manifest counts match", sum(r["indexed"] for r in shards) == len(single_ids))
check("the second Spark build rebuilt no shard", not any(r["built"] for r in shards))
for hits in (10, 1000, "rm3"):
    spark = open(os.path.join(out, f"spark-{hits}.run")).read()
    single = open(os.path.join(out, f"single-{hits}.run")).read()
    a = [l.split() for l in spark.splitlines()]
    b = [l.split() for l in single.splitlines()]
    check(f"hits {hits}: {len(b)} lines, {len({l[0] for l in b})} topics: same (topic, docid, rank)",
          [(l[0], l[2], l[3]) for l in a] == [(l[0], l[2], l[3]) for l in b], f"{len(a)} vs {len(b)} lines")
    worst = max((abs(float(x[4]) - float(y[4])) / max(abs(float(y[4])), 1.0) for x, y in zip(a, b)), default=0.0)
    check(f"hits {hits}: scores equal up to float rounding (max rel. diff {worst:.2e})", len(a) == len(b) and worst <= 1e-5)
    print(f"     hits {hits}: run files byte-identical: {spark == single}")
print(f"spark: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
step "Spark extract (scale/spark_extract.py), JSON lines and Parquet, against sieve-index extract"
# The inputs in the driver's order (sorted, each once), so that part i is input i.
mapfile -t sorted_inputs < <(printf '%s\n' "${inputs[@]}" | sort -u)
for fmt in jsonl parquet; do
  .venv-spark/bin/spark-submit --master "$MASTER" scale/spark_extract.py \
    --inputs "${sorted_inputs[@]}" --output "$OUT/extract-$fmt" --format "$fmt" \
    --sieve-index "$BIN/sieve-index" 2> "$OUT/spark-extract-$fmt.log" \
    || { tail -40 "$OUT/spark-extract-$fmt.log"; exit 1; }
  mkdir -p "$OUT/direct-$fmt"
  for i in "${!sorted_inputs[@]}"; do
    part=$(printf 'part-%05d' "$i")
    "$BIN/sieve-index" extract --threads 1 --input "${sorted_inputs[$i]}" \
      --output-dir "$OUT/direct-$fmt/$part" --format "$fmt" > /dev/null 2>&1 \
      || { rc=$?; [[ $rc == 3 || $rc == 4 ]]; }  # the truncated sample; WAT/WET: no document
  done
done
"$PYSPARK_PYTHON" - "$OUT" <<'EOF'
import glob, os, sys
out = sys.argv[1]
passed = failed = 0
for fmt, pattern in (("jsonl", "*.jsonl.gz"), ("parquet", "*.parquet")):
    spark = sorted(glob.glob(os.path.join(out, f"extract-{fmt}", "part-*", pattern)))
    direct = sorted(glob.glob(os.path.join(out, f"direct-{fmt}", "part-*", pattern)))
    rel = lambda paths, root: [os.path.relpath(p, os.path.join(out, root)) for p in paths]
    same_names = rel(spark, f"extract-{fmt}") == rel(direct, f"direct-{fmt}")
    same_bytes = same_names and all(open(a, "rb").read() == open(b, "rb").read() for a, b in zip(spark, direct))
    ok = bool(spark) and same_bytes
    print(("ok   " if ok else "FAIL ") + f"extract {fmt}: {len(spark)} document files under Spark, "
          f"byte-identical to sieve-index extract per input ({len(direct)} files)")
    passed, failed = passed + ok, failed + (not ok)
    ok = os.path.exists(os.path.join(out, f"extract-{fmt}", "near-duplicates.tsv.gz"))
    print(("ok   " if ok else "FAIL ") + f"extract {fmt}: the driver wrote near-duplicates.tsv.gz")
    passed, failed = passed + ok, failed + (not ok)
print(f"spark extract: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
echo "test-spark: wall time ${SECONDS}s"
