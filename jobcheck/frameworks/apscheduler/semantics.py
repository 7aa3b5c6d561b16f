"""APScheduler's semantics, for its schedules (it runs functions in-process: no queue).

Library facts, each read in APScheduler 3.x's source:

- ``max_instances`` defaults to 1 (apscheduler/schedulers/base.py ``_configure``): a job
  whose last run goes on is skipped with a warning, so one copy runs at a time within a
  scheduler; the risk is many schedulers (SCL-38 ``scheduler-in-every-instance``);
- cron fields after the last one given take their minimum, so ``hour=`` alone means
  ``minute=0`` (apscheduler/triggers/cron/__init__.py);
- an interval trigger's ``start_date`` defaults to now + interval
  (apscheduler/triggers/interval.py): the clock restarts with the scheduler.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from jobcheck.facts.values import DictV, Value, number
from jobcheck.frameworks.apscheduler.defaults import (
    FLASK_CONFIG_SCHEDULER,
    JOB_DEFAULTS,
    MINUTE_GIVEN,
    UNCONFIRMED,
    is_scheduler_class,
)
from jobcheck.frameworks.semantics_base import (
    ScheduleTerms,
    Semantics,
    Words,
    fixed_hours,
    started_scheduler_module,
)

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Project


class APSchedulerSemantics(Semantics):
    name = "apscheduler"
    title = "APScheduler"
    scheduler_noun = "an APScheduler scheduler"

    words = Words(
        let_it_fail=(
            "let it raise: APScheduler logs the traceback and emits EVENT_JOB_ERROR, which "
            "a listener (scheduler.add_listener) can record"
        ),
        hung_call_consequence=(
            "a silent server holds the run for ever (APScheduler stops no run), and at "
            "max_instances=1 every later run of the job is skipped"
        ),
        single_run_advice=(
            ", or leave max_instances at 1 (APScheduler's default) for in-process jobs"
        ),
    )

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        return "counted from when the scheduler starts (the first run comes one interval later)"

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="APScheduler job",
            runs_one_at_a_time=_runs_one_at_a_time(entry),
            start_spread=_start_spread(entry),
            overlap_note=_overlap_note(entry),
            minute_zero_note=_minute_zero_note(entry),
        )

    def with_scheduler_defaults(
        self, project: Project, entry: ScheduleEntry
    ) -> ScheduleEntry | None:
        """schedulers/base.py ``_real_add_job``: an option the job leaves ``undefined`` takes
        its scheduler's ``job_defaults`` (``_configure``, from the constructor or a later
        ``configure()``, the last one winning). A job made on an object jobcheck cannot
        name (``self.scheduler``) takes the defaults of the project's only scheduler."""
        if entry.option(UNCONFIRMED) is not None:
            made_by = project.instances.get(entry.scheduler or "")
            if not is_scheduler_class(made_by):
                return None  # an object of another library that has an add_job method
            entry = replace(entry, options=tuple(o for o in entry.options if o[0] != UNCONFIRMED))
        configs = [c for _, c in project.configs(self.name, "scheduler")]
        named = [c for c in configs if entry.scheduler and c.qualname == entry.scheduler]
        if not named and len({c.qualname for c in configs}) == 1:
            named = configs
        if any((c.cls or "").startswith("flask_apscheduler") for c in named):
            # Flask-APScheduler's object takes SCHEDULER_JOB_DEFAULTS from the app's config.
            named += [c for c in configs if c.qualname == FLASK_CONFIG_SCHEDULER]
        filled: dict[str, Value] = {}
        for config in named:
            defaults = project.value(config.option("job_defaults"))
            if isinstance(defaults, DictV):
                # ``int(os.getenv("JOBS", 10))``: the environment read's default.
                filled.update(
                    (k, project.value(v) or v)
                    for k in JOB_DEFAULTS
                    if (v := defaults.get(k)) is not None
                )
        # Names and environment reads with literal defaults, resolved (Gerapy's
        # ``max_instances=int(getenv("MAX_INSTANCES", 10))``).
        options = tuple((k, project.value(v) or v) for k, v in entry.options)
        given = {k for k, _ in options}
        extra = tuple((k, v) for k, v in filled.items() if k not in given)
        return replace(entry, options=options + extra)

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        # executors/base.py ``run_job``: an exception is logged ('Job "%s" raised an
        # exception') and sent as EVENT_JOB_ERROR; the job keeps its schedule. No limit:
        # a run still going at its next time makes that run be skipped (max_instances).
        allowed = number(entry.option("max_instances"))
        return {
            "queue": "none: runs in the scheduler's process",
            "time_limit": "none (APScheduler stops no run)",
            "retries": "none: the next scheduled run",
            "backoff": "-",
            "dead_letter": "none: the error is logged (EVENT_JOB_ERROR)",
            "lock": (
                "unknown: max_instances is computed at run time"
                if allowed is None and entry.option("max_instances") is not None
                else "one run at a time in its scheduler (max_instances=1)"
                if allowed is None or allowed <= 1
                else f"no: max_instances={allowed:g}"
            ),
        }

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        path = started_scheduler_module(project, words, "apscheduler")
        return (f"an APScheduler scheduler ({path})", False) if path else None

    reruns_failures = False

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        return f"minute={minute}" if "from_crontab" not in entry.timing.text else None

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        kind, every_n = fixed_hours(seconds)
        if kind == "daily":
            return '"cron", hour=3, minute=17'
        return f'"cron", hour="*/{every_n}", minute=17' if every_n else '"cron", minute=17'


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    """``max_instances`` (1 unless the job or the scheduler's ``job_defaults`` say
    otherwise: defaults.JOB_DEFAULTS) runs are allowed at once within a scheduler."""
    allowed = number(entry.option("max_instances"))
    return allowed is None or allowed <= 1


def _start_spread(entry: ScheduleEntry) -> float | None:
    return number(entry.option("jitter"))


def _overlap_note(entry: ScheduleEntry) -> str:
    allowed = number(entry.option("max_instances"))
    if allowed is None or allowed <= 1:
        return ""
    return f"; max_instances={allowed:g} lets {allowed:g} runs of it overlap in the scheduler"


def _minute_zero_note(entry: ScheduleEntry) -> str:
    if entry.option(MINUTE_GIVEN) is not None:
        return ""
    return "; APScheduler sets minute=0 when hour= or a day is given without minute="


SEMANTICS = APSchedulerSemantics()
