"""Columns from the native extension to pandas, without a Python object per
hit where pandas allows it.

The extension returns numbers as little-endian buffers (``bytearray``),
read here with ``numpy.frombuffer`` (no copy), and docnos as one UTF-8
buffer plus ``int64`` offsets: the layout of an Arrow ``large_string``
array. When pandas stores strings in Arrow (pandas >= 3 with pyarrow
installed, its default), that array becomes the docno column as it is.
Otherwise pandas keeps strings as Python objects anyway, and the extension
is asked for a list of ``str`` instead (``string_objects``).
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple, Union

import numpy as np
import pandas as pd

try:  # pragma: no cover - depends on the environment
    import pyarrow as _pa
except ImportError:  # pragma: no cover
    _pa = None


def _default_str_dtype() -> Any:
    """The dtype pandas gives a column of ``str`` built from a list."""
    return pd.Series(["x"]).dtype


_STR_DTYPE = _default_str_dtype()
#: True when docno columns are built from Arrow buffers (no Python object
#: per hit); False when the extension returns lists of ``str``.
ARROW_STRINGS = bool(
    _pa is not None
    and isinstance(_STR_DTYPE, pd.StringDtype)
    and getattr(_STR_DTYPE, "storage", None) == "pyarrow"
)


def int64s(buf: bytearray) -> np.ndarray:
    """The ``int64`` values of a little-endian buffer (a view, no copy)."""
    return np.frombuffer(buf, dtype="<i8")


def float64s(buf: bytearray) -> np.ndarray:
    """The ``float64`` values of a little-endian buffer (a view, no copy)."""
    return np.frombuffer(buf, dtype="<f8")


def strings(docnos: Union[list, Tuple[bytearray, bytearray]]) -> Any:
    """A docno column: from ``(offsets, utf8)`` buffers as an Arrow-backed
    pandas array, or from a list of ``str``."""
    if isinstance(docnos, list):
        return np.array(docnos, dtype=object) if docnos else np.array([], dtype=object)
    offsets, data = docnos
    n = len(offsets) // 8 - 1
    arr = _pa.LargeStringArray.from_buffers(n, _pa.py_buffer(offsets), _pa.py_buffer(data))
    return pd.array(arr, dtype=_STR_DTYPE)


def results_frame(topics: pd.DataFrame, run: Sequence[Any]) -> pd.DataFrame:
    """The result DataFrame of one run: the topic rows hit by hit (``qid``,
    ``query`` and whatever other columns the topics have), then ``docno``,
    ``rank`` (from 0, as PyTerrier numbers ranks) and ``score``."""
    _tag, _k1, _b, _selection, row, rank, score, docnos = run
    rows = int64s(row)
    out = topics.iloc[rows].reset_index(drop=True)
    out["docno"] = strings(docnos)
    out["rank"] = int64s(rank)
    out["score"] = float64s(score)
    return out


def str_column(col: pd.Series, what: str) -> Union[list, Tuple[bytes, bytes]]:
    """A string column for the extension: an Arrow ``large_string`` array's
    offsets and bytes when pyarrow is there (no Python object per row for
    an Arrow-backed column), else a list of ``str``. Non-string columns
    (integer qids) are turned into strings first; a missing value is
    refused."""
    from ._errors import ParameterError

    if col.isna().any():
        raise ParameterError(
            f"invalid {what}: the column has missing values", kind="InvalidParameter",
            expected="a string in every row", found="a missing value",
        )
    if not (pd.api.types.is_string_dtype(col) or pd.api.types.is_object_dtype(col)):
        col = col.astype(str)
    if _pa is None:
        return [str(x) for x in col]
    try:
        arr = _pa.array(col, type=_pa.large_string(), from_pandas=True)
    except (_pa.ArrowInvalid, _pa.ArrowTypeError):
        arr = _pa.array([str(x) for x in col], type=_pa.large_string())
    if isinstance(arr, _pa.ChunkedArray):
        arr = arr.combine_chunks()
    _validity, offsets, data = arr.buffers()
    n = len(arr)
    if n == 0 or offsets is None:
        return (np.zeros(1, dtype="<i8").tobytes(), b"")
    offs = np.frombuffer(offsets, dtype="<i8", count=n + 1, offset=8 * arr.offset)
    start, end = int(offs[0]), int(offs[-1])
    raw = data.to_pybytes() if data is not None else b""
    return ((offs - start).astype("<i8").tobytes(), raw[start:end])


def float_column(col: pd.Series) -> bytes:
    """A ``float64`` column as a little-endian buffer."""
    return np.ascontiguousarray(np.asarray(col, dtype="<f8")).tobytes()
