"""Files the Python API writes are complete or absent, and never one of
their inputs (as the command lines' outputs: docs/reliability.md)."""

import os

import pandas as pd
import pytest

import sieve


def _left_in(directory):
    return sorted(p.name for p in directory.iterdir())


def test_write_run_refused_keeps_the_previous_file(tmp_path):
    out = tmp_path / "r.run"
    out.write_bytes(b"previous run\n")
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["good", "bad id"], "score": [2.0, 1.0]})
    with pytest.raises(sieve.DataError):
        sieve.write_run(frame, out)
    assert out.read_bytes() == b"previous run\n"
    assert _left_in(tmp_path) == ["r.run"], "no temporary file is left behind"


def test_write_run_replaces_the_previous_file_whole(tmp_path):
    out = tmp_path / "r.run"
    out.write_bytes(b"previous run, longer than the new one " * 100)
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    sieve.write_run(frame, out, tag="t")
    lines = [line.split() for line in out.read_text().splitlines()]
    assert [(f[0], f[2], f[3], f[5]) for f in lines] == [("1", "a", "1", "t"), ("1", "b", "2", "t")]
    assert _left_in(tmp_path) == ["r.run"]


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_clean_utf8_file_refuses_its_input_as_output(tmp_path, how):
    src = tmp_path / "a.txt"
    data = b"caf\xc3\xa9 \x80 bytes\n"
    src.write_bytes(data)
    out = {"same path": src, "symlink": tmp_path / "link.txt", "hard link": tmp_path / "hard.txt"}[how]
    if how == "symlink":
        os.symlink(src, out)
    elif how == "hard link":
        os.link(src, out)
    with pytest.raises(sieve.SieveError) as e:
        sieve.clean_utf8_file(src, output=out)
    assert "a.txt" in str(e.value), str(e.value)
    assert src.read_bytes() == data
