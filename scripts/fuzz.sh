#!/usr/bin/env bash
# Runs fuzz targets with libFuzzer for a fixed CPU time each, without
# cargo-fuzz or a nightly toolchain: the targets are built with the stable
# compiler's SanitizerCoverage passes (coverage-guided; no AddressSanitizer,
# which needs nightly; debug assertions and overflow checks on) into
# $CARGO_TARGET_DIR/fuzz-cov, and each runs until its process has used
# CPU_SECONDS of CPU time (user + system, read from /proc; on a busy machine
# that takes longer than CPU_SECONDS of wall time). The corpus grows in
# fuzz/corpus/TARGET (not committed), seeded from the committed fixtures that
# target reads (first 64 KiB of each); crashes go to fuzz/artifacts/TARGET and
# make the script exit 1. A summary line per target (time, target, CPU
# seconds used (sampled every 2 s; less than the budget when a crash stopped
# it), runs, coverage, corpus files, crash files, libFuzzer's exit code) is appended to fuzz/artifacts/summary.tsv.
#
#   scripts/fuzz.sh TARGET CPU_SECONDS     one target
#   scripts/fuzz.sh all CPU_SECONDS        every [[bin]] of fuzz/Cargo.toml
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 TARGET|all CPU_SECONDS" >&2; exit 2; }
target=$1 budget=$2
if [ "$target" = all ]; then
    targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^sieve-fuzz$')
else
    targets=$target
fi
dir=${CARGO_TARGET_DIR:-target}/fuzz-cov
# An explicit --target keeps RUSTFLAGS away from build scripts and proc macros,
# which cannot link the coverage hooks.
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"

# Committed fixtures each target starts from.
seeds_of() {
    case $1 in
        utf8_clean) echo tests/data/utf8 tests/data/html ;;
        topics_reader) echo topics tests/data/cacm ;;
        qrels_reader | run_reader) echo tests/data/eval tests/data/cacm ;;
        warc_reader) echo tests/data/warc fuzz/seeds/docids/warc_reader ;;
        http_headers) echo tests/data/warc ;;
        trec_reader) echo tests/data/trec fuzz/seeds/docids/trec_reader ;;
        smart_reader) echo tests/data/cranfield fuzz/seeds/docids/smart_reader ;;
        jsonl_reader) echo tests/data/jsonl tests/data/clueweb22/txt fuzz/seeds/docids/jsonl_reader ;;
        tsv_reader) echo tests/data/tsv fuzz/seeds/docids/tsv_reader ;;
        record_span) echo tests/data/jsonl tests/data/tsv tests/data/trec tests/data/cranfield ;;
        html_extract | html_main) echo tests/data/html ;;
        stats_tsv) echo tests/data/report ;;
        spam_reader) echo tests/data/spam ;;
        index_json) echo fuzz/seeds/index_json ;;
        near_dup_files) echo fuzz/seeds/near_dup_files ;;
        feedback_vectors) echo fuzz/seeds/feedback_vectors ;;
        weighted_queries) echo fuzz/seeds/weighted_queries ;;
        first_stage_run) echo tests/data/eval ;;
    esac
}

cpu_ticks() { # utime + stime of PID, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo -1
}

tick=$(getconf CLK_TCK)
status=0
mkdir -p fuzz/artifacts
for t in $targets; do
    cargo build --manifest-path fuzz/Cargo.toml --target-dir "$dir" --release --target "$triple" --bin "$t"
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    seeds=$(mktemp -d)
    for s in $(seeds_of "$t"); do
        [ -d "$s" ] || continue
        find "$s" -type f ! -name '*.md' | while read -r f; do
            head -c 65536 "$f" >"$seeds/$(echo "$f" | tr / _)"
        done
    done
    log="fuzz/artifacts/$t/last.log"
    echo "==> $t for ${budget} CPU seconds (log: $log)"
    "$dir/$triple/release/$t" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 \
        "fuzz/corpus/$t" "$seeds" >"$log" 2>&1 &
    pid=$!
    used=0
    while kill -0 "$pid" 2>/dev/null; do
        now=$(cpu_ticks "$pid")
        [ "$now" -lt 0 ] || used=$now
        if [ "$used" -ge $((budget * tick)) ]; then
            kill -INT "$pid" 2>/dev/null || true
            break
        fi
        sleep 2
    done
    rc=0
    wait "$pid" || rc=$?
    rm -rf "$seeds"
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
    crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$((used / tick))" \
        "${runs:-?}" "${cov:-?}" "$corpus" "$crashes" "$rc" | tee -a fuzz/artifacts/summary.tsv
    # libFuzzer exits 72 when interrupted at the budget; a crash, timeout or oom
    # leaves an input file in the artifacts directory, which is the finding.
    if [ "$crashes" -gt 0 ]; then
        echo "!! $t: $crashes crash/timeout/oom input(s) in fuzz/artifacts/$t" >&2
        status=1
    fi
done
exit $status
