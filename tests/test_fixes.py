"""Automatic fixes (jobcheck/fixes/): on every fixture case, applying every fix (safe and
unsafe) leaves files that parse, removes the findings it fixed without making new ones
a fix would touch, and a second round has nothing left to do; and each fix in detail."""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.findings import Finding, Report
from jobcheck.fixes import FIX_MODULES
from jobcheck.fixing import Outcome, applicable, fix_rounds
from tests.conftest import case_id, case_options, fixture_cases

# The fixture cases, as tests/test_fixtures.py finds them.
CASES = fixture_cases()


def _checker(root: Path, options: Options):  # type: ignore[no-untyped-def]
    selection = Selection.for_options(load_catalog(), options)

    def check(buffers: dict[str, bytes]) -> Report:
        settings = RunSettings(jobs=1, overrides=dict(buffers), fixes=True)
        return check_paths([str(root)], options, selection, settings)

    return check


def _fixed_case(case: Path, tmp_path: Path) -> tuple[Path, Outcome]:
    root = tmp_path / case.name
    shutil.copytree(case, root)
    check = _checker(root, case_options(root))
    return root, fix_rounds(check, unsafe=True, wanted=lambda f: True)


def _key(finding: Finding) -> tuple[str, str, str]:
    return (finding.path, finding.rule, finding.check)


@pytest.mark.parametrize("case", CASES, ids=[case_id(p) for p in CASES])
def test_fixing_every_fixture_twice_is_fixing_it_once(case: Path, tmp_path: Path) -> None:
    _, outcome = _fixed_case(case, tmp_path)
    after, before = outcome.report, outcome.first
    assert before is not None
    for path, text in outcome.fixed.items():
        if path.endswith(".py"):  # a fixed shell script or manifest is not Python
            ast.parse(text, filename=path)
    # Nothing is left that a fix would change: a second --fix changes nothing.
    assert not [f for f in after.findings if applicable(f.fix, unsafe=True)], after.findings
    # A fix removes its finding and makes no new finding of a fixable check.
    fixable = {_key(f) for f in after.findings if (f.rule, f.check) in FIX_MODULES}
    earlier = {_key(f) for f in before.findings}
    assert fixable <= earlier, fixable - earlier
    assert not after.errors


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def _fix(root: Path, unsafe: bool = True) -> dict[str, str]:
    options = Options(root=str(root))
    outcome = fix_rounds(_checker(root, options), unsafe=unsafe, wanted=lambda f: True)
    return {Path(p).relative_to(root).as_posix(): t for p, t in outcome.fixed.items()}


def _fixes(root: Path) -> list[Finding]:
    report = _checker(root, Options(root=str(root)))({})
    return [f for f in report.findings if f.fix is not None]


CELERY_APP = """\
    from celery import Celery

    app = Celery("proj")
    """


def test_crontab_missing_minute_gets_a_free_minute_and_is_safe(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/celery.py": CELERY_APP,
            "proj/settings.py": """\
                from celery.schedules import crontab

                CELERY_BEAT_SCHEDULE = {
                    "report": {
                        "task": "proj.tasks.report",
                        "schedule": crontab(hour=3),  # nightly
                        "options": {"expires": 3600},
                    },
                    "other": {
                        "task": "proj.tasks.other",
                        "schedule": crontab(minute=17, hour=3),
                        "options": {"expires": 3600},
                    },
                }
                """,
        },
    )
    [fix] = [f.fix for f in _fixes(root) if f.check == "crontab-missing-minute"]
    assert fix is not None and fix.applicability == "safe"
    fixed = _fix(root, unsafe=False)["proj/settings.py"]
    # 17 is taken by "other": the next free preferred minute; the comment stays.
    assert '"schedule": crontab(hour=3, minute=23),  # nightly' in fixed


def test_minute_moves_keep_the_frequency(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "settings.py": """\
                from celery.schedules import crontab

                EXPIRES = {"options": {"expires": 60}}
                CELERY_BEAT_SCHEDULE = {
                    "quarterly": {"task": "t.q", "schedule": crontab(minute="*/15"), **EXPIRES},
                    "half": {"task": "t.h", "schedule": crontab(minute="0,30"), **EXPIRES},
                    "nightly": {"task": "t.n", "schedule": crontab(minute=0, hour=2), **EXPIRES},
                }
                """,
            "aps.py": """\
                from apscheduler.schedulers.blocking import BlockingScheduler

                scheduler = BlockingScheduler()


                @scheduler.scheduled_job("cron", day_of_week="mon")
                def weekly():
                    pass
                """,
            "rq_cron.py": """\
                from rq_scheduler import Scheduler

                scheduler = Scheduler()
                scheduler.cron("@daily", func=print)
                """,
        },
    )
    fixed = _fix(root)
    settings = fixed["settings.py"]
    assert 'crontab(minute="*/15")' not in settings and 'crontab(minute="0,30")' not in settings
    quarterly = settings.split('"quarterly"')[1].split("crontab(minute=")[1].split(")")[0]
    minutes = [int(m) for m in quarterly.strip('"').split(",")]
    assert len(minutes) == 4 and {b - a for a, b in zip(minutes, minutes[1:])} == {15}
    assert 0 not in minutes
    # APScheduler: minute= alone would make the hour "*" (24 runs on Mondays).
    assert '@scheduler.scheduled_job("cron", day_of_week="mon", hour=0, minute=' in fixed["aps.py"]
    # @daily is "0 0 * * *": the same day and hour at another minute.
    assert (
        'scheduler.cron("' in fixed["rq_cron.py"]
        and ' 0 * * *", func=print)' in fixed["rq_cron.py"]
    )


