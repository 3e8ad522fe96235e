# Sourced by the opt-in browser checks: ensure_chromium WHO installs
# Chromium from the distribution's packages when $CHROMIUM is not on PATH
# (as root, or with passwordless sudo; otherwise it names the package and
# stops, its message starting with WHO), then sets CHROMIUM to its path.
ensure_chromium() {
  CHROMIUM=${CHROMIUM:-chromium}
  if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
    if [[ $(id -u) == 0 ]]; then
      apt-get install -y chromium
    elif sudo -n true 2>/dev/null; then
      sudo apt-get install -y chromium
    else
      echo "$1: Chromium is missing; install it (Debian/Ubuntu: apt-get install -y chromium) or set CHROMIUM" >&2
      exit 1
    fi
  fi
  CHROMIUM=$(command -v "$CHROMIUM")
  "$CHROMIUM" --version
}
