"""The fast pipeline must never change what is found: findings are identical cold and
warm (results cache), in one process and in two, and with the prefilter on or off; a
warm run parses nothing; an edit anywhere is seen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jobcheck import scan
from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.findings import Report
from tests.conftest import FIXTURES, fixture_cases

ROOT = Path(__file__).parent.parent
CASES = fixture_cases()
PROJECTS = [*CASES, ROOT / "examples" / "shop"]


def _run(path: Path, **settings: object) -> Report:
    options = Options(root=str(path))
    selection = Selection.resolve(load_catalog(), ["ALL"], [])
    return check_paths([str(path)], options, selection, RunSettings(**settings))  # type: ignore[arg-type]


def _summary(report: Report) -> list[tuple]:
    return [(f.path, f.loc, f.rule, f.check, f.message, f.severity) for f in report.findings] + [
        ("error", e.path, e.message) for e in report.errors
    ]


@pytest.fixture
def pool_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use worker processes even for a handful of files."""
    monkeypatch.setattr(scan, "MIN_FILES_FOR_POOL", 1)
    monkeypatch.setattr(scan, "MIN_BYTES_FOR_POOL", 0)


def _modes(cache: Path, full: bool) -> dict[str, dict[str, object]]:
    modes: dict[str, dict[str, object]] = {
        "two processes, cold cache": dict(jobs=2, cache_dir=cache),
        "warm cache": dict(jobs=2, cache_dir=cache),
    }
    if full:  # the fixture suite runs every case without the prefilter already
        modes |= {
            "warm cache, one process": dict(jobs=1, cache_dir=cache),
            "no prefilter": dict(jobs=1, prefilter=False),
            "no prefilter, two processes": dict(jobs=2, prefilter=False),
            "warm cache, no prefilter": dict(jobs=1, prefilter=False, cache_dir=cache),
            "two processes, no cache": dict(jobs=2),
        }
    return modes


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_findings_identical_in_every_mode(project: Path, tmp_path: Path, pool_always: None) -> None:
    expected = _summary(_run(project, jobs=1))
    full = project.name == "shop"
    for name, settings in _modes(tmp_path / "cache", full).items():
        assert _summary(_run(project, **settings)) == expected, name


def test_findings_identical_over_all_fixtures_at_once(tmp_path: Path, pool_always: None) -> None:
    """Every fixture case in one run: many jobs, settings and modules at once."""
    expected = _summary(_run(FIXTURES, jobs=1))
    assert expected
    for name, settings in _modes(tmp_path / "cache", full=True).items():
        assert _summary(_run(FIXTURES, **settings)) == expected, name


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target)
    _age(target)
    return target


def _age(folder: Path, seconds: int = 3600) -> None:
    """Make every file and folder look modified an hour ago (a fresh copy is "racy":
    modified just now, so the cache would not trust its stat)."""
    for path in [folder, *folder.rglob("*")]:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))


def _forbid_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object) -> None:
        raise AssertionError("a warm run parsed a file")

    monkeypatch.setattr(scan, "extract", fail)
    monkeypatch.setattr(scan, "scan_file", fail)


def test_warm_run_parses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _copy(ROOT / "examples" / "shop", tmp_path)
    cache = tmp_path / "cache"
    cold = _summary(_run(project, jobs=1, cache_dir=cache))
    _forbid_parsing(monkeypatch)
    assert _summary(_run(project, jobs=1, cache_dir=cache)) == cold