def test_http_call_timeouts(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "tasks.py": """\
                import httpx
                import requests
                from celery import shared_task


                @shared_task(time_limit=60, soft_time_limit=50)
                def sync(url):
                    requests.post(
                        url,
                        json={"a": 1},  # the payload
                    )
                    httpx.get(url, timeout=None)
                    return requests.get(url).json()
                """
        },
    )
    fixed = _fix(root)["tasks.py"]
    assert (
        "    requests.post(\n"
        "        url,\n"
        '        json={"a": 1},  # the payload\n'
        "        timeout=(3.05, 30),\n"
        "    )\n"
    ) in fixed
    assert "httpx.get(url, timeout=httpx.Timeout(30, connect=3.05))" in fixed
    assert "return requests.get(url, timeout=(3.05, 30)).json()" in fixed
    assert _fix(root, unsafe=False) == {}  # unsafe: a slow call now fails


def test_beat_entry_expiry_is_the_time_between_runs(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/celery.py": CELERY_APP,
            "proj/tasks.py": """\
                from proj.celery import app


                @app.task(time_limit=60, soft_time_limit=50)
                def sync():
                    pass
                """,
            "proj/settings.py": """\
                from celery.schedules import crontab

                CELERY_BEAT_SCHEDULE = {
                    'sync': {
                        'task': 'proj.tasks.sync',
                        'schedule': crontab(minute='*/30'),
                    },
                    "four-hourly": {
                        "task": "proj.tasks.sync",
                        "schedule": crontab(minute=7, hour="*/4"),
                        "options": {"queue": "q"}
                    },
                }
                """,
        },
    )
    fixed = _fix(root)["proj/settings.py"]
    # Every 30 minutes (moved off minute 0 at the same pace): expires after 30 minutes.
    assert "'),\n        'options': {'expires': 1800},\n    },\n" in fixed
    assert '"options": {"queue": "q", "expires": 14400}\n' in fixed  # no comma added


SERVICES = """\
    from django.db import transaction

    from .tasks import send_receipt


    def pay(order_id):
        with transaction.atomic():
            send_receipt.delay(order_id)
            result = send_receipt.delay(order_id)
        return result
    """
TASKS = """\
    from celery import shared_task


    @shared_task(time_limit=60, soft_time_limit=50)
    def send_receipt(order_id):
        return order_id
    """
DJANGO_CELERY = """\
    import os

    from celery import Celery

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
    app = Celery("shop")
    """


def test_enqueue_in_a_transaction_goes_to_on_commit(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/celery.py": DJANGO_CELERY,
            "shop/tasks.py": TASKS,
            "shop/services.py": SERVICES,
        },
    )
    fixed = _fix(root)["shop/services.py"]
    assert fixed.startswith("from functools import partial\n\nfrom django.db import transaction\n")
    assert "        transaction.on_commit(partial(send_receipt.delay, order_id))\n" in fixed
    # A result that is used is left alone: on_commit returns None.
    assert "        result = send_receipt.delay(order_id)\n" in fixed


def test_on_commit_where_atomic_is_imported_by_name(tmp_path: Path) -> None:
    """``from django.db.transaction import atomic``: ``transaction`` is free to import
    (the fix offered nothing: the module path's part was taken for a use of the name),
    and each new import goes in its own isort section, not after the project's own."""
    root = _project(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/celery.py": DJANGO_CELERY,
            "shop/tasks.py": TASKS,
            "shop/services.py": """\
                import os
                import logging

                from django.db.transaction import atomic

                from shop.tasks import send_receipt


                def pay(order_id):
                    with atomic():
                        send_receipt.delay(order_id, os.getpid())
                """,
        },
    )
    fixed = _fix(root)["shop/services.py"]
    assert fixed.startswith(
        "import os\nimport logging\nfrom functools import partial\n\n"
        "from django.db import transaction\nfrom django.db.transaction import atomic\n\n"
        "from shop.tasks import send_receipt\n"
    ), fixed
    assert "transaction.on_commit(partial(send_receipt.delay, order_id, os.getpid()))" in fixed


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("celery[redis]==5.4.0\n", "send_receipt.delay_on_commit(order_id)"),
        ("celery>=5.3,<6\n", "transaction.on_commit(partial(send_receipt.delay, order_id))"),
    ],
)
def test_delay_on_commit_where_the_celery_version_has_it(
    tmp_path: Path, requirement: str, expected: str
) -> None:
    root = _project(
        tmp_path,
        {
            "requirements.txt": f"django>=4.2\n{requirement}",
            "shop/__init__.py": "",
            "shop/celery.py": DJANGO_CELERY,
            "shop/tasks.py": TASKS,
            "shop/services.py": SERVICES,
        },
    )
    assert f"        {expected}\n" in _fix(root)["shop/services.py"]


