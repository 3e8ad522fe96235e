#!/usr/bin/env bash
# Anserini 1.7.1 reference runs for the retrieval models beyond BM25 (query likelihood with
# Dirichlet smoothing, RM3, BM25-PRF, Rocchio, sequential dependence, reciprocal rank fusion),
# on CACM and Cranfield, evaluated with pytrec_eval.
#
#   bench/peers/anserini_models.sh [OUT_DIR]
#
# OUT_DIR (default bench/peers/.work/models) receives, per collection C in {cacm, cranfield}:
#   C/index/                 IndexCollection with -storePositions -storeDocvectors -storeRaw
#                            (CACM: TrecCollection over cacm.derived.trec, like anserini_cacm.sh;
#                            Cranfield: JsonCollection converted by smart_to_anserini.py, like
#                            anserini_cranfield.sh)
#   C/run.<model>.txt        SearchCollection -hits 1000 -threads 1 runs, models:
#                            bm25 (-bm25 -bm25.k1 0.9 -bm25.b 0.4), qld (-qld, mu 1000),
#                            bm25-rm3, qld-rm3, bm25-bm25prf, bm25-rocchio, bm25-sdm
#                            (every BM25 model with k1 0.9 b 0.4), and rrf-bm25-qld
#                            (io.anserini.fusion.FuseRuns -method rrf of run.bm25 and run.qld)
#   C/eval.txt               MAP and P_10 of every run over the judged topics (trec_eval.py)
#   C/*.log                  Anserini's logs
# and prints the evaluations. Expected on CACM (52 judged topics), MAP / P_10:
#   qld 0.3265/0.3000; bm25-rm3 0.3648/0.3481; qld-rm3 0.3629/0.3346; bm25-bm25prf 0.2994/0.3154;
#   bm25-rocchio 0.3600/0.3558; bm25-sdm 0.3212/0.3212; rrf-bm25-qld 0.3251/0.3019.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
OUT="${1:-$PEERS/.work/models}"
[[ -n "$SHARED" ]] || { echo "shared data directory absent (scripts/lib.sh)" >&2; exit 2; }
mkdir -p "$OUT"

BM25=(-bm25 -bm25.k1 0.9 -bm25.b 0.4)
MODELS=(bm25 qld bm25-rm3 qld-rm3 bm25-bm25prf bm25-rocchio bm25-sdm)
model_flags() { # model_flags MODEL: prints SearchCollection's flags for MODEL, one per line
  case "$1" in
    bm25) printf '%s\n' "${BM25[@]}" ;;
    qld) printf '%s\n' -qld ;;
    bm25-rm3) printf '%s\n' "${BM25[@]}" -rm3 ;;
    qld-rm3) printf '%s\n' -qld -rm3 ;;
    bm25-bm25prf) printf '%s\n' "${BM25[@]}" -bm25prf ;;
    bm25-rocchio) printf '%s\n' "${BM25[@]}" -rocchio ;;
    bm25-sdm) printf '%s\n' "${BM25[@]}" -sdm ;;
  esac
}

# run_models DIR TOPICS TOPIC_READER QRELS: every model's run, the fusion, the evaluation.
run_models() {
  local dir="$1" topics="$2" reader="$3" qrels="$4" m
  for m in "${MODELS[@]}"; do
    mapfile -t flags < <(model_flags "$m")
    anserini io.anserini.search.SearchCollection -index "$dir/index" -topics "$topics" \
      -topicReader "$reader" "${flags[@]}" -hits 1000 -threads 1 \
      -output "$dir/run.$m.txt" >"$dir/search.$m.log" 2>&1 \
      || { tail -20 "$dir/search.$m.log" >&2; exit 1; }
  done
  anserini io.anserini.fusion.FuseRuns -runs "$dir/run.bm25.txt" "$dir/run.qld.txt" \
    -method rrf -output "$dir/run.rrf-bm25-qld.txt" >"$dir/fuse.log" 2>&1 \
    || { tail -20 "$dir/fuse.log" >&2; exit 1; }
  local runs=()
  for m in "${MODELS[@]}" rrf-bm25-qld; do runs+=("$dir/run.$m.txt"); done
  "$PY" "$PEERS/trec_eval.py" "$qrels" "${runs[@]}" --measures map P_10 | tee "$dir/eval.txt"
}

# CACM: TrecCollection over the derived TREC file, CACM topics.
C="$OUT/cacm"
rm -rf "$C/index" && mkdir -p "$C/input"
ln -sf "$SHARED/cacm/cacm.derived.trec" "$C/input/cacm.derived.trec"
anserini io.anserini.index.IndexCollection -collection TrecCollection -input "$C/input" \
  -index "$C/index" -threads 1 -storePositions -storeDocvectors -storeRaw -quiet \
  >"$C/index.log" 2>&1 || { tail -20 "$C/index.log" >&2; exit 1; }
echo "== Anserini 1.7.1 on CACM (MAP, P_10 over the judged topics) =="
run_models "$C" "$SHARED/cacm/topics.cacm.txt" Cacm "$SHARED/cacm/qrels.cacm.txt"

# Cranfield: the SMART files converted to JsonCollection, TSV topics, 4-column qrels.
R="$OUT/cranfield"
rm -rf "$R/index" "$R/converted" && mkdir -p "$R"
"$PY" "$PEERS/smart_to_anserini.py" "$SHARED/cranfield/cran.all.1400" \
  "$SHARED/cranfield/cran.qry" "$SHARED/cranfield/cranqrel" "$R/converted"
anserini io.anserini.index.IndexCollection -collection JsonCollection \
  -generator DefaultLuceneDocumentGenerator -input "$R/converted/docs" -index "$R/index" \
  -threads 1 -storePositions -storeDocvectors -storeRaw >"$R/index.log" 2>&1 \
  || { tail -20 "$R/index.log" >&2; exit 1; }
echo "== Anserini 1.7.1 on Cranfield (MAP, P_10 over the judged queries) =="
run_models "$R" "$R/converted/topics.tsv" TsvInt "$R/converted/qrels.txt"
