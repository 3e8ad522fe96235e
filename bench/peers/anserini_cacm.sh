#!/usr/bin/env bash
# Anserini BM25 on CACM, evaluated with pytrec_eval, next to the published Anserini figures.
#
#   bench/peers/anserini_cacm.sh RUN_OUT [WORK_DIR]
#
# Indexes $SIEVE_SHARED_DATA/cacm/cacm.derived.trec (TrecCollection, default English analyser:
# Porter stemmer + Lucene's English stopwords), searches topics.cacm.txt (CacmTopicReader) with
# -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000, writes the run to RUN_OUT, and prints MAP and P_30
# (pytrec_eval, averaged over the 52 judged topics) for this run and for the published run
# anserini__cacm-bm25.run.txt (top 30 only). Timings (wall, peak RSS) go to WORK_DIR/*.time.json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
RUN="${1:?usage: anserini_cacm.sh RUN_OUT [WORK_DIR]}"
WORK="${2:-$PEERS/.work/cacm}"
CACM="$SHARED/cacm"
mkdir -p "$WORK/input"
ln -sf "$CACM/cacm.derived.trec" "$WORK/input/cacm.derived.trec"
rm -rf "$WORK/index"

"$PY" "$PEERS/timed.py" "$WORK/index.time.json" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" \
  io.anserini.index.IndexCollection -collection TrecCollection -input "$WORK/input" \
  -index "$WORK/index" -threads 1 -quiet >"$WORK/index.log" 2>&1 \
  || { tail -20 "$WORK/index.log" >&2; exit 1; }

"$PY" "$PEERS/timed.py" "$WORK/search.time.json" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" \
  io.anserini.search.SearchCollection -index "$WORK/index" -topics "$CACM/topics.cacm.txt" \
  -topicReader Cacm -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 1 \
  -output "$RUN" >"$WORK/search.log" 2>&1 \
  || { tail -20 "$WORK/search.log" >&2; exit 1; }

echo "== Anserini on CACM (published: MAP 0.3123, P_30 0.1942 with -hits 1000) =="
"$PY" - "$WORK" "$RUN" <<'PYEOF'
import json, os, sys
work, run = sys.argv[1], sys.argv[2]
for step in ("index", "search"):
    t = json.load(open(os.path.join(work, f"{step}.time.json")))
    print(f"{step:7s} wall {t['wall_s']:.2f} s  peak RSS {t['peak_rss_kb']/1024:.0f} MB")
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(work, "index")) for f in fs)
print(f"index size {size/1e6:.2f} MB; run lines {sum(1 for _ in open(run))}")
PYEOF
"$PY" "$PEERS/trec_eval.py" "$CACM/qrels.cacm.txt" "$RUN" "$CACM/anserini__cacm-bm25.run.txt"
