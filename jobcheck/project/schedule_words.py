"""Shared wording for the schedule checks (SCL-22, SCL-38, SCL-19, JOB-02)."""

from __future__ import annotations

from jobcheck.facts import ScheduleEntry
from jobcheck.registry import semantics


def describe(entry: ScheduleEntry) -> str:
    """``beat entry 'cleanup'``, ``APScheduler job 'sync'``..."""
    return f"{semantics(entry.framework).schedule_kind(entry)} '{short(entry.label)}'"


def job_label(entry: ScheduleEntry) -> str:
    """The job an entry runs, as messages name it."""
    return short(entry.task_name or entry.target or entry.target_text)


def short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
