# Shared settings for bench/peers scripts (sourced, not run).
PEERS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$PEERS/../.." && pwd)"
PY="$PEERS/.venv/bin/python"
# Where setup.sh put the Anserini jar and the path of its Java (another checkout's may be named).
PEERS_CACHE="${PEERS_CACHE:-$PEERS/.cache}"
JAR="$PEERS_CACHE/anserini.jar"
# shellcheck source=../../scripts/lib.sh
source "$REPO/scripts/lib.sh"
# The shared data directory (scripts/lib.sh's rule); empty when absent.
SHARED="$(sieve_shared_data || true)"
# Java heap for Anserini; the machine has 24 GiB shared by several developers.
ANSERINI_HEAP="${ANSERINI_HEAP:-4g}"
need_peers() {
  if [[ ! -x "$PY" || ! -s "$JAR" || ! -s "$PEERS_CACHE/java.path" ]]; then
    echo "peers not installed: run bench/peers/setup.sh" >&2; exit 2
  fi
  JAVA="$(cat "$PEERS_CACHE/java.path")"
}
anserini() { # anserini CLASS ARGS...
  local cls="$1"; shift
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" "$cls" "$@"
}
