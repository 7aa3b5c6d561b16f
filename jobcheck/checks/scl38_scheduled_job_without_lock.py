"""SCL-38 Run each scheduled job once at a time (EVT-22): scheduled-job-without-lock.

A scheduled job whose run overlaps the next, or that a second scheduler also starts, runs
twice at once unless it takes a lock first.
Docs: docs/rules/SCL-38.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl38_locks import (
    LockReading,
    enqueued_note,
)
from jobcheck.facts import (
    FileFacts,
    ScheduleEntry,
)
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe, job_label
from jobcheck.registry import schedule_terms, semantics
from jobcheck.timing import gap_seconds

HOURLY = 3600.0
"""Schedules firing less often than this are not judged: their runs rarely meet."""


class ScheduledJobWithoutLock(LockReading, RuleChecks):
    rule = "SCL-38"
    one_finding_per_file = "scheduled jobs"

    @check("scheduled-job-without-lock")
    def scheduled_job_without_lock(self) -> Iterator[Finding]:
        """One finding per job, at the first schedule entry that runs it (a job the
        overlap check reports is left to it)."""
        seen: set[str] = set()
        if "schedule-overlaps-time-limit" in self.enabled:
            seen |= {
                self.project.scheduled_function(entry, job) or ""
                for _, entry, job, _, _ in self._overlapping()
            }
        for f, entry, job in self.project.scheduled_jobs():
            gap = gap_seconds(entry.timing)
            if gap is not None and gap > HOURLY:
                # A run outlasting hours is what schedule-overlaps-time-limit judges from
                # the limit; a second scheduler is scheduler-in-every-instance's.
                continue
            enqueued = job is not None and job.task.function != entry.target
            if schedule_terms(entry).runs_one_at_a_time and not enqueued:
                continue  # its scheduler runs it in-process, one at a time
            function = self.project.scheduled_function(entry, job)
            if function is None:
                yield from self._unguarded_command(f, entry, seen)
                continue
            if function in seen:
                continue
            seen.add(function)
            if self._guarded(function, job) or self._not_implemented(function):
                continue
            framework = semantics(job.framework if job else entry.framework)
            examples = framework.words.own_lock_examples or self._lock_examples
            shown = framework.display_name(job) if enqueued and job else job_label(entry)
            yield self.finding(
                "scheduled-job-without-lock",
                f.path,
                entry.loc,
                f"'{shown}' runs on a "
                f"schedule ({describe(entry)}{enqueued_note(entry) if enqueued else ''}"
                f"{'' if enqueued else schedule_terms(entry).overlap_note}) but "
                f"takes no lock{self._in_process_note(function)}: when "
                f"{schedule_terms(entry).overlap_causes}, two "
                f"copies run at once; take a lock at the top ({examples}) and "
                f"skip the run when it is held{framework.words.single_run_advice}. "
                "Looked for "
                "lock calls in its body and in the functions it calls, lock decorators and "
                "single-instance base classes",
            )

    def _unguarded_command(
        self, f: FileFacts, entry: ScheduleEntry, seen: set[str]
    ) -> Iterator[Finding]:
        """An entry that runs a command (a CronJob, a crontab line), judged by its own
        settings (``concurrencyPolicy``, a ``flock`` wrapper)."""
        message = schedule_terms(entry).unguarded
        key = f"{f.path}\0{entry.loc.line}"
        if message is None or key in seen:
            return
        if any(self._guarded(code, None) for code in self.project.command_functions(entry)):
            return  # the code it runs takes a lock (``handle`` under a cache lock)
        if "lock" in self.project.script_wrappers(entry):
            return  # the script it runs takes one (``flock -n 200`` in run-manage.bash)
        seen.add(key)
        yield self.finding("scheduled-job-without-lock", f.path, entry.loc, message)
