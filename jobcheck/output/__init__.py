"""Output formats. Each renderer turns a :class:`Report` into text for a stream.

Format modules are imported when used: a run prints one format, and some (JUnit's XML,
SARIF) cost more to import than a warm run takes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TextIO

from jobcheck.findings import Report

Writer = Callable[[Report, TextIO, bool], None]


class ScrubbedStream:
    """A text stream that writes file names which are not valid UTF-8 (on POSIX a
    name is any bytes; Python keeps the bad ones as lone surrogates) with U+FFFD in
    their place: every format stays valid UTF-8, and SARIF's URIs keep the exact bytes
    percent-encoded."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not text.isascii():
            text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return self._stream.write(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


# format name -> module under jobcheck/output/ with a ``write(report, stream, color)``
_MODULES = {
    "text": "text",
    "json": "json_format",
    "concise": "concise",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
    "junit": "junit",
    "json-lines": "json_lines",
    "pylint": "pylint",
    "azure": "azure",
}


class _Formats(Mapping[str, Writer]):
    def __getitem__(self, name: str) -> Writer:
        module = importlib.import_module(f"jobcheck.output.{_MODULES[name]}")
        return module.write  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


FORMATS: Mapping[str, Writer] = _Formats()
