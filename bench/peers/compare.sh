#!/usr/bin/env bash
# One command for the whole side-by-side comparison of sieve with its peers.
#
#   bench/peers/compare.sh [--smoke] [--reps N] [--size-mb MB] [--threads "1 2"] [--output-dir DIR]
#
# Default corpus: make_corpus.py --size-mb 3000 (131,796 documents, 744 MB per-record gzip, 3.0 GB
# uncompressed, 120 files), big enough that JVM start-up and warm-up do not decide the
# result. The corpora are built once under $SIEVE_BENCH_CORPORA (default bench/peers/.work; point it
# at a scratch disk: the two 3000 MB corpora take 1.2 GB).
#
# Steps (all on the same inputs, in the same run):
#   0. bench/peers/setup.sh (idempotent) installs the peers.
#   1. make_corpus.py builds the bench corpus (ClueWeb09 samples replicated, per-record gzip) in
#      $SIEVE_BENCH_CORPORA/corpus-<MB>mb unless it is already there.
#   2. WARC reading: warc_read.py (FastWARC quirks mode, warcio, `sieve-index scan`, the warc
#      crate) on every $SIEVE_SHARED_DATA/warc
#      file, on the corpus files and on a single-stream-gzip copy of the corpus.
#   3. Indexing the corpus at each thread count: Anserini IndexCollection (ClueWeb09Collection)
#      and, if target/release/sieve-index exists, `sieve-index build --input DIR --index OUT
#      --threads N`. Each REPS times; medians.
#   4. Batch search, BM25 k1=0.9 b=0.4 top 1000, TREC Web track topics 1-200 (converted to
#      classic TREC format by web_topics.py): Anserini SearchCollection and, if present,
#      `sieve-search run --index OUT --topics T --k1 0.9 --b 0.4 --hits 1000 --output RUN`.
#      Overlap@10/@1000 between the two runs (overlap.py).
#   5. CACM effectiveness (not in --smoke): anserini_cacm.sh, and ours with sieve-index on
#      cacm.derived.trec, sieve-search run on topics.cacm.txt, `sieve-search eval --qrels Q RUN`,
#      plus pytrec_eval on both runs.
# Whole-process wall time and peak RSS come from /usr/bin/time -v (timed.py). All records go to
# OUT/results.jsonl; compare_report.py prints medians and ratios (ours / Anserini).
# --smoke: 3 MB corpus, 1 rep, 1 thread, Web topics 1-50, no CACM, FastWARC/warcio on the
# corpus only (under a minute on an idle 2-core machine). Build ours first with
# (or point SIEVE_BIN_DIR at a directory holding sieve-index and sieve-search)
# `cargo build --release -p sieve` to include it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SMOKE=0; REPS=3; SIZE_MB=3000; THREADS="1 2"; OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) SMOKE=1; REPS=1; SIZE_MB=3; THREADS="1"; shift ;;
    --reps) REPS="$2"; shift 2 ;;
    --size-mb) SIZE_MB="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --output-dir|--out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
"$HERE/setup.sh" >&2
source "$HERE/common.sh"
need_peers
OUT="${OUT:-$PEERS/.work/results-$(date -u +%Y%m%dT%H%M%SZ)$([[ $SMOKE == 1 ]] && echo -smoke || true)}"
mkdir -p "$OUT"
RES="$OUT/results.jsonl"; : >"$RES"
SIEVE_BIN_DIR="${SIEVE_BIN_DIR:-$REPO/target/release}"
SIEVE_INDEX="$SIEVE_BIN_DIR/sieve-index"
SIEVE_SEARCH="$SIEVE_BIN_DIR/sieve-search"
HAVE_OURS=0
if [[ -x "$SIEVE_INDEX" && -x "$SIEVE_SEARCH" ]]; then HAVE_OURS=1; else
  echo "compare: $SIEVE_INDEX or $SIEVE_SEARCH missing: peers only" >&2; fi
log() { echo "compare: $*" >&2; }
emit() { echo "$1" >>"$RES"; }
# tag JSON_LINE '{"key": value}': merge the keys into a JSON object
tag() { "$PY" -c 'import json,sys; d=json.loads(sys.argv[2]); d.update(json.loads(sys.argv[1])); print(json.dumps(d))' "$1" "$2"; }
dir_bytes() { du -sb "$1" | cut -f1; }

