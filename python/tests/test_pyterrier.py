"""sieve.pyterrier.Retriever in pt.Experiment gives sieve-search eval's numbers."""

from __future__ import annotations

import importlib.util
import math

import pytest

pt = pytest.importorskip("pyterrier")
from pyterrier.measures import MAP, P, nDCG  # noqa: E402

import sieve  # noqa: E402
from sieve.pyterrier import Retriever  # noqa: E402
from conftest import CACM_QRELS, CACM_TOPICS, cli, cli_eval_json  # noqa: E402


def test_experiment_with_and_without_a_spam_filter_gives_the_clis_numbers(cacm_spam, tmp_path):
    topics = sieve.read_topics(CACM_TOPICS)
    qrels = sieve.read_qrels(CACM_QRELS)
    bm25 = Retriever(cacm_spam, k1=0.9, b=0.4)
    bm25_spam70 = Retriever(cacm_spam, k1=0.9, b=0.4, min_spam_percentile=70, stats="filtered")
    table = pt.Experiment(
        [bm25, bm25_spam70], topics, qrels,
        eval_metrics=[MAP, nDCG @ 20, P @ 10], baseline=0, names=["bm25", "bm25_spam70"],
    )
    assert list(table["name"]) == ["bm25", "bm25_spam70"]
    for col in ["AP", "nDCG@20", "P@10", "AP +", "AP -", "AP p-value"]:
        assert col in table.columns, table.columns
    index = cacm_spam.paths[0]
    runs = {
        "bm25": [],
        "bm25_spam70": ["--min-spam-percentile", "70", "--collection-stats", "filtered"],
    }
    for row, (name, flags) in zip(table.itertuples(index=False), runs.items()):
        run = tmp_path / f"{name}.run"
        cli("sieve-search", "run", "--index", index, "--topics", CACM_TOPICS, *flags, "--output", run)
        want = cli_eval_json(CACM_QRELS, run, "map", "ndcg_cut.20", "P.10")["mean"]
        got = row._asdict()
        assert math.isclose(got["AP"], want["map"], rel_tol=0, abs_tol=1e-12), (name, got, want)
        assert math.isclose(table.loc[table.name == name, "nDCG@20"].item(), want["ndcg_cut_20"], abs_tol=1e-12)
        assert math.isclose(table.loc[table.name == name, "P@10"].item(), want["P_10"], abs_tol=1e-12)
    # The expected table: unfiltered MAP is CACM's 0.3124; the made-up spam
    # filter removes 70% of the documents and lowers it, on most topics.
    assert round(table.AP[0], 4) == 0.3124
    assert table.AP[1] < table.AP[0]
    assert table["AP -"][1] > table["AP +"][1]
    assert table["AP p-value"][1] < 0.05


def test_pyterrier_needs_no_java(cacm):
    # PyTerrier 1.x runs transformers and experiments without Java: the
    # Java bridge is not even installed in the test venv.
    assert importlib.util.find_spec("jnius") is None
    topics = sieve.read_topics(CACM_TOPICS)
    pt.Experiment([Retriever(cacm)], topics, sieve.read_qrels(CACM_QRELS), eval_metrics=[MAP])
    assert not pt.java.started()


def test_rank_cutoff_is_fused_into_the_retriever(cacm):
    topics = sieve.read_topics(CACM_TOPICS).head(5)
    full = Retriever(cacm)(topics)
    top10 = (Retriever(cacm) % 10)(topics)
    assert top10.groupby("qid").size().max() == 10
    head = full[full["rank"] < 10].reset_index(drop=True)
    assert list(top10["docno"]) == list(head["docno"])
    assert Retriever(cacm).fuse_rank_cutoff(10).num_results == 10


def test_index_bm25_is_a_retriever(cacm):
    r = cacm.bm25(k1=1.2, b=0.75, num_results=5)
    assert isinstance(r, Retriever)
    out = r.search("hash table")
    assert list(out.columns) == ["qid", "query", "docno", "rank", "score"] and len(out) == 5


def test_experiment_with_qld_and_rm3_retrievers_gives_the_clis_numbers(cacm, tmp_path):
    topics = sieve.read_topics(CACM_TOPICS)
    qrels = sieve.read_qrels(CACM_QRELS)
    retrievers = [Retriever(cacm, model="qld"), Retriever(cacm, feedback="rm3"),
                  Retriever(cacm, model="qld", feedback="bm25prf")]
    table = pt.Experiment(retrievers, topics, qrels, eval_metrics=[MAP], names=["qld", "rm3", "qld_prf"])
    flags = [["--model", "qld"], ["--feedback", "rm3"], ["--model", "qld", "--feedback", "bm25prf"]]
    for row, f in zip(table.itertuples(index=False), flags):
        run = tmp_path / "cli.run"
        cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS, *f, "--output", run)
        want = cli_eval_json(CACM_QRELS, run, "map")["mean"]["map"]
        assert math.isclose(row.AP, want, abs_tol=1e-12), (row, want)
    assert "feedback='rm3'" in repr(retrievers[1])


def test_query_expansion_pipeline_equals_the_clis_feedback_runs(cacm, tmp_path):
    from sieve.pyterrier import QueryExpansion

    topics = sieve.read_topics(CACM_TOPICS)
    bm25 = Retriever(cacm)
    for method, params in (("rm3", {}), ("rocchio", {"rocchio_use_negative": True})):
        pipeline = bm25 % 50 >> QueryExpansion(cacm, method, params) >> bm25
        res = pipeline.transform(topics)
        sieve.write_run(res, tmp_path / "py.run", tag="t")
        flags = ["--rocchio-use-negative"] if params else []
        cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS,
            "--feedback", method, *flags, "--tag", "t", "--output", tmp_path / "cli.run")
        cli_lines = (tmp_path / "cli.run").read_text().splitlines()
        # The CLI tags its run with the feedback setting; the pipeline does not.
        want = [" ".join(l.split(" ")[:5]) for l in cli_lines]
        got = [" ".join(l.split(" ")[:5]) for l in (tmp_path / "py.run").read_text().splitlines()]
        assert len(got) > 10_000 and got == want, method
    rewritten = (bm25 % 50 >> QueryExpansion(cacm, "rm3")).transform(topics.head(2))
    assert list(rewritten.columns) == ["qid", "query", "query_0"]
    assert rewritten["query"][0].startswith("applypipeline:off ")
    with pytest.raises(ValueError, match="rm3 or rocchio"):
        (bm25 % 50 >> QueryExpansion(cacm, "bm25prf")).transform(topics.head(2))
