"""sieve.Client against a real `sieve-search serve` on the CACM index with
made-up spam percentiles: the served search equal to the local
Index.search (same docnos, ranks, scores), the batch run equal to
`sieve-search run`, documents, and errors raised as sieve's exceptions."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

import sieve
from conftest import REPO, cli, cli_path


@pytest.fixture(scope="module")
def served(cacm_spam):
    proc = subprocess.Popen(
        [str(cli_path("sieve-search")), "serve", "--bind", "127.0.0.1:0",
         "--index", f"cacm={cacm_spam.paths[0]}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("listening on "), line
    yield sieve.Client(line.split()[-1], index="cacm")
    proc.terminate()
    assert proc.wait(timeout=30) == 0


TOPICS = REPO / "topics" / "topics.cacm.txt"


@pytest.mark.parametrize("settings", [
    {},
    {"k1": 1.2, "b": 0.75},
    {"min_spam_percentile": 70},
    {"model": "qld", "mu": 500},
])
def test_search_equals_local_search(served, cacm_spam, settings):
    topics = sieve.read_topics(TOPICS).head(8)
    local_opts = {k: v for k, v in settings.items()}
    local = cacm_spam.search(topics, num_results=10, **local_opts)
    for qid, query in zip(topics["qid"], topics["query"]):
        remote = served.search(query, hits=10, qid=qid, **settings)
        mine = local[local["qid"] == qid]
        assert list(remote["docno"]) == list(mine["docno"]), (qid, settings)
        assert list(remote["rank"]) == list(mine["rank"])
        assert [round(s, 4) for s in remote["score"]] == [round(float(s), 4) for s in mine["score"]]
        if "min_spam_percentile" in settings:
            assert (remote["spam"] >= 70).all()


def test_run_equals_the_command_line(served, tmp_path, cacm_spam):
    out = tmp_path / "cli.run"
    cli("sieve-search", "run", "--index", cacm_spam.paths[0], "--topics", TOPICS,
        "--min-spam-percentile", "70", "--tag", "t", "--output", out)
    text = served.run_text(str(TOPICS), tag="t", min_spam_percentile=70)
    assert text == out.read_text()
    frame = served.run(sieve.read_topics(TOPICS).head(3), hits=5)
    assert set(frame["qid"]) == set(sieve.read_topics(TOPICS).head(3)["qid"])
    assert list(frame.columns) == ["qid", "docno", "rank", "score", "run"]
    assert frame.groupby("qid")["rank"].min().eq(0).all()


def test_documents_and_errors(served):
    assert served.health()["indexes"] == ["cacm"]
    assert served.indexes()[0]["documents"] == 3204
    doc = served.document("CACM-1410", query="time sharing")
    assert doc["docid"] == "CACM-1410"
    assert any(p["mark"] for p in doc["shown"][0]["text_pieces"])
    assert served.raw("CACM-1410").startswith(b"<DOC>")
    with pytest.raises(sieve.ParameterError) as e:
        served.search("x", hits=0)
    assert e.value.found == "hits"
    with pytest.raises(sieve.InputError):
        served.document("CACM-99999")
    with pytest.raises(sieve.InputError):
        sieve.Client(served.url, index="nope").search("x")
    with pytest.raises(sieve.ParameterError):
        served.search("x", min_spam_percentil=70)
    assert isinstance(served.search("zzzzqqq"), pd.DataFrame)
