"""sieve from Python: build and search sieve indexes with BM25 (any k1/b,
spam and encoding filters at query time, full or filtered statistics,
global statistics over shards), read topics/qrels/runs in every format
sieve reads, evaluate and compare runs as ``sieve-search eval``/``compare``,
and clean bytes with the UTF-8 cleaner. A thin layer over sieve's Rust
libraries (no subprocess); results are pandas DataFrames with PyTerrier's
columns. ``sieve.pyterrier.Retriever`` is the PyTerrier transformer;
``sieve.Client(url)`` searches an index served by ``sieve-search serve``.

    import sieve
    index = sieve.Index("IDX")
    topics = sieve.read_topics("topics/topics.cacm.txt")
    results = index.search(topics, k1=0.9, b=0.4)
    print(sieve.evaluate(results, "qrels.txt", ["map", "P.30"]).mean)
"""

from ._errors import (
    BadIndexError,
    DataError,
    InputError,
    ParameterError,
    RefusedError,
    SieveError,
    SieveWarning,
)
from ._core import (
    Comparison,
    Evaluation,
    Index,
    Sweep,
    build,
    build_keywords,
    clean_utf8,
    clean_utf8_file,
    compare,
    evaluate,
    fuse,
    read_qrels,
    read_run,
    read_topics,
    sweep,
    write_run,
)
from .client import Client
from ._native import __version__

__all__ = [
    "Index",
    "Client",
    "build",
    "build_keywords",
    "read_topics",
    "read_qrels",
    "read_run",
    "write_run",
    "fuse",
    "evaluate",
    "compare",
    "sweep",
    "Evaluation",
    "Comparison",
    "Sweep",
    "clean_utf8",
    "clean_utf8_file",
    "SieveError",
    "ParameterError",
    "DataError",
    "BadIndexError",
    "InputError",
    "RefusedError",
    "SieveWarning",
    "__version__",
]
