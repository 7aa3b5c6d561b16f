"""Dramatiq's part of ``jobcheck jobs``: TimeLimit(time_limit=600000) and
Retries(max_retries=20) with exponential backoff and jitter (dramatiq/middleware/);
dead-lettered messages are kept 7 days (dramatiq/brokers/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import describe, is_none, number

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

DRAMATIQ_DEFAULT_LIMIT = "600 s (Dramatiq default)"


def time_limit(project: Project, job: Job) -> str:
    if job.task.has_option("time_limit"):
        value = job.task.option("time_limit")
        milliseconds = number(value)
        return f"{milliseconds / 1000:g} s" if milliseconds is not None else describe(value)
    return DRAMATIQ_DEFAULT_LIMIT


def retries(project: Project, job: Job) -> str:
    if job.task.has_option("max_retries"):
        value = job.task.option("max_retries")
        return "unbounded" if is_none(value) else f"max {describe(value)}"
    return "max 20 (Dramatiq default)"
