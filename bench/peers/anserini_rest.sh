#!/usr/bin/env bash
# Anserini 1.7.1's REST server (io.anserini.api.RestServer): record its answers as a fixture,
# serve an index for a load run, and build the Lucene indexes it serves.
#
#   bench/peers/anserini_rest.sh record [OUT_DIR]       # default tests/data/serve/anserini
#   bench/peers/anserini_rest.sh serve INDEX_DIR PORT   # foreground, until SIGTERM/SIGINT
#   bench/peers/anserini_rest.sh index-cacm INDEX_DIR
#   bench/peers/anserini_rest.sh index-synth DOCS       # the search bench's collection
#
# record: indexes the committed CACM copy (tests/data/cacm/cacm.trec.gz; TrecCollection, -storeRaw
#   so that answers carry `doc`) as WORK/indexes/cacm-local, starts the server on a free loopback
#   port from WORK/indexes, waits for the port, fetches each request of REQUESTS below into
#   OUT_DIR/FILE (the body exactly as received), writes OUT_DIR/responses.tsv (file, method,
#   path, status, Content-Type) and stops the server.
# serve: starts the server on 127.0.0.1:PORT with INDEX_DIR's parent as working directory, so the
#   index is named by its directory's base name (GET /v1/NAME/search?query=...); checks that the
#   index opens, prints the server's PID and the search base URL on standard error (the URL also on
#   standard output), then waits for the server (SIGTERM/SIGINT are passed on).
# index-synth: the search bench's synthetic collection, DOCS documents, as the TREC records the
#   bench gives sieve (bench/synth.rs; `synth_export --trec`, built here with cargo), indexed with
#   Anserini's default English analyser (Lucene's stopwords, Porter: sieve's settings for that
#   index) and -storeRaw, one thread, into $SIEVE_BENCH_DATA/anserini-DOCS/search-DOCS (served as
#   `search-DOCS`); the build's wall time, peak RSS and index size go to
#   $SIEVE_BENCH_DATA/anserini-DOCS/build.json. The RestServer searches with BM25 k1 0.9 b 0.4
#   (SimpleSearcher's defaults; it has no option to change them).
#
# Anserini resolves the {index} of a route as a prebuilt index name first (downloaded on first
# use: `cacm` is one), then as a path relative to its working directory; hence `cacm-local`.
#
# Environment: PEERS_CACHE (the jar and java.path of bench/peers/setup.sh, default
# bench/peers/.cache), ANSERINI_HEAP (default 4g), ANSERINI_CPUS (processors the JVM may use,
# default 2), ANSERINI_REST_WORK (default bench/peers/.work/rest), SIEVE_BENCH_DATA (default
# target/bench-data), CARGO_TARGET_DIR (default target).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ANSERINI_CPUS="${ANSERINI_CPUS:-2}"
WORK="${ANSERINI_REST_WORK:-$PEERS/.work/rest}"

need_anserini() {
  [[ -s "$JAR" ]] || { echo "anserini_rest: no Anserini jar at $JAR (run bench/peers/setup.sh or set PEERS_CACHE)" >&2; exit 2; }
  [[ -s "$PEERS_CACHE/java.path" ]] || { echo "anserini_rest: no $PEERS_CACHE/java.path (run bench/peers/setup.sh)" >&2; exit 2; }
  JAVA="$(cat "$PEERS_CACHE/java.path")"
  [[ -x "$JAVA" ]] || { echo "anserini_rest: java $JAVA (from $PEERS_CACHE/java.path) is not executable" >&2; exit 2; }
  command -v curl >/dev/null || { echo "anserini_rest: curl is missing" >&2; exit 2; }
}
java_opts() { echo -Xms512m -Xmx"$ANSERINI_HEAP" -XX:ActiveProcessorCount="$ANSERINI_CPUS"; }

# index_trec INPUT_DIR INDEX_DIR TIME_JSON: TrecCollection, default analyser, raw stored, 1 thread.
index_trec() {
  local input="$1" index="$2" timing="$3"
  rm -rf "$index"
  mkdir -p "$(dirname "$index")"
  # shellcheck disable=SC2046
  python3 "$PEERS/timed.py" "$timing" -- \
    "$JAVA" $(java_opts) -cp "$JAR" io.anserini.index.IndexCollection \
    -collection TrecCollection -input "$input" -index "$index" \
    -threads 1 -storeRaw -memoryBuffer 1024 -quiet >"$index.log" 2>&1 \
    || { tail -20 "$index.log" >&2; echo "anserini_rest: IndexCollection failed (log $index.log)" >&2; exit 1; }
}

