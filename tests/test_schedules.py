"""Schedule timing (cron parsing with croniter, framework defaults), schedule extraction
and the configurable lock names of SCL-38."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobcheck.config import Options
from jobcheck.extract import extract_file
from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Const, SeqV
from jobcheck.frameworks.apscheduler.defaults import UNCONFIRMED
from jobcheck.timing import (
    apscheduler_cron,
    celery_crontab,
    cron_expression,
    describe_seconds,
    expanded,
    firing,
    first_shared_moment,
    may_coincide,
    shortest_gap,
    timedelta_seconds,
)
from tests.conftest import each_place, run_case


def minutes(timing: Timing) -> set[int] | None:
    fire = firing(timing)
    assert fire is not None
    return set(fire.minutes) if fire.minutes is not None else None


def crontab(*args: object, **kwargs: object) -> Timing:
    return celery_crontab(
        CallV(
            "celery.schedules.crontab",
            tuple(Const(a) for a in args),
            tuple(
                (k, SeqV(tuple(Const(i) for i in v)) if isinstance(v, list) else Const(v))
                for k, v in kwargs.items()
            ),
        ),
        "crontab(...)",
    )


# -- cron strings: croniter, not string matching --------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("0 */2 * * *", {0}),
        ("0,30 * * * *", {0, 30}),
        ("@hourly", {0}),
        ("@daily", {0}),
        ("@midnight", {0}),
        ("*/15 * * * *", {0, 15, 30, 45}),
        ("5-59/20 * * * *", {5, 25, 45}),
        ("17 3 * * mon-fri", {17}),
        ("50-10/10 * * * *", {50, 0, 10}),
    ],
)
def test_cron_strings_expand_with_croniter(expression: str, expected: set[int]) -> None:
    assert minutes(cron_expression(expression, expression)) == expected


@pytest.mark.parametrize("expression", ["@reboot", "0 0 * *", "0 0 * * * * *", None])
def test_unreadable_cron_strings_are_other(expression: str | None) -> None:
    assert cron_expression(expression, "x").kind == "other"


def test_invalid_field_is_unknown_not_a_crash() -> None:
    assert minutes(cron_expression("*/0 * * * *", "x")) is None
    hashed = firing(cron_expression("H * * * *", "x"))
    assert hashed is not None and hashed.minutes is None


def test_day_of_week_seven_is_sunday() -> None:
    fire = firing(cron_expression("0 0 * * 7", "x"))
    assert fire is not None and fire.days_of_week == frozenset({0})


# -- Celery crontab: every field defaults to "*" ---------------------------------------


def test_celery_crontab_hour_alone_fires_every_minute_of_that_hour() -> None:
    timing = crontab(hour=3)
    assert timing.minute_defaulted
    assert minutes(timing) == set(range(60))


def test_celery_crontab_positional_order_is_minute_hour_day_of_week() -> None:
    timing = crontab(17, 3, "monday")
    assert timing.fields == ("17", "3", "*", "*", "mon")
    assert not timing.minute_defaulted


def test_celery_crontab_lists_and_explicit_star() -> None:
    assert minutes(crontab(minute=[0, 30])) == {0, 30}
    assert not crontab(minute="*", hour=5).minute_defaulted
    assert not crontab(hour="*").minute_defaulted
    assert not crontab().minute_defaulted


def test_celery_crontab_unknown_field_stays_unknown() -> None:
    timing = celery_crontab(
        CallV("celery.schedules.crontab", (), (("minute", Const(0)), ("hour", CallV("f")))), "x"
    )
    fire = firing(timing)
    assert fire is not None and fire.minutes == frozenset({0}) and fire.hours is None


# -- APScheduler: fields after the last one given default to their minimum -------------


def test_apscheduler_hour_alone_means_minute_zero() -> None:
    assert minutes(apscheduler_cron({"hour": Const(3)}, "x")) == {0}


def test_apscheduler_day_of_week_alone_means_midnight() -> None:
    fire = firing(apscheduler_cron({"day_of_week": Const("mon")}, "x"))
    assert fire is not None and fire.minutes == {0} and fire.hours == {0}
    assert fire.days_of_week == {1}


def test_apscheduler_numbers_weekdays_from_monday() -> None:
    fire = firing(apscheduler_cron({"day_of_week": Const("0"), "hour": Const(9)}, "x"))
    assert fire is not None and fire.days_of_week == {1}  # cron's Monday


def test_apscheduler_minute_given_keeps_hour_star() -> None:
    fire = firing(apscheduler_cron({"minute": Const("*/20")}, "x"))
    assert fire is not None and fire.minutes == {0, 20, 40} and len(fire.hours or ()) == 24


def test_apscheduler_minute_note_reads_the_call_not_its_shortened_text(tmp_path: Path) -> None:
    """The note that APScheduler sets minute=0 is for calls without minute=, however long
    (the entry's text is cut at 60 characters)."""
    (tmp_path / "clock.py").write_text(
        "from apscheduler.schedulers.blocking import BlockingScheduler\n"
        "from apscheduler.triggers.cron import CronTrigger\n"
        "sched = BlockingScheduler()\n"
        "def rebuild_every_search_index_of_the_shop(): pass\n"
        "def rebuild_reports(): pass\n"
        "sched.add_job(rebuild_every_search_index_of_the_shop, CronTrigger(day_of_week='mon',"
        " hour=0, minute='00'), id='reindex')\n"
        "sched.add_job(rebuild_reports, 'cron', day_of_week='tue', hour=0, id='reports')\n"
    )
    report = run_case(tmp_path)
    notes = {
        f.loc.line: "APScheduler sets minute=0" in f.message
        for f in each_place(report.findings)
        if f.check == "schedule-on-the-hour"
    }
    assert notes == {6: False, 7: True}


# -- intervals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (CallV("datetime.timedelta", (), (("hours", Const(6)),)), 21600.0),
        (CallV("datetime.timedelta", (Const(1),)), 86400.0),
        (CallV("datetime.timedelta", (Const(0), Const(90))), 90.0),
        (Const(3600), 3600.0),
        (CallV("datetime.timedelta", (), (("hours", CallV("int")),)), None),
        (CallV("datetime.timedelta", (), (("fortnights", Const(1)),)), None),
    ],
)
def test_timedelta_seconds(value: object, seconds: float | None) -> None:
    assert timedelta_seconds(value) == seconds  # type: ignore[arg-type]


