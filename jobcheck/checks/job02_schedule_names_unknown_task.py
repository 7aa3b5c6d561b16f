"""JOB-02 Every schedule names a job that exists: schedule-names-unknown-task.

A beat entry (or another schedule) that names a task by string runs only if some task is
registered under exactly that name; otherwise the scheduler sends messages no worker
accepts and the job silently never runs.
Docs: docs/rules/JOB-02.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.job02_names import (
    functions_with_unreadable_names,
    is_known,
    looks_like_project,
    registered_names,
    schedule_message,
)
from jobcheck.findings import Finding


class ScheduleNamesUnknownTask(RuleChecks):
    rule = "JOB-02"

    @check("schedule-names-unknown-task")
    def schedule_names_unknown_task(self) -> Iterator[Finding]:
        registered = registered_names(self.project)
        renamed = {
            j.task.qualname: j.task.registered_name
            for j in self.project.jobs
            if j.task.registered_name and j.task.registered_name != j.task.qualname
        }
        unreadable = functions_with_unreadable_names(self.project)
        for f, entry, job in self.project.scheduled_jobs():
            name = entry.task_name
            if job is not None or name is None or not looks_like_project(self.project, entry, name):
                continue
            if name not in renamed and is_known(self.project, name, registered):
                continue
            if name.rpartition(".")[2] in unreadable:
                continue
            yield self.finding(
                "schedule-names-unknown-task",
                f.path,
                entry.task_loc,
                schedule_message(entry, name, registered, renamed.get(name)),
            )
