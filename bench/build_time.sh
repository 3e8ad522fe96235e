#!/usr/bin/env bash
# Build times of the workspace at one or more commits, each in its own
# checkout and target folder (nothing shared but the Cargo registry):
#
#   clean        cargo build --workspace --all-targets --locked, from an
#                empty target folder (dependencies included)
#   touch_crawl  cargo test --workspace --locked --no-run after touching
#                the WARC reader (the crawl crate's, or the indexer's before
#                the crates were split): what a change to one crawl file
#                costs before its tests can run
#
# Usage: bench/build_time.sh [COMMIT...]   (default: HEAD)
# Prints one TSV line per commit. Run it on a quiet machine: it is a
# timing, and other work on the cores changes it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${TMPDIR:-/tmp}/sieve-build-time"
[[ $# -gt 0 ]] || set -- HEAD
export CARGO_TERM_COLOR=never

seconds() { # seconds COMMAND...: runs it quietly, prints the wall time
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.1f}')"
}

crawl_file() { # the WARC reader's file in checkout $1
  local f
  for f in crates/crawl/src/warc.rs crates/crawl/src/warc/mod.rs indexer/src/crawl/warc.rs; do
    [[ -f "$1/$f" ]] && { echo "$1/$f"; return; }
  done
  echo "no WARC reader file found in $1" >&2
  return 1
}

mkdir -p "$work"
printf 'commit\tclean_build_s\ttouch_crawl_test_build_s\tcores\n'
for rev in "$@"; do
  sha=$(git -C "$repo" rev-parse --short "$rev")
  tree="$work/$sha"
  rm -rf "$tree"
  git -C "$repo" worktree add -q --detach "$tree" "$sha"
  export CARGO_TARGET_DIR="$tree/target"
  clean=$(cd "$tree" && seconds cargo build --workspace --all-targets --locked)
  (cd "$tree" && cargo test --workspace --locked --no-run >/dev/null 2>&1)
  touch "$(crawl_file "$tree")"
  touched=$(cd "$tree" && seconds cargo test --workspace --locked --no-run)
  printf '%s\t%s\t%s\t%s\n' "$sha" "$clean" "$touched" "$(nproc)"
  git -C "$repo" worktree remove --force "$tree"
done
