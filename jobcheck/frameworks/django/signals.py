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

from jobcheck.facts import FunctionFacts
from jobcheck.facts.values import CallV, Ref, SeqV, Value

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


def received_signals(function: FunctionFacts, connected: tuple[str, ...] = ()) -> list[str]:
    """The model signals ``function`` receives (``@receiver(post_save, sender=...)``,
    ``@receiver([post_save, post_delete])``, or ``connected`` with ``.connect``)."""
    found = [function.signal] if function.signal else []
    found += connected
    for decorator in function.decorators:
        call = decorator.call
        if decorator.qualname != RECEIVER or not isinstance(call, CallV) or not call.args:
            continue
        found += _signal_names(call.args[0])
    return found


def _signal_names(value: Value) -> list[str]:
    if isinstance(value, Ref) and value.qualname.startswith(SIGNALS):
        return [value.qualname.removeprefix(SIGNALS)]
    if isinstance(value, SeqV):
        return [name for item in value.items for name in _signal_names(item)]
    return []


def receiver_transaction(
    function: FunctionFacts, atomic_requests: bool, connected: tuple[str, ...] = ()
) -> str | None:
    """Why an enqueue in ``function`` runs before the commit, when it is a receiver of a
    model signal sent inside a transaction; None otherwise."""
    for signal in received_signals(function, connected):
        if signal in ALWAYS_IN_TRANSACTION:
            return ALWAYS_IN_TRANSACTION[signal]
        if atomic_requests and signal in IN_REQUEST_TRANSACTION:
            return IN_REQUEST_TRANSACTION[signal]
    return None