def test_cache_folder_layout(tmp_path: Path) -> None:
    project = _copy(ROOT / "examples" / "shop", tmp_path)
    cache = tmp_path / "cache"
    _run(project, jobs=1, cache_dir=cache)
    assert (
        (cache / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert len(list(cache.glob("facts-*.json"))) == 1
    assert not list(cache.glob(".tmp-*"))


SETTINGS_LIMIT = """\
from celery import Celery

app = Celery("proj")
app.conf.task_time_limit = {limit}
app.conf.broker_url = "amqp://"
"""
TASKS = """\
from proj.app import app


@app.task
def work(order_id):
    return order_id
"""


def _small_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "__init__.py").write_text("")
    (root / "proj" / "app.py").write_text(SETTINGS_LIMIT.format(limit=60))
    (root / "proj" / "tasks.py").write_text(TASKS)
    _age(root)
    return root


def _time_limit_findings(report: Report) -> list[str]:
    return [f.path for f in report.findings if f.check == "missing-time-limit"]


def test_edit_to_a_settings_module_changes_findings_in_other_files(tmp_path: Path) -> None:
    root = _small_project(tmp_path)
    cache = tmp_path / "cache"
    assert _time_limit_findings(_run(root, jobs=1, cache_dir=cache)) == []
    app = root / "proj" / "app.py"
    app.write_text(SETTINGS_LIMIT.format(limit=60).replace("app.conf.task_time_limit = 60\n", ""))
    warm = _run(root, jobs=1, cache_dir=cache)
    assert _time_limit_findings(warm) == [f"{root.as_posix()}/proj/tasks.py"]
    assert _summary(warm) == _summary(_run(root, jobs=1))


def test_new_deleted_and_ignored_files_are_seen(tmp_path: Path) -> None:
    root = _small_project(tmp_path)
    cache = tmp_path / "cache"
    _run(root, jobs=1, cache_dir=cache)
    extra = root / "proj" / "more_tasks.py"
    extra.write_text(TASKS.replace("def work", "def more_work"))
    app = root / "proj" / "app.py"
    app.write_text(SETTINGS_LIMIT.format(limit=60).replace("app.conf.task_time_limit = 60\n", ""))
    report = _run(root, jobs=1, cache_dir=cache)
    assert sorted(_time_limit_findings(report)) == [
        str(extra.as_posix()),
        f"{root.as_posix()}/proj/tasks.py",
    ]
    (root / ".gitignore").write_text("more_tasks.py\n")
    report = _run(root, jobs=1, cache_dir=cache)
    assert _time_limit_findings(report) == [f"{root.as_posix()}/proj/tasks.py"]
    (root / ".gitignore").unlink()
    extra.unlink()
    report = _run(root, jobs=1, cache_dir=cache)
    assert _time_limit_findings(report) == [f"{root.as_posix()}/proj/tasks.py"]
    assert _summary(report) == _summary(_run(root, jobs=1))


def test_touched_file_is_rehashed_not_reparsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _small_project(tmp_path)
    cache = tmp_path / "cache"
    cold = _summary(_run(root, jobs=1, cache_dir=cache))
    tasks = root / "proj" / "tasks.py"
    os.utime(tasks)  # same content, new mtime
    calls = []
    original = scan.extract
    monkeypatch.setattr(scan, "extract", lambda *a: calls.append(a) or original(*a))
    assert _summary(_run(root, jobs=1, cache_dir=cache)) == cold
    assert calls == []


def test_unreadable_cache_is_ignored(tmp_path: Path) -> None:
    root = _small_project(tmp_path)
    cache = tmp_path / "cache"
    cold = _summary(_run(root, jobs=1, cache_dir=cache))
    for file in cache.glob("facts-*.json"):
        file.write_bytes(b"not a cache file")
    assert _summary(_run(root, jobs=1, cache_dir=cache)) == cold


def test_f_string_in_a_concatenation_does_not_hide_the_settings(tmp_path: Path) -> None:
    root = _small_project(tmp_path)
    app = root / "proj" / "app.py"
    app.write_text('NAME = "a" f"{1}"\n' + app.read_text())
    report = _run(root, jobs=1)
    assert not report.errors
    assert _time_limit_findings(report) == []


CLI_SCRIPT = textwrap.dedent(
    """
    import sys
    from jobcheck.cli import main
    project, cache, output = sys.argv[1:4]
    sys.argv = ["jobcheck", "check", project, "--cache-dir", cache, "--format", output]
    try:
        main()
    except SystemExit:
        pass
    heavy = sorted(m for m in ("libcst", "astroid", "rich", "pathspec") if m in sys.modules)
    print("HEAVY:" + ",".join(heavy), file=sys.stderr)
    """
)


def test_warm_cli_run_imports_no_heavy_library(tmp_path: Path) -> None:
    project = _copy(ROOT / "examples" / "shop", tmp_path)
    cache = tmp_path / "cache"
    command = [sys.executable, "-c", CLI_SCRIPT, str(project), str(cache), "text"]
    cold = subprocess.run(command, capture_output=True, text=True, check=True)
    warm = subprocess.run(command, capture_output=True, text=True, check=True)
    assert warm.stdout == cold.stdout
    assert "HEAVY:\n" in warm.stderr, warm.stderr


def test_cli_cache_options(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from jobcheck.cli import cli

    project = _copy(ROOT / "examples" / "shop", tmp_path)
    runner = CliRunner()
    cold = runner.invoke(cli, ["check", str(project), "--no-cache", "--format", "json"])
    assert not (project / ".jobcheck_cache").exists()
    default = runner.invoke(cli, ["check", str(project), "--format", "json"])
    assert (project / ".jobcheck_cache" / "CACHEDIR.TAG").exists()
    elsewhere = tmp_path / "elsewhere"
    chosen = runner.invoke(
        cli, ["check", str(project), "--cache-dir", str(elsewhere), "--format", "json"]
    )
    assert list(elsewhere.glob("facts-*.json"))
    assert json.loads(cold.output) == json.loads(default.output) == json.loads(chosen.output)


def test_model_in_a_module_the_prefilter_skips_is_loaded_on_demand(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "proj").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "db.py": "from sqlalchemy.orm import declarative_base\n\nBase = declarative_base()\n",
        "entities.py": "from proj.db import Base\n\n\nclass Order(Base):\n    pass\n",
        "tasks.py": (
            "from celery import shared_task\n\nfrom proj.entities import Order\n\n\n"
            "@shared_task(time_limit=10, soft_time_limit=5)\n"
            "def ship(order: Order):\n    return order\n"
        ),
    }
    for name, text in files.items():
        (root / "proj" / name).write_text(text)
    with_prefilter = _run(root, jobs=1)
    assert [f.check for f in with_prefilter.findings if f.rule == "SCL-21"] == [
        "model-typed-job-parameter"
    ]
    assert _summary(with_prefilter) == _summary(_run(root, jobs=1, prefilter=False))


def test_errors_identical_cold_and_warm(tmp_path: Path) -> None:
    root = _small_project(tmp_path)
    (root / "proj" / "empty.py").write_text("\n  \n")
    (root / "proj" / "broken.py").write_text("from celery import shared_task\ndef f(:\n")
    _age(root)
    cache = tmp_path / "cache"

    def errors() -> list[tuple[str, str]]:
        report = check_paths(
            [str(root / "proj" / "empty.py"), str(root)],
            Options(root=str(root)),
            Selection.resolve(load_catalog(), ["ALL"], []),
            RunSettings(jobs=1, cache_dir=cache),
        )
        return [(e.path.rsplit("/", 1)[-1], e.message.split(":")[0]) for e in report.errors]

    cold = errors()
    assert cold == [
        ("broken.py", "syntax error at line 2, column 7"),
        ("empty.py", "file is empty"),
    ]
    assert errors() == cold


def test_default_cache_folder_is_the_project_root(tmp_path: Path) -> None:
    from jobcheck.cache import default_directory

    root = tmp_path / "proj"
    package = root / "src" / "pkg"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (package / "tasks.py").write_text("")
    expected = root.resolve() / ".jobcheck_cache"
    assert default_directory(None, [str(package)]) == expected
    assert default_directory(None, [str(package / "tasks.py")]) == expected
    assert default_directory(str(package), [str(root)]) == package / ".jobcheck_cache"


def test_a_worker_that_dies_once_does_not_lose_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None
) -> None:
    """A worker killed mid-parse (out of memory, a crash in a native extension) breaks
    the pool: the files whose facts had not arrived are parsed again, each in a process
    of its own, never in the parent; the findings are the same."""
    project = _copy(ROOT / "examples" / "shop", tmp_path)
    expected = _summary(_run(project, jobs=1))
    flag = tmp_path / "died-once"
    monkeypatch.setattr(_Dying, "parent", os.getpid())
    monkeypatch.setattr(_Dying, "extract", scan.extract)
    monkeypatch.setattr(_Dying, "once", str(flag))
    monkeypatch.setattr(scan, "extract", _dies_in_a_worker)
    assert _summary(_run(project, jobs=2)) == expected
    assert flag.exists()


