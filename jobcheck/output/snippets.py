"""Source lines for the text formats, read once per file (text read from standard input
by ``jobcheck check -`` is in :data:`jobcheck.fingerprint.OVERRIDES`). Lines are kept as
they are: the text format masks secrets and escapes control characters as it lays a
line out, keeping the underline's columns (``jobcheck.output.text._display``)."""

from __future__ import annotations

from jobcheck.fingerprint import SourceLines


class SourceCache(SourceLines):
    """The lines of each file a report shows, decoded as Python decodes them."""
