#!/usr/bin/env bash
# Creates .venv/ in the repo root with the evaluation oracles used by the
# searcher's integration tests (tests that shell out to .venv/bin/python
# scripts/eval_oracle.py). Idempotent: returns at once when the venv already
# has the pinned versions.
#
# Pinned (binary wheels for CPython 3.11 on linux x86_64):
#   pytrec-eval-terrier  trec_eval 9.x bindings (MAP, P_k, recall_k, ...)
#   ir-measures          common interface; its gdeval provider runs the TREC
#                        Web Track gdeval.pl (needs perl) for nDCG@20 / ERR@20
#   scipy                scipy.stats.ttest_rel, the oracle for compare's t-test
#   maturin, pandas,     the Python package in python/: maturin builds
#   pyarrow, pytest,     it (scripts/test.sh installs it with --no-build-isolation),
#   pyterrier            pytest runs python/tests, pandas/pyarrow hold its results,
#                        pyterrier (1.x, without its `java` extra: no Java) runs
#                        pt.Experiment over sieve.pyterrier.Retriever
set -euo pipefail
cd "$(dirname "$0")/.."
PINS=(pytrec-eval-terrier==0.5.11 ir-measures==0.4.3 scipy==1.17.1 numpy==2.4.6
      maturin==1.16.0 pandas==3.1.1 pyarrow==26.0.1 pytest==9.2.0 pyterrier==1.1.2)
PY=${PYTHON:-python3}
STAMP=.venv/.sieve-pins
if [[ -x .venv/bin/python && -f $STAMP && "$(cat "$STAMP")" == "${PINS[*]}" ]]; then
  exit 0
fi
PYTHON=$PY bash scripts/setup-system.sh
"$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${PINS[@]}"
echo "${PINS[*]}" > "$STAMP"
.venv/bin/python -c 'import pytrec_eval, ir_measures, scipy, pandas, pyarrow, pytest, pyterrier; print("setup-python: ok", ir_measures.__version__, scipy.__version__, pandas.__version__, pyterrier.__version__)'
