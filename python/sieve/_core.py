"""The Python face of sieve: indexes, searching, TREC files, evaluation and
the UTF-8 cleaner, each one call into the native extension (the Rust
libraries themselves; no subprocess).

Names follow pyserini and pyterrier-pisa where those leave a choice open:
an index is opened by path (``sieve.Index(path)``, as ``PisaIndex(path)``),
``index.bm25(k1=0.9, b=0.4, num_results=1000)`` gives a PyTerrier
retriever, results use PyTerrier's columns (``qid``, ``query``, ``docno``,
``rank`` from 0, ``score``), and k1/b default to 0.9/0.4 as in Anserini,
pyserini and pyterrier-pisa.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from . import _frames, _native
from ._errors import ParameterError, SieveWarning

PathLike = Union[str, "os.PathLike[str]"]
#: What can be searched: a topics DataFrame (``qid``, ``query``), a list of
#: query strings (qids ``"1"``, ``"2"``, ...), a ``{qid: query}`` dict, one
#: query string (qid ``"1"``), or a ``pathlib.Path`` to a topic file in any
#: format sieve reads (``field`` chooses title, desc or title+desc). A qid
#: must fit a run file's column: one that is empty or holds whitespace or a
#: control character raises ``DataError`` (kind ``InvalidRunField``).
Topics = Union[pd.DataFrame, Sequence[str], Mapping[str, str], str, "os.PathLike[str]"]


def _warn(notes: Iterable[str], stacklevel: int = 3) -> None:
    for n in notes:
        warnings.warn(n, SieveWarning, stacklevel=stacklevel)


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple, np.ndarray, pd.Series)):
        return list(x)
    return [x]


def _number_list(name: str, x: Any, cast: Callable[[Any], Any]) -> list:
    values = _as_list(x)
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ParameterError(
                f"invalid {name}: expected a number, got {v!r}",
                kind="InvalidParameter",
                expected="a number",
                found=repr(v),
            )
        out.append(cast(v))
    return out


#: The largest integer the native extension takes (a signed 64-bit one).
_INT_MAX = 2**63 - 1


def _feedback_params(params: Optional[Dict[str, Any]]) -> list:
    """``{name: value or list}`` as ``[(name, [float, ...])]`` for the
    extension (``True``/``False`` as 1/0); the extension checks the names
    and ranges."""
    out = []
    for name, value in (params or {}).items():
        values = [float(v) if isinstance(v, bool) else v for v in _as_list(value)]
        out.append((str(name), _number_list(str(name), values, float)))
    return out


WEIGHTED_PREFIX = "applypipeline:off "


def _weighted_queries(queries: List[str]) -> Optional[List[List[Tuple[str, float]]]]:
    """Queries written by a query rewrite (:class:`sieve.pyterrier.QueryExpansion`,
    Terrier's form ``applypipeline:off term^weight ...``: terms already analysed,
    searched as given) as ``[(term, weight)]`` per query; ``None`` for plain
    queries. Both kinds in one frame are refused."""
    marked = [q.startswith(WEIGHTED_PREFIX) for q in queries]
    if not any(marked):
        return None
    if not all(marked):
        raise ParameterError(
            "invalid queries: some are weighted (applypipeline:off ...) and some are not",
            kind="InvalidParameter",
            expected="all weighted or none",
            found=f"{sum(marked)} of {len(marked)} weighted",
        )
    out = []
    for q in queries:
        terms = []
        for tok in q[len(WEIGHTED_PREFIX):].split():
            term, sep, w = tok.rpartition("^")
            try:
                weight = float(w)
            except ValueError:
                weight = float("nan")
            if not sep or not term or not math.isfinite(weight):
                raise ParameterError(
                    f"invalid weighted query term {tok!r}: expected term^weight with a finite weight",
                    kind="InvalidParameter",
                    expected="term^weight",
                    found=tok,
                )
            terms.append((term, weight))
        out.append(terms)
    return out


def _int(name: str, v: Any, lo: int = 0, hi: int = _INT_MAX) -> int:
    """``v`` as an integer from ``lo`` to ``hi``; otherwise a
    :class:`ParameterError` (a ``ValueError``) naming ``name`` and the range,
    never a bare ``OverflowError`` or ``TypeError`` from the extension."""
    expected = f"an integer from {lo} to {hi}"
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= int(v) <= hi:
        raise ParameterError(
            f"invalid {name}: expected {expected}, got {v!r}",
            kind="InvalidParameter",
            expected=expected,
            found=repr(v),
        )
    return int(v)


def build_keywords() -> List[Tuple[str, str, str]]:
    """Every keyword :func:`build` takes, as ``(keyword, sieve-index build
    flag, note)``: one per flag of ``sieve-index build``."""
    return list(_native.build_keywords())


def _check_utf8(qids: List[str], queries: List[str]) -> None:
    """Refuses a qid or query that cannot be UTF-8 (a lone surrogate)."""
    for qid, q in zip(qids, queries):
        for what, s in (("qid", qid), ("query", q)):
            try:
                s.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ParameterError(
                    f"invalid topics: the {what} of topic {qid!r} is not valid UTF-8 "
                    f"({e.reason} at character {e.start})",
                    kind="InvalidUtf8",
                    offset=e.start,
                ) from None


def _topics_args(topics: Topics) -> Tuple[Optional[str], Optional[pd.DataFrame], List[str], List[str]]:
    """(topic file, topics frame, qids, queries) for the extension."""
    path, frame, qids, queries = _topics_args_unchecked(topics)
    _check_utf8(qids, queries)
    return path, frame, qids, queries


def _topics_args_unchecked(topics: Topics) -> Tuple[Optional[str], Optional[pd.DataFrame], List[str], List[str]]:
    if isinstance(topics, os.PathLike):
        return os.fspath(topics), None, [], []
    if isinstance(topics, pd.DataFrame):
        missing = [c for c in ("qid", "query") if c not in topics.columns]
        if missing:
            raise ParameterError(
                f"invalid topics: expected a DataFrame with columns qid and query, missing {missing}",
                kind="InvalidParameter",
                expected="columns qid and query",
                found=str(list(topics.columns)),
            )
        frame = topics.reset_index(drop=True)
        return None, frame, [str(q) for q in frame["qid"]], [str(q) for q in frame["query"]]
    if isinstance(topics, str):
        topics = [topics]
    if isinstance(topics, Mapping):
        qids = [str(q) for q in topics.keys()]
        queries = [str(q) for q in topics.values()]
    else:
        queries = list(topics)
        if not all(isinstance(q, str) for q in queries):
            raise ParameterError(
                "invalid topics: expected a DataFrame, a list of query strings, a {qid: query} dict or a pathlib.Path",
                kind="InvalidParameter",
                expected="query strings",
                found=repr(type(topics)),
            )
        qids = [str(i + 1) for i in range(len(queries))]
    _check_utf8(qids, queries)
    frame = pd.DataFrame({"qid": qids, "query": queries})
    return None, frame, qids, queries


class Index:
    """One sieve index, or several searched as the shards of one collection
    with global BM25 statistics (as ``sieve-search run --index A B``).

    ``Index(path)`` opens an index built by ``sieve-index build`` or
    :func:`build`; ``Index([a, b])`` opens shards. The index is opened once
    and searched from any thread; the GIL is released while searching.

    An index whose build did not finish (killed, or being resumed) is
    refused (:class:`BadIndexError` naming it) unless
    ``allow_unfinished=True``: then its committed documents are searched,
    with a :class:`SieveWarning` when it is opened and on every search.
    """

    def __init__(
        self, paths: Union[PathLike, Sequence[PathLike]], *, allow_unfinished: bool = False
    ) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths: List[Path] = [Path(p) for p in paths]
        self._native = _native.NativeIndex(
            [os.fspath(p) for p in self.paths], allow_unfinished=allow_unfinished
        )
        _warn(self._native.unfinished_warnings(), stacklevel=3)
        _warn(self._native.bounds_warnings(), stacklevel=3)

    def __repr__(self) -> str:
        inner = ", ".join(repr(str(p)) for p in self.paths)
        return f"sieve.Index([{inner}])" if len(self.paths) > 1 else f"sieve.Index({inner})"

    def __len__(self) -> int:
        return self.num_docs

    @property
    def num_docs(self) -> int:
        """Documents in the index (all shards)."""
        return int(self._native.num_docs())

    def analyze(self, text: str) -> List[str]:
        """``text`` as the index analyses queries: tokens, stopwords removed,
        stemmed (with the analyser recorded in the index)."""
        return list(self._native.analyze(text))

    def _json(self, name: str) -> Any:
        if len(self.paths) != 1:
            raise ParameterError(
                f"invalid index: {name} is per index; this Index has {len(self.paths)} shards",
                kind="InvalidParameter",
            )
        with open(self.paths[0] / name, encoding="utf-8") as f:
            return json.load(f)

    @property
    def stats(self) -> Dict[str, Any]:
        """The index's ``stats.json`` (what the build read, indexed, skipped
        and lost)."""
        return self._json("stats.json")

    @property
    def manifest(self) -> Dict[str, Any]:
        """The index's ``sieve.json`` (build options, tool version, inputs)."""
        return self._json("sieve.json")

    def _search(
        self,
        topics: Topics,
        *,
        k1: Any,
        b: Any,
        num_results: int,
        min_spam_percentile: Any,
        max_invalid_456_per_kb: Any,
        filter: Any,
        unscored: str,
        stats: str,
        field: str,
        search_field: str,
        max_query_terms: int,
        global_stats: Optional[PathLike],
        threads: Optional[int],
        tag: str,
        model: Any = "bm25",
        mu: Any = 1000,
        feedback: Any = None,
        feedback_params: Optional[Dict[str, Any]] = None,
        rerank_cutoff: int = 50,
    ) -> Tuple[pd.DataFrame, list]:
        path, frame, qids, queries = _topics_args(topics)
        weighted = _weighted_queries(queries)
        _warn(self._native.unfinished_warnings(), stacklevel=4)
        res = self._native.search(
            topics_path=path,
            qids=qids,
            queries=queries,
            k1=_number_list("k1", k1, float),
            b=_number_list("b", b, float),
            hits=_int("num_results", num_results, lo=1),
            min_spam_percentile=[_int("min_spam_percentile", p, hi=100) for p in _as_list(min_spam_percentile)],
            max_invalid_456_per_kb=_number_list("max_invalid_456_per_kb", max_invalid_456_per_kb, float),
            filters=[os.fspath(f) for f in _as_list(filter)],
            unscored=unscored,
            stats=stats,
            topic_field=field,
            search_field=search_field,
            max_query_terms=_int("max_query_terms", max_query_terms, lo=1),
            global_stats=None if global_stats is None else os.fspath(global_stats),
            threads=None if threads is None else _int("threads", threads, lo=1),
            tag=tag,
            string_objects=not _frames.ARROW_STRINGS,
            model=[str(m) for m in _as_list(model)],
            mu=_number_list("mu", mu, float),
            feedback=[str(f) for f in _as_list(feedback)],
            feedback_params=_feedback_params(feedback_params),
            rerank_cutoff=_int("rerank_cutoff", rerank_cutoff, lo=1),
            weighted=weighted,
        )
        read_qids, read_queries, notes, runs = res
        if frame is None:
            frame = pd.DataFrame({"qid": read_qids, "query": read_queries})
        _warn(notes, stacklevel=4)
        return frame, runs

    def search(
        self,
        topics: Topics,
        *,
        k1: float = 0.9,
        b: float = 0.4,
        num_results: int = 1000,
        min_spam_percentile: Optional[int] = None,
        max_invalid_456_per_kb: Optional[float] = None,
        filter: Optional[PathLike] = None,
        unscored: str = "keep",
        stats: str = "full",
        field: str = "title",
        search_field: str = "body",
        max_query_terms: int = 1024,
        global_stats: Optional[PathLike] = None,
        threads: Optional[int] = None,
        model: str = "bm25",
        mu: float = 1000,
        feedback: Optional[str] = None,
        feedback_params: Optional[Dict[str, Any]] = None,
        rerank_cutoff: int = 50,
    ) -> pd.DataFrame:
        """BM25 results of ``topics`` as a DataFrame with PyTerrier's columns:
        the topic's columns (``qid``, ``query``, ...), ``docno``, ``rank``
        (from 0) and ``score``; topics in order, hits by score descending,
        ties by docno descending (trec_eval's order). The same hits, ranks and
        scores as ``sieve-search run`` with the same options.

        Options, as ``sieve-search run``'s flags: ``k1``, ``b``
        (``--k1``/``--b``), ``num_results`` (``--hits``),
        ``min_spam_percentile`` (keep documents with spam percentile >= P),
        ``max_invalid_456_per_kb``, ``filter`` (a filter file from
        ``sieve-filter build``), ``unscored`` (``"keep"``/``"drop"``: documents
        without a spam score), ``stats`` (``"full"``: statistics of the whole
        index; ``"filtered"``: of the kept documents only),
        ``field`` (``title``, ``desc``, ``title+desc``: for a topic file),
        ``search_field`` (``body``, ``title``), ``max_query_terms``,
        ``global_stats`` (a file from ``sieve-search global-stats``) and
        ``threads`` (default: one per core). One run: for several settings
        at once use :meth:`runs`.

        Models, as ``run``'s flags: ``model`` (``"bm25"``, ``"qld"``:
        query likelihood with Dirichlet smoothing), ``mu`` (QLD's prior),
        ``feedback`` (``"rm3"``, ``"bm25prf"``, ``"rocchio"``: pseudo-relevance
        feedback as Anserini 1.7.1 computes it; with a filter, the feedback
        documents come from the filtered ranking), ``feedback_params`` (a
        dict of ``run``'s feedback flags with ``_`` for ``-``, e.g.
        ``{"rm3_fb_docs": 20, "rm3_original_query_weight": 0.6}``) and
        ``rerank_cutoff`` (the first stage's depth).
        """
        for name, v in (("k1", k1), ("b", b), ("min_spam_percentile", min_spam_percentile),
                        ("max_invalid_456_per_kb", max_invalid_456_per_kb), ("filter", filter),
                        ("model", model), ("mu", mu), ("feedback", feedback)):
            if isinstance(v, (list, tuple, np.ndarray, pd.Series)):
                raise ParameterError(
                    f"invalid {name}: search() makes one run; give one value, or use runs() for a list",
                    kind="InvalidParameter",
                    expected="one value",
                    found=repr(v),
                )
        for name, v in (feedback_params or {}).items():
            if isinstance(v, (list, tuple, np.ndarray, pd.Series)):
                raise ParameterError(
                    f"invalid feedback_params[{name!r}]: search() makes one run; give one value, "
                    "or use runs() for a list",
                    kind="InvalidParameter",
                    expected="one value",
                    found=repr(v),
                )
        selections = sum(x is not None for x in (min_spam_percentile, max_invalid_456_per_kb, filter))
        if selections > 1:
            raise ParameterError(
                "invalid filters: search() makes one run, so it takes one of min_spam_percentile, "
                "max_invalid_456_per_kb and filter; use runs() for several",
                kind="InvalidParameter",
            )
        frame, runs = self._search(
            topics, k1=k1, b=b, num_results=num_results, min_spam_percentile=min_spam_percentile,
            max_invalid_456_per_kb=max_invalid_456_per_kb, filter=filter, unscored=unscored,
            stats=stats, field=field, search_field=search_field, max_query_terms=max_query_terms,
            global_stats=global_stats, threads=threads, tag="sieve", model=model, mu=mu,
            feedback=feedback, feedback_params=feedback_params, rerank_cutoff=rerank_cutoff,
        )
        return _frames.results_frame(frame, runs[0])

    def runs(
        self,
        topics: Topics,
        *,
        k1: Any = 0.9,
        b: Any = 0.4,
        num_results: int = 1000,
        min_spam_percentile: Any = None,
        max_invalid_456_per_kb: Any = None,
        filter: Any = None,
        unscored: str = "keep",
        stats: str = "full",
        field: str = "title",
        search_field: str = "body",
        max_query_terms: int = 1024,
        global_stats: Optional[PathLike] = None,
        threads: Optional[int] = None,
        tag: str = "sieve",
        model: Any = "bm25",
        mu: Any = 1000,
        feedback: Any = None,
        feedback_params: Optional[Dict[str, Any]] = None,
        rerank_cutoff: int = 50,
    ) -> Dict[str, pd.DataFrame]:
        """Several runs in one pass over the postings, as ``sieve-search run
        --k1 0.9,1.2 --min-spam-percentile 50,70``: every combination of the
        ``k1`` values, ``b`` values and selections (each spam percentile,
        each 4/5/6-byte rate, each filter file). Returns ``{tag: results}``
        in the command line's order with its tags (``sieve_k1-0.9_b-0.4_spam70``;
        one run keeps ``tag``). Options as in :meth:`search`; ``model``, ``mu``,
        ``feedback`` and each value of ``feedback_params`` may be lists too
        (``model=["bm25", "qld"], feedback="rm3"``: tags as ``run`` writes them,
        ``sieve_qld_mu-1000_rm3_t10_d10_w0.5``)."""
        frame, runs = self._search(
            topics, k1=k1, b=b, num_results=num_results, min_spam_percentile=min_spam_percentile,
            max_invalid_456_per_kb=max_invalid_456_per_kb, filter=filter, unscored=unscored,
            stats=stats, field=field, search_field=search_field, max_query_terms=max_query_terms,
            global_stats=global_stats, threads=threads, tag=tag, model=model, mu=mu,
            feedback=feedback, feedback_params=feedback_params, rerank_cutoff=rerank_cutoff,
        )
        return {r[0]: _frames.results_frame(frame, r) for r in runs}

    def _expand(self, *, qids, queries, hit_rows, docnos, scores, method, feedback_params,
                search_field, max_query_terms) -> List[List[Tuple[str, float]]]:
        """Feedback queries from given first-stage hits (for
        :class:`sieve.pyterrier.QueryExpansion`)."""
        _check_utf8(qids, queries)
        return self._native.expand(
            qids=qids, queries=queries, hit_rows=hit_rows, docnos=docnos, scores=scores,
            method=str(method), feedback_params=_feedback_params(feedback_params),
            search_field=search_field, max_query_terms=_int("max_query_terms", max_query_terms, lo=1),
        )

    def global_stats(
        self,
        topics: Topics,
        output: Optional[PathLike] = None,
        *,
        field: str = "title",
        search_field: str = "body",
        max_query_terms: int = 1024,
    ) -> Dict[str, Any]:
        """Stage 1 of a two-stage search (``sieve-search global-stats``): the
        BM25 statistics of this index (all its shards) for ``topics``,
        written to ``output`` if given (the file ``search(global_stats=...)``
        and ``sieve-search run --global-stats`` read); returned as a dict."""
        path, _frame, qids, queries = _topics_args(topics)
        text = self._native.global_stats(
            topics_path=path, qids=qids, queries=queries, topic_field=field,
            search_field=search_field, max_query_terms=_int("max_query_terms", max_query_terms, lo=1),
        )
        if output is not None:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        return json.loads(text)

    def bm25(self, k1: float = 0.9, b: float = 0.4, num_results: int = 1000, **kwargs: Any) -> Any:
        """A PyTerrier retriever over this index (as pyterrier-pisa's
        ``PisaIndex.bm25``): ``sieve.pyterrier.Retriever(self, k1=k1, b=b,
        num_results=num_results, **kwargs)``."""
        from .pyterrier import Retriever

        return Retriever(self, k1=k1, b=b, num_results=num_results, **kwargs)


