#!/usr/bin/env bash
# Speed of extract and build, one binary, one input, runs interleaved so that
# load drifting on a shared machine hits every variant alike:
#
#   build     sieve-index build   (near-duplicates on, the default)
#   nodup     sieve-index build --no-near-duplicates
#   extract   sieve-index extract (JSON lines, near-duplicates on)
#   main      sieve-index extract --text main
#   parquet   sieve-index extract --format parquet
#
# Prints each run (wall s, CPU s = user + sys, docs, peak RSS MB, MB of
# document files: *.jsonl.gz or *.parquet, 0 for an index), then per
# variant the medians, docs/s (wall and CPU) and the ratios that the
# targets are about: build/nodup (what MinHash adds to a build) and
# extract/build (docs/s). With --callgrind INPUT2, also counts instructions
# of build and nodup on INPUT2 under valgrind (independent of load; slow:
# keep INPUT2 small).
#
#   bench/extract_vs_build.sh BIN_DIR INPUT [--reps N] [--threads T] [--variants "V1 V2..."]
#                             [--callgrind INPUT2]
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
bin=$1/sieve-index input=$2; shift 2
reps=3 threads=2 cg_input= variants="build nodup extract main parquet"
while [ $# -gt 0 ]; do
    case $1 in
        --reps) reps=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --callgrind) cg_input=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); input $input; threads $threads; reps $reps"
args_of() {
    case $1 in
        build) echo "build --index $work/out" ;;
        nodup) echo "build --no-near-duplicates --index $work/out" ;;
        extract) echo "extract --output-dir $work/out" ;;
        main) echo "extract --text main --output-dir $work/out" ;;
        parquet) echo "extract --format parquet --output-dir $work/out" ;;
    esac
}
run() { # VARIANT -> "variant wall cpu docs rss_mb out_mb"
    rm -rf "$work/out"
    local s
    # shellcheck disable=SC2046
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$bin" $(args_of "$1") --input "$input" \
        --threads "$threads" >/dev/null 2>"$work/err" || true
    s=$(tail -n1 "$work/time")
    local docs
    docs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['indexed'])" \
        "$work/out/stats.json" 2>/dev/null || echo 0)
    local bytes
    bytes=$(find "$work/out" -maxdepth 1 \( -name '*.jsonl.gz' -o -name '*.parquet' \) -printf '%s\n' |
        awk '{ s += $1 } END { printf "%.1f", s / 1e6 }')
    echo "$1 $(echo "$s" | awk '{ printf "%s %.2f", $1, $2 + $3 }') $docs $(echo "$s" | awk '{ printf "%.0f", $4 / 1024 }') $bytes"
}
for _ in $(seq "$reps"); do
    for v in $variants; do
        run "$v" | tee -a "$work/runs"
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    v, wall, cpu, docs, rss, out_mb = line.split()
    runs.setdefault(v, []).append((float(wall), float(cpu), int(docs), int(rss), float(out_mb)))
med = {}
print("| variant | docs | wall s (median) | CPU s (median) | docs/s wall | docs/s CPU | peak RSS MB (max) | output MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for v, rs in runs.items():
    w = statistics.median(r[0] for r in rs)
    c = statistics.median(r[1] for r in rs)
    d = rs[0][2]
    med[v] = (w, c, d)
    print(f"| {v} | {d} | {w:.2f} | {c:.2f} | {d / w:.0f} | {d / c:.0f} | {max(r[3] for r in rs)} | {rs[0][4]:.1f} |")
if "build" in med and "nodup" in med:
    print(f"MinHash in build: wall {med['build'][0] / med['nodup'][0]:.3f}, CPU {med['build'][1] / med['nodup'][1]:.3f} (build / build --no-near-duplicates)")
if "build" in med and "extract" in med:
    print(f"extract vs build, docs/s: wall {med['build'][0] / med['extract'][0]:.2f}x, CPU {med['build'][1] / med['extract'][1]:.2f}x")
if "extract" in med and "parquet" in med:
    print(f"parquet vs jsonl extract, time: wall {med['parquet'][0] / med['extract'][0]:.2f}x, CPU {med['parquet'][1] / med['extract'][1]:.2f}x")
PY
if [ -n "$cg_input" ]; then
    for v in build nodup; do
        rm -rf "$work/out" "$work/cg.out"
        # shellcheck disable=SC2046
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" $(args_of "$v") \
            --input "$cg_input" --threads 1 >/dev/null 2>"$work/cg.err" || true
        echo "$v instructions: $(grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{ print $2 }')"
    done | tee "$work/cg"
    awk '/^build/ { b = $3 } /^nodup/ { n = $3 } END { if (n) printf "MinHash in build, instructions: %.4f\n", b / n }' "$work/cg"
fi
