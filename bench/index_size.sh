#!/usr/bin/env bash
# Where an index's bytes go: every file of the index by kind (tantivy's .idx, .term, .pos,
# .fieldnorm, .fast, .store, .del, meta.json, sieve's bounds/ and dups/ sidecars and JSON files),
# then per field inside the segments (tantivy's space_usage(): term dictionary, postings,
# positions, fieldnorms, fast columns and dictionaries, the store's blocks), then the document
# store per field before compression. Bytes, bytes per document and share, as Markdown tables.
#
#   bench/index_size.sh INDEX_DIR [--json]
#   bench/index_size.sh --build CORPUS_DIR OUT_INDEX [BUILD_FLAGS...]
#       builds OUT_INDEX from CORPUS_DIR/*.warc.gz with `sieve-index build --threads 2`
#       (timed: wall, user and system seconds, peak RSS KB on stderr) and then measures it.
#
# Binaries: $SIEVE_BIN_DIR/sieve-index (default $CARGO_TARGET_DIR/release or target/release) and the
# sieve-bench example `index_size`, built here with `cargo build --release -p sieve-bench
# --example index_size` when missing. An Anserini index is measured by `du -sb` and its files
# listed by extension with --lucene DIR.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
BIN="${SIEVE_BIN_DIR:-$TARGET/release}"
EXAMPLE="$TARGET/release/examples/index_size"

usage() { sed -n '2,16p' "$0" >&2; exit 2; }
[[ $# -ge 1 ]] || usage

lucene() { # DIR: bytes per file extension of a Lucene index
  local dir="$1" total
  total=$(du -sb "$dir" | cut -f1)
  echo "$dir: $total bytes"
  echo "| extension | bytes |"; echo "|---|---:|"
  find "$dir" -type f -printf '%s %f\n' | awk '{ n = split($2, p, "."); e = (n > 1) ? p[n] : $2; s[e] += $1 }
    END { for (e in s) printf "| .%s | %d |\n", e, s[e] }' | sort
}

case "$1" in
  --lucene) [[ $# -eq 2 ]] || usage; lucene "$2"; exit 0 ;;
  --build)
    [[ $# -ge 3 ]] || usage
    corpus="$2" index="$3"; shift 3
    [[ ! -e $index ]] || { echo "index_size.sh: $index exists" >&2; exit 2; }
    /usr/bin/time -f 'build: wall %e s, user %U s, sys %S s, peak RSS %M KB' \
      "$BIN/sieve-index" build --input "$corpus/*.warc.gz" --index "$index" --threads 2 "$@" \
      >/dev/null
    set -- "$index" ;;
esac

if [[ ! -x $EXAMPLE ]]; then
  (cd "$REPO" && cargo build --release --locked -p sieve-bench --example index_size >&2)
fi
"$EXAMPLE" "$@"