def test_shortest_gap() -> None:
    assert shortest_gap(cron_expression("*/15 * * * *", "x")) == 900
    assert shortest_gap(cron_expression("17 3 * * *", "x")) == 86400
    assert shortest_gap(Timing(kind="interval", text="x", seconds=60)) == 60
    assert shortest_gap(Timing(kind="other", text="x")) is None


@settings(max_examples=200, deadline=None)
@given(
    st.sets(st.integers(0, 59), min_size=1, max_size=6),
    st.sets(st.integers(0, 23), min_size=1, max_size=6),
)
def test_the_gap_of_a_daily_timing_is_read_from_its_minutes_and_hours(
    minutes_set: set[int], hours_set: set[int]
) -> None:
    fields = [",".join(map(str, sorted(values))) for values in (minutes_set, hours_set)]
    timing = expanded(cron_expression(" ".join([*fields, "*", "*", "*"]), "x"))
    runs = sorted(
        day * 1440 + hour * 60 + minute
        for day in (0, 1)
        for hour in hours_set
        for minute in minutes_set
    )
    assert timing.gap == min(b - a for a, b in zip(runs, runs[1:])) * 60


def test_the_gap_of_a_timing_on_some_days_is_walked_by_croniter() -> None:
    assert shortest_gap(expanded(cron_expression("0 9 * * 1-5", "x"))) == 86400
    assert shortest_gap(expanded(cron_expression("0 0 1 * *", "x"))) == 28 * 86400


