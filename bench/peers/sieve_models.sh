#!/usr/bin/env bash
# sieve's query likelihood (and BM25) on CACM and Cranfield next to Anserini 1.7.1's runs of
# bench/peers/anserini_models.sh: MAP and P_10 (pytrec_eval, judged topics) of both, and the
# overlap of the two rankings at 10 and 1000 (overlap.py, tie-aware).
#
#   bench/peers/sieve_models.sh [OUT_DIR]
#
# OUT_DIR (default bench/peers/.work/models, where anserini_models.sh wrote its runs) receives
# C/sieve-index/ and C/sieve.<model>.txt for C in {cacm, cranfield}: sieve-index build of the
# same documents (CACM: cacm.derived.trec; Cranfield: cran.all.1400 as shipped), sieve-search run
# --hits 1000 with --model bm25 (k1 0.9, b 0.4) and --model qld (mu 1000).
# The binaries are taken from SIEVE_BIN_DIR (default target/release).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
OUT="${1:-$PEERS/.work/models}"
BIN="${SIEVE_BIN_DIR:-$REPO/target/release}"
[[ -x "$BIN/sieve-index" && -x "$BIN/sieve-search" ]] \
  || { echo "no sieve binaries in $BIN (cargo build --release, or set SIEVE_BIN_DIR)" >&2; exit 2; }
[[ -n "$SHARED" ]] || { echo "shared data directory absent (scripts/lib.sh)" >&2; exit 2; }

# compare C DOCS TOPICS QRELS: build, search both models, evaluate, overlap with Anserini.
compare() {
  local c="$1" docs="$2" topics="$3" qrels="$4" m
  local dir="$OUT/$c"
  [[ -s "$dir/run.qld.txt" ]] || { echo "no Anserini runs in $dir: run anserini_models.sh" >&2; exit 2; }
  rm -rf "$dir/sieve-index"
  "$BIN/sieve-index" build --input "$docs" --index "$dir/sieve-index" >"$dir/sieve-build.log" 2>&1
  for m in bm25 qld; do
    "$BIN/sieve-search" run --index "$dir/sieve-index" --topics "$topics" --model "$m" \
      --hits 1000 --output "$dir/sieve.$m.txt" 2>>"$dir/sieve-search.log"
  done
  echo "== $c: MAP, P_10 (sieve, then Anserini) =="
  "$PY" "$PEERS/trec_eval.py" "$qrels" "$dir/sieve.bm25.txt" "$dir/run.bm25.txt" \
    "$dir/sieve.qld.txt" "$dir/run.qld.txt" --measures map P_10
  for m in bm25 qld; do
    echo "-- $c $m: overlap of sieve's and Anserini's rankings"
    "$PY" "$PEERS/overlap.py" "$dir/sieve.$m.txt" "$dir/run.$m.txt" --depths 10 1000
  done
}

compare cacm "$SHARED/cacm/cacm.derived.trec" "$SHARED/cacm/topics.cacm.txt" \
  "$SHARED/cacm/qrels.cacm.txt"
# Cranfield: judged with the 4-column qrels smart_to_anserini.py wrote (queries numbered in
# file order, as sieve numbers cran.qry).
compare cranfield "$SHARED/cranfield/cran.all.1400" "$SHARED/cranfield/cran.qry" \
  "$OUT/cranfield/converted/qrels.txt"
