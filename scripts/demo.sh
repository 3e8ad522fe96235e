#!/usr/bin/env bash
# The README's first command: build sieve (release) and run the main job on
# the bundled sample data in tests/data (provenance in tests/data/SOURCES.md).
# Spam scores used here are MADE UP (no real ClueWeb09 spam file is public).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/setup.sh
step() { printf '\n==> %s\n' "$*"; }
OUT=${SIEVE_DEMO_OUT:-target/demo}
rm -rf "$OUT"; mkdir -p "$OUT"

# SIEVE_DEMO_PROFILE=dev reuses the test build (faster to build, slower to run).
if [ "${SIEVE_DEMO_PROFILE:-release}" = dev ]; then
    step "build (dev profile)"
    cargo build --locked --bins
    BIN=${CARGO_TARGET_DIR:-target}/debug
else
    step "build (release)"
    cargo build --release --locked --bins
    BIN=${CARGO_TARGET_DIR:-target}/release
fi

step "1. UTF-8 error counts on a sample with every class"
"$BIN/sieve-filter" utf8 tests/data/utf8/every-class.html --output "$OUT/cleaned.html"
echo "(one JSON line per file: its bytes and how often each of the seven error classes occurs; the cleaned copy, same length and valid UTF-8, is $OUT/cleaned.html)"

step "2. index the bundled crawls (ClueWeb09, ClueWeb12, Common Crawl WARCs; a TREC file) with MADE-UP spam scores"
# Exit code 3 = done, part of the input lost at file level (docs/reliability.md, Exit codes):
# exactly what the truncated gzip among the samples gives; anything else fails.
code=0
"$BIN/sieve-index" build --input 'tests/data/warc/*.warc.gz' tests/data/trec \
    --index "$OUT/web" --spam tests/data/spam/made-up-spam.txt || code=$?
if [ "$code" -ne 3 ]; then
    echo "demo: expected exit code 3 (one truncated gzip), got $code" >&2
    exit 1
fi
echo "(a truncated gzip is among the samples on purpose: it is read up to the damage and named above; exit code 3)"

step "3. a docid filter: spam percentile >= 70 and <= 0.5 invalid 4/5/6-byte sequences per KB"
"$BIN/sieve-filter" build --index "$OUT/web" --min-spam-percentile 70 --max-invalid-456-per-kb 0.5 --output "$OUT/spam70.filter"
"$BIN/sieve-filter" inspect "$OUT/spam70.filter"

step "4. CACM: index (with MADE-UP spam percentiles, for step 6), run the 64 topics with BM25 (k1=0.9 b=0.4), evaluate (Anserini: map 0.3123, P_30 0.1942)"
"$BIN/sieve-index" build --input tests/data/cacm/cacm.trec.gz --index "$OUT/cacm" \
    --spam tests/data/spam/made-up-cacm-spam.txt
"$BIN/sieve-search" run --index "$OUT/cacm" --topics topics/topics.cacm.txt \
    --k1 0.9,1.2 --b 0.4,0.75 --hits 1000 --output-dir "$OUT/runs"
"$BIN/sieve-search" eval --qrels tests/data/eval/qrels.cacm.txt "$OUT/runs/sieve_k1-0.9_b-0.4.run"

step "5. A/B: k1=1.2 b=0.75 against k1=0.9 b=0.4 on CACM"
"$BIN/sieve-search" compare --qrels tests/data/eval/qrels.cacm.txt \
    "$OUT/runs/sieve_k1-0.9_b-0.4.run" "$OUT/runs/sieve_k1-1.2_b-0.75.run" --top 5

step "6. a threshold sweep on CACM: nine spam thresholds in one pass, each compared with the unfiltered run"
echo "(the spam percentiles are MADE UP, uniform at random: this shows what removing random documents costs)"
"$BIN/sieve-search" sweep --index "$OUT/cacm" --topics topics/topics.cacm.txt \
    --qrels tests/data/eval/qrels.cacm.txt --min-spam-percentile 10,20,30,40,50,60,70,80,90 \
    -m map,P_10,ndcg@20,err@20,judged_10 --judged-only --output-dir "$OUT/sweep" --html "$OUT/sweep.html"
echo "(every number per setting: $OUT/sweep/sweep.tsv, with the judged-only (-J) columns, the randomisation and Wilcoxon tests, risk and the judged loss; the curves: $OUT/sweep/sweep.svg; open $OUT/sweep.html in a browser)"

if "$BIN/sieve-index" report --help >/dev/null 2>&1; then
    step "7. the encoding-error report (Table 1, Figure 5) with MADE-UP spam scores"
    "$BIN/sieve-index" report --index "$OUT/web" --output-dir "$OUT/report" --atire-counts
    cat "$OUT/report/table1.md"
fi
echo
echo "demo output in $OUT"
