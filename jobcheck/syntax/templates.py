"""Template tags in configuration files (ERB's ``<% %>`` in Sidekiq YAML, Helm's
``{{ }}`` in Kubernetes manifests): found in one pass.

Each tag runs from an opener to the first closer after it, found with ``str.find``: a
lazy regular expression retried at every opener of a file that never closes one reads
the rest of the file each time (40 KB of ``<%`` took 12 s, a megabyte hours)."""

from __future__ import annotations

from collections.abc import Iterator


def tags(text: str, opener: str, closer: str) -> Iterator[tuple[int, int]]:
    """The ``[start, end)`` span of each tag, opener and closer included, in order; an
    opener never closed ends the search (the rest is plain text)."""
    position = 0
    while True:
        start = text.find(opener, position)
        if start < 0:
            return
        end = text.find(closer, start + len(opener))
        if end < 0:
            return
        position = end + len(closer)
        yield start, position
