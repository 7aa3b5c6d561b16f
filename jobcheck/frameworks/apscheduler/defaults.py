"""APScheduler 3's verified job defaults and scheduler classes.

Read in the apscheduler 3.11.3 wheel (never imported). Light module: no libcst.
"""

from __future__ import annotations

# apscheduler/schedulers/base.py ``BaseScheduler._configure`` (:909-914): a scheduler's
# ``job_defaults`` (from its constructor or ``configure()``) fill every job's
# ``misfire_grace_time`` (1 s), ``coalesce`` (True) and ``max_instances`` (1) that
# ``add_job``/``scheduled_job`` leave ``undefined`` (``_real_add_job``).
JOB_DEFAULTS = {"misfire_grace_time": 1, "coalesce": True, "max_instances": 1}
# executors/base.py ``run_job``/``submit_job``: a run over ``max_instances`` raises
# MaxInstancesReachedError and is skipped ("maximum number of running instances
# reached"); a run later than ``misfire_grace_time`` is dropped ("was missed by").
SKIPS_RUN_AT_MAX_INSTANCES = True
# ``_create_trigger`` (:1120-1134): no trigger means "date": a one-off run, not a schedule.
NO_TRIGGER_MEANS = "date"
DATE_TRIGGER_RUNS_ONCE = True
# triggers/cron/__init__.py ``CronTrigger.from_crontab`` (:123-153) passes the fifth field
# on as APScheduler's day_of_week, which counts from Monday = 0 (expressions.py
# ``WEEKDAYS``); APScheduler 4 counts from Sunday (4.0.0a6 triggers/cron/fields.py
# ``DayOfWeekField.append_expression``), and its ``add_schedule`` is not read here yet.
FROM_CRONTAB_MONDAY_IS_0 = True
SCHEDULER_OPTIONS = ("job_defaults", "timezone", "executors", "jobstores")
UNCONFIRMED = "scheduler-unconfirmed"
"""An entry option: ``add_job`` on an object of another module, an APScheduler scheduler
only if the project model finds it made from one (``with_scheduler_defaults``)."""

SCHEDULER_ROOTS = frozenset({"apscheduler", "flask_apscheduler"})


def is_scheduler_class(qualname: str | None) -> bool:
    """``BackgroundScheduler`` and its kin (apscheduler/schedulers/), Flask-APScheduler's
    ``APScheduler``."""
    if not qualname:
        return False
    root, last = qualname.partition(".")[0], qualname.rpartition(".")[2]
    return root in SCHEDULER_ROOTS and (last.endswith("Scheduler") or last == "APScheduler")


MINUTE_GIVEN = "minute-given"
"""An entry option: its cron trigger names the minute (else APScheduler sets minute=0 when
an hour or a day is given)."""
FLASK_CONFIG_SCHEDULER = "flask-config:APScheduler"
"""The scheduler Flask-APScheduler makes from the app's config (its ``JOBS`` and
``SCHEDULER_JOB_DEFAULTS``: flask_apscheduler/scheduler.py ``_load_jobs``, ``_load_config``)."""