def test_a_file_that_kills_every_worker_is_an_error_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None
) -> None:
    project = _copy(ROOT / "examples" / "shop", tmp_path)
    everything = _run(project, jobs=1)
    monkeypatch.setattr(_Dying, "parent", os.getpid())
    monkeypatch.setattr(_Dying, "extract", scan.extract)
    monkeypatch.setattr(_Dying, "poison", "search/actors.py")
    monkeypatch.setattr(scan, "extract", _dies_in_a_worker)
    report = _run(project, jobs=2)
    assert [(e.path.rsplit("shop/", 1)[-1], e.message.split(";")[0]) for e in report.errors] == [
        ("search/actors.py", "the parser crashed on this file (its worker process died)")
    ]
    assert [f for f in report.findings if not f.path.endswith("search/actors.py")] == [
        f for f in everything.findings if not f.path.endswith("search/actors.py")
    ]


class _Dying:
    parent = 0
    extract = staticmethod(scan.extract)
    once = ""
    """A file that marks the first death: a worker dies once, then parses."""
    poison = ""
    """A file whose worker always dies."""


def _dies_in_a_worker(*args: object) -> object:
    """``scan.extract`` in a worker, but the worker dies (once, or on the poisoned
    file). The parent parses small batches itself, but never a file a worker died on."""
    display = str(args[0])
    if os.getpid() == _Dying.parent:
        died = Path(_Dying.once).read_text() if _Dying.once and os.path.exists(_Dying.once) else ""
        assert display != died, "the parent parsed a file a worker died on"
        assert not (_Dying.poison and display.endswith(_Dying.poison)), "parsed here"
    else:
        if _Dying.poison and display.endswith(_Dying.poison):
            os._exit(1)
        if _Dying.once and not os.path.exists(_Dying.once):
            Path(_Dying.once).write_text(display)
            os._exit(1)
    return _Dying.extract(*args)  # type: ignore[arg-type]
