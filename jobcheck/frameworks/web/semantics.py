"""What the checks ask of the web framework a request handler belongs to (SCL-16,
JOB-01): how to move slow work out of it, and whether it runs in a transaction. The
checks call the functions; :data:`SEMANTICS` answers the same through the registry
(``jobcheck.registry.semantics("web")``), for code that must not import plugins (the
fixes)."""

from __future__ import annotations

from jobcheck.frameworks.semantics_base import Semantics

DJANGO = "django"
FASTAPI = "fastapi"


def offload_advice(view: str | None) -> str:
    """SCL-16: where the slow work of a handler should go instead."""
    if view == FASTAPI:
        return "hand it to BackgroundTasks.add_task or enqueue a job"
    return "enqueue a job with the record's ID and do it there"


def runs_in_request_transaction(view: str | None, atomic_requests: bool) -> bool:
    """JOB-01: Django's ``ATOMIC_REQUESTS`` wraps every view in a transaction
    (django/core/handlers/base.py ``make_view_atomic``)."""
    return atomic_requests and view == DJANGO


class WebSemantics(Semantics):
    """Request handlers' web frameworks: no jobs of their own, so the neutral answers
    for everything the checks ask of a job system."""

    name = "web"
    title = "web frameworks"

    def offload_advice(self, view: str | None) -> str:
        return offload_advice(view)

    def runs_in_request_transaction(self, view: str | None, atomic_requests: bool) -> bool:
        return runs_in_request_transaction(view, atomic_requests)


SEMANTICS = WebSemantics()
