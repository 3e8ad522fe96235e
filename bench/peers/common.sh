# Shared settings for bench/peers scripts (sourced, not run).
PEERS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$PEERS/../.." && pwd)"
PY="$PEERS/.venv/bin/python"
JAR="$PEERS/.cache/anserini.jar"
# shellcheck source=../../scripts/lib.sh
source "$REPO/scripts/lib.sh"
# The shared data directory (scripts/lib.sh's rule); empty when absent.
SHARED="$(sieve_shared_data || true)"
# Java heap for Anserini; the machine has 24 GiB shared by several developers.
ANSERINI_HEAP="${ANSERINI_HEAP:-4g}"
need_peers() {
  if [[ ! -x "$PY" || ! -s "$JAR" || ! -s "$PEERS/.cache/java.path" ]]; then
    echo "peers not installed: run bench/peers/setup.sh" >&2; exit 2
  fi
  JAVA="$(cat "$PEERS/.cache/java.path")"
}
anserini() { # anserini CLASS ARGS...
  local cls="$1"; shift
  "$JAVA" -Xms512m -Xmx"$ANSERINI_HEAP" -cp "$JAR" "$cls" "$@"
}