def test_time_limits_come_from_the_project_or_are_only_shown(tmp_path: Path) -> None:
    lonely = _project(
        tmp_path / "lonely",
        {"tasks.py": "from celery import shared_task\n\n\n@shared_task\ndef a():\n    pass\n"},
    )
    [finding] = [f for f in _fixes(lonely) if f.check == "missing-time-limit"]
    assert finding.fix is not None and finding.fix.applicability == "display"
    assert _fix(lonely) == {}  # never applied
    typical = _project(
        tmp_path / "typical",
        {
            "tasks.py": """\
                from celery import shared_task


                @shared_task(time_limit=120, soft_time_limit=100)
                def a():
                    pass


                @shared_task(time_limit=120, soft_time_limit=100)
                def b():
                    pass


                @shared_task
                def c():
                    pass
                """
        },
    )
    fixed = _fix(typical)["tasks.py"]
    assert "@shared_task(time_limit=120, soft_time_limit=100)\ndef c():" in fixed


def test_dramatiq_none_limit_is_its_default_and_safe(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "actors.py": """\
                import dramatiq


                @dramatiq.actor(time_limit=None, max_retries=3, queue_name="q", max_age=60000)
                def index(pk):
                    pass
                """
        },
    )
    fixed = _fix(root, unsafe=False)["actors.py"]
    assert "@dramatiq.actor(time_limit=600000, max_retries=3" in fixed


def test_crlf_and_a_missing_final_newline_survive(tmp_path: Path) -> None:
    path = tmp_path / "tasks.py"
    path.write_bytes(
        b"import requests\r\nfrom celery import shared_task\r\n\r\n\r\n"
        b"@shared_task(time_limit=60, soft_time_limit=50)\r\ndef a(url):\r\n"
        b"    return requests.get(url)"
    )
    fixed = _fix(tmp_path)["tasks.py"]
    assert fixed.endswith("    return requests.get(url, timeout=(3.05, 30))")
    assert "\n" not in fixed.replace("\r\n", "")


def test_soft_limit_below_hard_and_retry_backoff(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "tasks.py": """\
                from celery import shared_task


                @shared_task(
                    time_limit=120,
                    soft_time_limit=120,
                    autoretry_for=(ConnectionError,),
                    max_retries=5,
                )
                def sync(order_id):
                    return order_id
                """
        },
    )
    fixed = _fix(root)["tasks.py"]
    assert "    soft_time_limit=108,\n" in fixed
    assert "    max_retries=5,\n    retry_backoff=True,\n)\n" in fixed


def test_arq_cron_minutes_are_keywords_never_its_job(tmp_path: Path) -> None:
    """arq/cron.py ``cron(coroutine, *, ..., minute=None)``: the job is the only positional
    argument, so a minute is added or moved as ``minute=`` (an int, or a set of ints)."""
    root = _project(
        tmp_path,
        {
            "worker.py": """\
                from arq import cron

                async def nightly(ctx): ...
                async def cleanup(ctx): ...
                async def poll(ctx): ...

                class WorkerSettings:
                    cron_jobs = [
                        cron(nightly, hour=3),
                        cron(cleanup, hour={3, 15}, minute=0),
                        cron(poll, minute={0, 30}),
                    ]
                """,
        },
    )
    fixed = _fix(root)["worker.py"]
    assert "cron(nightly, hour=3, minute=17)" in fixed
    assert "cron(cleanup, hour={3, 15}, minute=23)" in fixed
    assert "cron(poll, minute={" in fixed and "minute={0, 30}" not in fixed
    ast.parse(fixed)


def test_expiry_of_a_crontab_without_minute_is_the_gap_once_the_minute_is_fixed(
    tmp_path: Path,
) -> None:
    """``crontab(hour="3")`` runs every minute of 03:00; SCL-22's fix in the same round
    gives it one minute, so SCL-19's expiry is a day, not 60 s (the two fixes together
    wrote ``minute=17`` with ``expires=60``: every later run expired)."""
    root = _project(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/celery.py": CELERY_APP,
            "proj/tasks.py": """\
                from proj.celery import app


                @app.task(time_limit=60, soft_time_limit=50)
                def nightly():
                    pass
                """,
            "proj/settings.py": """\
                from celery.schedules import crontab

                CELERY_BEAT_SCHEDULE = {
                    "nightly": {"task": "proj.tasks.nightly", "schedule": crontab(hour="3")},
                }
                """,
        },
    )
    fixed = _fix(root)["proj/settings.py"]
    assert "minute=" in fixed
    assert '"expires": 86400' in fixed