def _stderr_progress(p: Dict[str, Any]) -> None:
    rate = p["docs"] / max(p["seconds"], 1e-9)
    print(
        f"sieve: progress: {p['docs']} docs indexed in {p['seconds']:.1f}s ({rate:.3g} docs/s), "
        f"file [{p['file_index']}/{p['files']}] {p['file']}",
        file=sys.stderr,
        flush=True,
    )


def build(
    inputs: Union[PathLike, Sequence[PathLike]],
    index: PathLike,
    *,
    progress: Union[bool, Callable[[Dict[str, Any]], Any]] = True,
    **options: Any,
) -> Index:
    """Builds the index ``index`` from ``inputs`` (files, directories or
    glob patterns: WARC, TREC SGML, SMART, JSON lines, TSV, plain or
    gzipped) as ``sieve-index build`` does, and opens it.

    Every option of ``sieve-index build`` is a keyword, its flag's name
    with ``_`` for ``-`` (``build_keywords()`` lists them with their flags):
    ``threads`` (default: one per core), ``charset`` (``"auto"``/``"utf8"``),
    ``text`` (``"all"``/``"main"``), ``no_near_duplicates``, ``positions``
    (term positions, for sequential dependence and phrases), ``docvectors``
    (each document's terms stored, for fast feedback), the caps
    ``max_record_bytes``, ``max_decompression_ratio``, ``max_html_depth``,
    ``max_text_bytes``, ``max_doc_ms`` and ``doc_timeout``
    (``"skip"``/``"truncate"``), ``quarantine`` (a directory),
    ``stem=False`` (``--no-stem``), ``stopwords=False``
    (``--keep-stopwords``), ``filter`` (a filter file), ``spam`` (Waterloo
    spam rankings), ``writer_mb``, ``commit_every_mb``, ``docid_header``,
    the JSON keys ``id_field``, ``title_field``, ``text_field``,
    ``url_field``, ``language_field``, ``tsv_columns``, ``progress_every``
    and ``resume``. Defaults are the command line's. Any other keyword
    raises :class:`sieve.ParameterError` naming every keyword there is.

    ``progress``: ``True`` prints a line to stderr every ``progress_every``
    seconds (and at the end); a callable gets a dict (``docs``, ``file``,
    ``file_index``, ``files``, ``seconds``) instead; ``False``: nothing.
    The GIL is released during the build. What the command line prints as
    warnings (inputs skipped, files not read to their end, spam coverage) is
    issued as :class:`sieve.SieveWarning`, and also when part of the input
    was lost (the command line's exit code 3) or nothing was indexed (4).
    The build statistics are ``Index.stats``.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    if progress is True:
        callback: Optional[Callable[[Dict[str, Any]], Any]] = _stderr_progress
    elif progress is False or progress is None:
        callback = None
    elif callable(progress):
        callback = progress
    else:
        raise ParameterError(
            f"invalid progress: expected True, False or a callable, got {progress!r}",
            kind="InvalidParameter",
        )
    _stats, status, notes = _native.build_index(
        [os.fspath(i) for i in inputs],
        os.fspath(index),
        progress=callback,
        **options,
    )
    _warn(notes)
    if status == 3:
        _warn([f"{index}: done, but part of the input was lost (see stats.json and losses.jsonl)"])
    elif status == 4:
        _warn([f"{index}: done, but nothing was indexed"])
    return Index(index)


# ---------------------------------------------------------------- TREC files


def read_topics(path: PathLike, field: str = "title") -> pd.DataFrame:
    """A topic file in any format sieve reads (TREC SGML, Web Track XML,
    ``id:query``, TSV, Anserini CACM, SMART), detected from its content, as
    a DataFrame ``qid``, ``query`` (the ``field``: ``title``, ``desc`` or
    ``title+desc``), as ``pt.io.read_topics`` gives. ``df.attrs["format"]``
    names the format read."""
    fmt, ids, queries, _titles, _descs, _narrs = _native.read_topics_file(os.fspath(path), field)
    df = pd.DataFrame({"qid": ids, "query": queries})
    df.attrs["format"] = fmt
    return df


def read_qrels(path: PathLike) -> pd.DataFrame:
    """A qrels file (``qid iter docno rel``, or Cranfield's three columns)
    as a DataFrame ``qid``, ``docno``, ``label`` (as ``pt.io.read_qrels``),
    topics and documents in byte order."""
    q, d, l = _native.read_qrels_file(os.fspath(path))
    return pd.DataFrame({"qid": q, "docno": d, "label": np.asarray(l, dtype=np.int64)})


def read_run(path: PathLike, dedup: bool = False) -> pd.DataFrame:
    """A TREC run file as a DataFrame ``qid``, ``docno``, ``rank`` (from 0),
    ``score``, ``name`` (the tag of its first line): topics in byte order,
    each topic's hits in the order trec_eval evaluates them. A document
    retrieved twice for a topic is an error unless ``dedup`` (keep the best
    copy)."""
    tag, q, d, s = _native.read_run_file(os.fspath(path), dedup=bool(dedup))
    df = pd.DataFrame({"qid": q, "docno": d, "score": np.asarray(s, dtype=np.float64)})
    df.insert(2, "rank", df.groupby("qid", sort=False).cumcount().astype(np.int64))
    df["name"] = tag
    return df


def write_run(results: pd.DataFrame, path: PathLike, tag: str = "sieve", sort: bool = False) -> None:
    """Writes ``results`` (``qid``, ``docno``, ``score``) as a TREC run file
    with sieve's writer: ``qid Q0 docno rank score tag``, ranks from 1,
    scores as 32-bit floats printed as ``sieve-search run`` prints them, so
    a search written here is byte for byte the command line's run file.
    Rows must be grouped by topic and in trec_eval order (score descending,
    docno descending), as searches return them; ``sort=True`` sorts them
    first (topics in first-appearance order). A qid or docno that is empty
    or holds whitespace (any Unicode whitespace) or a control character
    would break the file's columns: it raises ``DataError`` (kind
    ``InvalidRunField``, naming the value escaped and the rule) before
    anything is written."""
    for c in ("qid", "docno", "score"):
        if c not in results.columns:
            raise ParameterError(
                f"invalid results: expected a column {c!r}", kind="InvalidParameter",
                expected="columns qid, docno, score", found=str(list(results.columns)),
            )
    df = results
    if sort and len(df):
        order = pd.factorize(df["qid"])[0]
        df = (
            df.assign(_q=order, _s=df["score"].astype(np.float32))
            .sort_values(["_q", "_s", "docno"], ascending=[True, False, False], kind="stable")
        )
    _native.write_run_file(
        os.fspath(path),
        _frames.str_column(df["qid"], "qid"),
        _frames.str_column(df["docno"], "docno"),
        _frames.float_column(df["score"]),
        tag=tag,
    )


def fuse(
    runs: Sequence[PathLike],
    method: str = "rrf",
    *,
    rrf_k: int = 60,
    alpha: float = 0.5,
    weights: Optional[Sequence[float]] = None,
    min_max: bool = False,
    depth: int = 1000,
    k: int = 1000,
    tag: str = "sieve.fusion",
    output: Optional[PathLike] = None,
) -> pd.DataFrame:
    """Fuses run files as ``sieve-search fuse`` does (byte for byte
    Anserini 1.7.1's ``FuseRuns``): ``method`` is ``rrf`` (``1/(rrf_k +
    rank)``), ``interpolation`` (two runs: ``alpha`` × first + (1 − alpha)
    × second), ``average`` or ``weighted`` (one weight per run);
    ``min_max`` normalises each run's scores per topic first; ``depth``
    lines of each topic of each run are read, ``k`` kept per topic. Returns
    ``qid``, ``docno``, ``rank`` (from 0), ``score``, ``name`` (``tag``)
    in the fused run's order; ``output`` also writes the run file. A run
    that is empty, malformed or lists a document twice for a topic raises
    ``DataError``; bad settings ``ParameterError``."""
    settings = {
        "rrf_k": _int("rrf_k", rrf_k, 0, 2**31 - 1),
        "alpha": float(alpha),
        "weights": [float(w) for w in (weights or [])],
        "min_max": bool(min_max),
        "depth": _int("depth", depth, 1),
        "hits": _int("k", k, 1),
        "tag": str(tag),
        "output": None if output is None else os.fspath(output),
    }
    paths = [os.fspath(p) for p in _as_list(runs)]
    q, d, s = _native.fuse_run_files(paths, str(method), settings)
    df = pd.DataFrame({"qid": q, "docno": d, "score": np.asarray(s, dtype=np.float64)})
    df.insert(2, "rank", df.groupby("qid", sort=False).cumcount().astype(np.int64))
    df["name"] = tag
    return df


# ---------------------------------------------------------------- evaluation

RunLike = Union[PathLike, pd.DataFrame]
QrelsLike = Union[PathLike, pd.DataFrame]


def _qrels_arg(qrels: QrelsLike) -> Any:
    if isinstance(qrels, pd.DataFrame):
        label = "label" if "label" in qrels.columns else "rel" if "rel" in qrels.columns else None
        if label is None or "qid" not in qrels.columns or "docno" not in qrels.columns:
            raise ParameterError(
                "invalid qrels: expected a DataFrame with columns qid, docno and label",
                kind="InvalidParameter", found=str(list(qrels.columns)),
            )
        labels = qrels[label]
        if not pd.api.types.is_integer_dtype(labels):
            raise ParameterError(
                f"invalid qrels: the label column must hold integers, it holds {labels.dtype}",
                kind="InvalidParameter", expected="integer labels", found=str(labels.dtype),
            )
        return (
            _frames.str_column(qrels["qid"], "qid"),
            _frames.str_column(qrels["docno"], "docno"),
            [int(x) for x in labels],
        )
    return os.fspath(qrels)


def _run_arg(run: RunLike, name: Optional[str] = None) -> Any:
    if isinstance(run, pd.DataFrame):
        for c in ("qid", "docno", "score"):
            if c not in run.columns:
                raise ParameterError(
                    f"invalid run: expected a DataFrame with columns qid, docno and score, missing {c!r}",
                    kind="InvalidParameter", found=str(list(run.columns)),
                )
        if name is None:
            name = run.attrs.get("name") or (str(run["name"].iloc[0]) if "name" in run.columns and len(run) else "DataFrame")
        return (
            _frames.str_column(run["qid"], "qid"),
            _frames.str_column(run["docno"], "docno"),
            _frames.float_column(run["score"]),
            str(name),
        )
    return os.fspath(run)


class Evaluation:
    """The evaluation of one run (``sieve-search eval``): ``mean`` (measure
    name -> value, names as ``eval`` prints them: ``map``, ``P_10``,
    ``ndcg_cut_20``, ``ndcg@20`` (gdeval), ...), ``per_query`` (a DataFrame
    ``qid``, ``measure``, ``value``), ``text`` (exactly what ``eval``
    prints), ``num_q``, ``note`` (which topics were evaluated, when the run
    and the qrels differ) and ``gdeval_refused``. ``evaluation["map"]`` is
    ``evaluation.mean["map"]``."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        j = raw["json"]
        self.run: str = j["run"]
        self.num_q: int = j["num_q"]
        # In the order eval prints them (the JSON object is sorted by name).
        self.mean: Dict[str, float] = {m: j["mean"][m] for m in raw["measures"] if m in j["mean"]}
        rows = [
            (t["qid"], m, v)
            for t in j["topics"]
            for m, v in t.items()
            if m != "qid" and v is not None
        ]
        self.per_query = pd.DataFrame(rows, columns=["qid", "measure", "value"])
        self.text: str = raw["text"]
        self.note: Optional[str] = raw["note"]
        self.gdeval_refused: Optional[str] = raw["gdeval_refused"]

    def __getitem__(self, measure: str) -> float:
        return self.mean[measure]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in self.mean.items())
        return f"<sieve.Evaluation {self.run}: {shown}>"


