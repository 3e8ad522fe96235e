#!/usr/bin/env bash
# The search service under load, beside Anserini 1.7.1's REST server on the same indexes and
# queries: throughput and p50/p99 latency at 1, 8, 32 and 128 connections (bench/serve_load.sh,
# wrk, DURATION seconds each), zero failed requests, the server's peak memory; then, for sieve,
# slow clients beside a normal one (bench/serve_slow.py) and SIGTERM during a batch run (exit 0,
# the answer complete).
#
#   bash bench/serve_bench.sh [OUT_DIR]     # default bench/runs/DATE-serve
#
# Indexes: CACM (the committed copy, made-up spam percentiles; the 64 CACM queries) and, when
# built, the 1M-document synthetic collection of the search bench ($SIEVE_BENCH_DATA/
# search-1000000/index for sieve, from bench/peers/search_growth.sh; $SIEVE_BENCH_DATA/
# anserini-1000000/search-1000000 for Anserini, from `bench/peers/anserini_rest.sh index-synth
# 1000000`; the Web Track titles 1-200). An index that is missing is said and skipped. Both
# servers answer top 10 with BM25 k1 0.9 b 0.4 and each hit's stored document: sieve's `doc`
# is its stored fields (parse=true), Anserini's the stored raw document.
#
# Run it on a quiet machine (the figures are only as good as its idleness): wrk shares the
# two cores with the server. Indexes and logs go to $CARGO_TARGET_DIR/serve-bench. Environment: DURATION (default 30), CLIENTS (default "1 8 32 128"),
# SIEVE_BENCH_DATA (default target/bench-data), CARGO_TARGET_DIR (default target), SKIP_ANSERINI=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-bench/runs/$(date +%F)-serve}
DATA=${SIEVE_BENCH_DATA:-$ROOT/target/bench-data}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$TARGET/serve-bench
mkdir -p "$OUT" "$WORK"
RESULTS=$OUT/results.jsonl
: >"$RESULTS"
step() { printf '\n==> %s\n' "$*" >&2; }

step "release binaries"
cargo build --release --locked --bin sieve-search --bin sieve-index >&2
BIN=$TARGET/release
python3 bench/serve_queries.py "$WORK/queries.txt" >&2
head -n 200 "$WORK/queries.txt" >"$OUT/queries-web.txt"
tail -n 64 "$WORK/queries.txt" >"$OUT/queries-cacm.txt"

step "CACM index (sieve)"
CACM=$WORK/cacm
rm -rf "$CACM"
"$BIN/sieve-index" build --input tests/data/cacm/cacm.trec.gz \
    --spam tests/data/spam/made-up-cacm-spam.txt --index "$CACM" >&2

# sieve_load NAME DIR QUERIES: sieve-search serve on DIR, the load levels, then stopped.
sieve_load() {
  local name=$1 dir=$2 queries=$3 log=$WORK/sieve-$1.log
  "$BIN/sieve-search" serve --index "$name=$dir" --bind 127.0.0.1:0 >"$log.out" 2>"$log" &
  local pid=$!
  for _ in $(seq 100); do [[ -s "$log.out" ]] && break; sleep 0.1; done
  local url
  url=$(sed -n 's/^listening on //p' "$log.out")
  [[ -n "$url" ]] || { echo "serve_bench: sieve did not start: $(cat "$log")" >&2; exit 1; }
  bash bench/serve_load.sh "$url/v1/$name/search?hits=10&query=" "$queries" sieve "$name" "$pid" "$RESULTS"
  if [[ $name == cacm ]]; then
    step "slow clients (sieve, $name)"
    python3 bench/serve_slow.py "$url/v1/$name/search?hits=10&query=" --queries "$queries" \
        --duration 30 --json "$OUT/slow-sieve-$name.json" >&2 || echo "serve_bench: slow-client check failed" >&2
    step "SIGTERM during a batch run (sieve, $name)"
    curl -s -o "$WORK/batch.run" -w '%{http_code}\n' --data-binary @topics/topics.cacm.txt \
        "$url/v1/$name/run?feedback=rm3&hits=1000" >"$WORK/batch.status" &
    local curl_pid=$!
    sleep 0.3
  fi
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  if [[ $name == cacm ]]; then
    wait "$curl_pid" || true
    printf '{"sigterm_exit_code": %d, "in_flight_status": "%s", "in_flight_run_lines": %d}\n' \
        "$code" "$(cat "$WORK/batch.status")" "$(wc -l <"$WORK/batch.run")" | tee "$OUT/sigterm.json" >&2
  fi
}

