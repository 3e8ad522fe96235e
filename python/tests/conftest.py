"""Fixtures of the Python package's tests (run by scripts/test.sh with the
project's .venv, after the extension is built into it).

The command-line binaries are the oracle for "same as the CLI": they are
looked for in $SIEVE_BIN_DIR, else target/debug of this checkout (test.sh
builds them); tests that need them are skipped, saying so, when absent.
Every input is a committed fixture (tests/data, topics/); spam scores for
CACM are made up here (a fixed formula, not real data).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import sieve

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
CACM_DOCS = DATA / "cacm" / "cacm.trec.gz"
CACM_TOPICS = REPO / "topics" / "topics.cacm.txt"
CACM_QRELS = DATA / "eval" / "qrels.cacm.txt"
CRAN_DOCS = DATA / "cranfield" / "cran.all.first50"


def bin_dir() -> Path:
    return Path(os.environ.get("SIEVE_BIN_DIR", REPO / "target" / "debug"))


def cli_path(name: str) -> Path:
    p = bin_dir() / name
    if not p.exists():
        pytest.skip(f"SKIPPED: {name} not built in {bin_dir()} (set SIEVE_BIN_DIR)")
    return p


def cli(name: str, *args: object, check: bool = True) -> subprocess.CompletedProcess:
    """Runs a sieve binary; its stdout as text."""
    r = subprocess.run(
        [str(cli_path(name)), *[str(a) for a in args]],
        capture_output=True,
        text=True,
    )
    if check and r.returncode != 0:
        raise AssertionError(f"{name} {args} exited {r.returncode}: {r.stderr}")
    return r


def cli_eval_json(qrels: Path, run: Path, *measures: str) -> dict:
    args = ["eval", "--json"]
    for m in measures:
        args += ["-m", m]
    out = cli("sieve-search", *args, qrels, run).stdout
    return json.loads(out)[0]


def made_up_spam(path: Path) -> Path:
    """Made-up Waterloo-style spam percentiles for the 3,204 CACM docids
    (percentile = 37 * n mod 100): not real data, only a fixed spread."""
    with open(path, "w") as f:
        for n in range(1, 3205):
            f.write(f"{(37 * n) % 100} CACM-{n:04d}\n")
    return path


@pytest.fixture(scope="session")
def cacm(tmp_path_factory) -> sieve.Index:
    d = tmp_path_factory.mktemp("cacm")
    return sieve.build(CACM_DOCS, d / "index", progress=False)


@pytest.fixture(scope="session")
def cacm_spam(tmp_path_factory) -> sieve.Index:
    d = tmp_path_factory.mktemp("cacm-spam")
    spam = made_up_spam(d / "spam.txt")
    return sieve.build(CACM_DOCS, d / "index", spam=spam, progress=False)


@pytest.fixture(scope="session")
def cran(tmp_path_factory) -> sieve.Index:
    d = tmp_path_factory.mktemp("cran")
    return sieve.build(CRAN_DOCS, d / "index", progress=False)
