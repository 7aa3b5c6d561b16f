"""Decoding a file's bytes as Python source (no libcst: cheap to import)."""

from __future__ import annotations

import codecs
import io
import tokenize


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def decode(data: bytes) -> str:
    """Decode source bytes as Python does (BOM, PEP 263 cookie, else UTF-8)."""
    if b"\x00" in data:
        for bom, name in _WIDE_BOMS:
            if data.startswith(bom):
                raise SourceError(
                    f"file is encoded as {name} (it starts with a byte order mark), which "
                    "Python cannot read as source; save it as UTF-8"
                )
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
