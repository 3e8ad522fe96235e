#!/usr/bin/env bash
# Compile the Lucene peer of the search-latency bench (bench/peers/lucene/LuceneBench.java) for
# bench/peers/search_growth.sh. Idempotent.
#
#   bench/peers/setup.sh            # once: the Anserini fat jar (bench/peers/.cache/anserini.jar)
#   bench/peers/setup_lucene.sh
#
# The Lucene classes come from the Anserini 1.7.1 fat jar that setup.sh takes from pyserini 1.6.0:
# Lucene 9.9.1 (lucene-core, analysis, queryparser; no lucene-misc) plus Jackson, which
# LuceneBench uses to read the documents' JSON lines. Maven Central is not reachable from the bench
# host, so no other Lucene (no Lucene 10) can be fetched: Lucene 9.9.1 is what runs. The jar is
# found as common.sh finds it: $PEERS_CACHE/anserini.jar (PEERS_CACHE defaults to
# bench/peers/.cache; another checkout's cache may be named, it is only read).
#
# Needs a JDK 17 with javac: JDK=/usr/lib/jvm/java-17-openjdk-amd64 by default; when its javac is
# missing, installs openjdk-17-jdk-headless with apt-get (as root, or through sudo). The classes go
# to bench/peers/.cache/lucene-bench/ in this checkout, with java.path (the java that runs them)
# and jar.path (the Anserini jar on the class path).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PEERS_CACHE="${PEERS_CACHE:-$HERE/.cache}"
JAR="$PEERS_CACHE/anserini.jar"
JDK="${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
SRC="$HERE/lucene/LuceneBench.java"
OUT="$HERE/.cache/lucene-bench"

if [[ ! -s "$JAR" ]]; then
  echo "setup_lucene: no Anserini jar at $JAR: run bench/peers/setup.sh first, or set PEERS_CACHE" \
       "to a bench/peers/.cache that has it" >&2
  exit 1
fi
JAR="$(cd "$(dirname "$JAR")" && pwd -P)/$(basename "$JAR")"

if [[ ! -x "$JDK/bin/javac" ]]; then
  if [[ "$JDK" != /usr/lib/jvm/java-17-openjdk-amd64 ]]; then
    echo "setup_lucene: no javac in JDK=$JDK" >&2
    exit 1
  fi
  echo "setup_lucene: installing openjdk-17-jdk-headless (javac)" >&2
  SUDO=""
  [[ $(id -u) == 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jdk-headless
  if [[ ! -x "$JDK/bin/javac" ]]; then
    echo "setup_lucene: openjdk-17-jdk-headless installed but $JDK/bin/javac is still missing" >&2
    exit 1
  fi
fi

mkdir -p "$OUT"
CLASS="$OUT/LuceneBench.class"
if [[ ! -f "$CLASS" || "$SRC" -nt "$CLASS" || "$JAR" -nt "$CLASS" \
      || "$(cat "$OUT/jar.path" 2>/dev/null)" != "$JAR" ]]; then
  echo "setup_lucene: compiling $SRC" >&2
  rm -f "$OUT"/*.class
  "$JDK/bin/javac" --release 17 -nowarn -cp "$JAR" -d "$OUT" "$SRC"
fi
echo "$JDK/bin/java" > "$OUT/java.path"
echo "$JAR" > "$OUT/jar.path"
echo "setup_lucene: $("$JDK/bin/java" -cp "$OUT:$JAR" LuceneBench version) -> $OUT" >&2
