"""What the automatic fixes (``jobcheck/fixes/``) ask of a framework: its part of a fix,
written in its own syntax (a Celery task's ``time_limit=`` in seconds, a Dramatiq actor's
in milliseconds, a ``schedule`` job's ``.at(":17")``).

A plugin's ``fixes.py`` subclasses :class:`FrameworkFixes`; ``Plugin.fixes`` names it
and ``jobcheck.registry.framework_fixes(name)`` returns it. It is kept apart from the
plugin's semantics: fixes edit libcst trees, and the semantics, which the checks read,
must not reach libcst (the import contracts in pyproject.toml). :data:`NEUTRAL` answers
for a framework with no fixes of its own: it fixes nothing, and rewrites a schedule as
a cron expression or a ``crontab(...)``-like call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from jobcheck.facts import TaskDef
    from jobcheck.findings import Finding, Fix
    from jobcheck.fixes.project import ProjectInfo
    from jobcheck.fixes.source import Source


class FrameworkFixes:
    """The neutral answers: no fix of its own."""

    positional_fields = True
    """Whether a schedule call's positional arguments are its time fields (Celery's and
    Huey's ``crontab(minute, hour, ...)``), so a minute given that way cannot be added."""

    def time_limit_fix(
        self, finding: Finding, source: Source, project: ProjectInfo, task: TaskDef | None
    ) -> Fix | None:
        """SCL-18 ``missing-time-limit``: the fix of a finding on one of its jobs
        (``task``), or, with ``task`` None, on a call or a queue of its."""
        return None

    def rewrite_schedule_minutes(
        self, call: cst.Call, moved: frozenset[int]
    ) -> cst.BaseExpression | None:
        """SCL-22: one of its schedules, written as the call ``call``, starting at the
        minutes ``moved`` instead (None: it cannot be rewritten)."""
        from jobcheck.fixes.minutes import rewrite_crontab_call

        return rewrite_crontab_call(call, moved)

    def on_commit_method(self, task: TaskDef, method: str, project: ProjectInfo) -> str | None:
        """JOB-01: a method of its job ``task`` that enqueues like ``method`` once the
        transaction commits (Celery's ``delay_on_commit``), if the project has it."""
        return None


NEUTRAL = FrameworkFixes()
