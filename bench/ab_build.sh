#!/usr/bin/env bash
# A/B cost of a change to `sieve-index build`: two sieve-index binaries (say,
# before and after a change, each `cargo build --release --bin sieve-index`
# in its own checkout), the same input, runs interleaved A B A B ... so that
# load drifting on a shared machine hits both alike. Prints each run, then
# the median wall time, CPU time (user + sys) and docs/s of each and the
# ratio B/A. With --callgrind, also counts instructions of one build of each
# under valgrind's callgrind (repeatable whatever else the machine is doing;
# slow: keep the input small), the ratio of which is the machine-independent
# figure.
#
#   bench/ab_build.sh A_BIN B_BIN INPUT [--reps N] [--threads T] [--callgrind INPUT2]
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
a=$1 b=$2 input=$3; shift 3
reps=5 threads=2 cg_input=
while [ $# -gt 0 ]; do
    case $1 in
        --reps) reps=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --callgrind) cg_input=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); input $input; threads $threads; reps $reps"
run() { # BIN LABEL -> "label wall cpu docs"
    rm -rf "$work/idx"
    local t0 t1 s
    t0=$(date +%s.%N)
    s=$( { /usr/bin/time -f '%U %S' "$1" build --input "$input" --index "$work/idx" \
        --threads "$threads" >/dev/null 2>"$work/err"; } 2>&1 || true)
    t1=$(date +%s.%N)
    local cpu docs
    cpu=$(tail -n1 "$work/err" | awk '{ print $1 + $2 }')
    docs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['indexed'])" \
        "$work/idx/stats.json" 2>/dev/null || echo 0)
    echo "$2 $(echo "$t1 - $t0" | bc) $cpu $docs"
}
for i in $(seq "$reps"); do
    run "$a" A; run "$b" B
done | tee "$work/runs"
python3 - "$work/runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for lab in "AB":
    r = [(float(w), float(c), int(d)) for l, w, c, d in rows if l == lab]
    med[lab] = (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r), r[0][2])
    w, c, d = med[lab]
    print(f"{lab}: median wall {w:.3f} s, CPU {c:.2f} s, {d} docs, {d / w:.0f} docs/s")
print(f"B/A: wall {med['B'][0] / med['A'][0]:.4f}, CPU {med['B'][1] / med['A'][1]:.4f}")
if med["A"][2] != med["B"][2]:
    print(f"note: A indexed {med['A'][2]} docs, B {med['B'][2]}")
PY
if [ -n "$cg_input" ]; then
    command -v valgrind >/dev/null || { echo "valgrind missing: no instruction counts" >&2; exit 0; }
    for lab in A B; do
        bin=$a; [ $lab = B ] && bin=$b
        rm -rf "$work/idx"
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.$lab" "$bin" build \
            --input "$cg_input" --index "$work/idx" --threads 1 >/dev/null 2>"$work/cg.err.$lab" || true
        grep -o 'Collected : [0-9]*' "$work/cg.err.$lab" | awk -v l=$lab '{ print l" instructions "$3 }' \
            || sed -n '$p' "$work/cg.err.$lab"
    done | tee "$work/cg"
    awk '{ v[$1] = $3 } END { if (v["A"] > 0) printf "B/A: instructions %.4f\n", v["B"] / v["A"] }' "$work/cg"
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