# anserini_load NAME INDEX_DIR QUERIES: Anserini's RestServer on INDEX_DIR, the load levels.
anserini_load() {
  local name=$1 dir=$2 queries=$3 port log=$WORK/anserini-$1.log
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  bash bench/peers/anserini_rest.sh serve "$dir" "$port" >"$log.out" 2>"$log" &
  local wrapper=$!
  for _ in $(seq 600); do [[ -s "$log.out" ]] && break; sleep 0.2; done
  local url pid
  url=$(head -n 1 "$log.out")
  pid=$(sed -n 's/^anserini_rest: pid \([0-9]*\).*/\1/p' "$log" | head -n 1)
  [[ -n "$url" && -n "$pid" ]] || { echo "serve_bench: Anserini did not start: $(tail -5 "$log")" >&2; kill "$wrapper" 2>/dev/null; return 0; }
  bash bench/serve_load.sh "$url" "$queries" anserini "$name" "$pid" "$RESULTS"
  kill -TERM "$wrapper" 2>/dev/null || true
  wait "$wrapper" 2>/dev/null || true
}

load_1m() { # load_1m LOADER SYSTEM INDEX BUILDER: the 1M-document load, or a named skip
  if [[ -d "$3" ]]; then
    step "$2, 1M documents"
    "$1" web1m "$3" "$OUT/queries-web.txt"
  else
    echo "serve_bench: SKIPPED $2 on 1M documents: no $3 ($4 builds it)" >&2
  fi
}

step "sieve, CACM"
sieve_load cacm "$CACM" "$OUT/queries-cacm.txt"
load_1m sieve_load sieve "$DATA/search-1000000/index" "bench/peers/search_growth.sh"

if [[ ${SKIP_ANSERINI:-0} != 1 ]]; then
  step "Anserini, CACM"
  ACACM=$WORK/anserini/cacm-local
  [[ -d $ACACM ]] || bash bench/peers/anserini_rest.sh index-cacm "$ACACM" >&2
  anserini_load cacm "$ACACM" "$OUT/queries-cacm.txt"
  load_1m anserini_load Anserini "$DATA/anserini-1000000/search-1000000" \
    "bench/peers/anserini_rest.sh index-synth 1000000"
fi

step "results"
python3 - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'system':9} {'index':6} {'clients':>7} {'rps':>8} {'p50 ms':>8} {'p99 ms':>8} {'failed':>6} {'RSS MB':>7}")
for r in rows:
    print(f"{r['system']:9} {r['index']:6} {r['clients']:>7} {r['rps']:>8.1f} {r['p50_ms']:>8.2f} "
          f"{r['p99_ms']:>8.2f} {r['errors']:>6} {r['max_rss_kb'] / 1024:>7.0f}")
by = {(r['system'], r['index'], r['clients']): r for r in rows}
for index in sorted({r['index'] for r in rows}):
    s1, s8, s32 = (by.get(('sieve', index, c)) for c in (1, 8, 32))
    if s1 and s8:
        print(f"sieve {index}: throughput at 8 clients / 1 client = {s8['rps'] / s1['rps']:.2f}x (target >= 1.8)")
    if s1 and s32:
        print(f"sieve {index}: p99 at 32 clients / 1 client = {s32['p99_ms'] / s1['p99_ms']:.1f}x (target <= 20)")
    for c in (1, 8, 32, 128):
        s, a = by.get(('sieve', index, c)), by.get(('anserini', index, c))
        if s and a:
            print(f"{index} {c:>3} clients: sieve/Anserini throughput {s['rps'] / a['rps']:.2f}x, "
                  f"p50 {a['p50_ms'] / s['p50_ms']:.2f}x lower, p99 {a['p99_ms'] / s['p99_ms']:.2f}x lower")
EOF
