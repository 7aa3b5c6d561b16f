"""dramatiq-crontab's own part of SCL-19: ticks sent to actors that set no ``max_age``.
Semantics and their sources: ``semantics.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import is_none
from jobcheck.frameworks.semantics_base import Check, CheckParts

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts, ScheduleEntry
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job, Project


def tick_without_max_age(
    check: Check, f: FileFacts, entry: ScheduleEntry, job: Job | None
) -> Iterator[Finding]:
    """Each tick sends a message, whether or not workers take them; only Dramatiq's
    ``max_age`` (milliseconds, on the actor or ``AgeLimit``'s) drops the ones that
    waited too long (dramatiq/middleware/age_limit.py)."""
    if job is None or entry.option("invalid") is not None:
        return
    value = job.task.option("max_age")
    if value is not None and not is_none(value):
        return
    if global_age_limit(check.project):
        return
    from jobcheck.project.schedule_words import describe, expiry_hint

    hint, within = expiry_hint(entry, scale=1000)
    yield check.finding(
        "schedule-without-expiry",
        f.path,
        entry.loc,
        f"{describe(entry)} sends actor '{job.task.name}', which sets no max_age: while "
        "workers are down every tick waits in the queue, and they all run at once when "
        f"workers return; set max_age={hint} (milliseconds) on the actor, no longer than "
        f"the time between two runs{within}",
    )


def global_age_limit(project: Project) -> bool:
    return any(
        m.name.rsplit(".", 1)[-1] == "AgeLimit"
        and m.option("max_age") is not None
        and not is_none(m.option("max_age"))
        for f in project.files
        for m in f.middleware
    )


PARTS = CheckParts(
    per_schedule={
        "schedule-without-expiry": tick_without_max_age,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