def evaluate(
    run: RunLike,
    qrels: QrelsLike,
    measures: Union[None, str, Sequence[str]] = None,
    *,
    per_query: bool = False,
    complete: bool = False,
    max_docs: Optional[int] = None,
    dedup: bool = False,
    name: Optional[str] = None,
) -> Evaluation:
    """Evaluates ``run`` (a run file, or a results DataFrame) against
    ``qrels`` (a qrels file, or a DataFrame ``qid``, ``docno``, ``label``)
    exactly as ``sieve-search eval`` does (trec_eval 9.0.8 and gdeval
    numbers). ``measures`` are ``-m`` arguments (``"map"``, ``"P.10"``,
    ``"ndcg_cut.20"``, ``"ndcg@20"``, ``"official"``; default: eval's
    default set); ``complete`` is trec_eval's ``-c``, ``max_docs`` its
    ``-M``; ``per_query`` adds the per-topic rows to ``text``."""
    raws = _native.evaluate_runs(
        _qrels_arg(qrels),
        [_run_arg(run, name)],
        measures=[measures] if isinstance(measures, str) else list(measures or []),
        per_query=bool(per_query),
        complete=bool(complete),
        max_docs=None if max_docs is None else _int("max_docs", max_docs, lo=1),
        dedup=bool(dedup),
    )
    ev = Evaluation(raws[0])
    if ev.gdeval_refused:
        _warn([f"{ev.run}: {ev.gdeval_refused}"])
    return ev


