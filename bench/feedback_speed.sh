#!/usr/bin/env bash
# Feedback's cost per topic next to a BM25 query on the same index, and next to Anserini.
#
#   bench/feedback_speed.sh [ROUNDS]
#       CACM (the committed fixture, built here with --docvectors), 64 topics.
#   bench/feedback_speed.sh [ROUNDS] --index DIR --topics FILE [--settings "bm25 rm3"]
#       any sieve index and topic file.
#   bench/feedback_speed.sh [ROUNDS] --peers SIEVE_INDEX ANSERINI_INDEX TOPICS
#       whole processes: `sieve-search run --feedback rm3` against Anserini 1.7.1's
#       `SearchCollection -bm25 -rm3` (topicReader Trec), both BM25 0.9/0.4, -hits 1000,
#       one thread; needs bench/peers/setup.sh. Also BM25 alone, both tools.
#
# Per-topic mode: --hits 1000, one thread, ROUNDS rounds of each setting alternating (BM25, RM3,
# BM25-PRF, Rocchio by default), the per-topic time the command prints (its search, first stage
# and feedback included; not opening the index). Prints each setting's median and its ratio to
# BM25's median. Peers mode: the wall time of each whole process (JVM start and index opening
# included), ROUNDS rounds alternating, medians and the ratio Anserini / sieve. Both modes print
# the load average before and after (the machine is shared: a loaded machine shows in it).
# Default ROUNDS 7; needs target/release binaries (CARGO_TARGET_DIR honoured).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=7
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then ROUNDS="$1"; shift; fi
INDEX="" TOPICS="" PEERS_MODE=0 SETTINGS="bm25 rm3 bm25prf rocchio"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --index) INDEX="$2"; shift 2 ;;
    --topics) TOPICS="$2"; shift 2 ;;
    --settings) SETTINGS="$2"; shift 2 ;;
    --peers) PEERS_MODE=1; INDEX="$2"; ANSERINI_INDEX="$3"; TOPICS="$4"; shift 4 ;;
    *) echo "feedback_speed: unknown argument $1" >&2; exit 2 ;;
  esac
done
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if [[ -z $INDEX ]]; then
  "$BIN/sieve-index" build --input "$REPO/tests/data/cacm/cacm.trec.gz" --index "$WORK/cacm" \
    --docvectors >/dev/null 2>&1
  INDEX="$WORK/cacm" TOPICS="$REPO/topics/topics.cacm.txt"
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A MS

if [[ $PEERS_MODE == 1 ]]; then
  source "$REPO/bench/peers/common.sh"
  need_peers
  wall() { # NAME CMD...: appends the whole process's wall seconds to MS[NAME]
    local name="$1"; shift
    "$PY" "$PEERS/timed.py" "$WORK/$name.json" -- "$@" >"$WORK/$name.log" 2>&1 \
      || { tail -20 "$WORK/$name.log" >&2; exit 1; }
    MS[$name]+="$("$PY" -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["wall_s"], 3))' "$WORK/$name.json") "
  }
  ANS=("$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" io.anserini.search.SearchCollection
    -index "$ANSERINI_INDEX" -topics "$TOPICS" -topicReader Trec -bm25 -bm25.k1 0.9 -bm25.b 0.4
    -hits 1000 -threads 1)
  SIEVE=("$BIN/sieve-search" run --index "$INDEX" --topics "$TOPICS" --k1 0.9 --b 0.4 --hits 1000
    --threads 1)
  for r in $(seq "$ROUNDS"); do
    wall sieve-bm25 "${SIEVE[@]}" --output "$WORK/sieve-bm25.run"
    wall sieve-rm3 "${SIEVE[@]}" --feedback rm3 --output "$WORK/sieve-rm3.run"
    wall anserini-bm25 "${ANS[@]}" -output "$WORK/anserini-bm25.run"
    wall anserini-rm3 "${ANS[@]}" -rm3 -output "$WORK/anserini-rm3.run"
  done
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  "$PY" - "${MS[sieve-bm25]}" "${MS[sieve-rm3]}" "${MS[anserini-bm25]}" "${MS[anserini-rm3]}" <<'EOF'
import statistics, sys
names = ["sieve-bm25", "sieve-rm3", "anserini-bm25", "anserini-rm3"]
med = {n: statistics.median(float(x) for x in v.split()) for n, v in zip(names, sys.argv[1:])}
for n in names:
    print(f"{n:14s} median {med[n]:8.3f} s (whole process)   runs: {sys.argv[1 + names.index(n)].strip()}")
print(f"rm3:  anserini / sieve = {med['anserini-rm3'] / med['sieve-rm3']:.2f}")
print(f"bm25: anserini / sieve = {med['anserini-bm25'] / med['sieve-bm25']:.2f}")
print(f"sieve rm3 / bm25 (whole process) = {med['sieve-rm3'] / med['sieve-bm25']:.2f}")
EOF
  exit 0
fi

for r in $(seq "$ROUNDS"); do
  for setting in $SETTINGS; do
    extra=()
    [[ $setting != bm25 ]] && extra=(--feedback "$setting")
    line=$("$BIN/sieve-search" run --index "$INDEX" --topics "$TOPICS" --k1 0.9 --b 0.4 \
      --hits 1000 --threads 1 --output "$WORK/$setting.run" "${extra[@]}" 2>&1 >/dev/null \
      | grep -o '([0-9.]* ms per topic' || true)
    MS[$setting]+="$(echo "$line" | tr -dc '0-9.') "
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for s in $SETTINGS; do args+=("$s=${MS[$s]}"); done
python3 - "${args[@]}" <<'EOF'
import statistics, sys
runs = [a.split("=", 1) for a in sys.argv[1:]]
med = {n: statistics.median(float(x) for x in v.split()) for n, v in runs}
base = med.get("bm25")
for n, v in runs:
    ratio = f"   ratio to bm25 {med[n] / base:6.2f}" if base else ""
    print(f"{n:8s} median {med[n]:8.3f} ms per topic{ratio}   runs: {v.strip()}")
EOF
