"""How the ``jobcheck`` command ends: without freeing what a run built.

A run of a large project builds hundreds of thousands of objects (facts, project
models, syntax trees); freeing them one at a time when the run returns takes a tenth
of a second of CPU, for a process about to end. The command (``cli.entry``) sets
:data:`HARD_EXIT` and ends with ``os._exit`` once its output is flushed and its exit
handlers ran (mypy's ``hard_exit`` does the same); the engine hands what it built to
:func:`keep`. Used as a library (the language server, tests), nothing is kept.
"""

from __future__ import annotations

HARD_EXIT = False
_kept: list[object] = []


def keep(*built: object) -> None:
    """Keep ``built`` alive until the process ends, when it ends without freeing: the
    last run's only (``jobcheck watch`` runs again and again; each run frees the one
    before it)."""
    if HARD_EXIT:
        _kept[:] = [built]