class Comparison:
    """Two runs compared (``sieve-search compare``): ``table`` (one row per
    measure: ``measure``, ``n``, ``mean_a``, ``mean_b``, ``diff``,
    ``ci_low``, ``ci_high`` (its 95% interval), ``wins``, ``losses``,
    ``ties``, ``t``, ``p_value``, then every other number
    ``compare --json`` gives of the measure), ``most_changed`` (per
    measure, the topics that changed most), ``text`` (what ``compare``
    prints) and ``notes``."""

    def __init__(self, raw: Any, text: str, notes: Tuple[Optional[str], Optional[str]]) -> None:
        self.a: str = raw["a"]
        self.b: str = raw["b"]
        # every number ``compare --json`` gives of a measure, the first
        # columns in this order, then the rest in the JSON's order
        cols = ["measure", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "wins", "losses", "ties", "t", "p_value"]
        rows = []
        for m in raw["measures"]:
            ci = m.get("ci") or [None, None]
            row = {k: v for k, v in m.items() if not isinstance(v, (list, dict))}
            row.update(ci_low=ci[0], ci_high=ci[1])
            cols += [k for k in row if k not in cols]
            rows.append(row)
        self.table = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols)
        self.most_changed: Dict[str, pd.DataFrame] = {
            m["measure"]: pd.DataFrame(m.get("most_changed", []), columns=["qid", "a", "b"])
            for m in raw["measures"]
        }
        self.text = text
        self.notes = notes

    def __repr__(self) -> str:
        return f"<sieve.Comparison {self.a} vs {self.b}>\n{self.table.to_string(index=False)}"


