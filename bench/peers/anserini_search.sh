#!/usr/bin/env bash
# Time Anserini SearchCollection (BM25, top 1000) over a TREC topic file.
#
#   bench/peers/anserini_search.sh INDEX TOPICS RUN k1 b [TOPIC_READER] [THREADS]
#
# TOPIC_READER defaults to Trec (classic <top> files; use web_topics.py to convert Web track XML),
# THREADS to 1. Prints one JSON line: topics, wall_s and peak_rss_kb of the whole JVM process
# (/usr/bin/time -v; includes JVM start and index open), and ms per topic (wall / topics).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
IDX="${1:?usage: anserini_search.sh INDEX TOPICS RUN k1 b [TOPIC_READER] [THREADS]}"
TOPICS="${2:?usage}"; RUN="${3:?usage}"; K1="${4:?usage}"; B="${5:?usage}"
READER="${6:-Trec}"; THREADS="${7:-1}"
LOG="$RUN.log"; TJ="$RUN.time.json"
"$PY" "$PEERS/timed.py" "$TJ" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" io.anserini.search.SearchCollection \
  -index "$IDX" -topics "$TOPICS" -topicReader "$READER" -bm25 -bm25.k1 "$K1" -bm25.b "$B" \
  -hits 1000 -threads "$THREADS" -output "$RUN" >"$LOG" 2>&1 \
  || { tail -20 "$LOG" >&2; exit 1; }
"$PY" - "$RUN" "$TJ" "$THREADS" <<'PYEOF'
import json, sys
run, tj, threads = sys.argv[1:4]
t = json.load(open(tj))
topics = len({l.split()[0] for l in open(run) if l.strip()})
print(json.dumps({"tool": "anserini", "threads": int(threads), "topics_with_hits": topics,
    "run_lines": sum(1 for l in open(run) if l.strip()), "wall_s": round(t["wall_s"], 3),
    "peak_rss_kb": t["peak_rss_kb"], "ms_per_topic": round(1000 * t["wall_s"] / topics, 2) if topics else None}))
PYEOF
