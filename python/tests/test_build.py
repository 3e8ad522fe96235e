"""Building from Python: sieve-index build's options, progress, refusals."""

from __future__ import annotations

import threading
import warnings

import pytest

import sieve
from conftest import CACM_DOCS, CRAN_DOCS, DATA, cli
from test_search import in_background


def test_progress_reaches_a_callable_with_the_gil_released(tmp_path):
    seen = []
    threads = set()

    def progress(p):
        seen.append(p)
        threads.add(threading.get_ident())

    idx, during, alone = in_background(
        lambda: sieve.build(CACM_DOCS, tmp_path / "ix", threads=1, progress=progress, progress_every=0)
    )
    assert idx.num_docs == 3204
    assert len(seen) >= 2
    docs = [p["docs"] for p in seen]
    assert docs == sorted(docs) and docs[-1] == 3204
    assert seen[-1]["files"] == 1 and seen[-1]["file_index"] == 1
    assert seen[-1]["file"].endswith("cacm.trec.gz")
    assert during > 0.5 * alone, (during, alone)
    assert idx.stats["totals"]["indexed"] == 3204


def test_options_reach_the_manifest_and_the_analyser(tmp_path):
    idx = sieve.build(CRAN_DOCS, tmp_path / "ix", stem=False, stopwords=False, charset="utf8",
                      max_text_bytes=1 << 20, progress=False)
    m = idx.manifest
    text = str(m)
    assert "utf8" in text.lower()
    assert idx.analyze("The Running") == ["the", "running"]
    # The same build from the command line reads the same documents.
    cli("sieve-index", "build", "--input", CRAN_DOCS, "--index", tmp_path / "cli", "--no-stem",
        "--keep-stopwords", "--charset", "utf8", "--max-text-bytes", 1 << 20)
    assert sieve.Index(tmp_path / "cli").num_docs == idx.num_docs
    assert idx.stats["totals"] == sieve.Index(tmp_path / "cli").stats["totals"]


def test_an_existing_index_is_refused_unless_resumed(tmp_path):
    n = sieve.build(CRAN_DOCS, tmp_path / "ix", progress=False).num_docs
    with pytest.raises(sieve.RefusedError) as e:
        sieve.build(CRAN_DOCS, tmp_path / "ix", progress=False)
    assert e.value.kind == "IndexExists" and e.value.path.endswith("ix")
    assert sieve.build(CRAN_DOCS, tmp_path / "ix", resume=True, progress=False).num_docs == n


def test_lost_input_and_skips_are_warnings(tmp_path):
    clipped = DATA / "warc" / "resiliparse__clipped.warc.gz"
    with pytest.warns(sieve.SieveWarning) as rec:
        idx = sieve.build(clipped, tmp_path / "ix", progress=False)
    said = [str(w.message) for w in rec]
    assert any("not read to the end" in m and "clipped" in m for m in said), said
    assert any("part of the input was lost" in m for m in said), said
    assert idx.stats["failed_files"]


def test_spam_and_quarantine(tmp_path):
    from conftest import made_up_spam

    spam = made_up_spam(tmp_path / "spam.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error", sieve.SieveWarning)  # full coverage: no warning
        idx = sieve.build(CACM_DOCS, tmp_path / "ix", spam=spam, quarantine=tmp_path / "q", progress=False)
    assert idx.stats["totals"]["spam_scored"] == 3204
    assert (tmp_path / "q" / "quarantine.jsonl").exists()
