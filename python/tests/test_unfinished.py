"""An index whose build did not finish (here: ``sieve-index build`` killed
after its first commits) is refused by ``sieve.Index`` unless
``allow_unfinished=True``, which then warns when it is opened and on every
search."""

from __future__ import annotations

import gzip
import re
import subprocess
import warnings

import pytest

import sieve

from conftest import DATA, cli_path

FILES = 12


def interrupted_index(tmp_path):
    """Builds 12 copies of the ClueWeb09 sample (distinct docids), one
    commit per file, and kills the build (SIGKILL) once its progress line
    names the third file or a later one: at least two files are
    committed."""
    text = gzip.open(DATA / "warc" / "copycat__cw09-en0000-00.warc.gz").read()
    inputs = []
    for i in range(FILES):
        p = tmp_path / f"in-{i:02}.warc"
        p.write_bytes(text.replace(b"WARC-TREC-ID: ", f"WARC-TREC-ID: f{i:02}-".encode()))
        inputs.append(p)
    index = tmp_path / "ix"
    args = [str(cli_path("sieve-index")), "build", "--threads", "1", "--commit-every-mb", "0"]
    args += ["--progress-every", "0.01", "--index", str(index)]
    for p in inputs:
        args += ["--input", str(p)]
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in child.stderr:
            m = re.search(r"file \[(\d+)/", line)
            if m and int(m.group(1)) >= 3:
                break
        else:
            pytest.fail("the build ended before its third file")
    finally:
        child.kill()
        child.wait()
        child.stderr.close()
    assert not (index / "stats.json").exists()
    return index


def test_unfinished_index_is_refused_unless_allowed_and_then_warns(tmp_path):
    index = interrupted_index(tmp_path)
    with pytest.raises(sieve.BadIndexError) as e:
        sieve.Index(index)
    msg = str(e.value)
    assert str(index) in msg and "unfinished" in msg and "--resume" in msg, msg
    assert "allow_unfinished=True" in msg, msg
    assert e.value.kind == "Unfinished"
    with pytest.warns(sieve.SieveWarning, match="unfinished"):
        ix = sieve.Index(index, allow_unfinished=True)
    assert ix.num_docs >= 46 and ix.num_docs % 23 == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            ix.search("web page", num_results=5)
    said = [w for w in caught if "unfinished" in str(w.message)]
    assert len(said) == 2, [str(w.message) for w in caught]
