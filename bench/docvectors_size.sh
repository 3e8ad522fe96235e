#!/usr/bin/env bash
# Index size and build time with what an index keeps beyond a bag of words: sieve's plain build,
# --positions, --docvectors and both, next to Anserini 1.7.1's IndexCollection plain,
# -storePositions, -storeDocvectors and both, one thread each, whole processes (timed.py: wall
# seconds and peak RSS), sizes as the bytes of every file of the index directory.
#
#   bench/docvectors_size.sh cacm [OUT_DIR]
#       sieve from tests/data/cacm/cacm.trec.gz, Anserini from
#       $SIEVE_SHARED_DATA/cacm/cacm.derived.trec (TrecCollection): 3,204 documents.
#   bench/docvectors_size.sh warc CORPUS_DIR [OUT_DIR]
#       a bench corpus of bench/peers/make_corpus.py (ClueWeb09Collection for Anserini).
#
# Environment: SKIP_ANSERINI=1 (sieve only), VARIANTS (default "plain positions docvectors both").
# Prints one tab-separated line per build: tool, variant, wall s, peak RSS MB, index bytes.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO/bench/peers/common.sh"
KIND="${1:?usage: docvectors_size.sh cacm|warc [CORPUS_DIR] [OUT_DIR]}"; shift
if [[ $KIND == warc ]]; then CORPUS="${1:?usage: docvectors_size.sh warc CORPUS_DIR [OUT_DIR]}"; shift; fi
OUT="${1:-$(mktemp -d)}"
mkdir -p "$OUT"
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"
VARIANTS="${VARIANTS:-plain positions docvectors both}"
[[ ${SKIP_ANSERINI:-0} == 1 ]] || need_peers
PYTHON="${PY:-python3}"; [[ -x $PYTHON ]] || PYTHON=python3

bytes() { du -sb "$1" | cut -f1; }
report() { # TOOL VARIANT DIR
  "$PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1])); print("\t".join([sys.argv[2], sys.argv[3], "%.2f" % t["wall_s"], "%.0f" % (t["peak_rss_kb"] / 1024), sys.argv[4]]))' \
    "$3.time.json" "$1" "$2" "$(bytes "$3")"
}

if [[ $KIND == cacm ]]; then
  SIEVE_IN="$REPO/tests/data/cacm/cacm.trec.gz"
  mkdir -p "$OUT/anserini-input"
  ln -sf "$SHARED/cacm/cacm.derived.trec" "$OUT/anserini-input/cacm.derived.trec"
  ANS_IN="$OUT/anserini-input" COLL=TrecCollection
else
  SIEVE_IN="$CORPUS/*.warc.gz" ANS_IN="$CORPUS" COLL=ClueWeb09Collection
fi

printf 'tool\tvariant\twall_s\tpeak_rss_mb\tindex_bytes\n'
for v in $VARIANTS; do
  case $v in
    plain) flags=() ; aflags=() ;;
    positions) flags=(--positions) ; aflags=(-storePositions) ;;
    docvectors) flags=(--docvectors) ; aflags=(-storeDocvectors) ;;
    both) flags=(--positions --docvectors) ; aflags=(-storePositions -storeDocvectors) ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  rm -rf "$OUT/sieve-$v"
  "$PYTHON" "$REPO/bench/peers/timed.py" "$OUT/sieve-$v.time.json" -- \
    "$BIN/sieve-index" build --input "$SIEVE_IN" --index "$OUT/sieve-$v" --threads 1 "${flags[@]}" \
    >"$OUT/sieve-$v.log" 2>&1 || { tail -20 "$OUT/sieve-$v.log" >&2; exit 1; }
  report sieve "$v" "$OUT/sieve-$v"
  if [[ ${SKIP_ANSERINI:-0} != 1 ]]; then
    rm -rf "$OUT/anserini-$v"
    "$PY" "$PEERS/timed.py" "$OUT/anserini-$v.time.json" -- \
      "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" io.anserini.index.IndexCollection \
      -collection "$COLL" -input "$ANS_IN" -index "$OUT/anserini-$v" -threads 1 "${aflags[@]}" \
      >"$OUT/anserini-$v.log" 2>&1 || { tail -20 "$OUT/anserini-$v.log" >&2; exit 1; }
    report anserini "$v" "$OUT/anserini-$v"
  fi
done
