"""The Python example of python/README.md runs and prints what its comments say."""

from __future__ import annotations

import os
import re

import pytest

from conftest import REPO

pytest.importorskip("pyterrier")


def test_readme_example_runs(tmp_path, capsys, monkeypatch):
    text = (REPO / "python" / "README.md").read_text()
    section = text[text.index("## Example\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 11
    code = code.replace('"cacm-index"', repr(str(tmp_path / "cacm-index")))
    code = code.replace('"cacm.run"', repr(str(tmp_path / "cacm.run")))
    monkeypatch.chdir(REPO)
    exec(compile(code, "python/README.md", "exec"), {})
    out = capsys.readouterr().out
    assert re.search(r"'map': 0\.31239\d*, 'P_30': 0\.19423\d*", out), out
    assert "AP" in out and "nDCG@20" in out and "P@10" in out
    assert os.path.getsize(tmp_path / "cacm.run") > 0
