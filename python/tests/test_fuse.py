"""sieve.fuse: the committed Anserini fusion outputs reproduced from
Python, and refusals raised as the library's exceptions."""

from __future__ import annotations

import pytest

import sieve
from conftest import DATA

FUSION = DATA / "fusion"


def cases():
    for line in (FUSION / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            cols = line.split("\t")
            yield cols[0], cols[1], cols[2].split(","), cols[3].split() if len(cols) > 3 else []


@pytest.mark.parametrize("name,method,runs,options", list(cases()), ids=lambda c: c if isinstance(c, str) else "")
def test_fuse_writes_anserinis_bytes(tmp_path, name, method, runs, options):
    kw = {}
    for opt in options:
        if opt == "min-max":
            kw["min_max"] = True
        else:
            key, value = opt.split("=")
            kw[key] = [float(w) for w in value.split(",")] if key == "weights" else (
                float(value) if key == "alpha" else int(value))
    out = tmp_path / f"{name}.run"
    df = sieve.fuse([FUSION / r for r in runs], method, k=20, tag="sieve.fusion", output=out, **kw)
    want = (FUSION / "anserini" / f"{name}.run").read_bytes()
    assert out.read_bytes() == want
    assert len(df) == len(want.splitlines())
    assert list(df.columns) == ["qid", "docno", "rank", "score", "name"]
    first = want.split(b"\n", 1)[0].decode().split()
    assert (df.qid[0], df.docno[0], df["rank"][0]) == (first[0], first[2], 0)


def test_fuse_refusals(tmp_path):
    a = tmp_path / "a.run"
    a.write_text("1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n")
    dup = tmp_path / "dup.run"
    dup.write_text("1 Q0 a 1 3 x\n1 Q0 a 2 2 x\n")
    with pytest.raises(sieve.DataError, match="twice"):
        sieve.fuse([a, dup])
    with pytest.raises(sieve.ParameterError):
        sieve.fuse([a])
    with pytest.raises(sieve.ParameterError):
        sieve.fuse([a, a], "weighted", weights=[1.0])
    with pytest.raises(sieve.SieveError):
        sieve.fuse([a, a], output=a)
    assert a.read_text() == "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n"
