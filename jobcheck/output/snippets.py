"""Source lines for the text formats, read once per file (text read from standard input
by ``jobcheck check -`` is in :data:`jobcheck.fingerprint.OVERRIDES`)."""

from __future__ import annotations

from jobcheck.fingerprint import SourceLines
from jobcheck.vocabulary.credentials import mask


class SourceCache(SourceLines):
    """The lines of each file a report shows, decoded as Python decodes them, with the
    password of every broker URL masked (JOB-03: no output repeats a secret)."""

    def _load(self, path: str) -> list[str] | None:
        lines = super()._load(path)
        return [mask(line) for line in lines] if lines is not None else None
