"""Per-file extraction: names through imports, values, positions, payload kinds."""

from __future__ import annotations

from jobcheck.extract import extract_file, suppressions
from jobcheck.facts.values import CallV, Const, DictV, Ref
from jobcheck.syntax.names import Names
from jobcheck.syntax.source import parse


def facts(source: str, module: str = "shop.tasks", is_package: bool = False):
    return extract_file("f.py", source.encode(), module, is_package)


def test_aliased_and_relative_imports_resolve() -> None:
    result = facts(
        "from celery import shared_task as st\n"
        "from ..orders import tasks as order_tasks\n"
        "@st(time_limit=5)\ndef f(x):\n    order_tasks.send.delay(x)\n",
        module="shop.api.views",
    )
    (task,) = result.tasks
    assert task.decorator == "celery.shared_task"
    (site,) = result.enqueues
    assert site.target == "shop.orders.tasks.send"


def test_relative_import_in_package_init() -> None:
    names = Names("shop.orders", is_package=True)
    names.add_import(parse("from .tasks import send\n").body[0].body[0])  # type: ignore[attr-defined]
    assert names.resolve("send") == "shop.orders.tasks.send"


def test_values_are_folded_and_resolved() -> None:
    result = facts(
        "from celery import Celery\nfrom celery.schedules import crontab\n"
        "HOUR = 60 * 60\napp = Celery('p')\n"
        "app.conf.update(task_time_limit=2 * HOUR,"
        " beat_schedule={'a': {'schedule': crontab(minute=0)}},"
        " broker_transport_options={'visibility_timeout': 3600})\n"
    )
    settings = {s.key: s.value for s in result.settings}
    assert settings["task_time_limit"] == Const(7200)
    schedule = settings["beat_schedule"]
    assert isinstance(schedule, DictV)
    entry = schedule.get("a")
    assert isinstance(entry, DictV)
    assert entry.get("schedule") == CallV("celery.schedules.crontab", (), (("minute", Const(0)),))
    assert settings["broker_transport_options"] == DictV(
        ((Const("visibility_timeout"), Const(3600)),)
    )


def test_non_celery_task_decorators_are_ignored() -> None:
    result = facts(
        "from invoke import task\nimport airflow.decorators\n"
        "@task\ndef a(c): pass\n@airflow.decorators.task\ndef b(): pass\n"
    )
    assert result.tasks == []


def test_positions_are_one_based_with_exclusive_ends() -> None:
    result = facts(
        "# header\n\nfrom celery import shared_task\n\n\nclass A:\n"
        "    def m(self):\n        return f.delay(1,\n   2)\n\n\n"
        "@shared_task\ndef f(): pass\n"
    )
    (site,) = result.enqueues
    assert (site.loc.line, site.loc.column, site.loc.end_line, site.loc.end_column) == (
        8,
        16,
        9,
        6,
    )


def test_suppression_comments() -> None:
    text = "a = 1  # jobcheck: ignore[SCL-21, fat-payload]\nb = 2\nc = 3  # JOBCHECK: ignore\n"
    assert suppressions(text) == {1: frozenset({"SCL-21", "fat-payload"}), 3: None}


def test_references_to_module_names_are_qualified() -> None:
    result = facts("from celery import Celery\napp = Celery('p')\n@app.task\ndef f(): pass\n")
    (task,) = result.tasks
    assert task.app_ref == "shop.tasks.app"
    assert result.apps[0].qualname == "shop.tasks.app"
    assert Ref("x") != Ref("y")


def test_suppressions_number_lines_as_python_does_and_merge_comments() -> None:
    from jobcheck.extract import suppressions

    text = "a = 1\x0c\nb = 2  # jobcheck: ignore[SCL-18]  # jobcheck: ignore[fat-payload]\n"
    assert suppressions(text) == {2: frozenset({"SCL-18", "fat-payload"})}
    assert suppressions("x  # jobcheck: ignore[A]  # jobcheck: ignore\n") == {1: None}
