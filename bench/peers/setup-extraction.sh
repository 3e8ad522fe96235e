#!/usr/bin/env bash
# Install the main-content extraction peers into bench/peers/.venv-extract. Idempotent.
#
#   bench/peers/setup-extraction.sh
#
# A separate venv from setup.sh's, so that its pinned versions do not move: Resiliparse 2.0.0
# (extract_plain_text, plain and main_content=True) and trafilatura 2.3.1, whose jusText
# dependency needs lxml_html_clean (lxml 6 split it out). Override the Python with PYTHON=...
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv-extract"
PYTHON="${PYTHON:-python3}"
want=("resiliparse==2.0.0" "trafilatura==2.3.1" "lxml_html_clean==0.4.6")
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup-extraction: creating venv $VENV" >&2
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
if ! "$PY" - "${want[@]}" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, v = spec.split("==")
    if version(name) != v:
        sys.exit(1)
PYEOF
then
  echo "setup-extraction: installing ${want[*]}" >&2
  "$PY" -m pip install --quiet "${want[@]}"
fi
"$PY" -c 'import resiliparse, trafilatura; from importlib.metadata import version as v; print("resiliparse", v("resiliparse"), "trafilatura", v("trafilatura"))'
