#!/usr/bin/env bash
# Opt-in check that the page of `sieve-search serve` works in a real
# browser (not part of CI: it installs Chromium, about 300 MB, and
# playwright-core from npm). One command:
#
#     bash scripts/test-serve-browser.sh
#
# 1. Chromium from the distribution's packages (`apt-get install -y
#    chromium`, as root or with passwordless sudo; otherwise it names the
#    package and stops); playwright-core at the version pinned in
#    tests/browser/package-lock.json (`npm ci`; Playwright's own browser
#    download is not used); the debug binaries.
# 2. Two indexes: CACM with MADE-UP spam percentiles
#    (tests/data/spam/made-up-cacm-spam.txt) as `cacm`, and the hand-made
#    hostile crawl tests/data/page/hostile-serve.jsonl (docids, titles,
#    URLs and text holding markup, script, javascript: and data: URLs,
#    U+202E; spam percentiles from hostile-serve-spam.txt) as `hostile`.
# 3. `sieve-search serve` on a free loopback port, then
#    tests/browser/serve.mjs: search, spam filter, side-by-side view,
#    document view, history, errors, at 390x844 and 1366x900, checking the
#    DOM at each step and that nothing from the hostile crawl became live;
#    it fails on any console error, CSP violation or request elsewhere.
#
# The screenshots (one per step and size) stay in OUT (default
# target/serve-browser) for a human to look at. Environment: OUT,
# CHROMIUM (default: chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }
OUT=${OUT:-target/serve-browser}

step "Chromium"
. scripts/chromium.sh
ensure_chromium test-serve-browser

step "playwright-core (the version in tests/browser/package-lock.json)"
if ! command -v npm >/dev/null 2>&1; then
  echo "test-serve-browser: npm is missing; install Node.js 18 or later (Debian/Ubuntu: apt-get install -y nodejs npm)" >&2
  exit 1
fi
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)

step "build the sieve binaries (debug)"
cargo build --locked --bin sieve-search --bin sieve-index
BIN=${CARGO_TARGET_DIR:-target}/debug

rm -rf "$OUT"; mkdir -p "$OUT"
OUT=$(realpath "$OUT")
WORK=$(mktemp -d -t sieve-serve-browser.XXXXXX)
SERVER=
cleanup() {
  if [[ -n $SERVER ]]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step "index CACM (MADE-UP spam percentiles) and the hostile crawl"
"$BIN/sieve-index" build --input tests/data/cacm/cacm.trec.gz --index "$WORK/cacm" \
    --spam tests/data/spam/made-up-cacm-spam.txt >/dev/null 2>&1
"$BIN/sieve-index" build --input tests/data/page/hostile-serve.jsonl --index "$WORK/hostile" \
    --spam tests/data/page/hostile-serve-spam.txt >/dev/null 2>&1

step "sieve-search serve on a free port"
"$BIN/sieve-search" serve --index "cacm=$WORK/cacm" --index "hostile=$WORK/hostile" \
    --bind 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER=$!
BASE=
for _ in $(seq 1 300); do
  BASE=$(sed -n '1s/^listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$WORK/serve.out")
  [[ -n $BASE ]] && break
  if ! kill -0 "$SERVER" 2>/dev/null; then break; fi
  sleep 0.1
done
if [[ -z $BASE ]]; then
  echo "test-serve-browser: the server did not start:" >&2
  cat "$WORK/serve.out" "$WORK/serve.err" >&2
  exit 1
fi
echo "server at $BASE"

step "the page in Chromium (tests/browser/serve.mjs)"
code=0
BASE=$BASE OUT=$OUT CHROMIUM=$CHROMIUM node tests/browser/serve.mjs || code=$?
if [[ $code != 0 ]]; then
  echo "server's standard error:" >&2
  tail -n 20 "$WORK/serve.err" >&2
  echo "test-serve-browser: FAILED (screenshots in $OUT)" >&2
  exit 1
fi
echo "test-serve-browser: ok (screenshots in $OUT)"
