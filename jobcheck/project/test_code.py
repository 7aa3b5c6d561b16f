"""Test code: modules whose apps, schedules, calls and queues say nothing about how the
project runs its jobs in production."""

from __future__ import annotations

import functools
from pathlib import Path

from jobcheck.facts import FileFacts

TEST_FOLDERS = frozenset({"tests", "test", "testing"})


def is_test_code(f: FileFacts) -> bool:
    """Test code: its apps, calls and queues say nothing about how production routes
    jobs. A test module (``tests/``, ``test_*.py``, ``conftest.py``) or a module of a
    project kept under a tests folder (``tests/testproject/celery.py``)."""
    return _is_test_module(f.module, f.path)


@functools.lru_cache(maxsize=8192)
def _is_test_module(module: str, path: str) -> bool:
    parts = module.split(".") if module else []
    last = parts[-1] if parts else ""
    if any(part in TEST_FOLDERS for part in parts[:-1]):
        return True
    if last.startswith("test_") or last.endswith("_test") or last in ("tests", "conftest"):
        return True
    parents = Path(path).parents
    depth = max(len(parts), 1)
    return depth < len(parents) and parents[depth - 1].name in TEST_FOLDERS
