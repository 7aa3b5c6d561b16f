"""Per-file fact extraction: a pure function of (path, module name, source bytes).

Each framework has its recognizer module (``celery``, ``rq``, ``dramatiq``, ``django``,
``web``); the walker runs them all in one pass over the file's syntax tree.
"""

from __future__ import annotations

from typing import Any

# The names below live in ``pipeline``, which imports libcst and every recognizer: they
# are loaded on first use (PEP 562), so a run that reads every fact from the cache, or a
# check that needs a light helper of this package, never pays for them.
_PIPELINE = ("RECOGNIZERS", "extract_file", "extract_functions", "extract_tree", "suppressions")

__all__ = list(_PIPELINE)


def __getattr__(name: str) -> Any:
    if name in _PIPELINE:
        from jobcheck.extract import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'jobcheck.extract' has no attribute {name!r}")