index_cacm() {
  local index="$1" input="$WORK/cacm-input"
  mkdir -p "$input"
  ln -sf "$REPO/tests/data/cacm/cacm.trec.gz" "$input/cacm.trec.gz"
  index_trec "$input" "$index" "$index.time.json"
  echo "anserini_rest: CACM indexed in $index ($(du -sh "$index" | cut -f1))" >&2
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_server DIR PORT LOG: the server in the background, from DIR; sets SERVER_PID.
start_server() {
  local dir="$1" port="$2" log="$3"
  # shellcheck disable=SC2046
  (cd "$dir" && exec "$JAVA" $(java_opts) -cp "$JAR" io.anserini.api.RestServer \
    --host 127.0.0.1 --port "$port") >"$log" 2>&1 &
  SERVER_PID=$!
}

# wait_port PORT PID LOG: until the port accepts connections (at most 120 s).
wait_port() {
  local port="$1" pid="$2" log="$3" i
  for i in $(seq 1 240); do
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2; echo "anserini_rest: the server exited before listening" >&2; exit 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "anserini_rest: port $port not open after 120 s (log $log)" >&2; exit 1
}

stop_server() {
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  echo "anserini_rest: server $pid still alive 10 s after SIGTERM; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

# What `record` asks: FILE METHOD PATH.
REQUESTS=(
  "search.json GET /v1/cacm-local/search?query=information%20retrieval&hits=10"
  "search-parse-false.json GET /v1/cacm-local/search?query=information%20retrieval&hits=2&parse=false"
  "search-no-hits.json GET /v1/cacm-local/search?query=the&hits=10"
  "doc.json GET /v1/cacm-local/doc/CACM-1410"
  "openapi.yaml GET /openapi.yaml"
  "docs.html GET /docs"
  "error-unknown-index.json GET /v1/no-such-index/search?query=information%20retrieval&hits=10"
  "error-missing-query.json GET /v1/cacm-local/search?hits=10"
  "error-hits-zero.json GET /v1/cacm-local/search?query=information&hits=0"
  "error-hits-not-integer.json GET /v1/cacm-local/search?query=information&hits=ten"
  "error-parse-invalid.json GET /v1/cacm-local/search?query=information&parse=maybe"
  "error-doc-not-found.json GET /v1/cacm-local/doc/CACM-9999"
  "error-unknown-route.json GET /v1/cacm-local"
  "error-post.json POST /v1/cacm-local/search?query=information"
  "error-old-route.json GET /api/v1.0/indexes/cacm-local/search?query=information"
)

record() {
  local out="${1:-$REPO/tests/data/serve/anserini}" port log
  need_anserini
  mkdir -p "$WORK/indexes" "$out"
  index_cacm "$WORK/indexes/cacm-local"
  port="$(free_port)"
  log="$WORK/server.log"
  start_server "$WORK/indexes" "$port" "$log"
  trap 'stop_server "$SERVER_PID"' EXIT
  wait_port "$port" "$SERVER_PID" "$log"
  printf 'file\tmethod\tpath\tstatus\tcontent_type\n' >"$out/responses.tsv"
  local req file method path meta
  for req in "${REQUESTS[@]}"; do
    read -r file method path <<<"$req"
    meta="$(curl -sS -X "$method" -o "$out/$file" -w '%{http_code}\t%{content_type}' \
      "http://127.0.0.1:$port$path")"
    printf '%s\t%s\t%s\t%s\n' "$file" "$method" "$path" "$meta" >>"$out/responses.tsv"
    echo "anserini_rest: $method $path -> ${meta%%$'\t'*} ($(wc -c <"$out/$file") bytes) $file" >&2
  done
  stop_server "$SERVER_PID"
  trap - EXIT
  # The recording must hold what the fixture promises.
  python3 - "$out" <<'PYEOF'
import json, sys, os
out = sys.argv[1]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "responses.tsv"))][1:]
status = {r[0]: int(r[3]) for r in rows}
s = json.load(open(os.path.join(out, "search.json")))
assert status["search.json"] == 200 and list(s) == ["api", "index", "query", "candidates"], s.keys()
assert len(s["candidates"]) == 10, len(s["candidates"])
assert [c["rank"] for c in s["candidates"]] == list(range(1, 11))
assert all(isinstance(c["doc"], str) and c["docid"].startswith("CACM-") for c in s["candidates"])
d = json.load(open(os.path.join(out, "doc.json")))
assert status["doc.json"] == 200 and d["docid"] == "CACM-1410" and isinstance(d["doc"], str)
for f, code in status.items():
    if f.startswith("error-"):
        e = json.load(open(os.path.join(out, f)))
        assert code >= 400 and list(e) == ["error"], (f, code, e)
