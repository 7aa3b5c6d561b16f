"""JOB-01 Enqueue only after the transaction commits.

A job enqueued inside a transaction can start before the commit (and miss the row) or
outlive a rollback (and act on a row that never existed). Docs: docs/rules/JOB-01.md.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, SummaryRoots, check
from jobcheck.facts import CallSite, EnqueueSite, FileFacts, FunctionFacts, Loc
from jobcheck.facts.values import CallV, Ref
from jobcheck.findings import Finding, Related
from jobcheck.frameworks.django import signals
from jobcheck.frameworks.semantics_base import Semantics
from jobcheck.frameworks.sqlalchemy import events as orm_events
from jobcheck.frameworks.web import semantics as web
from jobcheck.project.model import Job, Project
from jobcheck.registry import semantics
from jobcheck.vocabulary.words import matching_word

AFTER_COMMIT_METHODS = frozenset({"delay_on_commit", "apply_async_on_commit"})


class EnqueueAfterCommit(RuleChecks):
    rule = "JOB-01"

    @classmethod
    def summary_roots(cls, project: Project) -> SummaryRoots:
        """Functions that call helpers inside a transaction: the helpers' enqueues."""
        atomic_requests = project.setting("ATOMIC_REQUESTS") is not None
        connected = connected_handlers(project)
        return SummaryRoots(
            callers=tuple(
                (f, function)
                for f in project.files
                for function in f.functions.values()
                if _in_transaction(function, atomic_requests, connected, project)
            )
        )

    @check("enqueue-before-commit")
    def enqueue_before_commit(self) -> Iterator[Finding]:
        atomic_requests = self.project.setting("ATOMIC_REQUESTS") is not None
        for f, site, job in self.project.enqueues():
            if site.deferred or site.is_signature or site.method in AFTER_COMMIT_METHODS:
                continue
            framework = _framework(job, site)
            if job is not None and framework.enqueues_after_commit(job):
                continue
            if framework.defers_enqueue(self.project, site, job):
                continue
            reason = framework.transaction_reason(site.atomic, site.contexts)
            reason = reason or self._reason(f, site, atomic_requests)
            if reason is None or self._cleans_up_a_deleted_row(site, job):
                continue
            kind = job.framework if job is not None else site.framework_hint
            yield self._finding(
                f, site.loc, _name(site, job), reason, framework, advice=(kind, site.contexts)
            )
        yield from self._through_helpers()

    @functools.cached_property
    def _connected(self) -> dict[str, tuple[str, ...]]:
        return connected_handlers(self.project)

    def _finding(
        self,
        f: FileFacts,
        loc: Loc,
        name: str,
        reason: str,
        framework: Semantics,
        related: tuple[Related, ...] = (),
        advice: tuple[str | None, tuple[str, ...]] = (None, ()),
    ) -> Finding:
        return self.finding(
            "enqueue-before-commit",
            f.path,
            loc,
            f"{name} is enqueued {reason}: if the transaction rolls back, "
            "the job runs for data that was never committed (and it may start before "
            f"the commit); {_advice(reason, framework, *advice)}",
            related=related,
        )

    def _through_helpers(self) -> Iterator[Finding]:
        """An enqueue in a helper (a model method, a service) that a function calls
        inside a transaction: reported at the call, with the chain."""
        summaries = self.project.summaries
        atomic_requests = self.project.setting("ATOMIC_REQUESTS") is not None
        for f in self.project.files:
            for function in f.functions.values():
                listener = self._listener_transaction(function, atomic_requests)
                for call in _calls_in_transaction(function, listener is not None):
                    target = summaries.callee(call)
                    if target is None:
                        continue
                    for reach in summaries.of_function(*target).enqueues:
                        site = reach.item
                        if site.atomic or site.target_param or site.is_signature:
                            continue  # reported where it is written, or by its callers
                        if site.method in AFTER_COMMIT_METHODS:
                            continue
                        hop = f"{call.callee.rsplit('.', 1)[-1]}()"
                        chain = reach.through().removeprefix(" reached through ")
                        through = (
                            f"{hop} -> {chain}"
                            if chain
                            else f"{hop} ({reach.path}:{site.loc.line})"
                        )
                        name = f"'{site.target_text}'"
                        related = (
                            Related(f.path, call.loc, f"calls {hop}"),
                            *reach.related(f"enqueues {name}"),
                        )
                        if not reach.chain:
                            related = (*related, Related(reach.path, site.loc, f"enqueues {name}"))
                        job = self.project.job_for(site)
                        framework = _framework(job, site)
                        if framework.defers_enqueue(self.project, site, job):
                            continue
                        where = framework.transaction_reason(call.atomic, call.contexts)
                        where = where or self._call_transaction(call) or listener
                        if where is None:
                            continue
                        kind = job.framework if job is not None else site.framework_hint
                        yield self._finding(
                            f,
                            call.loc,
                            name,
                            f"through {through} {where}",
                            framework,
                            related,
                            advice=(kind, call.contexts),
                        )

    def _call_transaction(self, call: CallSite) -> str | None:
        if call.atomic == "block":
            return "inside a transaction.atomic() block"
        if call.atomic == "decorator":
            return "inside a function decorated with @transaction.atomic"
        return self._wrapper_transaction(call.contexts)

    def _wrapper_transaction(self, contexts: tuple[str, ...]) -> str | None:
        """``with atomic_block():`` / ``@atomic_with_metrics()``: a project function that
        opens a transaction around the code."""
        for context in contexts:
            qualname = self.project.resolve_function(context) or context
            function = self.project.function(qualname)
            if function is not None and function.opens_transaction:
                kind = "with" if function.opens_transaction == "context-manager" else "@"
                shown = context.rsplit(".", 1)[-1]
                return (
                    f"inside 'with {shown}()', which opens a transaction.atomic() block"
                    if kind == "with"
                    else f"inside a function decorated with @{shown}, which runs it in "
                    "transaction.atomic()"
                )
        return None

    def _listener_transaction(self, function: FunctionFacts, atomic_requests: bool) -> str | None:
        return listener_transaction(function, atomic_requests, self._connected, self.project)

    def _cleans_up_a_deleted_row(self, site: EnqueueSite, job: Job | None) -> bool:
        """A delete signal's receiver enqueuing a job named for removing what the row
        left elsewhere (``delete_object``, ``remove_from_index``): it needs no row, so
        running before the commit changes nothing (kitsune's search signals)."""
        function = self.project.function(site.function)
        if function is None:
            return False
        received = [function.signal or "", *self._connected.get(function.qualname, ())]
        for decorator in function.decorators:  # @receiver(post_delete, ...) or a wrapper
            if isinstance(decorator.call, CallV):
                received += [arg.qualname for arg in decorator.call.args if isinstance(arg, Ref)]
        if not any(signal.endswith("_delete") for signal in received):
            return False
        name = job.task.name if job is not None else site.target_text
        return matching_word(name.rsplit(".", 1)[-1], CLEANUP_WORDS) is not None

    def _reason(self, f: FileFacts, site: EnqueueSite, atomic_requests: bool) -> str | None:
        if site.atomic == "block":
            return "inside a transaction.atomic() block"
        if site.atomic == "decorator":
            return "inside a function decorated with @transaction.atomic"
        wrapped = self._wrapper_transaction(site.contexts)
        if wrapped is not None:
            return wrapped
        function = self.project.function(site.function)
        if function is None:
            return None
        listener = self._listener_transaction(function, atomic_requests)
        if listener is not None:
            return listener
        in_transaction = web.runs_in_request_transaction(function.view, atomic_requests)
        if in_transaction and not function.non_atomic_requests:
            return "in a Django view while ATOMIC_REQUESTS wraps every request in a transaction"
        if _uncommitted_session_work(function.commit_orders, function.session_writes, site.order):
            return "before session.commit() in the same function"
        return None