def compare(
    run_a: RunLike,
    run_b: RunLike,
    qrels: QrelsLike,
    measures: Union[None, str, Sequence[str]] = None,
    *,
    top: int = 10,
    complete: bool = False,
    dedup: bool = False,
) -> Comparison:
    """Compares ``run_b`` with ``run_a`` (the baseline) as ``sieve-search
    compare`` does: means, difference, wins/losses/ties, paired t-test and
    the most changed topics per measure (default measures ``map``,
    ``P_10``, ``ndcg@20``, ``err@20``)."""
    if isinstance(measures, str):
        measures = [m for m in measures.split(",") if m]
    raw, text, notes = _native.compare_runs(
        _qrels_arg(qrels),
        _run_arg(run_a, "A" if isinstance(run_a, pd.DataFrame) and "name" not in run_a.columns else None),
        _run_arg(run_b, "B" if isinstance(run_b, pd.DataFrame) and "name" not in run_b.columns else None),
        measures=list(measures or []),
        top=_int("top", top),
        complete=bool(complete),
        dedup=bool(dedup),
    )
    return Comparison(raw, text, notes)


class Sweep:
    """A threshold sweep (``sieve-search sweep``): ``table`` (one row per
    setting with every column of ``sweep.tsv``: model settings, thresholds,
    documents kept, the judged loss, per measure its mean and every
    comparison with the unfiltered run; ``NA`` becomes NaN), ``judged`` (per
    filtered setting and topic, the judged documents its filter removed:
    ``setting``, ``qid``, ``relevant_removed``, ``nonrelevant_removed``,
    ``relevant_removed_top10``, ``relevant_removed_top_depth``) and ``text``
    (the summary the command line prints)."""

    def __init__(self, tsv: str, text: str, judged: list) -> None:
        import io

        self.table = pd.read_csv(io.StringIO(tsv), sep="\t", na_values=["NA"], keep_default_na=False,
                                 dtype={"setting": str, "baseline": str, "feedback": str})
        self.judged = pd.DataFrame(judged, columns=[
            "setting", "qid", "relevant_removed", "nonrelevant_removed",
            "relevant_removed_top10", "relevant_removed_top_depth",
        ])
        self.text = text

    def __repr__(self) -> str:
        return f"<sieve.Sweep {len(self.table)} settings>\n{self.text}"


