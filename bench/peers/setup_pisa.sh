#!/usr/bin/env bash
# Install PISA for the search comparison. Idempotent.
#
#   bench/peers/setup_pisa.sh
#
# Installs pyterrier-pisa (PISA's query processing and indexing, compiled, in a wheel) into
# bench/peers/.venv, the venv setup.sh uses (created here if missing). Nothing is installed
# outside bench/peers/. PISA itself needs no Java; pyterrier-pisa 0.4.9 imports PyTerrier 1.x,
# which does not start a JVM for what pisa_search.py uses. Override the Python with
# PYTHON=/path/to/python3 (>= 3.10).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
PYTHON="${PYTHON:-python3}"
PYTERRIER_PISA_VERSION=0.4.9

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup_pisa: creating venv $VENV" >&2
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
if ! "$PY" -c "import sys; from importlib.metadata import version; sys.exit(version('pyterrier-pisa') != '$PYTERRIER_PISA_VERSION')" 2>/dev/null; then
  echo "setup_pisa: installing pyterrier-pisa==$PYTERRIER_PISA_VERSION" >&2
  "$PY" -m pip install --quiet "pyterrier-pisa==$PYTERRIER_PISA_VERSION"
fi
"$PY" - <<'PYEOF'
from importlib.metadata import version
for name in ["pyterrier-pisa", "python-terrier", "numpy"]:
    try:
        print(f"{name} {version(name)}")
    except Exception as e:
        print(f"{name} missing: {e}")
PYEOF
