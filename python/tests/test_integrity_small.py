"""sieve.build takes every sieve-index build option as a keyword, and an
integer parameter out of range is a ParameterError naming it, never a bare
OverflowError."""

from __future__ import annotations

import pytest

import sieve
from conftest import CACM_QRELS, CRAN_DOCS, cli

#: A value for every keyword of sieve.build (the command line's default, or
#: a harmless one).
EVERY_KEYWORD = {
    "charset": "auto",
    "text": "main",
    "no_near_duplicates": True,
    "positions": True,
    "docvectors": True,
    "max_record_bytes": 10 << 20,
    "max_decompression_ratio": 200,
    "max_html_depth": 256,
    "max_text_bytes": 4 << 20,
    "max_doc_ms": 0,
    "doc_timeout": "skip",
    "quarantine": None,
    "stem": True,
    "stopwords": True,
    "filter": None,
    "spam": None,
    "writer_mb": 64,
    "commit_every_mb": 0,
    "docid_header": None,
    "id_field": ["id", "_id", "docid", "ClueWeb22-ID"],
    "title_field": "title",
    "text_field": ["contents", "text", "body", "Clean-Text"],
    "url_field": ["url", "URL"],
    "language_field": ["language", "Language"],
    "tsv_columns": "id,text",
    "threads": 1,
    "progress_every": 0,
    "resume": False,
}


def test_build_keywords_of_the_readme_were_rejected(tmp_path):
    # docid_header, id_field, tsv_columns, commit_every_mb, text and
    # no_near_duplicates were refused as unexpected keywords.
    assert {k for k, _, _ in sieve.build_keywords()} == set(EVERY_KEYWORD)
    idx = sieve.build(CRAN_DOCS, tmp_path / "ix", progress=False, **EVERY_KEYWORD)
    cli("sieve-index", "build", "--input", CRAN_DOCS, "--index", tmp_path / "cli", "--threads", 1,
        "--text", "main", "--no-near-duplicates", "--positions", "--docvectors", "--commit-every-mb", 0,
        "--writer-mb", 64)
    assert idx.num_docs > 0
    assert idx.manifest["options"] == sieve.Index(tmp_path / "cli").manifest["options"]
    assert idx.stats["totals"] == sieve.Index(tmp_path / "cli").stats["totals"]


def test_build_json_and_tsv_keywords_reach_the_readers(tmp_path):
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("u1\td1\tfirst title\tapples\nu2\td2\tsecond\tpears\n")
    idx = sieve.build(tsv, tmp_path / "ix", progress=False, tsv_columns="url,id,title,text")
    assert idx.num_docs == 2
    assert idx.search("apples")["docno"].tolist() == ["d1"]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"key": "j1", "body": "oranges"}\n')
    idx = sieve.build(jsonl, tmp_path / "jx", progress=False, id_field="key", text_field=["body"])
    assert idx.search("oranges")["docno"].tolist() == ["j1"]


def test_unknown_build_keyword_names_every_keyword(tmp_path):
    with pytest.raises(sieve.ParameterError) as e:
        sieve.build(CRAN_DOCS, tmp_path / "ix", progress=False, stemmer=False)
    msg = str(e.value)
    assert '"stemmer"' in msg and "docid_header" in msg and "no_near_duplicates" in msg
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize(
    "kwargs",
    [{"max_record_bytes": 2**64}, {"max_record_bytes": -1}, {"writer_mb": 2**64},
     {"threads": 2**64}, {"threads": 0}, {"commit_every_mb": -5}, {"max_html_depth": True}],
    ids=repr,
)
def test_huge_or_negative_build_integer_is_a_parameter_error(tmp_path, kwargs):
    with pytest.raises(sieve.ParameterError) as e:
        sieve.build(CRAN_DOCS, tmp_path / "ix", progress=False, **kwargs)
    (name,) = kwargs
    assert isinstance(e.value, ValueError)
    assert name in str(e.value) and "an integer from" in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "kwargs",
    [{"num_results": 2**64}, {"num_results": -(2**70)}, {"max_query_terms": 2**64},
     {"threads": 2**64}, {"min_spam_percentile": 2**64}],
    ids=repr,
)
def test_huge_search_integer_is_a_parameter_error_not_overflow(cacm, kwargs):
    with pytest.raises(sieve.ParameterError) as e:
        cacm.search(["hash table"], **kwargs)
    (name,) = kwargs
    assert isinstance(e.value, ValueError)
    assert name in str(e.value) and "an integer from" in str(e.value), str(e.value)


def test_huge_evaluation_integers_are_parameter_errors(tmp_path):
    run = tmp_path / "a.run"
    run.write_text("1 Q0 CACM-1410 1 2.0 a\n")
    with pytest.raises(sieve.ParameterError, match="max_docs.*an integer from"):
        sieve.evaluate(run, CACM_QRELS, ["map"], max_docs=2**64)
    with pytest.raises(sieve.ParameterError, match="top.*an integer from"):
        sieve.compare(run, run, CACM_QRELS, top=2**64)
