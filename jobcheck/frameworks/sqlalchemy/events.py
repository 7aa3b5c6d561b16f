"""SQLAlchemy ORM events, and whether their listeners run before the commit.

Verified in SQLAlchemy 2.0's ``lib/sqlalchemy/orm/events.py``:

- ``MapperEvents.before_insert``/``after_insert``/``before_update``/``after_update``/
  ``before_delete``/``after_delete`` are called from within the flush, on the
  connection of the transaction being flushed ("the connection ... is the same one used
  by the flush process"): nothing is committed yet;
- ``SessionEvents.before_flush``, ``after_flush`` ("after flush has completed, but before
  commit has been called"), ``after_flush_postexec`` and ``before_commit`` run before
  the commit; ``after_commit``, ``after_rollback`` and ``after_soft_rollback`` run after
  it and are where an enqueue belongs.

Listeners are registered with ``@event.listens_for(target, "name")`` or
``event.listen(target, "name", fn)`` (``lib/sqlalchemy/event/api.py``).
"""

from __future__ import annotations

from jobcheck.facts import FunctionFacts
from jobcheck.facts.values import CallV, Const

LISTENS_FOR = frozenset({"sqlalchemy.event.listens_for", "sqlalchemy.event.api.listens_for"})
LISTEN = frozenset({"sqlalchemy.event.listen", "sqlalchemy.event.api.listen"})
CONNECTED_PREFIX = "sqlalchemy."
"""``FileFacts.signal_receivers`` entries of ``event.listen`` calls: ``sqlalchemy.<event>``."""

_FLUSH = "which SQLAlchemy calls inside the flush, before the transaction commits"
BEFORE_COMMIT = {
    "before_insert": _FLUSH,
    "after_insert": _FLUSH,
    "before_update": _FLUSH,
    "after_update": _FLUSH,
    "before_delete": _FLUSH,
    "after_delete": _FLUSH,
    "before_flush": "which SQLAlchemy calls before the flush, long before the commit",
    "after_flush": "which SQLAlchemy calls after the flush but before the commit",
    "after_flush_postexec": "which SQLAlchemy calls after the flush but before the commit",
    "before_commit": "which SQLAlchemy calls before the transaction commits",
}


def listened_events(function: FunctionFacts, connected: tuple[str, ...] = ()) -> list[str]:
    """The SQLAlchemy events ``function`` listens to (``@event.listens_for(Order,
    "after_insert")``, or ``connected`` with ``event.listen``)."""
    found = [c.removeprefix(CONNECTED_PREFIX) for c in connected if c.startswith(CONNECTED_PREFIX)]
    for decorator in function.decorators:
        call = decorator.call
        if decorator.qualname in LISTENS_FOR and isinstance(call, CallV):
            name = call.arg(1, "identifier")
            if isinstance(name, Const) and isinstance(name.value, str):
                found.append(name.value)
    return found


def listener_transaction(function: FunctionFacts, connected: tuple[str, ...] = ()) -> str | None:
    """Why an enqueue in ``function`` runs before the commit, when it listens to an ORM
    event SQLAlchemy calls before it; None otherwise."""
    for event in listened_events(function, connected):
        if event in BEFORE_COMMIT:
            return f"in a SQLAlchemy {event} listener, {BEFORE_COMMIT[event]}"
    return None
