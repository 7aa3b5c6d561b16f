"""Baselines: --write-baseline records today's findings, --baseline reports only new
ones, and matching survives edits that move code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run, write

LEGACY = """\
    from celery import shared_task


    @shared_task(max_retries=None, time_limit=60, soft_time_limit=50)
    def charge(order_id):
        return order_id


    @shared_task(max_retries=None, time_limit=60, soft_time_limit=50)
    def refund(order_id):
        return order_id


    @shared_task(
        autoretry_for=(Exception,), max_retries=30, retry_backoff=True, time_limit=60,
        soft_time_limit=50,
    )
    def sync(order_id):
        return order_id
    """

NEW_TASK = """

@shared_task(max_retries=None, time_limit=60, soft_time_limit=50)
def reconcile(order_id):
    return order_id
"""


@pytest.fixture
def legacy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, {"app/__init__.py": "", "app/tasks.py": LEGACY})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _findings(*arguments: str) -> tuple[int, list[tuple[str, int, str]]]:
    result = run("check", "--format", "json", *arguments)
    data = json.loads(result.stdout)
    return result.exit_code, [(f["path"], f["line"], f["check"]) for f in data["findings"]]


def _insert_above(path: Path, text: str) -> None:
    path.write_text(text + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_baseline_file_is_versioned_sorted_and_free_of_line_numbers(legacy: Path) -> None:
    result = run("check", "--write-baseline", "baseline.json", ".")
    assert result.exit_code == 0
    assert "recorded 3 findings" in result.stderr
    document = json.loads((legacy / "baseline.json").read_text())
    assert document["version"] == 1 and document["tool"] == "jobcheck"
    entries = document["findings"]
    assert [(e["path"], e["rule"], e["check"], e["occurrence"]) for e in entries] == [
        ("app/tasks.py", "SCL-34", "retry-on-all-exceptions", 0),
        ("app/tasks.py", "SCL-34", "unbounded-retries", 0),
        ("app/tasks.py", "SCL-34", "unbounded-retries", 1),
    ]
    assert entries[1]["source"] == "max_retries=None"
    assert not any("line" in key for entry in entries for key in entry)
    first = (legacy / "baseline.json").read_bytes()
    run("check", "--write-baseline", "baseline.json", ".")
    assert (legacy / "baseline.json").read_bytes() == first


def test_baseline_suppresses_todays_findings_after_lines_move(legacy: Path) -> None:
    run("check", "--write-baseline", "baseline.json", ".")
    tasks = legacy / "app" / "tasks.py"
    _insert_above(
        tasks, '"""Payment tasks."""\n\nimport logging\n\nlog = logging.getLogger(__name__)\n'
    )
    result = run("check", "--baseline", "baseline.json", ".")
    assert result.exit_code == 0, result.stdout
    assert "3 findings in the baseline not shown" in result.stderr


def test_a_new_violation_still_fails_the_run(legacy: Path) -> None:
    run("check", "--write-baseline", "baseline.json", ".")
    tasks = legacy / "app" / "tasks.py"
    _insert_above(tasks, "# moved down\n\n")
    tasks.write_text(tasks.read_text() + NEW_TASK, encoding="utf-8")
    status, findings = _findings("--baseline", "baseline.json", ".")
    assert status == 1
    decorator = tasks.read_text().splitlines().index("def reconcile(order_id):")  # 1-based
    assert findings == [("app/tasks.py", decorator, "unbounded-retries")]


def test_a_new_identical_violation_above_an_old_one_is_the_one_reported(legacy: Path) -> None:
    run("check", "--write-baseline", "baseline.json", ".")
    tasks = legacy / "app" / "tasks.py"
    header, _, rest = tasks.read_text().partition("\n\n\n")
    tasks.write_text(header + "\n\n" + NEW_TASK + "\n\n" + rest, encoding="utf-8")
    status, findings = _findings("--baseline", "baseline.json", ".")
    assert status == 1
    decorator = tasks.read_text().splitlines().index("def reconcile(order_id):")  # 1-based
    assert findings == [("app/tasks.py", decorator, "unbounded-retries")]


def test_fixed_findings_are_reported_as_stale_entries(legacy: Path) -> None:
    run("check", "--write-baseline", "baseline.json", ".")
    tasks = legacy / "app" / "tasks.py"
    tasks.write_text(
        tasks.read_text().replace("autoretry_for=(Exception,)", "autoretry_for=(IOError,)")
    )
    result = run("check", "--baseline", "baseline.json", ".")
    assert result.exit_code == 0
    assert "1 baseline entries match no finding" in result.stderr


def test_baseline_paths_are_relative_to_the_baseline_file(legacy: Path, monkeypatch) -> None:
    run("check", "--write-baseline", "baseline.json", "app")
    monkeypatch.chdir(legacy / "app")
    result = run("check", "--baseline", "../baseline.json", ".")
    assert result.exit_code == 0, result.stdout


def test_editing_the_flagged_code_makes_it_new(legacy: Path) -> None:
    run("check", "--write-baseline", "baseline.json", ".")
    tasks = legacy / "app" / "tasks.py"
    tasks.write_text(
        tasks.read_text().replace(
            "autoretry_for=(Exception,)", "autoretry_for=(Exception, ValueError)"
        )
    )
    status, findings = _findings("--baseline", "baseline.json", ".")
    assert status == 1
    assert [check for _, _, check in findings] == ["retry-on-all-exceptions"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not found"),
        ("{not json", "not valid JSON"),
        ('{"tool": "other"}', "is not a jobcheck baseline"),
        ('{"tool": "jobcheck", "version": 99, "findings": []}', "format version 99"),
        ('{"tool": "jobcheck", "version": 1, "findings": [{"path": 1}]}', "must be a list"),
    ],
)
def test_unusable_baseline_is_a_usage_error(
    legacy: Path, content: str | None, message: str
) -> None:
    if content is not None:
        (legacy / "baseline.json").write_text(content)
    result = run("check", "--baseline", "baseline.json", ".")
    assert result.exit_code == 2
    assert message in result.stderr
