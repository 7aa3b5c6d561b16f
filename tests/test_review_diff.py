"""``jobcheck review --changed-since REV``: changes that break jobs already in the queues
during a rolling deploy, found in git repositories built for each case; silent on a
refactor that keeps every name and signature."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli
from tests.cli_helpers import git, git_repo, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TASKS = """\
from celery import Celery
from celery.schedules import crontab

app = Celery("shop")
app.conf.beat_schedule = {
    "nightly-cleanup": {"task": "shop.tasks.cleanup", "schedule": crontab(hour=3, minute=17)},
}


@app.task(time_limit=60)
def send_receipt(order_id):
    return order_id


@app.task(time_limit=60)
def export(report_id, fmt="csv"):
    return report_id, fmt


@app.task(time_limit=60)
def cleanup():
    return None
"""

VIEWS = """\
from shop.tasks import export, send_receipt


def checkout(request, order_id):
    send_receipt.delay(order_id)
    export.delay(1)
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # jobcheck reads the repository it is started in (jobcheck/discovery/repository.py).
    monkeypatch.chdir(tmp_path)
    git_repo(
        tmp_path,
        {"shop/__init__.py": "", "shop/tasks.py": TASKS, "shop/views.py": VIEWS},
    )
    return tmp_path


def _changes(repo: Path) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(
        cli, ["review", str(repo), "--changed-since", "HEAD", "--format", "json"]
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["changes"]


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / path
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new))


def test_a_renamed_job_breaks_queued_messages(repo: Path) -> None:
    _edit(repo, "shop/tasks.py", "def send_receipt(", "def send_order_receipt(")
    _edit(repo, "shop/views.py", "send_receipt", "send_order_receipt")
    code, changes = _changes(repo)
    assert code == 1
    assert [(c["kind"], c["job"]) for c in changes] == [("renamed", "shop.tasks.send_receipt")]
    assert "shop.tasks.send_order_receipt" in str(changes[0]["message"])
    assert "alias" in str(changes[0]["message"])


def test_a_renamed_job_beside_a_new_one_is_a_rename(repo: Path) -> None:
    """A rename and a new job in the same file: the new job with the old one's
    parameters is the rename (it was reported as a removal, issue 29)."""
    _edit(repo, "shop/tasks.py", "def send_receipt(", "def send_order_receipt(")
    _edit(
        repo,
        "shop/tasks.py",
        "@app.task(time_limit=60)\ndef cleanup():",
        "@app.task(time_limit=60)\ndef audit(user_id, day):\n    return None\n\n\n"
        "@app.task(time_limit=60)\ndef cleanup():",
    )
    _edit(repo, "shop/views.py", "send_receipt", "send_order_receipt")
    code, changes = _changes(repo)
    assert code == 1
    assert [(c["kind"], c["job"]) for c in changes] == [("renamed", "shop.tasks.send_receipt")]
    assert "shop.tasks.send_order_receipt" in str(changes[0]["message"])


def test_a_newly_required_parameter_breaks_queued_messages(repo: Path) -> None:
    _edit(repo, "shop/tasks.py", "def send_receipt(order_id):", "def send_receipt(order_id, lang):")
    code, changes = _changes(repo)
    assert code == 1
    assert [(c["kind"], c["job"]) for c in changes] == [
        ("parameter-added", "shop.tasks.send_receipt")
    ]
    assert "lang=None" in str(changes[0]["message"])


def test_a_new_parameter_with_a_default_is_safe(repo: Path) -> None:
    _edit(
        repo,
        "shop/tasks.py",
        "def send_receipt(order_id):",
        "def send_receipt(order_id, lang=None):",
    )
    assert _changes(repo) == (0, [])


def test_reordered_and_removed_parameters(repo: Path) -> None:
    _edit(repo, "shop/tasks.py", 'def export(report_id, fmt="csv"):', "def export(fmt, report_id):")
    code, changes = _changes(repo)
    assert code == 1
    assert [c["kind"] for c in changes] == ["parameters-reordered"]
    _edit(repo, "shop/tasks.py", "def export(fmt, report_id):", "def export(report_id):")
    _edit(repo, "shop/tasks.py", "return report_id, fmt", "return report_id")
    code, changes = _changes(repo)
    assert [c["kind"] for c in changes] == ["parameter-removed"]


def test_a_removed_job_still_scheduled(repo: Path) -> None:
    _edit(repo, "shop/tasks.py", "@app.task(time_limit=60)\ndef cleanup():\n    return None\n", "")
    code, changes = _changes(repo)
    assert code == 1
    assert [(c["kind"], c["job"]) for c in changes] == [("removed", "shop.tasks.cleanup")]
    assert "still sent from " in str(changes[0]["message"])
    assert "shop/tasks.py:6" in str(changes[0]["message"])


def test_a_moved_module_changes_the_implicit_name(repo: Path) -> None:
    (repo / "shop" / "jobs").mkdir()
    (repo / "shop" / "jobs" / "__init__.py").write_text("")
    git(repo, "mv", "shop/tasks.py", "shop/jobs/tasks.py")
    _edit(repo, "shop/views.py", "from shop.tasks", "from shop.jobs.tasks")
    code, changes = _changes(repo)
    assert code == 1
    moved = {c["job"]: c for c in changes if c["kind"] == "moved"}
    assert set(moved) == {"shop.tasks.send_receipt", "shop.tasks.export", "shop.tasks.cleanup"}
    assert "'shop.jobs.tasks.send_receipt'" in str(moved["shop.tasks.send_receipt"]["message"])
    assert "name='shop.tasks.send_receipt'" in str(moved["shop.tasks.send_receipt"]["message"])


def test_a_refactor_that_keeps_names_and_signatures_is_silent(repo: Path) -> None:
    _edit(
        repo,
        "shop/tasks.py",
        "    return order_id\n",
        "    receipt = order_id\n    return receipt\n",
    )
    write(repo, {"shop/helpers.py": "def total(items):\n    return sum(items)\n"})
    assert _changes(repo) == (0, [])
    result = CliRunner().invoke(
        cli, ["review", str(repo), "--changed-since", "HEAD", "--format", "markdown"]
    )
    assert result.exit_code == 0
    assert "Nothing breaks jobs already in the queues." in result.output


def test_markdown_lists_breaking_changes_first(repo: Path) -> None:
    _edit(repo, "shop/tasks.py", "def send_receipt(", "def send_order_receipt(")
    result = CliRunner().invoke(
        cli, ["review", str(repo), "--diff", "HEAD", "--format", "markdown"]
    )
    assert result.exit_code == 1
    assert result.output.startswith("### Deploy safety since `HEAD`: 1 breaking change(s)")
    assert "## jobcheck review" in result.output


def test_an_unknown_revision_is_one_line_and_exit_2(repo: Path) -> None:
    result = CliRunner().invoke(cli, ["review", str(repo), "--changed-since", "nope"])
    assert result.exit_code == 2
    assert "unknown git revision 'nope'" in result.output


def test_a_schedule_tightened_below_the_time_limit(repo: Path) -> None:
    _edit(
        repo,
        "shop/tasks.py",
        '"schedule": crontab(hour=3, minute=17)',
        '"schedule": 30.0',
    )
    code, changes = _changes(repo)
    assert code == 1
    assert [(c["kind"], c["job"]) for c in changes] == [
        ("schedule-tightened", "shop.tasks.cleanup")
    ]
    assert "every 30 s" in str(changes[0]["message"])
    assert "60 s time limit" in str(changes[0]["message"])