# Jobs named for removing what a deleted row left elsewhere (a search document, a cache).
CLEANUP_WORDS = ("delete", "remove", "unindex", "purge", "evict", "cleanup", "clean up", "drop")


def connected_handlers(project: Project) -> dict[str, tuple[str, ...]]:
    """Handler qualname -> the model signals (and ``sqlalchemy.<event>`` ORM events)
    connected to it anywhere."""
    found: dict[str, tuple[str, ...]] = {}
    for f in project.files:
        for handler, signal in f.signal_receivers:
            qualname = project.resolve_function(handler) or handler
            found[qualname] = (*found.get(qualname, ()), signal)
    return found


def listener_transaction(
    function: FunctionFacts,
    atomic_requests: bool,
    connected: dict[str, tuple[str, ...]],
    project: Project,
) -> str | None:
    """Why code in ``function`` runs before the commit when Django or SQLAlchemy call
    it from inside a transaction (a model signal receiver, an ORM event listener)."""
    signals_of = connected.get(function.qualname, ())
    received = signals.receiver_transaction(function, atomic_requests, signals_of, project.alias)
    return received or orm_events.listener_transaction(function, signals_of)


def _in_transaction(
    function: FunctionFacts,
    atomic_requests: bool,
    connected: dict[str, tuple[str, ...]],
    project: Project,
) -> bool:
    """Whether a call of ``function`` may run inside a transaction (what
    ``_through_helpers`` follows)."""
    if _calls_in_transaction(function, listener=False):
        return True
    listener = listener_transaction(function, atomic_requests, connected, project)
    return listener is not None and bool(_calls_in_transaction(function, listener=True))


def _calls_in_transaction(function: FunctionFacts, listener: bool) -> list[CallSite]:
    """The calls of ``function`` made inside a transaction: in an atomic block or a
    transactional context, or any not deferred to the commit when the function itself
    runs in one (a ``listener``: a signal receiver, an ORM event listener)."""
    return [
        call
        for call in function.call_sites
        if not call.deferred and (call.atomic or call.contexts or listener)
    ]


def _advice(
    reason: str, framework: Semantics, kind: str | None = None, contexts: tuple[str, ...] = ()
) -> str:
    """How to enqueue after the commit: Django's ``transaction.on_commit`` (and the job
    framework's own ways) for Django transactions; after ``session.commit()`` for a
    SQLAlchemy session, which has no on_commit hook of Django's kind."""
    if "session.commit()" in reason or "SQLAlchemy" in reason:
        return (
            "enqueue after session.commit() returns (or from the session's after_commit "
            "event), or write an outbox row in the same transaction"
        )
    return framework.after_commit_advice_for(kind, contexts)


def _uncommitted_session_work(commits: list[int], writes: list[int], enqueue: int) -> bool:
    """A commit follows the enqueue, and the function wrote something (a session write,
    an attribute of an object) after its last commit before the enqueue: that work is
    what the job may miss. A function that only read before the enqueue commits what it
    does after it (a kicked task's id saved on the row)."""
    if not any(order > enqueue for order in commits):
        return False
    since = max((order for order in commits if order < enqueue), default=-1)
    return any(since < order < enqueue for order in writes)


def _name(site: EnqueueSite, job: Job | None) -> str:
    return f"'{job.task.name}'" if job else f"'{site.target_text}'"


def _framework(job: Job | None, site: EnqueueSite) -> Semantics:
    return semantics(job.framework if job is not None else site.framework_hint)
