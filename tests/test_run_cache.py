"""A run that changed nothing replays the stored report (``jobcheck/run_cache.py``);
any change to what the run reads (a source, a document, a file read outside the tree, the
options) runs the checks again, and a replayed report is the one a fresh run gives."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import jobcheck.cli
import jobcheck.engine
from jobcheck.config import Options
from jobcheck.findings import Report
from jobcheck.run_cache import RunCache

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent

SETTINGS = """\
from celery import Celery

app = Celery("proj")
app.conf.task_time_limit = 60
app.conf.broker_url = "amqp://"
"""
TASKS = """\
from proj.app import app


@app.task
def work(order_id):
    return order_id
"""


def _age(folder: Path, seconds: int = 3600) -> None:
    """Make every file and folder look modified ``seconds`` ago: a run stores nothing
    when a file it read may still change within its timestamp's granularity."""
    for path in [folder, *folder.rglob("*")]:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "__init__.py").write_text("")
    (root / "proj" / "app.py").write_text(SETTINGS)
    (root / "proj" / "tasks.py").write_text(TASKS)
    _age(root)
    return root


class Checks:
    """Counts the runs that computed their report instead of replaying one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.computed = 0
        original = jobcheck.engine.check_paths

        def counted(*args: object, **kwargs: object) -> Report:
            self.computed += 1
            return original(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(jobcheck.engine, "check_paths", counted)


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Checks:
    return Checks(monkeypatch)


def _check(root: Path, cache: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        jobcheck.cli.cli,
        [
            "check",
            str(root),
            "--cache-dir",
            str(cache),
            "--jobs",
            "1",
            "--format",
            "concise",
            *extra,
        ],
        catch_exceptions=False,
    )
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _fresh(root: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        jobcheck.cli.cli,
        ["check", str(root), "--no-cache", "--jobs", "1", "--format", "concise", *extra],
        catch_exceptions=False,
    )
    return result.stdout


def test_unchanged_project_replays_the_report(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    first = _check(root, cache)
    assert checks.computed == 1
    assert _check(root, cache) == first == _fresh(root)
    assert checks.computed == 1 + 1  # the fresh run; the second cached run replayed
    assert (cache / "runs.json").is_file()


def test_edit_to_settings_is_seen_in_other_files(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    assert "missing-time-limit" not in _check(root, cache)
    app = root / "proj" / "app.py"
    app.write_text(SETTINGS.replace("app.conf.task_time_limit = 60\n", ""))
    _age(root, seconds=60)  # old enough to be stored, but not the stat stored before
    edited = _check(root, cache)
    assert "proj/tasks.py" in edited and "missing-time-limit" in edited
    assert checks.computed == 2
    assert _check(root, cache) == edited == _fresh(root)
    assert checks.computed == 3


def test_same_size_edit_with_a_new_time_is_seen(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    assert "missing-time-limit" not in _check(root, cache)
    app = root / "proj" / "app.py"
    app.write_text(SETTINGS.replace("task_time_limit", "task_time_limix"))  # same size
    _age(root, seconds=60)
    assert "missing-time-limit" in _check(root, cache)


def test_new_file_is_seen(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    _check(root, cache)
    (root / "proj" / "more.py").write_text(
        TASKS.replace("@app.task", "@app.task(max_retries=None)")
    )
    _age(root, seconds=60)
    assert "proj/more.py" in _check(root, cache)
    assert checks.computed == 2


def test_new_runbook_is_seen(tmp_path: Path, checks: Checks) -> None:
    root = tmp_path / "rq"
    shutil.copytree(FIXTURES / "EVT-24/dead-letter-without-runbook/rq_no_runbook", root)
    _age(root)
    cache = tmp_path / "cache"
    assert "dead-letter-without-runbook" in _check(root, cache)
    runbooks = root / "docs" / "runbooks"
    shutil.copytree(
        FIXTURES / "EVT-24/dead-letter-without-runbook/rq_runbook" / "docs" / "runbooks", runbooks
    )
    _age(root, seconds=60)
    assert "dead-letter-without-runbook" not in _check(root, cache)
    assert checks.computed == 2


def test_other_options_are_another_run(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    (root / "proj" / "app.py").write_text(SETTINGS.replace("app.conf.task_time_limit = 60\n", ""))
    _age(root)
    cache = tmp_path / "cache"
    everything = _check(root, cache)
    assert "SCL-18" in everything
    assert "SCL-18" not in _check(root, cache, "--ignore", "SCL-18")
    assert checks.computed == 2
    assert _check(root, cache) == everything
    assert checks.computed == 2  # both runs are kept


def test_recently_modified_files_store_nothing(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    (root / "proj" / "tasks.py").write_text(TASKS)  # modified just now
    cache = tmp_path / "cache"
    first = _check(root, cache)
    assert _check(root, cache) == first
    assert checks.computed == 2


def test_changed_file_the_run_read_outside_the_tree_is_a_miss(tmp_path: Path) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    options = Options(root=str(root))
    read = tmp_path / "site-packages" / "lib.py"
    read.parent.mkdir()
    read.write_text("x = 1\n")
    _age(read.parent)
    stored = RunCache.open(cache, ("key",))
    assert stored.replay([str(root)], options) is None
    report = Report(files_checked=3)
    stat = read.stat()
    stored.store(report, {str(read): (stat.st_mtime_ns, stat.st_size)})
    assert RunCache.open(cache, ("key",)).replay([str(root)], options) == report
    assert RunCache.open(cache, ("other key",)).replay([str(root)], options) is None
    read.write_text("x = 22\n")
    assert RunCache.open(cache, ("key",)).replay([str(root)], options) is None


def test_damaged_store_is_ignored(tmp_path: Path, checks: Checks) -> None:
    root = _project(tmp_path)
    cache = tmp_path / "cache"
    first = _check(root, cache)
    (cache / "runs.json").write_bytes(b"not a cache file")
    assert _check(root, cache) == first
    assert checks.computed == 2


REPLAY_SCRIPT = textwrap.dedent(
    """
    import sys
    from jobcheck.cli import main
    sys.argv = ["jobcheck", "check", *sys.argv[1:]]
    try:
        main()
    except SystemExit:
        pass
    loaded = [m for m in ("jobcheck.checks", "jobcheck.facts", "yaml") if m in sys.modules]
    print("LOADED:" + ",".join(loaded), file=sys.stderr)
    """
)


def test_replayed_run_imports_neither_checks_nor_facts(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    shutil.copytree(ROOT / "examples" / "shop", project)
    _age(project)
    cache = str(tmp_path / "cache")
    command = [sys.executable, "-c", REPLAY_SCRIPT, str(project), "--cache-dir", cache]
    cold = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "jobcheck.checks" in cold.stderr
    warm = subprocess.run(command, capture_output=True, text=True, check=True)
    assert warm.stdout == cold.stdout and "SCL-" in warm.stdout
    assert "LOADED:\n" in warm.stderr, warm.stderr


# -- the second pass's decisions, kept from run to run ----------------------------------

WRAPPER = """\
from proj.app import app


