"""dramatiq-crontab's semantics: its verified behaviour and its part of the checks.

Read in the dramatiq-crontab 1.2.1 wheel (never imported). Light module: no libcst.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import is_none
from jobcheck.frameworks.semantics_base import Check, ScheduleTerms, Semantics

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts, ScheduleEntry
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job, Project

# dramatiq-crontab (PyPI ``dramatiq-crontab``, voiio/dramatiq-crontab; module
# ``dramatiq_crontab``; Django only). dramatiq_crontab/__init__.py ``cron(schedule)``:
# stacked above a Dramatiq actor (``@cron("0 0 * * *")`` then ``@dramatiq.actor``), it adds
# ``actor.send`` to a module-level APScheduler 3 ``BlockingScheduler`` with
# ``CronTrigger.from_crontab(schedule, timezone=django.utils.timezone
# .get_default_timezone())``, named after the actor. ``*_, day_schedule =
# schedule.split(" ")``: a digit in the day-of-week field raises ValueError (APScheduler 3
# counts weekdays from Monday = 0). ``from_crontab`` wants exactly five fields
# (apscheduler/triggers/cron/__init__.py:142-144): no ``@hourly``.
# ``interval(*, seconds)`` uses an ``IntervalTrigger``, counted from the scheduler's start.
CRONTAB_DECORATORS = frozenset({"dramatiq_crontab.cron"})
INTERVAL_DECORATORS = frozenset({"dramatiq_crontab.interval"})
CRONTAB_TIMEZONE = "django.utils.timezone.get_default_timezone()"
CRONTAB_JOB_DEFAULTS = {"max_instances": 1, "coalesce": True, "misfire_grace_time": 1}
"""APScheduler 3's job defaults (apscheduler/schedulers/base.py ``_configure``). They bound
the ``actor.send`` call, not the actor's run in a worker: runs can still overlap."""
# management/commands/crontab.py runs the scheduler ``with utils.lock``: a Redis lock
# ``"dramatiq-scheduler"`` only when ``settings.DRAMATIQ_CRONTAB["REDIS_URL"]`` is set,
# else ``FakeLock`` (no lock): dramatiq_crontab/utils.py. conf.py defaults:
CRONTAB_SETTINGS_DEFAULTS = {
    "REDIS_URL": None,
    "LOCK_REFRESH_INTERVAL": 5,
    "LOCK_TIMEOUT": 10,
    "LOCK_BLOCKING_TIMEOUT": 15,
}
CRONTAB_SETTING = "DRAMATIQ_CRONTAB"
SCHEDULER_LOCK_NEEDS = "DRAMATIQ_CRONTAB['REDIS_URL']"


class DramatiqCrontabSemantics(Semantics):
    """Its schedules send a Dramatiq actor (``actor.send``): the job is the actor, checked
    with Dramatiq's semantics; the schedule itself speaks dramatiq-crontab's terms."""

    name = "dramatiq-crontab"
    title = "dramatiq-crontab"
    scheduler_noun = "a dramatiq-crontab scheduler"

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        if entry.source != "interval":
            return None
        return (
            "counted from when the crontab management command starts (an APScheduler "
            "IntervalTrigger held in memory)"
        )

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="dramatiq-crontab schedule",
            sends_messages=True,  # ``actor.send`` from the scheduler
            names_functions=False,  # the decorated function is the actor
            runs_one_at_a_time=_runs_one_at_a_time(entry),
        )

    def schedule_without_expiry(
        self, check: Check, f: FileFacts, entry: ScheduleEntry, job: Job | None
    ) -> Iterator[Finding]:
        """Each tick sends a message, whether or not workers take them; only Dramatiq's
        ``max_age`` (milliseconds, on the actor or ``AgeLimit``'s) drops the ones that
        waited too long (dramatiq/middleware/age_limit.py)."""
        if job is None or entry.option("invalid") is not None:
            return
        value = job.task.option("max_age")
        if value is not None and not is_none(value):
            return
        if _global_age_limit(check.project):
            return
        from jobcheck.project.schedule_words import describe, expiry_hint

        hint, within = expiry_hint(entry, scale=1000)
        yield check.finding(
            "schedule-without-expiry",
            f.path,
            entry.loc,
            f"{describe(entry)} sends actor '{job.task.name}', which sets no max_age: while "
            "workers are down every tick waits in the queue, and they all run at once when "
            f"workers return; set max_age={hint} (milliseconds) on the actor, no longer than "
            f"the time between two runs{within}",
        )


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    # An entry dramatiq-crontab refuses (``invalid``) never runs, so never twice.
    return entry.option("invalid") is not None


def _global_age_limit(project: Project) -> bool:
    return any(
        m.name.rsplit(".", 1)[-1] == "AgeLimit"
        and m.option("max_age") is not None
        and not is_none(m.option("max_age"))
        for f in project.files
        for m in f.middleware
    )


SEMANTICS = DramatiqCrontabSemantics()
