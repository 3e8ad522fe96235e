#!/usr/bin/env bash
# Creates .venv-spark/ in the repo root with a pinned PySpark for the
# scale-out drivers (scale/spark_build.py, scale/spark_search.py) and the
# opt-in Spark test (scripts/test-spark.sh). Not used by CI.
#
# Idempotent: when the venv already has the pinned versions it only prints
# them. PySpark 4.0 needs Java 17 or 21 (`java -version`); the pip package
# carries Spark's own jars, so nothing else is downloaded.
#
# Pinned:
#   pyspark 4.0.5   (Spark 4.0.x, Scala 2.13; Java 17/21; Python >= 3.9)
#   py4j 0.10.9.9   (the version pyspark 4.0.x requires)
set -euo pipefail
cd "$(dirname "$0")/.."
PINS=(pyspark==4.0.5 py4j==0.10.9.9)
PY=${PYTHON:-python3}
VENV=.venv-spark
STAMP=$VENV/.sieve-pins

java_major() {
  # `java -version` prints e.g. 'openjdk version "17.0.15" 2025-04-15' on stderr.
  java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -1
}
if ! command -v java >/dev/null; then
  echo "setup-spark: java not found; PySpark 4.0 needs Java 17 or 21 (apt-get install openjdk-17-jre-headless)" >&2
  exit 1
fi
JAVA_MAJOR=$(java_major)
if [[ -z $JAVA_MAJOR || $JAVA_MAJOR -lt 17 ]]; then
  echo "setup-spark: Java ${JAVA_MAJOR:-?} found; PySpark 4.0 needs Java 17 or 21" >&2
  exit 1
fi

if ! [[ -x $VENV/bin/python && -f $STAMP && "$(cat "$STAMP")" == "${PINS[*]}" ]]; then
  "$PY" -m venv "$VENV"
  # pyspark is published as a source distribution only (pure Python plus
  # Spark's jars), so it is built locally into a wheel; py4j is a wheel.
  "$VENV"/bin/python -m pip install --quiet --disable-pip-version-check "${PINS[@]}"
  echo "${PINS[*]}" > "$STAMP"
fi
"$VENV"/bin/python - <<'EOF'
import platform, sys
import pyspark, py4j
print(f"setup-spark: ok: python {platform.python_version()}, pyspark {pyspark.__version__}, "
      f"py4j {py4j.__version__}", file=sys.stderr)
EOF
echo "setup-spark: $(java -version 2>&1 | head -1)" >&2
