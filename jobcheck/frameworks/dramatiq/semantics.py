"""Dramatiq's semantics (with periodiq's schedules).

Library facts, each read in the library's source:

- an actor's queue is its ``queue_name``, "default" unless given (dramatiq/actor.py);
- ``max_age`` (milliseconds) bounds how long a message may wait, per actor or through
  the ``AgeLimit`` middleware (dramatiq/middleware/age_limit.py);
- the Retries middleware, on by default, retries 20 times with exponential backoff and
  jitter, then dead-letters the message (dramatiq/middleware/retries.py); the
  dead-letter queue ``<queue>.XQ`` keeps messages for 7 days (dramatiq/brokers/);
- periodiq's PeriodiqMiddleware skips a periodic message older than ``skip_delay``
  (30 s) (periodiq/__init__.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import is_none
from jobcheck.frameworks.dramatiq import contract
from jobcheck.frameworks.semantics_base import QueueRules, ScheduleTerms, Semantics, Words
from jobcheck.project.contract import JobContract
from jobcheck.project.schedule_words import expiry_hint
from jobcheck.vocabulary.runbooks import FAILED_ITEMS_TOKEN

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import QueueUse, Route, _Inventory

DRAMATIQ_DEFAULT_QUEUE = "default"
SEND_METHODS = frozenset({"send", "send_with_options"})


class DramatiqQueueRules(QueueRules):
    """How Dramatiq routes its jobs and bounds its queues (``QueueRules``)."""

    def job_route(self, job: Job) -> Route:
        from jobcheck.project.routing import UNKNOWN_ROUTE, Place, Route

        value = job.task.option("queue_name")
        if value is None:
            return Route(DRAMATIQ_DEFAULT_QUEUE, True)
        name = self.routing.queue_name(value)
        if not isinstance(name, str):
            return UNKNOWN_ROUTE
        where = Place(job.file.path, job.task.option_loc("queue_name"))
        return Route(name, name == DRAMATIQ_DEFAULT_QUEUE, where)

    def job_age_bound(self, job: Job) -> str | None:
        if job.task.option("periodic") is not None:
            return "periodic= (periodiq's skip_delay)"
        value = job.task.option("max_age")
        return None if value is None or is_none(value) else "max_age"

    def collect_queues(self, inventory: _Inventory) -> None:
        ages = [
            (f, m)
            for f in self.routing.project.files
            for m in f.middleware
            if m.name == "AgeLimit" and m.option("max_age") is not None
        ]
        for f, middleware in ages:
            if not is_none(middleware.option("max_age")):
                for use in inventory.uses.values():
                    if use.framework == self.semantics.name:
                        use.bounds.append(f"AgeLimit(max_age=...) at {f.path}")

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return (
            f"Dramatiq queue '{use.name}' has no backlog bound: no actor on it sets max_age "
            "and no AgeLimit(max_age=...) middleware is configured, so messages wait for "
            "ever and the queue grows without end. Set max_age= (milliseconds) on its "
            "actors or add AgeLimit(max_age=...) to the broker"
        )


class DramatiqSemantics(Semantics):
    name = "dramatiq"
    queue_rules = DramatiqQueueRules
    title = "Dramatiq"
    job_noun = "Dramatiq actor"
    decorator_roots = {"dramatiq.actor": "dramatiq"}
    library_roots = frozenset({"dramatiq", "builtins"})
    object_decorators = frozenset({"actor"})
    age_bound_key = "max_age"
    default_queue = DRAMATIQ_DEFAULT_QUEUE

    sends_by_actor_name = True
    words = Words(
        fan_out_advice=(
            "Send one message per batch of IDs (a group of actor.message(ids) batches), "
            "slice or paginate the query, or stagger them (send_with_options(delay=...) "
            "growing with the index, in milliseconds)"
        ),
        how_to_route="queue_name= on the actor",
        single_run_advice=", e.g. with dramatiq's ConcurrentRateLimiter(limit=1) as a mutex",
        # dramatiq/actor.py Actor.__call__: "Synchronously call this actor" (self.fn).
        enqueue_instead="call {name}.send(...) instead",
    )

    def accepts_enqueue(self, method: str) -> bool:
        return method in SEND_METHODS

    def expiry_advice(self, project: Project, entry: ScheduleEntry) -> str | None:
        # dramatiq/middleware/age_limit.py: a message older than max_age (milliseconds,
        # the actor's option or the middleware's) is skipped.
        if any(
            m.name.rsplit(".", 1)[-1] == "AgeLimit" and not is_none(m.option("max_age"))
            for f in project.files
            for m in f.middleware
            if m.option("max_age") is not None
        ):
            return None
        hint, _ = expiry_hint(entry, scale=1000)
        return f"set max_age={hint} (milliseconds) on the actor, or send it with that option"

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``dramatiq app --queues a b`` (``-Q``); without it every queue."""
        from jobcheck.commandline import option_values

        if not any(w.rsplit("/", 1)[-1] == "dramatiq" for w in words[:3]):
            return None
        return tuple(option_values(words, ("-Q", "--queues"), several=True)) or ("*",)

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        if not contract.retrying(project):
            return None  # without Retries nothing is dead-lettered (checks.py)
        return "Dramatiq's dead-letter queues", frozenset({"xq", FAILED_ITEMS_TOKEN})

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="periodiq actor",
        )

    def job_contract(self, project: Project, job: Job) -> JobContract:
        retrying = contract.retrying(project)
        return JobContract(
            time_limit=contract.time_limit(project, job),
            retries=contract.retries(project, job),
            delivery=contract.delivery(project),
            backoff="exponential with jitter (Dramatiq)" if retrying else "none",
            dead_letter="dead-letter queue (Dramatiq, kept 7 days)" if retrying else "none",
        )


SEMANTICS = DramatiqSemantics()
