"""Shared Python helpers for the scripts in scripts/ and bench/peers/ (imported, not run).

* shared_data(): the shared data directory, by the one rule the Rust helper
  sieve_testdata::shared_data and scripts/lib.sh use: $SIEVE_SHARED_DATA if set
  (and then only it), else ../shared/data beside the checkout; None when that directory
  is absent.
* read_qrels(path) / read_run(path) / run_lines(path): TREC qrels and run files.

Scripts outside scripts/ import it after `sys.path.insert(0, <repo>/scripts)`.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_data():
    """The shared data directory (absolute), or None when it does not exist."""
    env = os.environ.get("SIEVE_SHARED_DATA")
    d = env if env is not None else os.path.join(REPO, "..", "shared", "data")
    return os.path.abspath(d) if os.path.isdir(d) else None


def _fields(path, width):
    """Yields (line number, fields) for each non-blank line; exits naming the line when a
    line does not have exactly `width` whitespace-separated fields."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != width:
                sys.exit(f"{path}:{n}: expected {width} fields, got {len(parts)}")
            yield n, parts


def _put(table, path, n, qid, docno, value, unique):
    docs = table.setdefault(qid, {})
    if unique and docno in docs:
        sys.exit(f"{path}:{n}: document {docno} appears twice for topic {qid}")
    docs[docno] = value


def read_qrels(path, unique=False):
    """{qid: {docno: int grade}} from a 4-field qrels file. A repeated (qid, docno) keeps
    the last grade, or exits when `unique`."""
    qrels = {}
    for n, (qid, _, docno, rel) in _fields(path, 4):
        _put(qrels, path, n, qid, docno, int(rel), unique)
    return qrels


def run_lines(path):
    """Yields (line number, [qid, Q0, docno, rank, score, tag]) for each line of a 6-field
    run file."""
    return _fields(path, 6)


def read_run(path, unique=False):
    """{qid: {docno: float score}} from a run file. A repeated (qid, docno) keeps the last
    score, or exits when `unique`."""
    run = {}
    for n, (qid, _, docno, _, score, _) in run_lines(path):
        _put(run, path, n, qid, docno, float(score), unique)
    return run
