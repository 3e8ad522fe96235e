"""sieve as a PyTerrier transformer.

    import pyterrier as pt
    from pyterrier.measures import MAP, nDCG, P
    import sieve
    from sieve.pyterrier import Retriever

    index = sieve.Index("IDX")
    bm25 = Retriever(index, k1=0.9, b=0.4)
    bm25_spam70 = Retriever(index, k1=0.9, b=0.4, min_spam_percentile=70, stats="filtered")
    qld = Retriever(index, model="qld", mu=1000)
    bm25_rm3 = Retriever(index, feedback="rm3")
    pt.Experiment([bm25, bm25_spam70, qld, bm25_rm3], topics, qrels,
                  eval_metrics=[MAP, nDCG@20, P@10], baseline=0)

PyTerrier 1.x runs this without Java: Java is needed only by Terrier's own
transformers (``pip install pyterrier`` without the ``java`` extra is
enough). ``Retriever`` searches with sieve's BM25 exactly as
``sieve-search run`` does, so ``pt.Experiment``'s numbers equal
``sieve-search eval``'s for the same run (MAP is trec_eval's ``map``,
``nDCG@20`` its ``ndcg_cut_20``, ``P@10`` its ``P_10``).
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import pandas as pd
import pyterrier as pt

from ._core import WEIGHTED_PREFIX, Index, PathLike
from ._errors import ParameterError


class Retriever(pt.Transformer):
    """BM25 over a sieve index as a PyTerrier transformer: queries (``qid``,
    ``query``) in, results (the query columns, ``docno``, ``rank`` from 0,
    ``score``) out, ``num_results`` per query.

    ``index`` is a :class:`sieve.Index`, an index directory, or a list of
    directories (shards searched with global statistics). The options are
    :meth:`sieve.Index.search`'s: ``min_spam_percentile`` keeps documents
    with spam percentile >= P, ``max_invalid_456_per_kb`` drops documents
    with more invalid 4/5/6-byte sequences per KB, ``filter`` is a filter
    file, ``unscored`` says what happens to documents without a spam score,
    ``stats`` is ``"full"`` (statistics of the whole index, as ChatNoir) or
    ``"filtered"`` (of the kept documents: the run equals one over an index
    built with the same filter). ``model`` (``"bm25"``, ``"qld"``), ``mu``,
    ``feedback`` (``"rm3"``, ``"bm25prf"``, ``"rocchio"``), ``feedback_params``
    and ``rerank_cutoff`` are :meth:`sieve.Index.search`'s too: feedback runs
    inside the retriever (first stage, expansion, second search, as
    ``sieve-search run --feedback``; with a filter, the feedback documents
    come from the filtered ranking).
    """

    def __init__(
        self,
        index: Union[Index, PathLike, Sequence[PathLike]],
        k1: float = 0.9,
        b: float = 0.4,
        min_spam_percentile: Optional[int] = None,
        stats: str = "full",
        num_results: int = 1000,
        *,
        max_invalid_456_per_kb: Optional[float] = None,
        filter: Optional[PathLike] = None,
        unscored: str = "keep",
        search_field: str = "body",
        max_query_terms: int = 1024,
        threads: Optional[int] = None,
        model: str = "bm25",
        mu: float = 1000,
        feedback: Optional[str] = None,
        feedback_params: Optional[dict] = None,
        rerank_cutoff: int = 50,
    ) -> None:
        super().__init__()
        self.index = index if isinstance(index, Index) else Index(index)
        self.k1 = k1
        self.b = b
        self.min_spam_percentile = min_spam_percentile
        self.stats = stats
        self.num_results = num_results
        self.max_invalid_456_per_kb = max_invalid_456_per_kb
        self.filter = filter
        self.unscored = unscored
        self.search_field = search_field
        self.max_query_terms = max_query_terms
        self.threads = threads
        self.model = model
        self.mu = mu
        self.feedback = feedback
        self.feedback_params = dict(feedback_params or {})
        self.rerank_cutoff = rerank_cutoff

    def _options(self) -> dict:
        return dict(
            k1=self.k1,
            b=self.b,
            num_results=self.num_results,
            min_spam_percentile=self.min_spam_percentile,
            max_invalid_456_per_kb=self.max_invalid_456_per_kb,
            filter=self.filter,
            unscored=self.unscored,
            stats=self.stats,
            search_field=self.search_field,
            max_query_terms=self.max_query_terms,
            threads=self.threads,
            model=self.model,
            mu=self.mu,
            feedback=self.feedback,
            feedback_params=self.feedback_params,
            rerank_cutoff=self.rerank_cutoff,
        )

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        if not isinstance(queries, pd.DataFrame) or "qid" not in queries.columns or "query" not in queries.columns:
            found = list(queries.columns) if isinstance(queries, pd.DataFrame) else type(queries).__name__
            raise ParameterError(
                f"Retriever expects a query frame with columns qid and query, got {found}",
                kind="InvalidParameter",
                expected="columns qid and query",
                found=str(found),
            )
        return self.index.search(queries, **self._options())

    def fuse_rank_cutoff(self, k: int) -> Optional["Retriever"]:
        """``retriever % k`` as a retriever of ``k`` results (PyTerrier
        calls this to fuse a rank cutoff into the retriever)."""
        if k < self.num_results:
            opts = self._options()
            opts["num_results"] = k
            return Retriever(self.index, **opts)
        return None

    def __repr__(self) -> str:
        parts = [repr(self.index), f"k1={self.k1!r}", f"b={self.b!r}"]
        for name in ("min_spam_percentile", "max_invalid_456_per_kb", "filter"):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"{name}={v!r}")
        if self.stats != "full":
            parts.append(f"stats={self.stats!r}")
        if self.num_results != 1000:
            parts.append(f"num_results={self.num_results!r}")
        if self.model != "bm25":
            parts.append(f"model={self.model!r}, mu={self.mu!r}")
        if self.feedback is not None:
            parts.append(f"feedback={self.feedback!r}")
        if self.feedback_params:
            parts.append(f"feedback_params={self.feedback_params!r}")
        return f"sieve.pyterrier.Retriever({', '.join(parts)})"


class QueryExpansion(pt.Transformer):
    """Pseudo-relevance feedback as a PyTerrier query rewrite: results in
    (``qid``, ``query``, ``docno``, ``score``), one query per topic out, in
    Terrier's form ``applypipeline:off term^weight ...`` (the terms analysed
    by the index's analyser, searched as given by the next
    :class:`Retriever`), the original query kept in ``query_0``:

        bm25 = Retriever(index)
        rm3 = bm25 % 50 >> QueryExpansion(index, "rm3") >> bm25
        pt.Experiment([bm25, rm3], topics, qrels, eval_metrics=[MAP])

    ``method`` is ``"rm3"`` or ``"rocchio"`` with ``feedback_params`` as
    :meth:`sieve.Index.search` takes them (``{"rm3_fb_docs": 20}``), each one
    value; the statistics are the whole index's. The feedback documents are
    the incoming results in Anserini's order (score descending, then docid
    ascending); Rocchio's bottom documents are their last ones, so cut the
    first stage (``% 50``, Anserini's ``-rerankCutoff``) to get
    ``sieve-search run --feedback``'s run, which this pipeline then equals.
    BM25-PRF is not a rewrite (its second search scores with its own k1, b
    and no idf): use ``Retriever(index, feedback="bm25prf")``.
    """

    def __init__(
        self,
        index: Union[Index, PathLike, Sequence[PathLike]],
        method: str = "rm3",
        feedback_params: Optional[dict] = None,
        *,
        search_field: str = "body",
        max_query_terms: int = 1024,
    ) -> None:
        super().__init__()
        self.index = index if isinstance(index, Index) else Index(index)
        self.method = method
        self.feedback_params = dict(feedback_params or {})
        self.search_field = search_field
        self.max_query_terms = max_query_terms

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        need = ["qid", "query", "docno", "score"]
        if not isinstance(results, pd.DataFrame) or any(c not in results.columns for c in need):
            found = list(results.columns) if isinstance(results, pd.DataFrame) else type(results).__name__
            raise ParameterError(
                f"QueryExpansion expects results with columns {need}, got {found}",
                kind="InvalidParameter",
                expected=", ".join(need),
                found=str(found),
            )
        original = "query_0" if "query_0" in results.columns else "query"
        topics = results.drop_duplicates("qid")[["qid", original]].reset_index(drop=True)
        rows = {q: i for i, q in enumerate(topics["qid"].astype(str))}
        terms = self.index._expand(
            qids=list(rows),
            queries=[str(q) for q in topics[original]],
            hit_rows=[rows[str(q)] for q in results["qid"]],
            docnos=[str(d) for d in results["docno"]],
            scores=[float(x) for x in results["score"]],
            method=self.method,
            feedback_params=self.feedback_params,
            search_field=self.search_field,
            max_query_terms=self.max_query_terms,
        )
        # Terms in the expansion's order (byte order of the term): the next
        # search sums the terms' scores in query order, in f32, as
        # `run --feedback` does.
        queries = [WEIGHTED_PREFIX + " ".join(f"{t}^{w!r}" for t, w in ts) for ts in terms]
        return pd.DataFrame({"qid": topics["qid"], "query": queries, "query_0": topics[original]})

    def __repr__(self) -> str:
        return f"sieve.pyterrier.QueryExpansion({self.index!r}, {self.method!r}, {self.feedback_params!r})"


__all__ = ["QueryExpansion", "Retriever"]
