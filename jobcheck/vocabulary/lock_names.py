"""Names that mean "take a lock" (no libcst: checks use these too)."""

from __future__ import annotations

import re

# Words in a callee's name that mean "take a lock" (split on "_" and camelCase).
LOCK_WORDS = frozenset({"lock", "locks", "mutex", "semaphore", "redlock", "filelock", "singleton"})
# Words that mean the call releases or inspects a lock instead of taking one.
NOT_TAKING_WORDS = frozenset(
    {
        "release",
        "unlock",
        "is",
        "has",
        "locked",
        "delete",
        "clear",
        # Housekeeping of locks, not taking one (Huey's ``expire_locks``, ``flush_locks``).
        "expire",
        "flush",
        "purge",
        "remove",
        "reset",
    }
)
# Database advisory locks written in SQL text.
SQL_LOCKS = re.compile(r"pg_(?:try_)?advisory(?:_xact)?_lock|\bget_lock\s*\(|sp_getapplock", re.I)
_LOCK_HINT = re.compile(r"lock|mutex|semaphore|singleton", re.IGNORECASE)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def name_words(name: str) -> list[str]:
    """``acquire_lock`` -> [acquire, lock]; ``RedLock`` -> [red, lock]."""
    return [word.lower() for part in name.split("_") for word in _WORD.findall(part)]


def takes_lock_by_name(name: str) -> bool:
    if _LOCK_HINT.search(name) is None:
        return False  # the common case, without splitting the name
    words = set(name_words(name))
    return bool(words & LOCK_WORDS) and not words & NOT_TAKING_WORDS


def decorates_with_lock(name: str) -> bool:
    """A decorator named for running what it decorates under a lock: ``single_lock``,
    ``locked_task``, ``@locked`` ("locked" describes the result here, where a call
    ``is_locked()`` only asks)."""
    if _LOCK_HINT.search(name) is None:
        return False
    words = set(name_words(name))
    return bool(words & (LOCK_WORDS | {"locked"})) and not words & (NOT_TAKING_WORDS - {"locked"})
