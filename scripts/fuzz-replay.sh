#!/usr/bin/env bash
# Runs every fuzz target once on each committed fixture it is seeded from
# (scripts/fuzz-seeds.sh; the first 64 KiB of each, as scripts/fuzz.sh
# seeds libFuzzer) and on an empty input, from the binaries the workspace
# build made without libFuzzer (fuzz/lib.rs: each replays the files it is
# given). A panic aborts the target and fails the script. No coverage, no
# mutation: scripts/fuzz.sh does the fuzzing; this checks that every
# target runs and that no seed crashes it.
#
#   scripts/fuzz-replay.sh [BIN_DIR]      (default: $CARGO_TARGET_DIR/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-${CARGO_TARGET_DIR:-target}/debug}
. scripts/fuzz-seeds.sh
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^sieve-fuzz$')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/empty"
total=0
for t in $targets; do
    [ -x "$bin/$t" ] || { echo "fuzz-replay: no binary $bin/$t (cargo build --workspace --all-targets)" >&2; exit 2; }
    inputs=("$work/empty")
    for s in $(seeds_of "$t"); do
        [ -d "$s" ] || { echo "fuzz-replay: seed directory $s of $t is missing" >&2; exit 2; }
        while IFS= read -r f; do
            cut="$work/$t.$(echo "$f" | tr / _)"
            head -c 65536 "$f" >"$cut"
            inputs+=("$cut")
        done < <(find "$s" -type f ! -name '*.md' | sort)
    done
    "$bin/$t" "${inputs[@]}" || { echo "fuzz-replay: $t failed on one of ${#inputs[@]} inputs" >&2; exit 1; }
    total=$((total + ${#inputs[@]}))
done
echo "fuzz-replay: $(echo "$targets" | wc -w) targets, $total inputs, no crash"