def _axes(min_spam_percentile: Any, max_invalid_456_per_kb: Any, max_rate: Any, near_duplicates: Any) -> List[str]:
    """The sweep's rules as ``RULE=X,Y`` in the command line's flag order."""
    axes = []
    spam = [_int("min_spam_percentile", p, hi=100) for p in _as_list(min_spam_percentile)]
    if spam:
        axes.append("spam=" + ",".join(str(p) for p in spam))
    rates = _number_list("max_invalid_456_per_kb", max_invalid_456_per_kb, float)
    if rates:
        axes.append("invalid_4_5_6=" + ",".join(repr(x) for x in rates))
    if isinstance(max_rate, Mapping):
        for cls, values in max_rate.items():
            vals = _number_list(f"max_rate[{cls!r}]", values, float)
            axes.append(f"{cls}=" + ",".join(repr(x) for x in vals))
    elif max_rate is not None:
        raise ParameterError(
            "invalid max_rate: expected a {class: [rates]} dict", kind="InvalidParameter",
            expected="a dict", found=repr(type(max_rate)),
        )
    nd = [str(x) for x in _as_list(near_duplicates)]
    if nd:
        axes.append("near_duplicates=" + ",".join(nd))
    if not axes:
        raise ParameterError(
            "nothing to sweep: give min_spam_percentile, max_invalid_456_per_kb, max_rate or near_duplicates",
            kind="InvalidParameter", expected="thresholds", found="none",
        )
    return axes


