"""Decoding a file's bytes as Python source (no libcst: cheap to import)."""

from __future__ import annotations

import io
import tokenize


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


def decode(data: bytes) -> str:
    """Decode source bytes as Python does (BOM, PEP 263 cookie, else UTF-8)."""
    if b"\x00" in data:
        raise SourceError("file contains a NUL byte; it is not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot decode: {error}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceError(f"cannot decode as {encoding}: {error}") from None
    return text[1:] if text.startswith("\ufeff") else text
