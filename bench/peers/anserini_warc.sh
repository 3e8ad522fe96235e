#!/usr/bin/env bash
# Time Anserini IndexCollection on a directory of WARC files.
#
#   bench/peers/anserini_warc.sh INPUT_DIR INDEX_DIR THREADS [COLLECTION]
#
# COLLECTION: ClueWeb09Collection (default; WARC/0.18 with WARC-TREC-ID; reads *.warc.gz only)
# or CommonCrawlWarcCollection. Default analyser (Porter + English stopwords), no positions,
# no docvectors, no stored contents: the cheapest Anserini index that BM25 search needs.
# INDEX_DIR is deleted first. Prints one JSON line: docs, unindexable, wall_s (from /usr/bin/time -v,
# whole JVM process), peak_rss_kb, input bytes, index bytes, docs/s, MB/s (input on disk), and
# uncompressed MB/s when INPUT_DIR/MANIFEST.json (make_corpus.py) gives the uncompressed size.
# The Anserini log is kept in INDEX_DIR.log. Heap: ANSERINI_HEAP (default 4g).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
IN="${1:?usage: anserini_warc.sh INPUT_DIR INDEX_DIR THREADS [COLLECTION]}"
IDX="${2:?usage}"; THREADS="${3:?usage}"; COLL="${4:-ClueWeb09Collection}"
rm -rf "$IDX"
mkdir -p "$(dirname "$IDX")"
LOG="$IDX.log"; TJ="$IDX.time.json"
"$PY" "$PEERS/timed.py" "$TJ" -- \
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" io.anserini.index.IndexCollection \
  -collection "$COLL" -input "$IN" -index "$IDX" -threads "$THREADS" >"$LOG" 2>&1 \
  || { tail -20 "$LOG" >&2; exit 1; }
"$PY" - "$IN" "$IDX" "$LOG" "$TJ" "$THREADS" "$COLL" <<'PYEOF'
import json, os, re, sys
inp, idx, log, tj, threads, coll = sys.argv[1:7]
t = json.load(open(tj))
text = open(log, errors="replace").read()
def counter(name):
    m = re.findall(rf"- {name}:\s+([\d,]+)", text)  # Anserini prints 13,356
    return int(m[-1].replace(",", "")) if m else None
size = lambda d, only_warc=False: sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs if not only_warc or ".warc" in f)
docs, in_bytes = counter("indexed"), size(inp, True)
man = os.path.join(inp, "MANIFEST.json")  # written by make_corpus.py
raw = json.load(open(man))["uncompressed_bytes"] if os.path.exists(man) else None
print(json.dumps({"tool": "anserini", "collection": coll, "threads": int(threads), "docs": docs,
    "unindexable": counter("unindexable"), "errors": counter("errors"), "wall_s": round(t["wall_s"], 3),
    "user_s": t.get("user_s"), "sys_s": t.get("sys_s"), "peak_rss_kb": t["peak_rss_kb"], "input_bytes": in_bytes,
    "index_bytes": size(idx), "docs_per_s": round(docs / t["wall_s"], 1) if docs else None,
    "MB_per_s": round(in_bytes / 1e6 / t["wall_s"], 2), "uncompressed_bytes": raw,
    "uncompressed_MB_per_s": round(raw / 1e6 / t["wall_s"], 2) if raw else None}))
PYEOF
