#!/usr/bin/env bash
# sieve's retrieval models on CACM and Cranfield next to Anserini 1.7.1's runs of
# bench/peers/anserini_models.sh: MAP and P_10 (pytrec_eval, judged topics) of both, and the
# overlap of the two rankings at 10 and 1000 (overlap.py, tie-aware), for every model both have:
# bm25, qld, bm25-rm3, qld-rm3, bm25-bm25prf, bm25-rocchio, bm25-sdm, and rrf-bm25-qld
# (sieve-search fuse); then the cost of positions (index sizes, search time of SDM against BM25).
#
#   bench/peers/sieve_models.sh [OUT_DIR]
#
# OUT_DIR (default bench/peers/.work/models, where anserini_models.sh wrote its runs) receives
# C/sieve-index/, C/sieve-index-positions/ and C/sieve.<model>.txt for C in {cacm, cranfield}:
# sieve-index build of the same documents (CACM: cacm.derived.trec; Cranfield: cran.all.1400 as
# shipped; once more with --positions, for SDM), sieve-search run --hits 1000 with each model's
# flags (sieve_flags below; defaults are Anserini's).
# The binaries are taken from SIEVE_BIN_DIR (default target/release).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
OUT="${1:-$PEERS/.work/models}"
BIN="${SIEVE_BIN_DIR:-$REPO/target/release}"
[[ -x "$BIN/sieve-index" && -x "$BIN/sieve-search" ]] \
  || { echo "no sieve binaries in $BIN (cargo build --release, or set SIEVE_BIN_DIR)" >&2; exit 2; }
[[ -n "$SHARED" ]] || { echo "shared data directory absent (scripts/lib.sh)" >&2; exit 2; }

MODELS=(bm25 qld bm25-rm3 qld-rm3 bm25-bm25prf bm25-rocchio bm25-sdm)
sieve_flags() { # sieve_flags MODEL: sieve-search run's flags for MODEL, one per line
  case "$1" in
    bm25) printf '%s\n' --model bm25 ;;
    qld) printf '%s\n' --model qld ;;
    bm25-rm3) printf '%s\n' --feedback rm3 ;;
    qld-rm3) printf '%s\n' --model qld --feedback rm3 ;;
    bm25-bm25prf) printf '%s\n' --feedback bm25prf ;;
    bm25-rocchio) printf '%s\n' --feedback rocchio ;;
    bm25-sdm) printf '%s\n' --sdm ;;
  esac
}

# compare C DOCS TOPICS QRELS: build, search every model, evaluate, overlap with Anserini.
compare() {
  local c="$1" docs="$2" topics="$3" qrels="$4" m
  local dir="$OUT/$c" pairs=()
  [[ -s "$dir/run.qld.txt" ]] || { echo "no Anserini runs in $dir: run anserini_models.sh" >&2; exit 2; }
  rm -rf "$dir/sieve-index" "$dir/sieve-index-positions"
  "$BIN/sieve-index" build --input "$docs" --index "$dir/sieve-index" >"$dir/sieve-build.log" 2>&1
  "$BIN/sieve-index" build --positions --input "$docs" --index "$dir/sieve-index-positions" \
    >>"$dir/sieve-build.log" 2>&1
  for m in "${MODELS[@]}"; do
    mapfile -t flags < <(sieve_flags "$m")
    local index="$dir/sieve-index"
    [[ "$m" == bm25-sdm ]] && index="$dir/sieve-index-positions"
    "$BIN/sieve-search" run --index "$index" --topics "$topics" "${flags[@]}" \
      --hits 1000 --output "$dir/sieve.$m.txt" 2>>"$dir/sieve-search.log"
    pairs+=("$dir/sieve.$m.txt" "$dir/run.$m.txt")
  done
  "$BIN/sieve-search" fuse --method rrf --output "$dir/sieve.rrf-bm25-qld.txt" \
    "$dir/sieve.bm25.txt" "$dir/sieve.qld.txt" 2>>"$dir/sieve-search.log"
  pairs+=("$dir/sieve.rrf-bm25-qld.txt" "$dir/run.rrf-bm25-qld.txt")
  echo "== $c: MAP, P_10 (each model: sieve, then Anserini) =="
  "$PY" "$PEERS/trec_eval.py" "$qrels" "${pairs[@]}" --measures map P_10
  for m in "${MODELS[@]}" rrf-bm25-qld; do
    echo "-- $c $m: overlap of sieve's and Anserini's rankings"
    "$PY" "$PEERS/overlap.py" "$dir/sieve.$m.txt" "$dir/run.$m.txt" --depths 10 1000
  done
  cost "$c" "$topics"
}

# cost C TOPICS: index sizes with and without positions (sieve; Anserini's index by file kind),
# and the search time per topic of BM25 and SDM on the index with positions, one thread, best
# of three.
cost() {
  local c="$1" topics="$2" dir="$OUT/$1" m i
  echo "-- $c: index bytes (du -sb)"
  printf '%s\t%s\n' "sieve" "$(du -sb "$dir/sieve-index" | cut -f1)" \
    "sieve --positions" "$(du -sb "$dir/sieve-index-positions" | cut -f1)" \
    "anserini (all files)" "$(du -sb "$dir/index" | cut -f1)"
  # Lucene's files by kind: postings (.doc .tim .tip .tmd), positions (.pos), norms (.nvd .nvm),
  # term vectors (-storeDocvectors: .tvd .tvx .tvm), stored fields (-storeRaw: .fdt .fdx .fdm).
  find "$dir/index" -type f | awk '
    { n = split($0, p, "."); ext = p[n]; cmd = "stat -c %s \"" $0 "\""; cmd | getline sz; close(cmd)
      k = (ext ~ /^(doc|tim|tip|tmd)$/) ? "anserini postings+terms" : \
          (ext == "pos") ? "anserini positions" : \
          (ext ~ /^(tvd|tvx|tvm)$/) ? "anserini docvectors" : \
          (ext ~ /^(fdt|fdx|fdm)$/) ? "anserini stored" : "anserini other"
      b[k] += sz }
    END { for (k in b) printf "%s\t%d\n", k, b[k] }' | sort
  echo "-- $c: search time per topic, one thread, best of 3 (ms)"
  for m in bm25 sdm; do
    local best=""
    for i in 1 2 3; do
      local flags=(--model bm25)
      [[ "$m" == sdm ]] && flags=(--sdm)
      local t
      t=$("$BIN/sieve-search" run --index "$dir/sieve-index-positions" --topics "$topics" \
        "${flags[@]}" --threads 1 --hits 1000 --output /dev/null 2>&1 \
        | sed -n 's/.*(\([0-9.]*\) ms per topic.*/\1/p')
      if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best="$t"
      fi
    done
    printf '%s\t%s\n' "$m" "$best"
  done
}

compare cacm "$SHARED/cacm/cacm.derived.trec" "$SHARED/cacm/topics.cacm.txt" \
  "$SHARED/cacm/qrels.cacm.txt"
# Cranfield: judged with the 4-column qrels smart_to_anserini.py wrote (queries numbered in
# file order, as sieve numbers cran.qry).
compare cranfield "$SHARED/cranfield/cran.all.1400" "$SHARED/cranfield/cran.qry" \
  "$OUT/cranfield/converted/qrels.txt"
