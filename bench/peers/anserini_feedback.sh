#!/usr/bin/env bash
# Anserini 1.7.1's pseudo-relevance feedback on CACM: the reference runs and printed feedback
# queries that sieve's RM3, BM25-PRF and Rocchio are compared with.
#
#   bench/peers/anserini_feedback.sh [WORK_DIR]
#
# Indexes $SIEVE_SHARED_DATA/cacm/cacm.derived.trec (TrecCollection, default English analyser)
# with -storePositions -storeDocvectors, then searches topics.cacm.txt (CacmTopicReader),
# -hits 1000, one thread, four ways:
#   bm25-rm3      -bm25 -bm25.k1 0.9 -bm25.b 0.4 -rm3 -rm3.outputQuery
#   qld-rm3       -qld (mu 1000) -rm3 -rm3.outputQuery
#   bm25-bm25prf  -bm25 -bm25.k1 0.9 -bm25.b 0.4 -bm25prf -bm25prf.outputQuery
#   bm25-rocchio  -bm25 -bm25.k1 0.9 -bm25.b 0.4 -rocchio -rocchio.outputQuery
# (every feedback parameter at Anserini's default). Writes WORK_DIR/NAME.run and the log with
# the printed queries, WORK_DIR/NAME.log, and prints MAP and P_10 over the 52 judged topics
# (pytrec_eval). WORK_DIR defaults to bench/peers/.work/feedback.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
WORK="${1:-$PEERS/.work/feedback}"
CACM="$SHARED/cacm"
[[ -s "$CACM/cacm.derived.trec" ]] || { echo "SKIPPED: CACM: shared data not found (set SIEVE_SHARED_DATA)" >&2; exit 0; }
mkdir -p "$WORK/input"
ln -sf "$CACM/cacm.derived.trec" "$WORK/input/cacm.derived.trec"
if [[ ! -e "$WORK/index.done" ]]; then
  rm -rf "$WORK/index"
  anserini io.anserini.index.IndexCollection -collection TrecCollection -input "$WORK/input" \
    -index "$WORK/index" -threads 1 -storePositions -storeDocvectors -quiet \
    >"$WORK/index.log" 2>&1 || { tail -20 "$WORK/index.log" >&2; exit 1; }
  touch "$WORK/index.done"
fi

BM25=(-bm25 -bm25.k1 0.9 -bm25.b 0.4)
run() { # NAME ARGS...
  local name="$1"; shift
  anserini io.anserini.search.SearchCollection -index "$WORK/index" -topics "$CACM/topics.cacm.txt" \
    -topicReader Cacm -hits 1000 -threads 1 -output "$WORK/$name.run" "$@" \
    >"$WORK/$name.log" 2>&1 || { tail -20 "$WORK/$name.log" >&2; exit 1; }
}
run bm25-rm3 "${BM25[@]}" -rm3 -rm3.outputQuery
run qld-rm3 -qld -rm3 -rm3.outputQuery
run bm25-bm25prf "${BM25[@]}" -bm25prf -bm25prf.outputQuery
run bm25-rocchio "${BM25[@]}" -rocchio -rocchio.outputQuery

echo "== Anserini 1.7.1 feedback on CACM (52 judged topics) =="
for name in bm25-rm3 qld-rm3 bm25-bm25prf bm25-rocchio; do
  "$PY" "$PEERS/trec_eval.py" "$CACM/qrels.cacm.txt" "$WORK/$name.run" --measures map P_10
done
