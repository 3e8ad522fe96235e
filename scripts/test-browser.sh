#!/usr/bin/env bash
# Opt-in check that the sweep figure and the HTML pages render in a real
# browser (not part of CI: it installs Chromium, about 300 MB). One command:
#
#     bash scripts/test-browser.sh
#
# 1. Chromium from the distribution's packages (`apt-get install -y
#    chromium`, as root or with passwordless sudo; otherwise it names the
#    package and stops), and the debug binaries.
# 2. CACM indexed with MADE-UP spam percentiles
#    (tests/data/spam/made-up-cacm-spam.txt), swept over nine spam
#    thresholds and two k1 values (sweep.svg, sweep --html), and
#    `compare --html --index --b-min-spam-percentile 70` of the spam-70 run
#    against the unfiltered one; the hand-made hostile fixture (tests/data/page: titles and URLs
#    holding markup and script) compared with `compare --html --index`.
# 3. Each page and SVG rendered headless to PNG at its own size (pages at
#    1200 x 3000); scripts/png_check.py checks each PNG has that size, is
#    not blank (>= 2% ink) and shows colour (>= 2 hue sectors; 1 for the
#    hostile page, whose two topics both lose).
# 4. The sweep and compare pages loaded in the browser (--dump-dom): the
#    figure's judged-loss panel, the judged-loss table and the per-topic
#    judged loss are in the DOM.
# 5. The hostile page loaded in the browser (--dump-dom, after any script
#    would have run): no `data-pwned` attribute, so no markup from a
#    document title or URL became live.
#
# The PNGs stay in OUT (printed at the end; default target/browser-check)
# for a human to look at. Environment: OUT, CHROMIUM (default: chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }
OUT=${OUT:-target/browser-check}

step "Chromium"
. scripts/chromium.sh
ensure_chromium test-browser

step "build the sieve binaries (debug)"
cargo build --locked --bins -p sieve
BIN=${CARGO_TARGET_DIR:-target}/debug

rm -rf "$OUT"; mkdir -p "$OUT"
OUT=$(realpath "$OUT")
PROFILE=$(mktemp -d "${TMPDIR:-/tmp}/sieve-chromium.XXXXXX")
trap 'rm -rf "$PROFILE"' EXIT
# The flags that work headless on a container without a display, D-Bus or
# network access; a fresh profile each time.
FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --hide-scrollbars --user-data-dir="$PROFILE")

step "sweep and compare CACM (MADE-UP spam percentiles)"
"$BIN/sieve-index" build --input tests/data/cacm/cacm.trec.gz --index "$OUT/cacm" \
    --spam tests/data/spam/made-up-cacm-spam.txt >/dev/null 2>&1
"$BIN/sieve-search" sweep --index "$OUT/cacm" --topics topics/topics.cacm.txt \
    --qrels tests/data/eval/qrels.cacm.txt --min-spam-percentile 10,20,30,40,50,60,70,80,90 \
    --k1 0.9,1.2 --output-dir "$OUT/sweep" --runs --html "$OUT/sweep.html"
"$BIN/sieve-search" compare --qrels tests/data/eval/qrels.cacm.txt \
    "$OUT/sweep/runs/sieve_k1-0.9_b-0.4.run" "$OUT/sweep/runs/sieve_k1-0.9_b-0.4_spam70.run" \
    --html "$OUT/compare.html" --index "$OUT/cacm" --b-min-spam-percentile 70 >/dev/null

step "compare on the hostile fixture (titles and URLs holding markup)"
"$BIN/sieve-index" build --input tests/data/page/hostile.trec --index "$OUT/hostile" >/dev/null 2>&1
"$BIN/sieve-search" compare --qrels tests/data/page/qrels.txt tests/data/page/a.run \
    tests/data/page/b.run --html "$OUT/hostile.html" --index "$OUT/hostile" -m map,P_5 >/dev/null

shot() { # FILE WIDTH HEIGHT PNG [MIN_HUES]
  timeout 120 "$CHROMIUM" "${FLAGS[@]}" --window-size="$2,$3" --screenshot="$4" "file://$1" \
      >/dev/null 2>&1
  python3 scripts/png_check.py "$4" "$2" "$3" 0.02 "${5:-2}"
}
svg_size() { # the width and height attributes of an SVG's root element
  grep -m1 -o '<svg [^>]*>' "$1" | sed -E 's/.* width="([0-9.]+)" height="([0-9.]+)".*/\1 \2/' |
      awk '{printf "%d %d\n", $1, $2}'
}

step "render to PNG and check"
fail=0
read -r w h < <(svg_size "$OUT/sweep/sweep.svg")
shot "$OUT/sweep/sweep.svg" "$w" "$h" "$OUT/sweep-svg.png" || fail=1
for page in sweep compare; do
  shot "$OUT/$page.html" 1200 3000 "$OUT/$page-html.png" || fail=1
done
# Two topics, both worse in B: its chart has one colour.
shot "$OUT/hostile.html" 1200 3000 "$OUT/hostile-html.png" 1 || fail=1
# The compare page's first per-topic chart on its own.
python3 - "$OUT/compare.html" "$OUT/diffchart.svg" <<'EOF'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
svg = re.search(r'<svg [^>]*class="diffchart".*?</svg>', page, re.S).group(0)
open(sys.argv[2], "w", encoding="utf-8").write(svg)
EOF
read -r w h < <(svg_size "$OUT/diffchart.svg")
shot "$OUT/diffchart.svg" "$w" "$h" "$OUT/diffchart.png" || fail=1

step "the judged loss is on the pages (the DOM after loading)"
for page in sweep compare; do
  timeout 120 "$CHROMIUM" "${FLAGS[@]}" --dump-dom "file://$OUT/$page.html" \
      >"$OUT/$page.dom.html" 2>/dev/null
done
want() { # FILE TEXT WHAT
  if grep -qF "$2" "$1"; then echo "ok: $3"; else echo "FAIL: $3 missing from $1"; fail=1; fi
}
want "$OUT/sweep.dom.html" 'class="panel judged-loss"' "the sweep figure's judged-loss panel"
want "$OUT/sweep.dom.html" 'class="judged-loss"' "the sweep page's judged-loss table"
want "$OUT/sweep.dom.html" 'Judged documents the filter removed, per topic' "the per-topic judged loss of a setting"
want "$OUT/compare.dom.html" 'Judged documents the filter removed, per topic' "the compare page's judged loss (--b-min-spam-percentile)"

step "hostile page: no document text became live markup"
timeout 120 "$CHROMIUM" "${FLAGS[@]}" --dump-dom "file://$OUT/hostile.html" \
    >"$OUT/hostile.dom.html" 2>/dev/null
if grep -o '<body[^>]*>' "$OUT/hostile.dom.html" | grep -q 'data-pwned'; then
  echo "FAIL: a script from a document ran (data-pwned set on <body>)"; fail=1
elif grep -qiE '<(img|script|link|a) ' "$OUT/hostile.dom.html"; then
  echo "FAIL: an element from a document's title or URL is in the DOM"; fail=1
else
  echo "ok: the DOM after loading has no element or attribute from the documents' text"
fi

echo
echo "PNGs and pages in $OUT"
if [[ $fail != 0 ]]; then
  echo "test-browser: FAILED" >&2
  exit 1
fi
echo "test-browser: ok"
