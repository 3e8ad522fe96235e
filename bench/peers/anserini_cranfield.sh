#!/usr/bin/env bash
# Anserini BM25 on Cranfield as shipped (SMART documents and queries, 3-column cranqrel),
# converted with exactly the text sieve's readers take, evaluated with pytrec_eval.
#
#   bench/peers/anserini_cranfield.sh RUN_OUT [WORK_DIR]
#
# Converts $SIEVE_SHARED_DATA/cranfield/{cran.all.1400,cran.qry,cranqrel} with
# smart_to_anserini.py (JsonCollection documents, TSV topics numbered in file order, 4-column
# qrels with the grades unchanged), indexes them with IndexCollection -collection JsonCollection
# -generator DefaultLuceneDocumentGenerator -storePositions -storeDocvectors -storeRaw (default
# analyser: Porter + Lucene's English stopwords), searches with -topicReader TsvInt -bm25
# -bm25.k1 0.9 -bm25.b 0.4 -hits 1000, writes the run to RUN_OUT and prints MAP, P_10 and
# P_30 (pytrec_eval, averaged over the 225 judged queries).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
RUN="${1:?usage: anserini_cranfield.sh RUN_OUT [WORK_DIR]}"
WORK="${2:-$PEERS/.work/cranfield}"
CRAN="$SHARED/cranfield"
rm -rf "$WORK/index" "$WORK/converted"
mkdir -p "$WORK"
"$PY" "$PEERS/smart_to_anserini.py" "$CRAN/cran.all.1400" "$CRAN/cran.qry" "$CRAN/cranqrel" \
  "$WORK/converted"

"$PY" "$PEERS/timed.py" "$WORK/index.time.json" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" \
  io.anserini.index.IndexCollection -collection JsonCollection \
  -generator DefaultLuceneDocumentGenerator -input "$WORK/converted/docs" \
  -index "$WORK/index" -threads 1 -storePositions -storeDocvectors -storeRaw \
  >"$WORK/index.log" 2>&1 \
  || { tail -20 "$WORK/index.log" >&2; exit 1; }

"$PY" "$PEERS/timed.py" "$WORK/search.time.json" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" \
  io.anserini.search.SearchCollection -index "$WORK/index" \
  -topics "$WORK/converted/topics.tsv" -topicReader TsvInt \
  -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 1 -output "$RUN" \
  >"$WORK/search.log" 2>&1 \
  || { tail -20 "$WORK/search.log" >&2; exit 1; }

echo "== Anserini on Cranfield (BM25 k1=0.9 b=0.4, top 1000) =="
grep -h -o 'Total [0-9,]* documents indexed' "$WORK/index.log" || true
"$PY" "$PEERS/trec_eval.py" "$WORK/converted/qrels.txt" "$RUN" --measures map P_10 P_30
