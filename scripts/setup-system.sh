#!/usr/bin/env bash
# Checks (and on Debian/Ubuntu installs) the system tools the tests need
# beside Rust: python3 with venv and pip (the evaluation oracles in .venv,
# scripts/setup-python.sh) and perl (gdeval.pl, run by ir_measures).
#
#   bash scripts/setup-system.sh --check   # list what is missing; exit 1 if anything is
#   bash scripts/setup-system.sh           # install what is missing with apt-get
#
# Installing needs root or passwordless sudo and apt-get; otherwise the script
# names the Debian packages to install and exits 1. The python3 checked is
# $PYTHON if set, else python3 on PATH.
set -euo pipefail
PY=${PYTHON:-python3}

# Prints the Debian package of each missing tool, one per line.
missing_packages() {
    if ! command -v "$PY" >/dev/null 2>&1; then
        echo python3
        echo python3-venv
        echo python3-pip
    else
        # ensurepip is what `python3 -m venv` needs to put pip in the venv.
        "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1 || echo python3-venv
        "$PY" -m pip --version >/dev/null 2>&1 || echo python3-pip
    fi
    command -v perl >/dev/null 2>&1 || echo perl
}

mapfile -t MISSING < <(missing_packages)
if [[ ${1-} == --check ]]; then
    if ((${#MISSING[@]} == 0)); then
        echo "setup-system: ok (python3 with venv and pip, perl)"
        exit 0
    fi
    echo "setup-system: missing: ${MISSING[*]}"
    exit 1
fi
((${#MISSING[@]} == 0)) && exit 0

SUDO=()
if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        SUDO=(sudo -n)
    else
        SUDO=(none)
    fi
fi
if [[ ${SUDO[0]-} == none ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-system: the tests need these packages, which are missing: ${MISSING[*]}" >&2
    echo "setup-system: install them (Debian/Ubuntu: sudo apt-get install -y ${MISSING[*]}) and run again" >&2
    exit 1
fi
echo "setup-system: installing ${MISSING[*]} with apt-get" >&2
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${MISSING[@]}"
mapfile -t STILL < <(missing_packages)
if ((${#STILL[@]} > 0)); then
    echo "setup-system: still missing after apt-get: ${STILL[*]}" >&2
    exit 1
fi
