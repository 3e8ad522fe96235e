#!/usr/bin/env bash
# The project's test command (README.md, second command; .ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/setup.sh
# Each step prints its start time since the script began, so a slow step
# shows in the log (CI's and yours).
step() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

step "Python venv (evaluation oracles pytrec_eval, ir_measures, scipy; maturin, pandas, pytest, pyterrier)"
bash scripts/setup-python.sh
step "build (libraries, binaries, tests, benches, examples and the fuzz targets)"
# The fuzz targets are a workspace member (fuzz/): built here with the
# dependencies everything else uses, not in a second target folder.
cargo build --workspace --all-targets --locked
step "rustfmt (the code is formatted)"
cargo fmt --all --check
step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "tests and doctests"
cargo test --workspace --locked
step "Python package: the extension built into .venv (maturin, dev profile), then pytest"
# --no-build-isolation: maturin comes from the pinned venv (no download);
# the dev profile reuses the dependencies the build step compiled, so only
# pyo3 and the extension itself are compiled again.
PATH="$PWD/.venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev --locked" \
  .venv/bin/python -m pip install --quiet --no-build-isolation --no-deps --disable-pip-version-check ./python
SIEVE_BIN_DIR="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug" \
  .venv/bin/python -m pytest python/tests -q -p no:cacheprovider
step "done"
