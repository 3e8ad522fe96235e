#!/usr/bin/env bash
# The project's test command (README.md, second command; .ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/setup.sh
step() { printf '\n==> %s\n' "$*"; }

step "evaluation oracles (Python venv: pytrec_eval, ir_measures, scipy)"
bash scripts/setup-python.sh
step "build"
cargo build --workspace --all-targets --locked
step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "tests and doctests"
cargo test --workspace --locked
step "fuzz targets build"
cargo build --manifest-path fuzz/Cargo.toml --target-dir target/fuzz --bins
