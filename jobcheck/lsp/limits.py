"""Sizes past which the language server stops, rather than let one document or message
take the editor's machine down."""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 1024 * 1024
"""Documents (open buffers, and project files read from disk) larger than this, in
UTF-8, are not parsed: the server says so in one diagnostic. A libcst tree costs a few
hundred bytes of memory per byte of source."""
