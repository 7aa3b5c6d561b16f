"""Crontab's own part of SCL-18: runs with no time limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import Const, number
from jobcheck.frameworks.crontab.semantics import (
    SEMANTICS,
    _every_program,
    _only_signals,
    _shown,
    enqueued_task,
)
from jobcheck.frameworks.semantics_base import Check, CheckParts

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.findings import Finding

NAME = SEMANTICS.name


def time_limits_elsewhere(check: Check) -> Iterator[Finding]:
    """cron waits for nothing and kills nothing: only a ``timeout`` wrapper limits
    a run (a duration of 0 disables it, coreutils timeout.c)."""
    for f, entry in check.project.schedules():
        if entry.framework != NAME:
            continue
        limit = entry.option("timeout")
        if isinstance(limit, Const) and (number(limit) or 0) > 0:
            continue
        if enqueued_task(entry.target_text) is not None:
            continue
        if "timeout" in check.project.script_wrappers(entry):
            continue  # the script it runs puts its work under timeout
        if _every_program(entry, _only_signals):
            continue  # 'nginx -s reload' sends a signal and returns
        yield check.finding(
            "missing-time-limit",
            f.path,
            entry.loc,
            f"crontab line '{_shown(entry)}' has no time limit: cron never stops a run, "
            f"so a hung one runs forever and {_next_runs(entry)}; wrap the command in "
            "'timeout 30m <command>' (a limit below the interval)",
        )


def _next_runs(entry: ScheduleEntry) -> str:
    if entry.option("lock") is not None:
        return "holds its lock, so every later run is skipped"
    return "the next runs start beside it and pile up"


PARTS = CheckParts(
    per_project={
        "missing-time-limit": time_limits_elsewhere,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
