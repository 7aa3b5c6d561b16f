"""Shared wording for the schedule checks (SCL-22, SCL-38, SCL-19, JOB-02)."""

from __future__ import annotations

from jobcheck.facts import ScheduleEntry
from jobcheck.registry import schedule_terms
from jobcheck.timing import describe_seconds, shortest_gap


def describe(entry: ScheduleEntry) -> str:
    """``beat entry 'cleanup'``, ``APScheduler job 'sync'``..."""
    return f"{schedule_terms(entry).kind} '{short(entry.label)}'"


def job_label(entry: ScheduleEntry) -> str:
    """The job an entry runs, as messages name it."""
    return short(entry.task_name or entry.target or entry.target_text)


def short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expiry_hint(entry: ScheduleEntry, scale: float = 1.0) -> tuple[str, str]:
    """SCL-19: the expiry to propose for a scheduled job, the time between two of its
    runs (``scale`` converts seconds to the framework's unit: 1000 for milliseconds), or
    "N" when unknown; and the clause saying how often it runs ("" when unknown)."""
    gap = shortest_gap(entry.timing)
    if gap is None:
        return "N", ""
    value = gap * scale
    hint = f"{value:.0f}" if value == int(value) else f"{value:g}"
    return hint, f" (it runs every {describe_seconds(gap)})"
