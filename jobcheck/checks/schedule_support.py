"""Shared wording for the schedule checks (SCL-22, SCL-38, SCL-19, JOB-02)."""

from __future__ import annotations

from jobcheck.facts import ScheduleEntry

_KINDS = {
    ("celery", "beat_schedule"): "beat entry",
    ("celery", "add_periodic_task"): "periodic task",
    ("celery", "periodic_task"): "periodic task",
    ("rq-scheduler", "cron"): "rq-scheduler cron job",
    ("rq-scheduler", "schedule"): "rq-scheduler job",
    ("rq-scheduler", "job-definition"): "rq-scheduler job",
    ("rq-cron", "register"): "RQ cron job",
    ("periodiq", "periodic"): "periodiq actor",
    ("apscheduler", "add_job"): "APScheduler job",
    ("apscheduler", "scheduled_job"): "APScheduler job",
    ("schedule", "every"): "schedule job",
}


def describe(entry: ScheduleEntry) -> str:
    """``beat entry 'cleanup'``, ``APScheduler job 'sync'``..."""
    kind = _KINDS.get((entry.framework, entry.source), "scheduled job")
    return f"{kind} '{short(entry.label)}'"


def job_label(entry: ScheduleEntry) -> str:
    """The job an entry runs, as messages name it."""
    return short(entry.task_name or entry.target or entry.target_text)


def short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