# 1. corpus
CORPORA="${SIEVE_BENCH_CORPORA:-$PEERS/.work}"
mkdir -p "$CORPORA"
CORPUS="$CORPORA/corpus-${SIZE_MB}mb"
if [[ ! -s "$CORPUS/MANIFEST.json" ]]; then
  log "building corpus $CORPUS"
  "$PY" "$PEERS/make_corpus.py" "$CORPUS" --size-mb "$SIZE_MB" >&2
fi
emit "$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); m.pop("files"); m["kind"]="corpus"; print(json.dumps(m))' "$CORPUS/MANIFEST.json")"
DOCS="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["docs"])' "$CORPUS/MANIFEST.json")"

# 2. WARC reading: the Python peers, ours (`sieve-index scan`) and the `warc` crate
READERS=(fastwarc warcio)
if [[ $HAVE_OURS == 1 ]]; then READERS+=(sieve); export SIEVE_INDEX; fi
WARC_CRATE_READ="${WARC_CRATE_READ:-$SIEVE_BIN_DIR/examples/warc_crate_read}"
if [[ -x "$WARC_CRATE_READ" ]]; then READERS+=(warc-crate); export WARC_CRATE_READ; else
  log "no $WARC_CRATE_READ (cargo build --release -p sieve-bench --example warc_crate_read): warc crate skipped"; fi
log "WARC reading (${READERS[*]})"
if [[ $SMOKE == 1 ]]; then WARC_INPUTS=("$CORPUS"); RUNS=1; else
  # the same records again, each file one gzip stream (warcio refuses these; FastWARC reads them)
  STREAM="$CORPORA/corpus-stream-${SIZE_MB}mb"
  if [[ ! -s "$STREAM/MANIFEST.json" ]]; then
    log "building single-stream gzip copy $STREAM"
    "$PY" "$PEERS/make_corpus.py" "$STREAM" --size-mb "$SIZE_MB" --gzip stream >&2
  fi
  WARC_INPUTS=("$SHARED/warc" "$CORPUS" "$STREAM"); RUNS=5; fi
for input in "${WARC_INPUTS[@]}"; do
  "$PY" "$PEERS/warc_read.py" --runs "$RUNS" "$input" --readers "${READERS[@]}" | while read -r line; do
    emit "$(tag "$line" "{\"kind\": \"warc_read\", \"set\": \"$(basename "$input")\"}")"; done
done

# 3. indexing
for t in $THREADS; do
  for rep in $(seq 1 "$REPS"); do
    log "index: anserini threads=$t rep=$rep"
    line="$("$PEERS/anserini_warc.sh" "$CORPUS" "$OUT/anserini-idx-t$t" "$t")"
    emit "$(tag "$line" "{\"kind\": \"index\", \"rep\": $rep}")"
    if [[ $HAVE_OURS == 1 ]]; then
      log "index: sieve threads=$t rep=$rep"
      rm -rf "$OUT/sieve-idx-t$t"
      "$PY" "$PEERS/timed.py" "$OUT/sieve-idx-t$t.time.json" -- \
        "$SIEVE_INDEX" build --input "$CORPUS/*.warc.gz" --index "$OUT/sieve-idx-t$t" --threads "$t" \
        >"$OUT/sieve-idx-t$t.log" 2>&1 || { tail -20 "$OUT/sieve-idx-t$t.log" >&2; exit 1; }
      emit "$("$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); print(json.dumps({"kind":"index","tool":"sieve","rep":int(sys.argv[2]),"threads":int(sys.argv[3]),"docs":int(sys.argv[4]),"wall_s":t["wall_s"],"user_s":t.get("user_s"),"sys_s":t.get("sys_s"),"peak_rss_kb":t["peak_rss_kb"],"input_bytes":int(sys.argv[5]),"index_bytes":int(sys.argv[6])}))' \
        "$OUT/sieve-idx-t$t.time.json" "$rep" "$t" "$DOCS" "$(du -sb --exclude=MANIFEST.json "$CORPUS" | cut -f1)" "$(dir_bytes "$OUT/sieve-idx-t$t")")"
    fi
  done
done

# 4. batch search over the corpus
T="$SHARED/topics-qrels"
if [[ $SMOKE == 1 ]]; then TOPIC_XML=("$T/topics.web.1-50.txt"); else
  TOPIC_XML=("$T/topics.web.1-50.txt" "$T/topics.web.51-100.txt" "$T/topics.web.101-150.txt" "$T/topics.web.151-200.txt"); fi
