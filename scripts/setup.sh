#!/usr/bin/env bash
# Checks the toolchain the build needs. sieve is pure Rust (stable, edition
# 2024, Rust >= 1.95); rustup installs it if cargo is missing.
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        echo "cargo not found: installing Rust with rustup" >&2
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
fi
if command -v rustup >/dev/null 2>&1; then
    rustup component add clippy rustfmt >/dev/null 2>&1 || true
fi
cargo --version
