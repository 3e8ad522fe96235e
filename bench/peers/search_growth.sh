#!/usr/bin/env bash
# Query latency of sieve, tantivy, PISA and Lucene on the search bench's synthetic collection, at several
# collection sizes: the table and figure of bench/README.md, "Search latency against
# size".
#
#   bench/peers/setup_pisa.sh                       # once
#   bench/peers/setup_lucene.sh                     # once, for Lucene (after setup.sh)
#   bench/peers/search_growth.sh [--docs "100000 1000000"] [--hits "10 1000"] [--runs 3]
#                                [--rounds 1] [--no-pisa] [--no-rust] [--no-lucene]
#                                [--output-dir DIR]
#
# Per collection size: the Rust search bench (`cargo bench -p sieve-bench --bench search`, which
# builds the sieve index once under $SIEVE_BENCH_DATA, default target/bench-data) times tantivy's
# BM25 TopDocs and sieve's scorer, each topic in turn, for each k; then PISA
# (bench/peers/pisa_search.py) is given the same documents and topics, analysed by sieve
# (`synth_export`), indexed once under $SIEVE_BENCH_DATA/pisa-N, and timed with block_max_wand,
# block_max_maxscore and maxscore at the same k1/b (0.9/0.4); then Lucene 9.9.1
# (bench/peers/lucene/LuceneBench.java, compiled by setup_lucene.sh against the Anserini jar's
# Lucene; Maven Central is out of reach here, so no Lucene 10) is given the same documents and
# topics, indexed once under $SIEVE_BENCH_DATA/lucene-N (one thread, forceMerge to one segment) and
# timed in one warm JVM (fixed heap LUCENE_HEAP, default 4g, as -Xms and -Xmx; ParallelGC; the
# JDK 17 of setup_lucene.sh, or LUCENE_JAVA) at the
# same k1/b: BooleanQuery of SHOULD TermQuery clauses, top k with hits counted only up to k, which
# Lucene 9.9.1 scores with MaxScoreBulkScorer (block-max MaxScore). Lucene runs by default once
# setup_lucene.sh has compiled it, and is skipped (said so) otherwise. Everything goes to
# OUT/results.jsonl (one object per system, size and k), then bench/search_growth.py writes
# OUT/table.md and OUT/search-growth.svg. One thread everywhere. Not part of CI.
#
# --rounds N repeats the whole measurement N times, sieve and tantivy then PISA in each round, so
# the peers alternate every minute or so: on a shared host whose speed drifts by 20% between runs
# a minute apart (seen here), one run of each says little. Every row carries its round; the table
# gives the median over rounds of each figure, and the ratio to sieve as the median of the
# per-round ratios (each taken between runs a minute apart).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DOCS="100000 1000000"
HITS="10 1000"
RUNS=3
ROUNDS=1
PISA=1
RUST=1
LUCENE=1
OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --docs) DOCS="$2"; shift 2 ;;
    --hits) HITS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --no-pisa) PISA=0; shift ;;
    --no-rust) RUST=0; shift ;;
    --no-lucene) LUCENE=0; shift ;;
    --output-dir) OUT="$2"; shift 2 ;;
    *) echo "search_growth: unknown argument $1" >&2; exit 2 ;;
  esac
done
OUT="${OUT:-$HERE/.work/search-growth-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
DATA="${SIEVE_BENCH_DATA:-$ROOT/target/bench-data}"
# SIEVE_BENCH_CORPUS=topical: the made-up topical collection (bench/synth.rs), whose indexes
# (sieve's search-topical-N, pisa-topical-N, lucene-topical-N) are kept apart from the default's.
CORPUS="${SIEVE_BENCH_CORPUS:-zipf}"
case "$CORPUS" in
  zipf) TAG="" ;;
  topical) TAG="topical-" ;;
  *) echo "search_growth: SIEVE_BENCH_CORPUS=$CORPUS: expected zipf or topical" >&2; exit 2 ;;
esac
export SIEVE_BENCH_CORPUS="$CORPUS"
export SIEVE_BENCH_DATA="$DATA"
PY="$HERE/.venv/bin/python"
if [[ $PISA == 1 && ! -x "$PY" ]]; then
  echo "search_growth: run bench/peers/setup_pisa.sh first (or give --no-pisa)" >&2
  exit 1
fi
LUCENE_DIR="$HERE/.cache/lucene-bench"
if [[ $LUCENE == 1 && ! -f "$LUCENE_DIR/LuceneBench.class" ]]; then
  echo "search_growth: Lucene skipped: not compiled (run bench/peers/setup_lucene.sh)" >&2
  LUCENE=0
fi
if [[ $LUCENE == 1 ]]; then
  # The JDK 17 that compiled it unless LUCENE_JAVA names another java (Lucene 9.9.1 maps the
  # index with MemorySegments on Java 19-21, with MappedByteBuffers on 17).
  LUCENE_JAVA="${LUCENE_JAVA:-$(cat "$LUCENE_DIR/java.path")}"
  LUCENE_CP="$LUCENE_DIR:$(cat "$LUCENE_DIR/jar.path")"
  LUCENE_HEAP="${LUCENE_HEAP:-4g}"
  lucene() { # lucene MODE ARGS...: LuceneBench in a JVM with a fixed heap
    "$LUCENE_JAVA" -Xms"$LUCENE_HEAP" -Xmx"$LUCENE_HEAP" -XX:+UseParallelGC -cp "$LUCENE_CP" \
      LuceneBench "$@"
  }
