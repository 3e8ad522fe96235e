"""Topics, qrels and runs read as the CLI reads them; eval and compare print
what the CLI prints."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import sieve
from conftest import CACM_QRELS, CACM_TOPICS, DATA, REPO, cli

TOPIC_FILES = sorted((REPO / "topics").glob("topics.*.txt")) + [DATA / "cranfield" / "cran.qry.first11"]


@pytest.mark.parametrize("path", TOPIC_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("field", ["title", "desc"])
def test_topics_in_every_format_are_what_the_cli_reads(path, field):
    df = sieve.read_topics(path, field=field)
    out = cli("sieve-search", "topics", path, "--field", field).stdout.splitlines()
    assert out[0] == f"format\t{df.attrs['format']}"
    assert out[1] == f"count\t{len(df)}"
    assert [l.split("\t", 1)[0] for l in out[2:]] == list(df.qid)
    assert [l.split("\t", 1)[1] if "\t" in l else "" for l in out[2:]] == list(df["query"])


def test_qrels_and_runs_read_back(cacm, tmp_path):
    q = sieve.read_qrels(CACM_QRELS)
    lines = [l.split() for l in CACM_QRELS.read_text().splitlines() if l.strip()]
    assert len(q) == len(lines)
    assert set(zip(q.qid, q.docno, q.label)) == {(a, c, int(d)) for a, _, c, d in lines}
    run = tmp_path / "cli.run"
    cli("sieve-search", "run", "--index", cacm.paths[0], "--topics", CACM_TOPICS, "--output", run)
    r = sieve.read_run(run)
    assert list(r.columns) == ["qid", "docno", "rank", "score", "name"]
    assert len(r) == len(run.read_text().splitlines()) and set(r.name) == {"sieve"}
    # A run read back evaluates as the file does, and is written back byte for byte.
    assert sieve.evaluate(r, q)["map"] == sieve.evaluate(run, CACM_QRELS)["map"]
    order = {qid: i for i, qid in enumerate(pd.unique(sieve.read_topics(CACM_TOPICS).qid))}
    r2 = r.iloc[sorted(range(len(r)), key=lambda i: (order[r.qid[i]], int(r["rank"][i])))]
    sieve.write_run(r2, tmp_path / "again.run")
    assert (tmp_path / "again.run").read_bytes() == run.read_bytes()


def test_eval_and_compare_text_are_the_clis_stdout(cacm_spam, tmp_path):
    idx = cacm_spam.paths[0]
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    cli("sieve-search", "run", "--index", idx, "--topics", CACM_TOPICS, "--output", a)
    cli("sieve-search", "run", "--index", idx, "--topics", CACM_TOPICS, "--min-spam-percentile", "70", "--output", b)
    ev = sieve.evaluate(b, CACM_QRELS, per_query=True)
    assert ev.text == cli("sieve-search", "eval", "-q", CACM_QRELS, b).stdout
    assert ev.num_q == 52 and "12 without judgements" in ev.note
    assert set(ev.per_query.measure) >= {"map", "P_10", "ndcg@20"}
    c = sieve.compare(a, b, CACM_QRELS)
    assert c.text == cli("sieve-search", "compare", "--qrels", CACM_QRELS, a, b).stdout
    want = json.loads(cli("sieve-search", "compare", "--json", "--qrels", CACM_QRELS, a, b).stdout)
    assert list(c.table.measure) == [m["measure"] for m in want["measures"]]
    assert list(c.table.mean_b) == [m["mean_b"] for m in want["measures"]]
    # DataFrames compare as their files do.
    ra, rb = sieve.read_run(a), sieve.read_run(b)
    c2 = sieve.compare(ra, rb, sieve.read_qrels(CACM_QRELS))
    assert list(c2.table.p_value) == list(c.table.p_value)


def test_write_run_sorts_on_request(cacm, tmp_path):
    res = cacm.search(Path(CACM_TOPICS), num_results=20)
    sieve.write_run(res, tmp_path / "a.run")
    # Hits shuffled within each topic, topics kept in order.
    shuffled = pd.concat([g.sample(frac=1.0, random_state=7) for _, g in res.groupby("qid", sort=False)])
    with pytest.raises(sieve.DataError):
        sieve.write_run(shuffled, tmp_path / "b.run")
    sieve.write_run(shuffled, tmp_path / "b.run", sort=True)
    assert (tmp_path / "b.run").read_bytes() == (tmp_path / "a.run").read_bytes()


def test_sweep_table_is_the_clis_sweep_tsv_column_for_column(cacm_spam, tmp_path):
    idx = cacm_spam.paths[0]
    out = tmp_path / "sweep"
    printed = cli(
        "sieve-search", "sweep", "--index", idx, "--topics", CACM_TOPICS, "--qrels", CACM_QRELS,
        "--min-spam-percentile", "30,70", "--max-rate", "surrogate=0.5", "--k1", "0.9,1.2",
        "-m", "map,P_10", "--output-dir", out,
    ).stdout
    s = sieve.sweep(
        idx, CACM_TOPICS, CACM_QRELS, min_spam_percentile=[30, 70], max_rate={"surrogate": [0.5]},
        k1=[0.9, 1.2], measures="map,P_10",
    )
    want = pd.read_csv(out / "sweep.tsv", sep="\t", na_values=["NA"], keep_default_na=False,
                       dtype={"setting": str, "baseline": str, "feedback": str})
    assert list(s.table.columns) == list(want.columns)
    pd.testing.assert_frame_equal(s.table, want)
    # every column the command line writes, the judged loss included
    assert {"rel_removed", "rel_removed_share", "rel_removed_top10", "judged_not_in_index"} <= set(s.table.columns)
    # the summary is what the command line prints, from its first line to the judged loss
    assert s.text.splitlines()[0] == printed.splitlines()[0]
    assert "judged documents each filter removes" in s.text
    per_setting = s.judged.groupby("setting").relevant_removed.sum()
    rows = s.table.set_index("setting")
    for setting, removed in per_setting.items():
        assert rows.loc[setting, "rel_removed"] == removed
    # a DataFrame of topics and of qrels sweep as their files do
    s2 = sieve.sweep(cacm_spam, sieve.read_topics(CACM_TOPICS), sieve.read_qrels(CACM_QRELS),
                     min_spam_percentile=70, measures=["map"])
    assert s2.table.loc[1, "map"] == s.table.loc[s.table.setting == "sieve_k1-0.9_b-0.4_spam70", "map"].item()
    with pytest.raises(sieve.ParameterError, match="nothing to sweep"):
        sieve.sweep(cacm_spam, CACM_TOPICS, CACM_QRELS)


def test_compare_table_has_every_number_of_compare_json(cacm_spam, tmp_path):
    idx = cacm_spam.paths[0]
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    cli("sieve-search", "run", "--index", idx, "--topics", CACM_TOPICS, "--output", a)
    cli("sieve-search", "run", "--index", idx, "--topics", CACM_TOPICS, "--min-spam-percentile", "50", "--output", b)
    want = json.loads(cli("sieve-search", "compare", "--json", "--qrels", CACM_QRELS, a, b).stdout)
    c = sieve.compare(a, b, CACM_QRELS)
    for row, m in zip(c.table.to_dict("records"), want["measures"]):
        for k, v in m.items():
            if isinstance(v, (list, dict)):
                continue
            assert row[k] == v or (v is None and pd.isna(row[k])), (k, row[k], v)
        assert [row["ci_low"], row["ci_high"]] == m["ci"]