def sweep(
    index: Union["Index", PathLike, Sequence[PathLike]],
    topics: Topics,
    qrels: QrelsLike,
    *,
    min_spam_percentile: Any = None,
    max_invalid_456_per_kb: Any = None,
    max_rate: Optional[Mapping[str, Any]] = None,
    near_duplicates: Any = None,
    cross: bool = False,
    unscored: str = "keep",
    model: Any = "bm25",
    k1: Any = 0.9,
    b: Any = 0.4,
    mu: Any = 1000,
    collection_stats: str = "full",
    num_results: int = 1000,
    measures: Union[None, str, Sequence[str]] = None,
    complete: bool = False,
    tag: str = "sieve",
    field: str = "title",
    search_field: str = "body",
    max_query_terms: int = 1024,
    judged_only: bool = False,
) -> Sweep:
    """Sweeps filter thresholds over one index in one pass per topic, as
    ``sieve-search sweep`` does (the same code; its ``sweep.tsv`` is
    ``Sweep.table``, column for column): each threshold of
    ``min_spam_percentile``, ``max_invalid_456_per_kb``, ``max_rate``
    (``{"surrogate": [0.1, 1]}``) and ``near_duplicates`` (``"keep"``,
    ``"drop"``) is one setting (every combination with ``cross=True``),
    crossed with every ``model`` setting (``k1`` x ``b`` for BM25, ``mu``
    for QLD), each compared with the unfiltered run of the same setting.
    ``index``: an :class:`Index`, a directory or a list of shard
    directories. ``judged_only=True`` adds the ``_J`` columns (trec_eval
    ``-J``). Feedback sweeps are the command line's (``sieve-search sweep
    --feedback``)."""
    if not isinstance(index, Index):
        index = Index(index)
    if isinstance(measures, str):
        measures = [m for m in measures.split(",") if m]
    path, _frame, qids, queries = _topics_args(topics)
    options = {
        "rules": _axes(min_spam_percentile, max_invalid_456_per_kb, max_rate, near_duplicates),
        "cross": bool(cross),
        "unscored": str(unscored),
        "model": [str(m) for m in _as_list(model)],
        "k1": _number_list("k1", k1, float),
        "b": _number_list("b", b, float),
        "mu": _number_list("mu", mu, float),
        "collection_stats": str(collection_stats),
        "hits": _int("num_results", num_results, lo=1),
        "max_query_terms": _int("max_query_terms", max_query_terms, lo=1),
        "measures": [str(m) for m in (measures or [])],
        "complete": bool(complete),
        "tag": str(tag),
        "field": str(field),
        "search_field": str(search_field),
        "judged_only": bool(judged_only),
    }
    _warn(index._native.unfinished_warnings())
    tsv, text, judged = _native.sweep_index(index._native, (path, qids, queries), _qrels_arg(qrels), options)
    return Sweep(tsv, text, judged)


