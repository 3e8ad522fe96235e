#!/usr/bin/env bash
# Instructions per search case, independent of the machine's load: runs the search bench under
# callgrind once per case and prints each case's total minus the `none` case's (the bench's
# fixed cost: opening the index, reading the topics), in G instructions.
#
#   bench/callgrind_search.sh BENCH_BINARY DOCS OUT_DIR CASE...
#
# BENCH_BINARY: `cargo bench -p sieve-bench --bench search --no-run` prints it
# (target/release/deps/search-<hash>). DOCS: 100000 or 1000000 (the bench index under
# $SIEVE_BENCH_DATA, built on first use). One run per topic after a warm-up (SIEVE_BENCH_RUNS=1),
# without the bench's checks that reordered indexes give the same hits (SIEVE_BENCH_SAME=0).
# Needs valgrind and $SIEVE_SHARED_DATA (the topics).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,12p' "$0"; exit 2; }
BIN=$1; DOCS=$2; OUT=$3; shift 3
mkdir -p "$OUT"
export SIEVE_BENCH_DOCS=$DOCS SIEVE_BENCH_RUNS=1 SIEVE_BENCH_SAME=0
total() {
  SIEVE_BENCH_CASES=$1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$1" "$BIN" --bench \
    >/dev/null 2>"$OUT/err.$1"
  grep -m1 '^summary:\|^totals:' "$OUT/cg.$1" | awk '{print $2}'
}
base=$(total none)
for c in "$@"; do
  n=$(total "$c")
  python3 -c "print('$c', round(($n - $base) / 1e9, 3), 'G')"
done
