"""Dramatiq's part of the checks: broken time limits (SCL-18) and unbounded retries
(SCL-34).

dramatiq/middleware/time_limit.py: the TimeLimit middleware defaults to 600000 ms; it
reads ``actor.options.get("time_limit", self.time_limit)`` and computes ``ttl / 1000``,
so an explicit None fails at run time and infinity never fires.
dramatiq/middleware/retries.py: 20 retries by default; with ``max_retries=None`` and no
``retry_when``, ``retries >= max_retries`` is never tested, so the message never fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import is_infinite, is_none
from jobcheck.frameworks.semantics_base import Check

if TYPE_CHECKING:
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job


def broken_time_limit(check: Check, job: Job) -> Iterator[Finding]:
    # dramatiq/middleware/time_limit.py: the TimeLimit middleware defaults to
    # 600000 ms; it reads ``actor.options.get("time_limit", check.time_limit)`` and
    # computes ``ttl / 1000``, so an explicit None fails at run time and infinity
    # never fires.
    if not job.task.has_option("time_limit"):
        return
    value = job.task.option("time_limit")
    loc = job.task.option_loc("time_limit")
    if is_infinite(value):
        yield check.finding(
            "missing-time-limit",
            job.file.path,
            loc,
            f"Dramatiq actor '{job.task.name}' sets time_limit to infinity: it can run "
            "forever; keep a finite limit in milliseconds (the default is 600000)",
        )
    elif is_none(value):
        yield check.finding(
            "missing-time-limit",
            job.file.path,
            loc,
            f"Dramatiq actor '{job.task.name}' sets time_limit=None: Dramatiq's TimeLimit "
            "middleware computes None / 1000 and fails; this is not 'no limit'. Set a "
            "limit in milliseconds or leave the option out (default 600000 ms)",
        )


def unbounded_retries(check: Check, job: Job) -> Iterator[Finding]:
    if (
        job.task.has_option("max_retries")
        and is_none(job.task.option("max_retries"))
        and not job.task.has_option("retry_when")
    ):
        yield check.finding(
            "unbounded-retries",
            job.file.path,
            job.task.option_loc("max_retries"),
            f"Dramatiq actor '{job.task.name}' sets max_retries=None: it is retried "
            "forever and never reaches the dead-letter queue; set a cap (default 20)",
        )
