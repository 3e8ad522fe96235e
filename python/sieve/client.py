"""A client of the sieve search service (``sieve-search serve``), so a
notebook can search an index served on another machine. Standard library
HTTP only (``urllib``); results are pandas DataFrames with PyTerrier's
columns, as :meth:`sieve.Index.search` gives them.

    client = sieve.Client("http://127.0.0.1:8080", index="cacm")
    hits = client.search("information retrieval", hits=10, min_spam_percentile=70)
    run = client.run("topics/topics.cacm.txt", k1=1.2, b=0.75)
    doc = client.document("CACM-1410")

Settings are the service's search parameters (docs/service.md): ``model``,
``k1``, ``b``, ``mu``, ``min_spam_percentile``, ``unscored``,
``max_invalid_456_per_kb``, ``drop_near_duplicates``, ``collection_stats``,
``feedback``, ``rerank_cutoff`` and the feedback models' own parameters.
A refused request raises :class:`sieve.ParameterError` (400, with the
parameter at fault in ``found``), :class:`sieve.InputError` (404: no such
index or document), or :class:`sieve.SieveError` (anything else), with the
server's message.
"""

from __future__ import annotations

import io
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional, Union

import pandas as pd

from ._errors import InputError, ParameterError, SieveError

TopicsIn = Union[str, bytes, "os.PathLike[str]", pd.DataFrame]


class Client:
    """The service at ``url``; ``index`` names the default index."""

    def __init__(self, url: str, index: Optional[str] = None, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.index = index
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"sieve.Client({self.url!r}, index={self.index!r})"

    # -- plumbing -------------------------------------------------------

    def _name(self, index: Optional[str]) -> str:
        name = index or self.index
        if not name:
            raise ParameterError("no index named: give index= here or to Client()", kind="Client")
        return urllib.parse.quote(name, safe="")

    def _request(self, path: str, params: Dict[str, Any], body: Optional[bytes] = None) -> bytes:
        query = urllib.parse.urlencode({k: _value(v) for k, v in params.items() if v is not None})
        url = f"{self.url}{path}" + (f"?{query}" if query else "")
        req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read()
        except urllib.error.HTTPError as e:
            raise _error(e.code, e.read()) from None
        except urllib.error.URLError as e:
            raise SieveError(f"cannot reach {self.url}: {e.reason}", kind="Unreachable") from None

    def _json(self, path: str, params: Dict[str, Any]) -> Any:
        return json.loads(self._request(path, params))

    # -- the routes -------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``GET /health``: status and the names of the indexes served."""
        return self._json("/health", {})

    def indexes(self) -> list:
        """``GET /v1/indexes``: what every served index holds."""
        return self._json("/v1/indexes", {})["indexes"]

    def search_json(self, query: str, *, index: Optional[str] = None, hits: int = 10,
                    qid: str = "q", snippets: bool = False, **settings: Any) -> Dict[str, Any]:
        """The search's answer as the service gives it (a dict)."""
        params = dict(settings, query=query, hits=hits, qid=qid, snippets=snippets)
        return self._json(f"/v1/{self._name(index)}/search", params)

    def search(self, query: str, *, index: Optional[str] = None, hits: int = 10,
               qid: str = "q", **settings: Any) -> pd.DataFrame:
        """One query's hits: ``qid``, ``query``, ``docno``, ``rank`` (from 0),
        ``score``, then each hit's stored fields (``url``, ``title``,
        ``spam``, ``charset``, ``charset_source``, ``bytes``) and its seven
        UTF-8 error counts (``err_<class>``)."""
        ans = self.search_json(query, index=index, hits=hits, qid=qid, **settings)
        rows = []
        for c in ans["candidates"]:
            row = {"qid": qid, "query": query, "docno": c["docid"], "rank": c["rank"] - 1,
                   "score": float(c["score"])}
            doc = c.get("doc")
            if isinstance(doc, dict):
                row.update({k: v for k, v in doc.items() if k != "errors"})
                row.update({f"err_{k}": v for k, v in (doc.get("errors") or {}).items()})
            rows.append(row)
        columns = ["qid", "query", "docno", "rank", "score"]
        return pd.DataFrame(rows, columns=None if rows else columns)

    def document(self, docid: str, *, index: Optional[str] = None,
                 query: Optional[str] = None) -> Dict[str, Any]:
        """``GET /v1/{index}/doc?docid=``: the stored fields (``doc``) and
        what ``sieve-index show --json`` gives (``shown``)."""
        return self._json(f"/v1/{self._name(index)}/doc", {"docid": docid, "query": query})

    def raw(self, docid: str, *, index: Optional[str] = None) -> bytes:
        """The record's bytes exactly as in the crawl file."""
        return self._request(f"/v1/{self._name(index)}/raw", {"docid": docid})

    def run_text(self, topics: TopicsIn, *, index: Optional[str] = None, hits: int = 1000,
                 tag: str = "sieve", topic_field: str = "title", **settings: Any) -> str:
        """The TREC run of ``topics`` (a topic file's path, its bytes or text,
        or a DataFrame with ``qid`` and ``query``) as the service writes it:
        byte for byte ``sieve-search run`` with the same settings."""
        params = dict(settings, hits=hits, tag=tag, topic_field=topic_field)
        body = _topics_body(topics)
        return self._request(f"/v1/{self._name(index)}/run", params, body).decode("utf-8")

    def run(self, topics: TopicsIn, **kwargs: Any) -> pd.DataFrame:
        """:meth:`run_text` as a DataFrame: ``qid``, ``docno``, ``rank``
        (from 0), ``score``, ``run``."""
        text = self.run_text(topics, **kwargs)
        frame = pd.read_csv(io.StringIO(text), sep=" ", header=None, dtype={0: str, 2: str},
                            names=["qid", "Q0", "docno", "rank", "score", "run"])
        frame["rank"] = frame["rank"] - 1
        return frame.drop(columns=["Q0"])


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _topics_body(topics: TopicsIn) -> bytes:
    if isinstance(topics, pd.DataFrame):
        lines = [f"{q}\t{t}" for q, t in zip(topics["qid"], topics["query"])]
        return ("\n".join(lines) + "\n").encode("utf-8")
    if isinstance(topics, bytes):
        return topics
    if isinstance(topics, str) and "\n" in topics:
        return topics.encode("utf-8")
    with open(topics, "rb") as f:
        return f.read()


def _error(status: int, body: bytes) -> SieveError:
    try:
        ans = json.loads(body)
        message = ans.get("error") or f"HTTP {status}"
        parameter = ans.get("parameter")
    except (ValueError, AttributeError):
        message, parameter = f"HTTP {status}: {body[:200]!r}", None
    if status == 400:
        return ParameterError(str(message), kind="HTTP400", found=parameter)
    if status == 404:
        return InputError(str(message), kind="HTTP404")
    return SieveError(str(message), kind=f"HTTP{status}")