@app.task(time_limit=60)
def deliver(invoice):
    return invoice


def send_later(**kwargs):
    deliver.delay(**kwargs)
"""
CALLER = """\
from proj.models import Invoice
from proj.tasks import send_later


def bill(pk):
    row = Invoice.objects.get(pk=pk)
    send_later(invoice=row)
"""
MODELS = """\
from django.db import models


class Invoice(models.Model):
    total = models.IntegerField()
"""
NOT_A_CALLER = """\
def bill(invoice_row):
    return invoice_row
"""


def test_second_pass_reads_again_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files the second pass read for their content are not read again when
    unchanged; a changed one is, and what it now says counts."""
    import jobcheck.analysis

    root = _project(tmp_path)
    (root / "proj" / "tasks.py").write_text(WRAPPER)
    (root / "proj" / "models.py").write_text(MODELS)
    for index in range(5):
        (root / "proj" / f"other{index}.py").write_text(NOT_A_CALLER)
    (root / "proj" / "billing.py").write_text(CALLER)
    _age(root)
    cache = tmp_path / "cache"
    read: list[str] = []
    original = jobcheck.analysis._read

    def counted(path: str) -> bytes | None:
        read.append(Path(path).name)
        return original(path)

    monkeypatch.setattr(jobcheck.analysis, "_read", counted)
    first = _check(root, cache)
    assert "proj/billing.py" in first  # the row passed through send_later(): fat payload
    assert "other0.py" in read

    read.clear()
    (root / "proj" / "billing.py").write_text(NOT_A_CALLER)
    _age(root, seconds=60)
    assert "proj/billing.py" not in _check(root, cache)
    assert sorted(read) == ["billing.py"]

    read.clear()
    (root / "proj" / "billing.py").write_text(CALLER)
    _age(root, seconds=30)
    assert _check(root, cache) == first == _fresh(root)
