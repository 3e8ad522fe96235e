#!/usr/bin/env bash
# Load test of a search server (sieve-search serve, Anserini's RestServer, any server answering
# GET BASE_URL<query>): wrk at 1, 8, 32 and 128 concurrent connections, DURATION seconds each,
# rotating through a file of queries; one JSON line per level, printed and appended to RESULTS.
#
#   bench/serve_load.sh BASE_URL QUERIES SYSTEM INDEX PID [RESULTS]
#
#   BASE_URL  the search URL up to the query's value, e.g.
#             http://127.0.0.1:8080/v1/web/search?hits=10&query=
#   QUERIES   one URL-encoded query per line (bench/serve-queries.txt, from bench/serve_queries.py)
#   SYSTEM    the server's name in the results (sieve, anserini, ...); INDEX: the index's name
#   PID       the server's process: its peak RSS (VmHWM of /proc/PID/status) after each level
#   RESULTS   JSON lines appended (default target/serve-load/results.jsonl)
#
# Each line: {"system", "index", "clients", "seconds", "requests", "rps", "p50_ms", "p99_ms",
# "errors", "non2xx", "max_rss_kb", "socket_errors": {"connect", "read", "write", "timeout"},
# "mean_ms", "max_ms", "threads", "duration_s", "load"}. `errors` counts every failed request:
# socket errors (connect, read, write), timeouts and answers whose status is not 2xx; `non2xx` is
# the non-2xx part of it and `socket_errors` the rest by kind. Latencies are wrk's (completed
# requests only, non-2xx answers included; a request slower than TIMEOUT is a timeout error). `seconds` is wrk's measured duration, `rps` requests / seconds; `max_rss_kb` is
# the server's peak RSS since it started. `load` is the 1-minute load average before the level.
#
# Environment: DURATION (seconds per level, default 30), CLIENTS (default "1 8 32 128"), THREADS
# (wrk threads, default 2, at most the connections), TIMEOUT (wrk's request timeout in seconds,
# default 10), WARMUP (seconds of unrecorded load at 8 connections before the first level, default
# 5; 0 for none), WRK (default wrk). wrk comes from Debian's package `wrk`: installed with apt-get
# when missing (as root or with passwordless sudo; otherwise the script names the package and
# stops). Run it on a quiet machine: the numbers are only as good as the host's idleness.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
usage() { sed -n '6p' "$0" | sed 's/^# *//' >&2; exit 2; }
[[ $# -ge 5 && $# -le 6 ]] || usage
BASE="$1" QUERIES="$2" SYSTEM="$3" INDEX="$4" PID="$5"
RESULTS="${6:-$ROOT/target/serve-load/results.jsonl}"
DURATION="${DURATION:-30}"
CLIENTS="${CLIENTS:-1 8 32 128}"
THREADS="${THREADS:-2}"
TIMEOUT="${TIMEOUT:-10}"
WARMUP="${WARMUP:-5}"
WRK="${WRK:-wrk}"

[[ -s "$QUERIES" ]] || { echo "serve_load: no queries file $QUERIES (make it with bench/serve_queries.py)" >&2; exit 2; }
[[ -r "/proc/$PID/status" ]] || { echo "serve_load: no process $PID (/proc/$PID/status)" >&2; exit 2; }
[[ $BASE == http://* || $BASE == https://* ]] || { echo "serve_load: BASE_URL must start with http:// or https://: $BASE" >&2; exit 2; }
for n in "$DURATION" "$THREADS" "$TIMEOUT" "$WARMUP" $CLIENTS; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "serve_load: not a whole number: $n" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "serve_load: python3 is missing" >&2; exit 2; }

if ! command -v "$WRK" >/dev/null 2>&1; then
  echo "serve_load: installing wrk (Debian package wrk)" >&2
  if [[ $(id -u) == 0 ]]; then
    apt-get install -y wrk >&2 || { apt-get update >&2 && apt-get install -y wrk >&2; }
  elif sudo -n true 2>/dev/null; then
    sudo apt-get install -y wrk >&2 || { sudo apt-get update >&2 && sudo apt-get install -y wrk >&2; }
  else
    echo "serve_load: wrk is missing; install the package wrk (apt-get install wrk) or set WRK" >&2
    exit 2
  fi
fi

# The base URL must answer 2xx before any load (a wrong URL would give a table of errors).
first="$(head -n1 "$QUERIES")"
code="$(curl -sS -o /dev/null -w '%{http_code}' --max-time 60 "$BASE$first" || true)"
[[ $code == 2* ]] || { echo "serve_load: GET $BASE$first answered ${code:-nothing}, not 2xx" >&2; exit 1; }

mkdir -p "$(dirname "$RESULTS")"
export SERVE_LOAD_QUERIES="$QUERIES"
LUA="$HERE/serve_load.lua"

# run_wrk CLIENTS SECONDS: wrk's SERVE_LOAD line on standard output.
run_wrk() {
  local c="$1" secs="$2" t="$THREADS" out
  (( t > c )) && t="$c"
  out="$("$WRK" -t"$t" -c"$c" -d"${secs}s" --timeout "${TIMEOUT}s" -s "$LUA" "$BASE")" \
    || { echo "$out" >&2; echo "serve_load: wrk failed" >&2; exit 1; }
  grep '^SERVE_LOAD ' <<<"$out" | sed 's/^SERVE_LOAD //' \
    || { echo "$out" >&2; echo "serve_load: no SERVE_LOAD line from wrk" >&2; exit 1; }
}

if (( WARMUP > 0 )); then
  echo "serve_load: $SYSTEM warm-up, 8 connections, $WARMUP s (not recorded)" >&2
  run_wrk 8 "$WARMUP" >/dev/null
fi

for c in $CLIENTS; do
  load="$(cut -d' ' -f1 /proc/loadavg)"
  echo "serve_load: $SYSTEM $INDEX, $c connections, $DURATION s (load $load)" >&2
  summary="$(run_wrk "$c" "$DURATION")"
  hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$PID/status" 2>/dev/null || true)"
  [[ -n $hwm ]] || { echo "serve_load: server $PID is gone (no VmHWM) after $c connections" >&2; exit 1; }
  python3 - "$SYSTEM" "$INDEX" "$c" "$hwm" "$THREADS" "$DURATION" "$load" "$summary" <<'PYEOF' | tee -a "$RESULTS"
import json, sys
system, index, clients, hwm, threads, duration, load, summary = sys.argv[1:9]
s = json.loads(summary)
clients = int(clients)
rec = {
    "system": system, "index": index, "clients": clients,
    "seconds": round(s["seconds"], 3), "requests": s["requests"],
    "rps": round(s["requests"] / s["seconds"], 1) if s["seconds"] > 0 else 0.0,
    "p50_ms": round(s["p50_ms"], 3), "p99_ms": round(s["p99_ms"], 3),
    "errors": s["connect"] + s["read"] + s["write"] + s["timeout"] + s["non2xx"],
    "non2xx": s["non2xx"], "max_rss_kb": int(hwm),
    "socket_errors": {k: s[k] for k in ("connect", "read", "write", "timeout")},
    "mean_ms": round(s["mean_ms"], 3), "max_ms": round(s["max_ms"], 3),
    "threads": min(int(threads), clients), "duration_s": int(duration), "load": float(load),
}
print(json.dumps(rec))
PYEOF
done
echo "serve_load: appended to $RESULTS" >&2
