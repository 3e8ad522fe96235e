"""Searching from Python gives what `sieve-search run` gives."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

import sieve
from conftest import CACM_QRELS, CACM_TOPICS, cli, cli_eval_json


def test_cacm_map_is_the_clis_0_3124_exactly(cacm, tmp_path):
    res = cacm.search(sieve.read_topics(CACM_TOPICS), k1=0.9, b=0.4, num_results=1000)
    ev = sieve.evaluate(res, CACM_QRELS, ["map", "P.30"])
    assert round(ev["map"], 4) == 0.3124
    assert round(ev["P_30"], 4) == 0.1942
    run = tmp_path / "cli.run"
    cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS, "--output", run)
    want = cli_eval_json(CACM_QRELS, run, "map", "P.30")["mean"]
    assert ev["map"] == want["map"]
    assert ev["P_30"] == want["P_30"]


def test_run_written_from_python_is_byte_identical_to_the_clis(cacm, tmp_path):
    res = cacm.search(Path(CACM_TOPICS))
    sieve.write_run(res, tmp_path / "py.run")
    cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS,
        "--output", tmp_path / "cli.run")
    py = (tmp_path / "py.run").read_bytes()
    assert len(py) > 100_000
    assert py == (tmp_path / "cli.run").read_bytes()


def test_runs_lists_and_filters_are_the_clis_files_byte_for_byte(cacm_spam, tmp_path):
    runs = cacm_spam.runs(
        Path(CACM_TOPICS), k1=[0.9, 1.2], b=[0.4], min_spam_percentile=[50, 70],
        max_invalid_456_per_kb=[0.5], stats="filtered",
    )
    out = tmp_path / "cli"
    cli("sieve-search", "run", "--index", cacm_spam.paths[0], "--topics", CACM_TOPICS,
        "--k1", "0.9,1.2", "--b", "0.4", "--min-spam-percentile", "50,70",
        "--max-invalid-456-per-kb", "0.5", "--collection-stats", "filtered", "--output-dir", out)
    files = sorted(p.name for p in out.iterdir())
    assert sorted(f"{t}.run" for t in runs) == files and len(files) == 6
    assert list(runs)[0] == "sieve_k1-0.9_b-0.4_spam50"
    for tag, res in runs.items():
        sieve.write_run(res, tmp_path / "py.run", tag=tag)
        assert (tmp_path / "py.run").read_bytes() == (out / f"{tag}.run").read_bytes(), tag
    # The spam filter changes the run; the unfiltered one stays as it was.
    a, b = runs["sieve_k1-0.9_b-0.4_spam50"], runs["sieve_k1-0.9_b-0.4_spam70"]
    assert len(b) < len(a)


def test_results_have_pyterriers_columns_and_order(cacm):
    topics = sieve.read_topics(CACM_TOPICS)
    res = cacm.search(topics, num_results=50)
    assert list(res.columns) == ["qid", "query", "docno", "rank", "score"]
    assert res["rank"].dtype == np.int64 and res["score"].dtype == np.float64
    for qid, g in res.groupby("qid", sort=False):
        assert list(g["rank"]) == list(range(len(g)))
        assert len(g) == 50
        s = g["score"].to_numpy()
        assert (np.diff(s) <= 0).all()
    # Topics come back in input order.
    assert list(pd.unique(res["qid"])) == [q for q in topics["qid"] if q in set(res["qid"])]
    # Each row carries its topic's query.
    q = dict(zip(topics["qid"], topics["query"]))
    assert all(q[a] == b for a, b in zip(res["qid"], res["query"]))


def test_queries_as_list_dict_string_and_frame_agree(cacm):
    a = cacm.search(["parallel algorithms", "hash table"], num_results=10)
    b = cacm.search({"1": "parallel algorithms", "2": "hash table"}, num_results=10)
    c = cacm.search(pd.DataFrame({"qid": ["1", "2"], "query": ["parallel algorithms", "hash table"]}), num_results=10)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    one = cacm.search("parallel algorithms", num_results=10)
    pd.testing.assert_frame_equal(one, a[a.qid == "1"].reset_index(drop=True))
    # Extra columns of a topics frame are carried through, as PyTerrier does.
    d = cacm.search(pd.DataFrame({"qid": ["7"], "query": ["hash table"], "extra": [42]}), num_results=3)
    assert list(d["extra"]) == [42, 42, 42]


def test_any_thread_count_gives_the_same_results(cacm):
    topics = sieve.read_topics(CACM_TOPICS)
    pd.testing.assert_frame_equal(cacm.search(topics, threads=1), cacm.search(topics, threads=2))


def test_shards_with_global_statistics_equal_the_clis_run(cacm, cran, tmp_path):
    both = sieve.Index([cacm.paths[0], cran.paths[0]])
    assert both.num_docs == cacm.num_docs + cran.num_docs
    res = both.search(Path(CACM_TOPICS))
    assert set(res["docno"].str.startswith("CACM-")) == {True, False}
    sieve.write_run(res, tmp_path / "py.run")
    cli("sieve-search", "run", "--index", cacm.paths[0], cran.paths[0], "--topics", CACM_TOPICS,
        "--output", tmp_path / "cli.run")
    assert (tmp_path / "py.run").read_bytes() == (tmp_path / "cli.run").read_bytes()


def test_two_stage_search_with_a_global_statistics_file_equals_the_clis(cacm, cran, tmp_path):
    stats = tmp_path / "stats.json"
    sieve.Index([cacm.paths[0], cran.paths[0]]).global_stats(Path(CACM_TOPICS), stats)
    cli("sieve-search", "global-stats", "--index", cacm.paths[0], cran.paths[0],
        "--topics", CACM_TOPICS, "--output", tmp_path / "cli-stats.json")
    assert stats.read_bytes() == (tmp_path / "cli-stats.json").read_bytes()
    res = cacm.search(Path(CACM_TOPICS), global_stats=stats)
    sieve.write_run(res, tmp_path / "py.run")
    cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS,
        "--global-stats", stats, "--output", tmp_path / "cli.run")
    assert (tmp_path / "py.run").read_bytes() == (tmp_path / "cli.run").read_bytes()


def _ticks(seconds: float, until=None) -> float:
    """Ticks per second of a loop of 1 ms sleeps in this thread."""
    n, start = 0, time.perf_counter()
    while (until is None and time.perf_counter() - start < seconds) or (until is not None and not until.is_set()):
        n += 1
        time.sleep(0.001)
    return n / (time.perf_counter() - start)


def in_background(fn):
    """Runs fn in a thread; returns (its result, ticks per second this
    thread managed meanwhile, ticks per second with nothing running)."""
    alone = _ticks(0.2)
    done, out = threading.Event(), {}

    def work():
        try:
            out["res"] = fn()
        finally:
            done.set()

    t = threading.Thread(target=work)
    t.start()
    during = _ticks(0, until=done)
    t.join()
    return out["res"], during, alone


def test_the_gil_is_released_while_searching(cacm):
    topics = sieve.read_topics(CACM_TOPICS)
    many = pd.concat([topics.assign(qid=topics.qid + f"_{i}") for i in range(16)], ignore_index=True)
    res, during, alone = in_background(
        lambda: cacm.runs(many, k1=[0.5, 0.9, 1.2, 1.5], b=[0.3, 0.75], num_results=1, threads=1)
    )
    assert len(res) == 8
    # With the GIL held while searching, this thread would barely run.
    assert during > 0.5 * alone, (during, alone)


def test_analyze_is_the_index_analyser(cacm):
    assert cacm.analyze("The Running of Parallel Algorithms") == ["run", "parallel", "algorithm"]


def test_models_and_feedback_are_the_clis_files_byte_for_byte(cacm_spam, tmp_path):
    runs = cacm_spam.runs(
        Path(CACM_TOPICS), model=["bm25", "qld"], mu=[1000], feedback="rm3",
        feedback_params={"rm3_fb_docs": [5, 10]}, min_spam_percentile=[70],
    )
    out = tmp_path / "cli"
    cli("sieve-search", "run", "--index", cacm_spam.paths[0], "--topics", CACM_TOPICS,
        "--model", "bm25,qld", "--feedback", "rm3", "--rm3-fb-docs", "5,10",
        "--min-spam-percentile", "70", "--output-dir", out)
    files = sorted(p.name for p in out.iterdir())
    assert sorted(f"{t}.run" for t in runs) == files and len(files) == 4
    assert "sieve_qld_mu-1000_spam70_rm3_t10_d5_w0.5" in runs
    for tag, res in runs.items():
        sieve.write_run(res, tmp_path / "py.run", tag=tag)
        assert (tmp_path / "py.run").read_bytes() == (out / f"{tag}.run").read_bytes(), tag


def test_qld_and_feedback_from_search_and_refused_settings(cacm):
    topics = sieve.read_topics(CACM_TOPICS)
    qld = sieve.evaluate(cacm.search(topics, model="qld"), CACM_QRELS, ["map"])
    rm3 = sieve.evaluate(cacm.search(topics, feedback="rm3"), CACM_QRELS, ["map"])
    # Anserini 1.7.1 on CACM: qld 0.3265 (sieve 0.3268, bench/README.md), bm25+rm3 0.3648.
    assert round(qld["map"], 4) == 0.3268
    assert round(rm3["map"], 4) == 0.3648
    for bad in (dict(model="lm"), dict(feedback="rm4"), dict(feedback="rm3", feedback_params={"rm3_terms": 5}),
                dict(feedback="rm3", feedback_params={"rm3_fb_docs": [5, 10]}), dict(mu=-1, model="qld")):
        try:
            cacm.search(topics, **bad)
        except ValueError as e:
            assert "invalid" in str(e), (bad, e)
        else:
            raise AssertionError(f"{bad} was accepted")
