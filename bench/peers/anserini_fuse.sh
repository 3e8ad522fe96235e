#!/usr/bin/env bash
# Run fusion parity: Anserini 1.7.1's FuseRuns and `sieve-search fuse` fuse the same runs for
# every case of tests/data/fusion/cases.tsv (rrf, interpolation, average, weighted, with and
# without min-max normalisation), and their outputs are compared with cmp.
#
#   bench/peers/anserini_fuse.sh [--inputs] [--update]
#
# --inputs   first remake the sieve input runs of tests/data/fusion/ from CACM (needs
#            sieve-index and sieve-search on PATH): BM25 k1=0.9 b=0.4 and k1=1.2 b=0.75, top 30.
# --update   copy Anserini's outputs to tests/data/fusion/anserini/ (the integration test
#            `fusion::fuse_matches_committed_anserini_outputs` compares sieve with them).
# sieve-search is taken from PATH (set SIEVE_SEARCH to use another). Exits 1 if any case differs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_peers
INPUTS=0; UPDATE=0
for a in "$@"; do
  case "$a" in --inputs) INPUTS=1 ;; --update) UPDATE=1 ;; *) echo "unknown argument $a" >&2; exit 2 ;; esac
done
SIEVE_SEARCH="${SIEVE_SEARCH:-sieve-search}"
DATA="$REPO/tests/data/fusion"
WORK="$PEERS/.work/fuse"
mkdir -p "$WORK/anserini" "$WORK/sieve"

if [[ $INPUTS == 1 ]]; then
  rm -rf "$WORK/cacm"
  sieve-index build --input "$REPO/tests/data/cacm/cacm.trec.gz" --index "$WORK/cacm" >/dev/null
  run() { "$SIEVE_SEARCH" run --index "$WORK/cacm" --topics "$REPO/topics/topics.cacm.txt" --hits 30 "$@"; }
  run --k1 0.9 --b 0.4 --tag sieve-bm25 --output "$DATA/b-sieve-bm25.run"
  # the second setting without topics 1-10: runs with different topic sets
  run --k1 1.2 --b 0.75 --tag sieve-bm25-k1.2-b0.75 --output "$WORK/c.run"
  awk '$1 > 10' "$WORK/c.run" >"$DATA/c-sieve-bm25-k1.2-b0.75-topics11up.run"
  # scores rounded to one decimal: many tied scores, ranks kept
  awk '{ $5 = sprintf("%.1f", $5); $6 = "sieve-bm25-rounded"; print }' "$DATA/b-sieve-bm25.run" \
    >"$DATA/d-sieve-bm25-rounded.run"
fi

# options OPTS FLAVOUR: the case's options as Anserini's or sieve's flags
options() {
  local opt
  for opt in $1; do
    case "$opt" in
      min-max) [[ $2 == anserini ]] && echo -min_max_normalization || echo --min-max ;;
      rrf_k=*) [[ $2 == anserini ]] && echo -rrf_k "${opt#*=}" || echo --rrf-k "${opt#*=}" ;;
      alpha=*) [[ $2 == anserini ]] && echo -alpha "${opt#*=}" || echo --alpha "${opt#*=}" ;;
      weights=*) [[ $2 == anserini ]] && echo -weights "${opt#*=}" || echo --weights "${opt#*=}" ;;
      depth=*) [[ $2 == anserini ]] && echo -depth "${opt#*=}" || echo --depth "${opt#*=}" ;;
      *) echo "unknown option $opt" >&2; exit 2 ;;
    esac
  done
}

# Generated stress cases (not committed): large topics whose tables grow to thousands of
# buckets, docids with non-ASCII characters (UTF-16 hash codes), scores rounded to force ties,
# random 32-bit floats of every magnitude (Java's %.6f), and negative scores times 0 (-0.0).
# Topics have up to 4000 lines, so both read them all (depth 100000: see docs/cli.md#fuse).
mkdir -p "$WORK/stress"
python3 - "$WORK/stress" <<'PYEOF'
import random, struct, sys
out = sys.argv[1]
rnd = random.Random(20261128)
def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]
def doc(i):
    return ["doc", "d\u00e9", "\U0001F600", "Aa", "BB", "x"][i % 6] + str(i)
for name, n in (("s1", 4000), ("s2", 4000), ("s3", 1500)):
    with open(f"{out}/{name}.run", "w") as f:
        for t in range(5):
            docs = rnd.sample(range(6000), n // (t + 1))
            for r, d in enumerate(docs):
                score = round(rnd.uniform(-5, 20), 1) if t % 2 == 0 else f32(rnd.uniform(-1, 1) * 10 ** rnd.randint(-9, 6))
                f.write(f"t{t} Q0 {doc(d)} {r + 1} {score!r} {name}\n")
PYEOF
# compare NAME METHOD DIR RUNS OPTS [K]: both fuse DIR's RUNS (comma-separated), K hits per
# topic (default 20), then cmp
same=0; differ=0
compare() {
  local name="$1" method="$2" dir="$3" runs="$4" opts="$5" k="${6:-20}" f
  local files=() paths=()
  IFS=, read -r -a files <<<"$runs"
  for f in "${files[@]}"; do paths+=("$dir/$f"); done
  local a_out="$WORK/anserini/$name.run" s_out="$WORK/sieve/$name.run"
  rm -f "$a_out" "$s_out"
  # shellcheck disable=SC2046
  (cd "$dir" && anserini io.anserini.fusion.FuseRuns -runs "${files[@]}" -output "$a_out" \
     -method "$method" -runtag sieve.fusion -k "$k" $(options "$opts" anserini)) \
     </dev/null >"$WORK/$name.log" 2>&1
  [[ -s "$a_out" ]] || { echo "$name: Anserini wrote nothing:" >&2; tail -5 "$WORK/$name.log" >&2; exit 1; }
  # shellcheck disable=SC2046
  "$SIEVE_SEARCH" fuse "${paths[@]}" --output "$s_out" --method "$method" --tag sieve.fusion \
     -k "$k" $(options "$opts" sieve) </dev/null 2>>"$WORK/$name.log"
  if cmp "$a_out" "$s_out"; then
    echo "same    $name ($(wc -l <"$a_out") lines)"; same=$((same + 1))
  else
    echo "DIFFER  $name"; differ=$((differ + 1))
  fi
}

while IFS=$'\t' read -r name method runs opts; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  compare "$name" "$method" "$DATA" "$runs" "$opts"
  if [[ $UPDATE == 1 ]]; then cp "$WORK/anserini/$name.run" "$DATA/anserini/$name.run"; fi
done <"$DATA/cases.tsv"

for method in rrf interpolation average weighted; do
  for mm in "" min-max; do
    runs=s1.run,s2.run,s3.run; opts="depth=100000 $mm"
    case "$method" in
      interpolation) runs=s1.run,s2.run; opts="depth=100000 alpha=0.3 $mm" ;;
      weighted) opts="depth=100000 weights=1,0,0.5 $mm" ;;
    esac
    compare "stress-$method${mm:+-$mm}" "$method" "$WORK/stress" "$runs" "$opts" 100000
  done
done
echo "== $same cases byte-identical, $differ differ =="
[[ $differ == 0 ]]
