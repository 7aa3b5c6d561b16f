"""Sizes past which the language server stops, rather than let one document or message
take the editor's machine down."""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 1024 * 1024
"""Documents (open buffers, and project files read from disk) larger than this, in
UTF-8, are not parsed: the server says so in one diagnostic. While it is checked, a
document costs several hundred bytes of memory per byte of source (a module of 1 MB of
tasks peaks at about 750 MiB)."""
