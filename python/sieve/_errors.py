"""sieve's exceptions: one base class and five kinds.

Every error raised by the native extension is one of these, with the message
the command-line tools print (the error and its causes, each once) and the
evidence the Rust error carries as attributes:

* ``kind``: the Rust error variant (``"SyntaxError"``, ``"NotAnIndex"``,
  ``"DuplicateDoc"``, ``"Sealed"``, ...);
* ``path``: the file or directory concerned, if any;
* ``line`` / ``offset``: where in it (1-based line, byte offset), if known;
* ``expected`` / ``found``: what was expected and what was found, if known.
"""

from __future__ import annotations

from typing import Optional


class SieveError(Exception):
    """Base class of every error sieve raises."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "",
        path: Optional[str] = None,
        line: Optional[int] = None,
        offset: Optional[int] = None,
        expected: Optional[str] = None,
        found: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = path
        self.line = line
        self.offset = offset
        self.expected = expected
        self.found = found

    def __str__(self) -> str:
        return self.message


class ParameterError(SieveError, ValueError):
    """A parameter out of range or of the wrong kind (``k1=nan``, ``b=2``,
    ``num_results=0``, an unknown measure, ``threads=0``)."""


class DataError(SieveError, ValueError):
    """Input that sieve refuses: a syntax error in a topic, qrels or run file
    (with its line), a damaged or mismatched sieve file (checksum, version),
    a document retrieved twice, an empty run or qrels, bytes that are not
    UTF-8 where text is required."""


class BadIndexError(SieveError):
    """A directory that is not a usable sieve index: missing, not an index,
    built by another version, damaged."""


class InputError(SieveError, OSError):
    """A file that cannot be read or written (missing, unreadable)."""


class RefusedError(SieveError):
    """A directory sieve will not write into: an index exists there (pass
    ``resume=True``), another build holds it, or it holds files that are not
    sieve's."""


class SieveWarning(UserWarning):
    """Something the command line prints as a warning: a capped or empty
    query, input skipped or lost during a build, segments without
    block-max bounds."""


__all__ = [
    "SieveError",
    "ParameterError",
    "DataError",
    "BadIndexError",
    "InputError",
    "RefusedError",
    "SieveWarning",
]
