"""The ``schedule`` library's semantics (it runs functions in its own loop: no queue).

schedule/__init__.py: ``run_pending`` runs due jobs one after another in the calling
thread, so one copy of a job runs at a time; ``Job._schedule_next_run`` counts an
interval from now, so the clock restarts with the process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.frameworks.semantics_base import (
    ScheduleTerms,
    Semantics,
    Words,
    started_scheduler_module,
)

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Project


class ScheduleLibrarySemantics(Semantics):
    name = "schedule"
    title = "the schedule library"
    scheduler_noun = "a schedule run loop"

    words = Words(
        let_it_fail=(
            "let it raise out of the job and catch it around run_pending() in the loop, "
            "where it can be logged with its traceback and recorded"
        ),
        hung_call_consequence=(
            "a silent server holds the run_pending loop for ever, and every other job of "
            "the loop waits behind it"
        ),
    )

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        return "counted from when the process starts (the first run comes one interval later)"

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="schedule job",
            runs_one_at_a_time=True,
        )

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        # schedule/__init__.py ``Job.run`` calls ``job_func()`` with no try: an exception
        # leaves ``run_pending`` (and the loop around it) before the next run is set.
        return {
            "queue": "none: runs in the run_pending loop",
            "time_limit": "none (a long run delays every other job of the loop)",
            "retries": "none",
            "backoff": "-",
            "dead_letter": "none: an exception ends run_pending unless the loop catches it",
            "lock": "one run at a time in its loop",
        }

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        path = started_scheduler_module(project, words, "schedule")
        return (f"a schedule run loop ({path})", False) if path else None

    reruns_failures = False

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        fields = entry.timing.fields
        hour = fields[1] if fields and fields[1] not in (None, "*") else None
        return f'.at("{int(hour):02d}:{minute:02d}")' if hour else f'.at(":{minute:02d}")'

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        return 'every().day.at("03:17")' if seconds / 3600 >= 24 else 'every().hour.at(":17")'


SEMANTICS = ScheduleLibrarySemantics()
