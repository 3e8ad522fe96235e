#!/usr/bin/env bash
# The cost of a threshold sweep against a single run, whole processes
# (target: "a sweep of 10 thresholds costs <= 3x a single run").
#
#     bench/sweep_cost.sh IDX [REPS]
#
# IDX: an index with spam percentiles, e.g. the search bench's
# (target/bench-data/search-N/index, made by `SIEVE_BENCH_DOCS=N cargo bench
# -p sieve-bench --bench search`). Release binaries from target/release
# (SIEVE_BIN_DIR overrides). Topics: topics/topics.robust04.txt (250
# titles; TOPICS overrides).
#
# A: `sieve-search run`, unfiltered, top 1000, one run file.
# B: `sieve-search sweep --min-spam-percentile 5,15,...,95` (ten thresholds
#    and the unfiltered run, top 1000), evaluated against MADE-UP qrels
#    (from A's run: per topic, ranks 1, 3, ..., 39 judged relevant and
#    2, 4, ..., 40 not), sweep.tsv and sweep.svg written; no run files.
# B+runs: the same with --runs (eleven run files); B filtered: with
#    --collection-stats filtered.
# B all: B with every optional statistic on (SWEEP_ALL_FLAGS, default
#    `--judged-only`; the judged loss, the randomisation and Wilcoxon tests,
#    the bootstrap interval and the risk measures are always on).
# With BASE_BIN=DIR (binaries of an earlier commit): B base, that binary's
#    B, and the ratio of B all to it (the cost of the statistics added
#    since).
# Each is run REPS times (default 5), interleaved A, B, B+runs, B filtered,
# B all, B base, A, ...; medians of wall time, and the ratios to A.
# Threads: all cores (THREADS overrides, passed as --threads).
set -euo pipefail
cd "$(dirname "$0")/.."
IDX=${1:?usage: bench/sweep_cost.sh IDX [REPS]}
REPS=${2:-5}
BIN=${SIEVE_BIN_DIR:-target/release}
TOPICS=${TOPICS:-topics/topics.robust04.txt}
THREADS=${THREADS:+--threads $THREADS}
BASE_BIN=${BASE_BIN:-}
SWEEP_ALL_FLAGS=${SWEEP_ALL_FLAGS:---judged-only}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sieve-sweep-cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$BIN/sieve-search" run --index "$IDX" --topics "$TOPICS" --hits 1000 --output "$WORK/a.run" 2>/dev/null
awk '{ if ($4 <= 40) print $1, 0, $3, ($4 % 2 == 1) ? 1 : 0 }' "$WORK/a.run" >"$WORK/made-up.qrels"
THRESHOLDS=5,15,25,35,45,55,65,75,85,95

declare -A times
run() { # NAME CMD...
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  times[$name]+="$(echo "$t1 - $t0" | bc) "
}
for _ in $(seq "$REPS"); do
  run A "$BIN/sieve-search" run --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS --output "$WORK/a.run"
  run B "$BIN/sieve-search" sweep --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS \
      --qrels "$WORK/made-up.qrels" --min-spam-percentile $THRESHOLDS --output-dir "$WORK/b"
  run B_runs "$BIN/sieve-search" sweep --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS \
      --qrels "$WORK/made-up.qrels" --min-spam-percentile $THRESHOLDS --output-dir "$WORK/c" --runs
  run B_filtered "$BIN/sieve-search" sweep --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS \
      --qrels "$WORK/made-up.qrels" --min-spam-percentile $THRESHOLDS --output-dir "$WORK/d" \
      --collection-stats filtered
  run B_all "$BIN/sieve-search" sweep --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS \
      --qrels "$WORK/made-up.qrels" --min-spam-percentile $THRESHOLDS --output-dir "$WORK/e" \
      $SWEEP_ALL_FLAGS
  if [[ -n $BASE_BIN ]]; then
    run B_base "$BASE_BIN/sieve-search" sweep --index "$IDX" --topics "$TOPICS" --hits 1000 $THREADS \
        --qrels "$WORK/made-up.qrels" --min-spam-percentile $THRESHOLDS --output-dir "$WORK/f"
  fi
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
a=$(echo "${times[A]}" | median)
echo "index $IDX, topics $TOPICS, $REPS reps interleaved, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-52s %8.3f s\n' "A: run, unfiltered, one run file" "$a"
keys="B B_runs B_filtered B_all"
[[ -n $BASE_BIN ]] && keys+=" B_base"
for k in $keys; do
  m=$(echo "${times[$k]}" | median)
  case $k in
    B) label="B: sweep, 10 thresholds + unfiltered, full stats";;
    B_runs) label="B + --runs (11 run files)";;
    B_filtered) label="B with --collection-stats filtered";;
    B_all) label="B all: B with $SWEEP_ALL_FLAGS";;
    B_base) label="B base: B by $BASE_BIN";;
  esac
  printf '%-52s %8.3f s   %.2fx A\n' "$label" "$m" "$(echo "$m / $a" | bc -l)"
done
if [[ -n $BASE_BIN ]]; then
  all=$(echo "${times[B_all]}" | median)
  base=$(echo "${times[B_base]}" | median)
  printf '%-52s %.2fx\n' "B all / B base (the statistics added since)" "$(echo "$all / $base" | bc -l)"
fi
