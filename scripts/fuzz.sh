#!/usr/bin/env bash
# Runs fuzz targets with libFuzzer for a fixed time each, without cargo-fuzz
# or a nightly toolchain: the targets are built with the stable compiler's
# SanitizerCoverage passes (coverage-guided; no AddressSanitizer, which
# needs nightly) into target/fuzz-cov, and each runs SECONDS seconds on one
# core with its corpus in fuzz/corpus/TARGET (not committed) and crashes in
# fuzz/artifacts/TARGET.
#
#   scripts/fuzz.sh TARGET SECONDS     one target
#   scripts/fuzz.sh all SECONDS        every [[bin]] of fuzz/Cargo.toml
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 TARGET|all SECONDS" >&2; exit 2; }
target=$1 seconds=$2
if [ "$target" = all ]; then
    targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^sieve-fuzz$')
else
    targets=$target
fi
dir=${CARGO_TARGET_DIR:-target}/fuzz-cov
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
for t in $targets; do
    cargo build --manifest-path fuzz/Cargo.toml --target-dir "$dir" --release --bin "$t"
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    echo "==> $t for ${seconds}s"
    "$dir/release/$t" -max_total_time="$seconds" -artifact_prefix="fuzz/artifacts/$t/" \
        -print_final_stats=1 "fuzz/corpus/$t"
done
