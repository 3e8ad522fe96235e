#!/usr/bin/env bash
# The README's first command: build sieve and run the main job on the
# bundled sample data. Grows as the pipeline lands.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/setup.sh
step() { printf '\n==> %s\n' "$*"; }

step "build (release)"
cargo build --release --locked --bins
BIN=target/release

step "UTF-8 error counts on the bundled sample (seven classes)"
"$BIN/sieve-filter" utf8 tests/data/utf8/every-class.html --out target/demo-cleaned.html
echo "cleaned copy: target/demo-cleaned.html"
