"""Django model signals, and whether their receivers run inside a transaction.

Verified in Django 5.0's source:

- ``m2m_changed`` is sent inside ``transaction.atomic(using=db, savepoint=False)`` by the
  related managers' ``add``/``remove``/``clear``/``set``
  (django/db/models/fields/related_descriptors.py, ``create_forward_many_to_many_manager``);
- ``pre_delete`` and ``post_delete`` are sent inside ``transaction.atomic(using=...,
  savepoint=False)`` (django/db/models/deletion.py, ``Collector.delete``);
- ``pre_save`` is sent before the row is written, ``post_save`` after ``save_base``'s own
  ``atomic``/``mark_for_rollback_on_error`` block: in autocommit mode the row is committed
  by then, inside an outer transaction (``ATOMIC_REQUESTS``, ``atomic()``) it is not
  (django/db/models/base.py, ``Model.save_base``).
"""

from __future__ import annotations

from collections.abc import Callable

from jobcheck.facts import FunctionFacts
from jobcheck.facts.values import CONNECTS, CallV, Const, Ref, SeqV, Value

SIGNALS = "django.db.models.signals."
RECEIVER = "django.dispatch.receiver"

ALWAYS_IN_TRANSACTION = {
    "m2m_changed": "in an m2m_changed receiver, which Django sends inside the "
    "transaction.atomic() of the related manager's add/remove/set/clear",
    "pre_delete": "in a pre_delete receiver, which Django sends inside the deletion's "
    "transaction.atomic()",
    "post_delete": "in a post_delete receiver, which Django sends inside the deletion's "
    "transaction.atomic()",
    "pre_save": "in a pre_save receiver, before the row is even written",
}
IN_REQUEST_TRANSACTION = {
    "post_save": "in a post_save receiver while ATOMIC_REQUESTS wraps every request in a "
    "transaction (the save, and so the signal, runs inside it)",
}


def received_signals(
    function: FunctionFacts,
    connected: tuple[str, ...] = (),
    alias: Callable[[str], Value | None] = lambda _: None,
) -> list[str]:
    """The model signals ``function`` receives (``@receiver(post_save, sender=...)``,
    ``@receiver([post_save, post_delete])``, ``connected`` with ``.connect``, or a project
    decorator that connects its argument: ``alias`` gives the value a project name stands
    for, ``CallV(CONNECTS, (index,))``)."""
    found = [function.signal] if function.signal else []
    found += connected
    for decorator in function.decorators:
        call = decorator.call
        if not isinstance(call, CallV):
            continue
        index = (
            0
            if decorator.qualname == RECEIVER
            else _connected_argument(alias(decorator.qualname) if decorator.qualname else None)
        )
        if index is not None and index < len(call.args):
            found += _signal_names(call.args[index])
    return found


def _connected_argument(value: Value | None) -> int | None:
    if isinstance(value, CallV) and value.func == CONNECTS and value.args:
        index = value.args[0]
        if isinstance(index, Const) and isinstance(index.value, int):
            return index.value
    return None


def _signal_names(value: Value) -> list[str]:
    if isinstance(value, Ref) and value.qualname.startswith(SIGNALS):
        return [value.qualname.removeprefix(SIGNALS)]
    if isinstance(value, SeqV):
        return [name for item in value.items for name in _signal_names(item)]
    return []


def receiver_transaction(
    function: FunctionFacts,
    atomic_requests: bool,
    connected: tuple[str, ...] = (),
    alias: Callable[[str], Value | None] = lambda _: None,
) -> str | None:
    """Why an enqueue in ``function`` runs before the commit, when it is a receiver of a
    model signal sent inside a transaction; None otherwise."""
    for signal in received_signals(function, connected, alias):
        if signal in ALWAYS_IN_TRANSACTION:
            return ALWAYS_IN_TRANSACTION[signal]
        if atomic_requests and signal in IN_REQUEST_TRANSACTION:
            return IN_REQUEST_TRANSACTION[signal]
    return None
