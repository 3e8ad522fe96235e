"""The UTF-8 cleaner from Python: the table of GUIDE.md, and the CLI's counts."""

from __future__ import annotations

import json
import re

import pytest

import sieve
from conftest import DATA, REPO, cli

KEYS = ["unexpected_continuation", "missing_continuation", "surrogate", "invalid_4_5_6",
        "overlong_nul", "overlong_ascii", "overlong_non_ascii"]

# GUIDE.md, "The seven error classes": input, output, the class counted.
TABLE = [
    (b"\x80", b" ", "unexpected_continuation"),
    (b"\xe2\x82x", b"  x", "missing_continuation"),
    (b"\xed\xa0\x80", b"   ", "surrogate"),
    (b"\xf4\x90\x80\x80", b"    ", "invalid_4_5_6"),
    (b"\xc0\x80", b"  ", "overlong_nul"),
    (b"\xc1\x81", b"A ", "overlong_ascii"),
    (b"\xf0\x82\x82\xac", b"\xe2\x82\xac ", "overlong_non_ascii"),
]


def guide_table():
    """The rows of GUIDE.md's table of the seven classes: (key, example bytes,
    cleaned bytes or None for "all spaces")."""
    text = (REPO / "GUIDE.md").read_text()
    section = text[text.index("### The seven error classes\n"):]
    section = section[:section.index("\n#")]

    def hexes(cell):
        return bytes.fromhex(re.search(r"`([0-9A-F ]+)`", cell).group(1))

    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            clean = None if cells[2] == "all spaces" else hexes(cells[2])
            rows.append((cells[0].strip("`"), hexes(cells[1]), clean))
    return rows


def test_the_guide_table_is_the_table_tested_here():
    rows = guide_table()
    assert [key for key, _, _ in rows] == KEYS == [t[2] for t in TABLE]
    for (key, bad, clean), (tbad, tclean, _) in zip(rows, TABLE):
        assert tbad.startswith(bad), key
        if clean is None:
            assert tclean == b" " * len(tbad), key
        else:
            assert tclean.startswith(clean), key


@pytest.mark.parametrize("bad,clean,key", TABLE, ids=[t[2] for t in TABLE])
def test_each_class_is_cleaned_and_counted(bad, clean, key):
    out, counts = sieve.clean_utf8(b"a" + bad + b"z")
    assert out == b"a" + clean + b"z"
    assert list(counts) == KEYS
    assert counts[key] == 1 and sum(counts.values()) == 1


def test_valid_text_is_untouched():
    s = "Arabic \u0627 and \u20ac and \U0001f600".encode()
    assert sieve.clean_utf8(s) == (s, dict.fromkeys(KEYS, 0))
    assert sieve.clean_utf8(bytearray(s))[0] == s


def test_a_file_is_counted_as_sieve_filter_counts_it(tmp_path):
    src = DATA / "utf8" / "every-class.html"
    for atire in (False, True):
        flags = ["--atire-counts"] if atire else []
        want = json.loads(cli("sieve-filter", "utf8", src, *flags, "--output", tmp_path / "cli.out").stdout)
        got = sieve.clean_utf8_file(src, tmp_path / "py.out", atire_counts=atire)
        assert got == {k: v for k, v in want.items() if k != "file"}
        assert (tmp_path / "py.out").read_bytes() == (tmp_path / "cli.out").read_bytes()
        data, counts = sieve.clean_utf8(src.read_bytes(), atire_counts=atire)
        assert data == (tmp_path / "cli.out").read_bytes()
        assert counts == {k: want[k] for k in KEYS}


def test_not_bytes_is_refused():
    with pytest.raises(sieve.ParameterError):
        sieve.clean_utf8("text")  # type: ignore[arg-type]


def test_the_gil_is_released_while_cleaning():
    from test_search import in_background

    data = (b"ok \xed\xa0\x80 \xc1\x81 \xff" * 4_000_000)  # 44 MB, every sequence on the exact path
    (out, counts), during, alone = in_background(lambda: sieve.clean_utf8(data))
    assert len(out) == len(data) and counts["surrogate"] == 4_000_000
    assert during > 0.5 * alone, (during, alone)
