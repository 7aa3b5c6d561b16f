"""``jobcheck jobs``: every job with its effective contract.

For each Celery task, RQ job and Dramatiq actor: the queue it lands on, its time limit,
retries and backoff, where its failures go, the schedules that run it and whether a run
takes a lock, each with where the value comes from (the job itself, a base class, a
global setting or the framework's default, as verified in the framework's source).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from jobcheck.checks.scl38_scheduled_job_without_lock import ScheduledJobWithoutLock
from jobcheck.config import Options
from jobcheck.facts import ScheduleEntry
from jobcheck.output.encoding import guard_line, masked_data, terminal
from jobcheck.project import Project
from jobcheck.project.contract import describe_time_limit
from jobcheck.project.environment import unset_read
from jobcheck.project.model import Job
from jobcheck.project.schedule_words import describe as describe_schedule
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import plugins, semantics
from jobcheck.timing import describe_seconds

if TYPE_CHECKING:
    from rich.text import Text


@dataclass(frozen=True)
class Contract:
    job: str
    framework: str
    path: str
    line: int
    queue: str
    time_limit: str
    retries: str
    backoff: str
    dead_letter: str
    schedule: str
    lock: str
    delivery: str = "-"
    """When the message is acknowledged, and what a worker lost mid-run does to it."""

    def as_dict(self) -> dict[str, object]:
        """The contract for the JSON forms, secrets in its text masked."""
        return masked_data(asdict(self))  # type: ignore[no-any-return]


def contracts(project: Project, options: Options) -> list[Contract]:
    locks = ScheduledJobWithoutLock(project, options)
    schedules = _schedules_by_function(project)
    result = [
        Contract(
            job=job.task.registered_name or job.task.qualname,
            framework=job.framework,
            path=job.file.path,
            line=job.task.loc.line,
            queue=_queue(project, job),
            **_promises(project, job),
            schedule="; ".join(dict.fromkeys(schedules.get(job.task.function or "", []))) or "-",
            lock=_lock(locks, job),
            delivery=project.contract(job).delivery.words,
        )
        for job in project.jobs
        if not is_test_code(job.file)  # jobs of the test suite run nowhere in production
    ]
    for plugin in plugins():
        for fields in semantics(plugin.name).plain_function_contracts(project):
            result.append(Contract(**fields, schedule="-", lock="-"))  # type: ignore[arg-type]
    result.extend(_scheduled_code(project, locks))
    result.sort(key=lambda c: (c.path, c.line))
    return result


def _promises(project: Project, job: Job) -> dict[str, str]:
    """The job's time limit, retries, backoff and dead letter in words, from the contract
    the checks judge (``Project.contract``)."""
    promised = project.contract(job)
    limit, retries = promised.time_limit, promised.retries
    return {
        "time_limit": describe_time_limit(limit) if limit is not None else "unknown",
        "retries": retries.words if retries is not None else "unknown",
        "backoff": promised.backoff,
        "dead_letter": promised.dead_letter,
    }


def _scheduled_code(project: Project, locks: ScheduledJobWithoutLock) -> Iterator[Contract]:
    """Schedules that run code of their own rather than a queued job: an APScheduler or
    ``schedule`` function, a CronJob's or crontab line's command (its contract is the
    scheduler's: no queue, its time limit, its retries, its lock)."""
    seen: set[tuple[str, int]] = set()
    for f, entry, job in project.scheduled_jobs():
        if job is not None or (f.path, entry.loc.line) in seen:
            continue
        fields = semantics(entry.framework).schedule_contract(project, entry)
        if fields is None:
            continue
        seen.add((f.path, entry.loc.line))
        code = [project.scheduled_function(entry, None), *project.command_functions(entry)]
        if any(function and locks._guarded(function, None) for function in code):
            fields["lock"] = "yes (a lock in its code)"
        yield Contract(
            job=entry.label,
            framework=entry.framework,
            path=f.path,
            line=entry.loc.line,
            schedule=_when(entry),
            **fields,
        )


def _when(entry: ScheduleEntry) -> str:
    """The entry and when it runs: ``CronJob 'reports' (0 3 * * *)``."""
    timing = entry.timing
    if timing.fields is not None:
        return f"{describe_schedule(entry)} ({' '.join(f or '?' for f in timing.fields)})"
    if timing.seconds:
        return f"{describe_schedule(entry)} (every {describe_seconds(timing.seconds)})"
    return describe_schedule(entry)


def _queue(project: Project, job: Job) -> str:
    route = project.routing.job_route(job)
    if not route.known:
        return _env_queue(project, job) or "unknown (computed at run time)"
    return f"{route.queue} (default)" if route.default else str(route.queue)


def _env_queue(project: Project, job: Job) -> str | None:
    """``queue=settings.X`` where ``X = os.environ.get("X")``: the default queue unless
    the variable is set (saleor's search-vector and webhook queues)."""
    variable = unset_read(project.value(job.task.option("queue")))
    return f"the default queue, unless ${variable} names another" if variable else None


def _lock(locks: ScheduledJobWithoutLock, job: Job) -> str:
    function = job.task.function or job.task.qualname
    return "yes" if locks._guarded(function, job) else "no"


def _schedules_by_function(project: Project) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for _, entry, job in project.scheduled_jobs():
        function = project.scheduled_function(entry, job)
        if function:
            found.setdefault(function, []).append(describe_schedule(entry))
    return found


FIELDS = (
    ("queue", "queue"),
    ("time_limit", "time limit"),
    ("retries", "retries"),
    ("backoff", "backoff"),
    ("dead_letter", "dead letter"),
    ("delivery", "delivery"),
    ("schedule", "schedule"),
    ("lock", "lock"),
)


def cards(items: list[Contract]) -> Iterator[Text]:
    """One block per job, readable at any terminal width. Text from the project is shown
    with secrets masked, control characters escaped and no line a CI runner would read
    as a command (``jobcheck/output/encoding.py``)."""
    from rich.text import Text

    for c in items:
        card = Text()
        card.append(guard_line(terminal(c.job)), style="bold")
        card.append(f"  {c.framework}  ", style="magenta")
        card.append(f"{terminal(c.path)}:{c.line}\n", style="dim")
        for attribute, label in FIELDS:
            card.append(f"  {label:<13}{terminal(str(getattr(c, attribute)))}\n")
        yield card