def test_describe_seconds() -> None:
    assert describe_seconds(86400) == "day"
    assert describe_seconds(21600) == "6 h"
    assert describe_seconds(90) == "90 s"


# -- coinciding -----------------------------------------------------------------------------


def coincide(a: str, b: str) -> bool:
    fa, fb = firing(cron_expression(a, a)), firing(cron_expression(b, b))
    assert fa is not None and fb is not None
    return may_coincide(fa, fb)


def test_coincide_needs_the_same_minute_and_hour() -> None:
    assert coincide("30 2 * * *", "*/15 * * * *")
    assert not coincide("47 1 * * *", "47 2 * * *")
    assert not coincide("17 * * * *", "18 * * * *")


def test_coincide_on_days() -> None:
    assert not coincide("41 5 * * mon", "41 5 * * tue")
    assert coincide("41 5 * * mon", "41 5 1 * *")  # the 1st can be a Monday
    assert not coincide("41 5 * 1 *", "41 5 * 2 *")


def test_first_shared_moment() -> None:
    a = firing(cron_expression("30 2 * * *", "x"))
    b = firing(cron_expression("*/15 * * * *", "x"))
    assert a is not None and b is not None
    assert first_shared_moment(a, b) == "02:30"
    assert first_shared_moment(b, b) == "minute 0 of every hour"


# -- extraction -----------------------------------------------------------------------------


def schedules_of(source: str, module: str = "proj.settings") -> list:
    facts = extract_file("x.py", source.encode(), module)
    assert facts.error is None, facts.error
    return facts.schedules


def test_beat_entries_one_by_one_and_by_update() -> None:
    entries = schedules_of(
        "from celery.schedules import crontab\n"
        "CELERY_BEAT_SCHEDULE = {}\n"
        "CELERY_BEAT_SCHEDULE['a'] = {'task': 'proj.a', 'schedule': crontab(minute=7)}\n"
        "CELERY_BEAT_SCHEDULE.update({'b': {'task': 'proj.b', 'schedule': 30}})\n"
        "app.conf.update(beat_schedule={'c': {'task': 'proj.c', 'schedule': 60}})\n"
        "app.conf.beat_schedule['d'] = dict(task='proj.d', schedule=crontab(minute=9))\n"
    )
    assert [(e.name, e.task_name, e.loc.line) for e in entries] == [
        ("a", "proj.a", 3),
        ("b", "proj.b", 4),
        ("c", "proj.c", 5),
        ("d", "proj.d", 6),
    ]


def test_beat_schedule_through_a_module_constant_and_class_attribute() -> None:
    entries = schedules_of(
        "BASE = {'a': {'task': 'proj.a', 'schedule': 30}}\n"
        "class Settings:\n"
        "    CELERY_BEAT_SCHEDULE = BASE\n"
    )
    assert [e.name for e in entries] == ["a"]


def test_not_a_beat_entry_without_task_and_schedule() -> None:
    assert schedules_of("CELERY_BEAT_SCHEDULE = {'a': {'task': 'proj.a'}}\n") == []


def test_add_periodic_task_options_from_signature_and_keywords() -> None:
    (entry,) = schedules_of(
        "from proj.tasks import ping\n"
        "def setup(sender, **kw):\n"
        "    sender.add_periodic_task(10.0, ping.s(1).set(queue='q'), name='p', expires=5)\n"
    )
    assert entry.target == "proj.tasks.ping"
    assert entry.name == "p"
    assert {k for k, _ in entry.options} == {"queue", "expires"}
    assert entry.timing.seconds == 10.0


def test_apscheduler_and_schedule_need_their_imports() -> None:
    # Without an apscheduler import, an add_job on an object named like a scheduler is
    # kept unconfirmed: the project model keeps it only when the object is a scheduler.
    (entry,) = schedules_of("scheduler.add_job(f, 'cron', hour=3)\n")
    assert entry.option(UNCONFIRMED) is not None
    assert schedules_of("registry.add_job(f, 'cron', hour=3)\n") == []
    assert schedules_of("every().hour.do(f)\n") == []
    assert schedules_of("import schedule\nschedule.every().hour.do(f)\n")[0].timing.seconds == 3600


