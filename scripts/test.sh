#!/usr/bin/env bash
# The project's test command (README.md, second command; .ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# A test run compiles the workspace once: incremental compilation's
# bookkeeping would only slow it (cargo's advice for CI builds).
export CARGO_INCREMENTAL=0
# Two test threads per core: the integration tests spend part of their
# time waiting on the programs they start (2 cores, the integration binary
# alone, two rounds: 99 s and 111 s with 4 threads against 105 s and
# 119 s with 2). RUST_TEST_THREADS set by the caller wins.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$((2 * $(nproc)))}"
. scripts/setup.sh
# Each step prints its start time since the script began, so a slow step
# shows in the log (CI's and yours).
step() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# The Python venv (evaluation oracles pytrec_eval, ir_measures, scipy;
# maturin, pandas, pytest, pyterrier) is made while cargo compiles: pip
# mostly waits on the network and the disk. The tests need it; it is
# awaited before them.
mkdir -p "${CARGO_TARGET_DIR:-target}"
venv_log="${CARGO_TARGET_DIR:-target}/setup-python.log"
step "Python venv, in the background (log: $venv_log)"
bash scripts/setup-python.sh >"$venv_log" 2>&1 &
venv_pid=$!
# Clippy lints the workspace's own crates while they are compiled (clippy's
# driver wraps rustc for workspace members only, as `cargo clippy` does),
# so the dependencies are compiled once, not once more for a check build.
# `cargo test` runs with the same wrapper, so it reuses every artifact.
# Lint levels: [workspace.lints] in Cargo.toml; warnings are errors.
driver="$(command -v clippy-driver)" || { echo "clippy-driver not found: rustup component add clippy" >&2; exit 1; }
export RUSTC_WORKSPACE_WRAPPER="$driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
step "rustfmt (the code is formatted)"
cargo fmt --all --check
step "build and clippy (libraries, binaries, tests, benches, examples and the fuzz targets; warnings are errors)"
# The fuzz targets are a workspace member (fuzz/): built here with the
# dependencies everything else uses, not in a second target folder.
cargo build --workspace --all-targets --locked
step "waiting for the Python venv"
wait "$venv_pid" || { cat "$venv_log" >&2; echo "setup-python.sh failed" >&2; exit 1; }
cat "$venv_log"
step "tests and doctests ($RUST_TEST_THREADS test threads per binary)"
cargo test --workspace --locked
step "fuzz targets: each runs on its committed seeds (no libFuzzer; scripts/fuzz.sh fuzzes)"
bash scripts/fuzz-replay.sh
step "Python package: the extension built into .venv (maturin, dev profile), then pytest"
# --no-build-isolation: maturin comes from the pinned venv (no download).
# The dev profile, the same lint wrapper and the same features (see
# python/Cargo.toml) reuse what the build step compiled: only pyo3 (its
# build configuration reads maturin's environment) and the extension are
# compiled again.
PATH="$PWD/.venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev --locked" \
  .venv/bin/python -m pip install --quiet --no-build-isolation --no-deps --disable-pip-version-check ./python
SIEVE_BIN_DIR="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug" \
  .venv/bin/python -m pytest python/tests -q -p no:cacheprovider
step "done"