print(f"anserini_rest: recorded {len(rows)} answers in {out}", file=sys.stderr)
PYEOF
}

serve() {
  local index="${1:?usage: anserini_rest.sh serve INDEX_DIR PORT}" port="${2:?usage: anserini_rest.sh serve INDEX_DIR PORT}"
  need_anserini
  [[ -d "$index" ]] || { echo "anserini_rest: no index directory $index" >&2; exit 2; }
  index="$(cd "$index" && pwd)"
  local name dir log code
  name="$(basename "$index")"
  dir="$(dirname "$index")"
  log="${ANSERINI_REST_LOG:-$dir/$name.server.log}"
  start_server "$dir" "$port" "$log"
  trap 'stop_server "$SERVER_PID"; exit 0' TERM INT
  wait_port "$port" "$SERVER_PID" "$log"
  code="$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/$name/search?query=a&hits=1")"
  if [[ $code != 200 ]]; then
    stop_server "$SERVER_PID"
    echo "anserini_rest: index $name does not open (status $code; is $name also an Anserini prebuilt index name?)" >&2
    exit 1
  fi
  echo "anserini_rest: pid $SERVER_PID, log $log" >&2
  echo "anserini_rest: search at http://127.0.0.1:$port/v1/$name/search?hits=10&query=" >&2
  echo "http://127.0.0.1:$port/v1/$name/search?hits=10&query="
  wait "$SERVER_PID"
}

index_synth() {
  local docs="${1:?usage: anserini_rest.sh index-synth DOCS}"
  need_anserini
  command -v cargo >/dev/null || { echo "anserini_rest: cargo is missing (needed for synth_export)" >&2; exit 2; }
  local data="${SIEVE_BENCH_DATA:-$REPO/target/bench-data}"
  local top="$data/anserini-$docs" target="${CARGO_TARGET_DIR:-$REPO/target}"
  local index="$top/search-$docs" input="$top/input"
  (cd "$REPO" && cargo build --release -p sieve-bench --example synth_export >&2)
  mkdir -p "$input"
  echo "anserini_rest: writing $docs synthetic documents to $input" >&2
  "$target/release/examples/synth_export" --trec "$docs" "$input/corpus.trec"
  echo "anserini_rest: indexing them into $index" >&2
  index_trec "$input" "$index" "$top/index.time.json"
  rm -rf "$input"
  python3 - "$top" "$index" "$docs" <<'PYEOF'
import json, os, sys
top, index, docs = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = json.load(open(os.path.join(top, "index.time.json")))
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(index) for f in fs)
rec = {"docs": docs, "index": index, "wall_s": round(t["wall_s"], 2), "user_s": t.get("user_s"),
       "sys_s": t.get("sys_s"), "peak_rss_kb": t["peak_rss_kb"], "index_bytes": size,
       "anserini": "1.7.1", "settings": "TrecCollection, default English analyser, -storeRaw, -threads 1"}
json.dump(rec, open(os.path.join(top, "build.json"), "w"), indent=1)
print(json.dumps(rec))
PYEOF
}

case "${1:-}" in
  record) shift; record "$@" ;;
  serve) shift; serve "$@" ;;
  index-cacm) shift; need_anserini; index_cacm "${1:?usage: anserini_rest.sh index-cacm INDEX_DIR}" ;;
  index-synth) shift; index_synth "$@" ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