fi

cd "$ROOT"
cargo build --release -p sieve-bench --example synth_export >&2
SYNTH="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/synth_export"
BENCH=""
if [[ $RUST == 1 ]]; then
  BENCH="$(cargo bench -p sieve-bench --bench search --no-run --message-format=json 2>/dev/null \
    | "${PYTHON:-python3}" -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "search" and m.get("executable"):
        print(m["executable"])')"
fi
echo "search_growth: bench binary ${BENCH:-(none: --no-rust)}, results in $OUT" >&2

for round in $(seq 1 "$ROUNDS"); do
for n in $DOCS; do
  for k in $HITS; do
    [[ $RUST == 1 ]] || continue
    log="$OUT/rust-$n-$k.txt"
    echo "search_growth: round $round, $n docs, top $k: sieve and tantivy (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    SIEVE_BENCH_DOCS=$n SIEVE_BENCH_HITS=$k SIEVE_BENCH_RUNS=$RUNS \
      SIEVE_BENCH_CASES="${SIEVE_BENCH_CASES:-tantivy,plain,plain12,plain_reordered,full,filtered,four}" \
      "$BENCH" --bench > "$log" 2> "$log.err"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    grep '^RESULT ' "$log" | while read -r _ sys docs hits mean p50 p99; do
      printf '{"system": "%s", "docs": %s, "hits": %s, "mean_ms": %s, "p50_ms": %s, "p99_ms": %s, "load": %s, "round": %s, "corpus": "%s"}\n' \
        "$sys" "$docs" "$hits" "$mean" "$p50" "$p99" "$load" "$round" "$CORPUS"
    done >> "$OUT/results.jsonl"
    grep -E '^(bench index|block-max bounds)' "$log" | sed "s/^/  /" >&2 || true
  done
  if [[ $PISA == 1 ]]; then
    idx="$DATA/pisa-$TAG$n"
    topics="$DATA/pisa-$TAG$n.topics.tsv"
    echo "search_growth: round $round, $n docs: PISA (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    if [[ -f "$idx/pt_meta.json" || -f "$idx/pt_pisa_config.json" ]]; then
      "$SYNTH" 0 /dev/null "$topics" 2>/dev/null
      "$PY" "$HERE/pisa_search.py" --index "$idx" --topics "$topics" \
          --hits $HITS --runs "$RUNS" 2> "$OUT/pisa-$n.err"
    else
      "$SYNTH" "$n" - "$topics" 2>/dev/null \
        | "$PY" "$HERE/pisa_search.py" --index "$idx" --topics "$topics" --docs - \
            --hits $HITS --runs "$RUNS" 2> "$OUT/pisa-$n.err"
    fi \
      | "$PY" -c 'import json,sys
for l in sys.stdin:
    if not l.startswith("{"):
        continue  # PISA logs to standard output too
    r = json.loads(l)
    if r["what"] == "pisa search":
        r["system"] = "pisa_" + r["algorithm"]
        r["docs"] = '"$n"'
        r["corpus"] = "'"$CORPUS"'"
        r["round"] = '"$round"'
    print(json.dumps(r))' >> "$OUT/results.jsonl"
  fi
  if [[ $LUCENE == 1 ]]; then
    idx="$DATA/lucene-$TAG$n"
    topics="$DATA/lucene-$TAG$n.topics.tsv"
    echo "search_growth: round $round, $n docs: Lucene (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    if ! ls "$idx"/segments_* >/dev/null 2>&1; then
      # Built aside and renamed, so an interrupted build is never taken for an index.
      rm -rf "$idx.tmp"
      "$SYNTH" "$n" - "$topics" 2>/dev/null \
        | lucene index --index "$idx.tmp" --docs - 2> "$OUT/lucene-$n-index.err" \
        | "${PYTHON:-python3}" -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    r["index"] = "'"$idx"'"
    r["round"] = '"$round"'
    print(json.dumps(r))' >> "$OUT/results.jsonl"
      mv "$idx.tmp" "$idx"
    fi
    "$SYNTH" 0 /dev/null "$topics" 2>/dev/null
    lucene search --index "$idx" --topics "$topics" --hits $HITS --runs "$RUNS" \
        2> "$OUT/lucene-$n.err" \
      | "${PYTHON:-python3}" -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    r["docs"] = '"$n"'
    r["corpus"] = "'"$CORPUS"'"
    r["round"] = '"$round"'
    print(json.dumps(r))' >> "$OUT/results.jsonl"
  fi
done
done
"${PYTHON:-python3}" "$ROOT/bench/search_growth.py" "$OUT/results.jsonl" --svg "$OUT/search-growth.svg" \
  > "$OUT/table.md"
cat "$OUT/table.md"
echo "search_growth: wrote $OUT/results.jsonl, $OUT/table.md, $OUT/search-growth.svg" >&2
