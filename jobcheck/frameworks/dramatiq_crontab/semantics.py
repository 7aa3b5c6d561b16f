"""dramatiq-crontab's semantics: its verified behaviour and its part of the checks.

Read in the dramatiq-crontab 1.2.1 wheel (never imported). Light module: no libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.frameworks.semantics_base import ScheduleTerms, Semantics

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Project

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


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    # An entry dramatiq-crontab refuses (``invalid``) never runs, so never twice.
    return entry.option("invalid") is not None


SEMANTICS = DramatiqCrontabSemantics()