# -- configuration ------------------------------------------------------------------------


def test_configured_lock_decorators_and_base_classes(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text(
        "from celery import shared_task\n"
        "from proj.locking import only_one, LockedTask\n"
        "@shared_task(time_limit=60, expires=60)\n"
        "@only_one\n"
        "def a():\n    pass\n"
        "@shared_task(time_limit=60, expires=60, base=LockedTask)\n"
        "def b():\n    pass\n",
        encoding="utf-8",
    )
    (tmp_path / "settings.py").write_text(
        "from celery.schedules import crontab\n"
        "CELERY_BEAT_SCHEDULE = {\n"
        "    'a': {'task': 'tasks.a', 'schedule': crontab(minute=7)},\n"
        "    'b': {'task': 'tasks.b', 'schedule': crontab(minute=9)},\n"
        "}\n",
        encoding="utf-8",
    )

    def flagged(options: Options) -> list[int]:
        report = run_case(tmp_path, options=options)
        return sorted(
            f.loc.line
            for f in each_place(report.findings)
            if f.check == "scheduled-job-without-lock"
        )

    assert flagged(Options(root=str(tmp_path))) == [3, 4]
    configured = Options(
        root=str(tmp_path),
        lock_decorators=("only_one",),
        lock_base_classes=("proj.locking.LockedTask",),
    )
    assert flagged(configured) == []


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ('cursor.execute(f"SELECT pg_try_advisory_lock({LOCK_ID})")', "advisory-lock"),
        ('cursor.execute("SELECT GET_LOCK(%s, 0)", [name])', "advisory-lock"),
        ('redis.set("lock:x", 1, nx=True, ex=60)', "lock"),
        ('caches["default"].add("lock:x", 1, 60)', "lock"),
        ("Order.objects.select_for_update(nowait=True).get(pk=1)", "row-lock"),
        ("acquire_lock('x')", "lock"),
        ("RedLock('x')", "lock"),
    ],
)
def test_lock_guards(body: str, kind: str) -> None:
    facts = extract_file("x.py", f"def job():\n    {body}\n".encode(), "proj.jobs")
    assert [g.kind for g in facts.functions["proj.jobs.job"].guards] == [kind]


@pytest.mark.parametrize(
    "body",
    [
        "cache.get('lock:x')",
        "release_lock('x')",
        "Order.objects.select_for_update().get(pk=1)",
        "redis.set('x', 1)",
        "tags.add('x')",
        "time.clock()",
    ],
)
def test_not_lock_guards(body: str) -> None:
    facts = extract_file("x.py", f"def job():\n    {body}\n".encode(), "proj.jobs")
    function = facts.functions.get("proj.jobs.job")
    assert function is None or not function.guards


def test_an_in_process_lock_is_named_in_the_single_run_finding(tmp_path: Path) -> None:
    """brightsky's shape: "takes no lock" would read as wrong beside a threading lock."""
    (tmp_path / "tasks.py").write_text(
        "import threading\n"
        "from huey import RedisHuey, crontab\n"
        "huey = RedisHuey('app')\n"
        "_lock = threading.Lock()\n"
        "@huey.periodic_task(crontab(minute='7'), expires=60, timeout=60)\n"
        "def refresh():\n"
        "    with _lock:\n"
        "        load()\n"
        "@huey.periodic_task(crontab(minute='9'), expires=60, timeout=60)\n"
        "def plain():\n"
        "    load()\n",
        encoding="utf-8",
    )
    messages = {
        f.loc.line: f.message
        for f in each_place(run_case(tmp_path).findings)
        if f.check == "scheduled-job-without-lock"
    }
    assert set(messages) == {5, 9}
    assert "the lock it holds at line 7" in messages[5]
    assert "holds within one process only" in messages[5]
    assert "within one process" not in messages[9]
