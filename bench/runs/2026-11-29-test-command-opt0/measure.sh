#!/usr/bin/env bash
# The test command from a fresh clone, with cargo's unit timings of its build:
#
#   measure.sh CHECKOUT REV OUT
#
# clones CHECKOUT at REV into OUT/sieve (OUT/shared must hold or link the shared data, as on
# CI), makes the Python venv in the background while `cargo build --workspace --all-targets
# --locked --timings` runs with the test command's environment, then runs `CI=true bash .ci/run`
# (whose build step then has nothing to do). OUT/summary.txt: the build's and the rest's wall
# seconds and the test command's step times; the timing report is under OUT/sieve/target/.
set -u
checkout=$1 rev=$2 out=$3
mkdir -p "$out" && cd "$out" || exit 2
git clone -q "$checkout" sieve && cd sieve && git checkout -q "$rev" || exit 2
export CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never
export RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
(bash scripts/setup-python.sh >../venv.log 2>&1) &
s=$SECONDS
cargo build --workspace --all-targets --locked --timings >../build.log 2>&1
echo "build $((SECONDS - s)) s rc=$?" | tee ../summary.txt
wait
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
s=$SECONDS
CI=true bash .ci/run >../run.log 2>&1
echo "test command after build: $((SECONDS - s)) s rc=$?" | tee -a ../summary.txt
grep '^==> ' ../run.log >>../summary.txt