# ---------------------------------------------------------------- the cleaner


def clean_utf8(data: Union[bytes, bytearray, memoryview], atire_counts: bool = False) -> Tuple[bytes, Dict[str, int]]:
    """Cleans ``data`` with sieve's UTF-8 cleaner: returns the cleaned bytes
    (same length, valid UTF-8, valid input unchanged) and the counts of the
    seven error classes (``unexpected_continuation``, ``missing_continuation``,
    ``surrogate``, ``invalid_4_5_6``, ``overlong_nul``, ``overlong_ascii``,
    ``overlong_non_ascii``). ``atire_counts``: count as ATIRE does
    (``sieve-filter utf8 --atire-counts``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ParameterError(
            f"invalid data: expected bytes, got {type(data).__name__}",
            kind="InvalidParameter", expected="bytes", found=type(data).__name__,
        )
    return _native.clean_utf8(bytes(data) if not isinstance(data, bytes) else data, atire_counts=bool(atire_counts))


def clean_utf8_file(
    path: PathLike, output: Optional[PathLike] = None, atire_counts: bool = False
) -> Dict[str, int]:
    """Streams the file ``path`` through the cleaner in bounded memory (as
    ``sieve-filter utf8 FILE [--output OUT]``), writing the cleaned bytes to
    ``output`` if given; returns ``bytes`` (read) and the seven counts."""
    n, counts = _native.clean_utf8_file(
        os.fspath(path), output=None if output is None else os.fspath(output), atire_counts=bool(atire_counts)
    )
    return {"bytes": n, **counts}
