"""Configuration findings every project of a framework gets (one per schedule entry) are
one finding per file: at the first place, naming the others' lines, with each of them a
related location, and a fix that fixes them all (issue 28's precision guard)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import run

BEAT = """\
from celery import Celery
from celery.schedules import crontab

app = Celery("shop", broker="redis://localhost")
app.conf.beat_schedule = {
    "a": {"task": "shop.tasks.a", "schedule": crontab(hour=1, minute=0)},
    "b": {"task": "shop.tasks.b", "schedule": crontab(hour=2, minute=0)},
    "c": {"task": "shop.tasks.c", "schedule": crontab(hour=3, minute=0)},
}


@app.task(time_limit=60)
def a():
    pass


@app.task(time_limit=60)
def b():
    pass


@app.task(time_limit=60)
def c():
    pass
"""


def _project(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "tasks.py").write_text(BEAT)
    return tmp_path


def _report(tmp_path: Path, *extra: str) -> dict:
    arguments = ["check", str(tmp_path), "--select", "schedule-on-the-hour"]
    result = run(*arguments, "--output-format", "json", *extra)
    return json.loads(result.stdout)


def _findings(tmp_path: Path, *extra: str) -> list[dict]:
    return _report(tmp_path, *extra)["findings"]


def test_one_finding_per_file_names_the_other_places(tmp_path: Path) -> None:
    (finding,) = _findings(_project(tmp_path))
    assert finding["line"] == 6
    assert finding["message"].endswith(
        "The same for 2 more schedule entries in this file: 'b' (line 7) and 'c' (line 8)"
    )
    assert [r["line"] for r in finding["related"]] == [7, 8]
    assert all("minute 0" in r["message"] for r in finding["related"])


def test_the_fix_of_the_group_fixes_every_place(tmp_path: Path) -> None:
    root = _project(tmp_path)
    run("check", str(root), "--select", "schedule-on-the-hour", "--fix", "--unsafe-fixes")
    text = (root / "shop" / "tasks.py").read_text()
    minutes = [
        line.split("minute=")[1].split(")")[0] for line in text.splitlines() if "minute=" in line
    ]
    assert len(minutes) == 3 and "0" not in minutes
    assert len(set(minutes)) == 3  # each entry gets a minute of its own
    assert _findings(root) == []


def test_a_suppressed_place_leaves_the_group_and_its_comment_is_used(tmp_path: Path) -> None:
    root = _project(tmp_path)
    tasks = root / "shop" / "tasks.py"
    text = tasks.read_text().replace(
        'minute=0)},\n    "c"', 'minute=0)},  # jobcheck: ignore[SCL-22]\n    "c"'
    )
    tasks.write_text(text)
    report = _report(root, "--show-unused-suppressions")
    assert "unused_suppressions" not in report
    (finding,) = report["findings"]
    assert finding["line"] == 6
    assert finding["message"].endswith(
        "The same for 1 more schedule entry in this file: 'c' (line 8)"
    )
