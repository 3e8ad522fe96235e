"""Bad input raises a clear sieve exception and never crashes the interpreter."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pandas as pd
import pytest

import sieve
from conftest import CACM_QRELS


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k1": math.nan}, {"k1": -0.5}, {"k1": math.inf}, {"k1": "0.9"}, {"b": 1.5}, {"b": -0.1},
        {"b": math.nan}, {"num_results": 0}, {"num_results": -3}, {"num_results": 2.5},
        {"threads": 0}, {"stats": "partial"}, {"unscored": "maybe"}, {"min_spam_percentile": 101},
        {"min_spam_percentile": -1}, {"max_invalid_456_per_kb": math.nan},
        {"max_invalid_456_per_kb": -1.0}, {"field": "narrative"}, {"search_field": "url"},
        {"max_query_terms": 0}, {"k1": [0.9, 1.2]}, {"min_spam_percentile": 50, "filter": "x"},
    ],
    ids=repr,
)
def test_bad_parameters_are_parameter_errors(cacm, kwargs):
    with pytest.raises(sieve.ParameterError) as e:
        cacm.search(["hash table"], **kwargs)
    assert isinstance(e.value, ValueError) and str(e.value)


def test_parameter_errors_carry_the_evidence(cacm):
    with pytest.raises(sieve.ParameterError) as e:
        cacm.search(["x"], k1=math.nan)
    assert "k1" in str(e.value) and e.value.found == "NaN" and "finite" in e.value.expected


def test_missing_and_non_index_directories(tmp_path):
    with pytest.raises(sieve.BadIndexError) as e:
        sieve.Index(tmp_path / "nope")
    assert "no such directory" in str(e.value) and e.value.path.endswith("nope")
    (tmp_path / "f").write_text("x")
    with pytest.raises(sieve.BadIndexError, match="not a directory"):
        sieve.Index(tmp_path / "f")
    (tmp_path / "d").mkdir()
    with pytest.raises(sieve.BadIndexError, match="no sieve.json"):
        sieve.Index(tmp_path / "d")


def _copy_index(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_damaged_manifest_is_refused_naming_the_file(cran, tmp_path):
    ix = _copy_index(cran.paths[0], tmp_path / "ix")
    p = ix / "sieve.json"
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0x20
    p.write_bytes(bytes(b))
    with pytest.raises(sieve.BadIndexError) as e:
        sieve.Index(ix)
    assert "sieve.json" in str(e.value)


def test_truncated_or_damaged_segment_files_never_crash(cran, tmp_path):
    topics = ["experimental study of wings", "boundary layer"]
    want = cran.search(topics)
    outcomes = set()
    src = cran.paths[0]
    files = sorted(p.name for p in src.iterdir() if p.is_file() and p.suffix in {".idx", ".pos", ".term", ".fast", ".fieldnorm", ".store"})
    assert files
    for i, name in enumerate(files):
        for how in ("truncate", "flip"):
            ix = _copy_index(src, tmp_path / f"ix{i}{how}")
            p = ix / name
            data = bytearray(p.read_bytes())
            if how == "truncate":
                data = data[: len(data) // 2]
            elif data:
                data[len(data) // 3] ^= 0xFF
            p.write_bytes(bytes(data))
            try:
                got = sieve.Index(ix).search(topics)
                outcomes.add("ok" if got.equals(want) else "different")
            except sieve.SieveError as e:
                assert str(e)
                outcomes.add(type(e).__name__)
    assert outcomes - {"ok", "different"}, outcomes


def test_missing_files_are_input_errors(cacm, tmp_path):
    for call in (
        lambda: sieve.read_topics(tmp_path / "none.txt"),
        lambda: sieve.read_qrels(tmp_path / "none.txt"),
        lambda: sieve.read_run(tmp_path / "none.run"),
        lambda: cacm.search(tmp_path / "none.txt"),
        lambda: sieve.evaluate(tmp_path / "none.run", CACM_QRELS),
        lambda: sieve.build(tmp_path / "none.warc", tmp_path / "ix", progress=False),
        lambda: sieve.clean_utf8_file(tmp_path / "none.bin"),
    ):
        with pytest.raises(sieve.InputError) as e:
            call()
        assert isinstance(e.value, OSError) and "none" in e.value.path


def test_bytes_that_are_not_utf8_are_data_errors_with_line_and_offset(cacm, tmp_path):
    t = tmp_path / "topics.txt"
    t.write_bytes(b"1:hash table\n2:bad \xff\xfe bytes\n")
    with pytest.raises(sieve.DataError) as e:
        sieve.read_topics(t)
    assert e.value.line == 2 and e.value.offset == 19 and e.value.path == str(t)
    with pytest.raises(sieve.DataError):
        cacm.search(t)
    q = tmp_path / "qrels.txt"
    q.write_bytes(b"1 0 CACM-0001 1\n1 0 CACM-\xc0\xaf 1\n")
    with pytest.raises(sieve.DataError) as e:
        sieve.read_qrels(q)
    assert e.value.line == 2


def test_python_strings_that_cannot_be_utf8_are_refused(cacm):
    with pytest.raises(sieve.ParameterError, match="UTF-8"):
        cacm.search(["lone \udcff surrogate"])


def test_syntax_errors_carry_line_and_evidence(tmp_path):
    r = tmp_path / "x.run"
    r.write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 not-a-number t\n")
    with pytest.raises(sieve.DataError) as e:
        sieve.read_run(r)
    assert e.value.kind == "SyntaxError" and e.value.line == 2 and e.value.found == "not-a-number"
    r.write_text("1 Q0 d1 1 2.5 t\n1 Q0 d1 2 2.0 t\n")
    with pytest.raises(sieve.DataError, match="twice"):
        sieve.read_run(r)
    assert len(sieve.read_run(r, dedup=True)) == 1


def test_bad_dataframes(cacm, tmp_path):
    with pytest.raises(sieve.ParameterError):
        cacm.search(pd.DataFrame({"id": ["1"], "text": ["x"]}))
    with pytest.raises(sieve.ParameterError):
        cacm.search([1, 2])  # type: ignore[list-item]
    empty = pd.DataFrame({"qid": [], "docno": [], "score": []})
    with pytest.raises(sieve.DataError, match="empty"):
        sieve.evaluate(empty, CACM_QRELS)
    dup = pd.DataFrame({"qid": ["1", "1"], "docno": ["CACM-0001", "CACM-0001"], "score": [2.0, 1.0]})
    with pytest.raises(sieve.DataError) as e:
        sieve.evaluate(dup, CACM_QRELS)
    assert e.value.kind == "DuplicateDoc" and e.value.line == 2
    with pytest.raises(sieve.DataError, match="whitespace"):
        sieve.write_run(pd.DataFrame({"qid": ["a b"], "docno": ["d"], "score": [1.0]}), tmp_path / "r")
    with pytest.raises(sieve.ParameterError, match="unknown measure"):
        sieve.evaluate(CACM_QRELS.parent / "anserini__cacm-bm25.run.txt", CACM_QRELS, ["nope"])


def test_a_damaged_filter_file_is_refused(cacm, tmp_path):
    f = tmp_path / "x.filter"
    f.write_bytes(b"SIEVE-FILTER 2\n" + b"\x00" * 64)
    with pytest.raises(sieve.DataError):
        cacm.search(["hash table"], filter=f)


def test_a_huge_query_is_capped_with_a_warning_and_finishes(cacm):
    words = " ".join(f"w{i}x" for i in range(1_000_000))
    start = time.perf_counter()
    with pytest.warns(sieve.SieveWarning, match="query terms dropped"):
        res = cacm.search([words + " hash table"])
    assert time.perf_counter() - start < 60
    assert len(res) == 0  # the first 1,024 terms match nothing
    with pytest.warns(sieve.SieveWarning, match="no searchable terms"):
        assert len(cacm.search(["the of and"])) == 0


@pytest.mark.parametrize(
    "docno, shown, rule",
    [
        ("sp ace", "sp\\u{20}ace", "whitespace"),
        ("vt\x0bhere", "vt\\u{b}here", "whitespace"),
        ("nb\u00a0sp", "nb\\u{a0}sp", "whitespace"),
        ("id\u3000x", "id\\u{3000}x", "whitespace"),
        ("nul\x00x", "nul\\0x", "control"),
        ("", "", "empty"),
    ],
)
def test_write_run_refuses_a_docno_that_would_break_the_run_file(tmp_path, docno, shown, rule):
    # The bad row is the last: nothing is written, not even the good rows.
    out = tmp_path / "r.run"
    frame = pd.DataFrame({"qid": ["1", "2"], "docno": ["good", docno], "score": [1.0, 1.0]})
    with pytest.raises(sieve.DataError) as e:
        sieve.write_run(frame, out)
    assert e.value.kind == "InvalidRunField"
    assert f'docid "{shown}"' in str(e.value) and rule in str(e.value), str(e.value)
    assert not out.exists()


@pytest.mark.parametrize("qid", ["a\u00a0b", "a\u3000b", "a\x01b", "a\x0bb"])
def test_search_refuses_a_qid_that_would_break_a_run_file(cacm, qid):
    with pytest.raises(sieve.DataError) as e:
        cacm.search({qid: "hash table"})
    assert e.value.kind == "InvalidRunField", str(e.value)
    assert "qid" in str(e.value)
