#!/usr/bin/env bash
# Feedback's cost per topic next to a BM25 query on the same index: CACM (the committed fixture),
# 64 topics, --hits 1000, one thread, ROUNDS rounds of each run alternating (BM25, RM3, BM25-PRF,
# Rocchio), the per-topic time the command prints (its search, first stage and feedback included;
# not opening the index). Prints each setting's median and its ratio to BM25's median, and the
# load average before and after (the machine is shared: a loaded machine shows in it).
#
#   bench/feedback_speed.sh [ROUNDS]       (default 7; needs target/release binaries)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-7}"
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$BIN/sieve-index" build --input "$REPO/tests/data/cacm/cacm.trec.gz" --index "$WORK/cacm" >/dev/null 2>&1
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A MS
for r in $(seq "$ROUNDS"); do
  for setting in bm25 rm3 bm25prf rocchio; do
    extra=()
    [[ $setting != bm25 ]] && extra=(--feedback "$setting")
    line=$("$BIN/sieve-search" run --index "$WORK/cacm" --topics "$REPO/topics/topics.cacm.txt" \
      --hits 1000 --threads 1 --output "$WORK/$setting.run" "${extra[@]}" 2>&1 >/dev/null | grep -o '([0-9.]* ms per topic' || true)
    MS[$setting]+="$(echo "$line" | tr -dc '0-9.') "
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "${MS[bm25]}" "${MS[rm3]}" "${MS[bm25prf]}" "${MS[rocchio]}" <<'EOF'
import statistics, sys
names = ["bm25", "rm3", "bm25prf", "rocchio"]
med = {n: statistics.median(float(x) for x in v.split()) for n, v in zip(names, sys.argv[1:])}
for n in names:
    print(f"{n:8s} median {med[n]:8.3f} ms per topic   ratio to bm25 {med[n] / med['bm25']:6.2f}   runs: {sys.argv[1 + names.index(n)].strip()}")
EOF