"$PY" "$PEERS/web_topics.py" "$OUT/topics.web.trec" "${TOPIC_XML[@]}" >&2
T1="$(set -- $THREADS; echo "$1")"
for rep in $(seq 1 "$REPS"); do
  log "search: anserini rep=$rep"
  line="$("$PEERS/anserini_search.sh" "$OUT/anserini-idx-t$T1" "$OUT/topics.web.trec" "$OUT/anserini.web.run" 0.9 0.4)"
  emit "$(tag "$line" "{\"kind\": \"search\", \"rep\": $rep}")"
  if [[ $HAVE_OURS == 1 ]]; then
    log "search: sieve rep=$rep"
    "$PY" "$PEERS/timed.py" "$OUT/sieve.web.run.time.json" -- \
      "$SIEVE_SEARCH" run --index "$OUT/sieve-idx-t$T1" --topics "$OUT/topics.web.trec" \
      --k1 0.9 --b 0.4 --hits 1000 --output "$OUT/sieve.web.run" >"$OUT/sieve.web.run.log" 2>&1 \
      || { tail -20 "$OUT/sieve.web.run.log" >&2; exit 1; }
    emit "$("$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); n=len({l.split()[0] for l in open(sys.argv[2]) if l.strip()}); print(json.dumps({"kind":"search","tool":"sieve","rep":int(sys.argv[3]),"topics_with_hits":n,"wall_s":t["wall_s"],"peak_rss_kb":t["peak_rss_kb"],"ms_per_topic":1000*t["wall_s"]/n if n else None}))' \
      "$OUT/sieve.web.run.time.json" "$OUT/sieve.web.run" "$rep")"
  fi
done
if [[ $HAVE_OURS == 1 ]]; then
  emit "$(tag "$("$PY" "$PEERS/overlap.py" --json --pages "$OUT/sieve.web.run" "$OUT/anserini.web.run")" '{"kind": "overlap", "a": "sieve", "b": "anserini"}')"
fi

# 5. CACM
if [[ $SMOKE == 0 ]]; then
  log "CACM: anserini"
  "$PEERS/anserini_cacm.sh" "$OUT/anserini.cacm.run" "$OUT/cacm-anserini" >"$OUT/cacm-anserini.txt"
  cat "$OUT/cacm-anserini.txt" >&2
  Q="$SHARED/cacm/qrels.cacm.txt"
  emit "$("$PY" "$PEERS/trec_eval.py" --json "$Q" "$OUT/anserini.cacm.run" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); r=list(d.values())[0]; r.update(kind="cacm", tool="anserini"); print(json.dumps(r))')"
  if [[ $HAVE_OURS == 1 ]]; then
    log "CACM: sieve"
    mkdir -p "$OUT/cacm-sieve/input"; ln -sf "$SHARED/cacm/cacm.derived.trec" "$OUT/cacm-sieve/input/"
    rm -rf "$OUT/cacm-sieve/index"
    "$SIEVE_INDEX" build --input "$OUT/cacm-sieve/input" --index "$OUT/cacm-sieve/index" --threads 1 >"$OUT/cacm-sieve/index.log" 2>&1
    "$SIEVE_SEARCH" run --index "$OUT/cacm-sieve/index" --topics "$SHARED/cacm/topics.cacm.txt" \
      --k1 0.9 --b 0.4 --hits 1000 --output "$OUT/sieve.cacm.run" >"$OUT/cacm-sieve/search.log" 2>&1
    "$SIEVE_SEARCH" eval --qrels "$Q" "$OUT/sieve.cacm.run" >"$OUT/cacm-sieve/eval.txt" 2>&1 || true
    cat "$OUT/cacm-sieve/eval.txt" >&2
    emit "$("$PY" "$PEERS/trec_eval.py" --json "$Q" "$OUT/sieve.cacm.run" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); r=list(d.values())[0]; r.update(kind="cacm", tool="sieve"); print(json.dumps(r))')"
    emit "$(tag "$("$PY" "$PEERS/overlap.py" --json "$OUT/sieve.cacm.run" "$OUT/anserini.cacm.run")" '{"kind": "overlap_cacm", "a": "sieve", "b": "anserini"}')"
  fi
fi

"$PY" "$PEERS/compare_report.py" "$RES" | tee "$OUT/report.md"
log "results: $RES"
