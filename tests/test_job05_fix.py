"""JOB-05 worker-signals-not-forwarded's fix edits a shell script: ``exec`` before the
worker (``exec env`` before variable assignments), applied by ``--fix --unsafe-fixes``
though the file is not Python, after which the check is silent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli

CASE = Path(__file__).parent / "fixtures" / "JOB-05/worker-signals-not-forwarded/containers"


def _check(root: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        cli,
        [
            "check",
            "--no-cache",
            "--select",
            "JOB-05",
            "--output-format",
            "concise",
            *extra,
            str(root),
        ],
        catch_exceptions=False,
    )
    return result.stdout


def test_the_fix_puts_exec_before_the_worker(tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(CASE, root)
    assert _check(root).count("worker-signals-not-forwarded") == 3
    _check(root, "--fix", "--unsafe-fixes")
    assert (
        "exec celery -A shop worker -l info -Q default,mail"
        in (root / "bin" / "worker.sh").read_text()
    )
    rq = (root / "bin" / "rq-worker.sh").read_text()
    assert "exec env DJANGO_SETTINGS_MODULE=shop.settings rq worker high default" in rq
    assert "exec bundle exec sidekiq" in (root / "bin" / "sidekiq.sh").read_text()
    assert "worker-signals-not-forwarded" not in _check(root)
    if shutil.which("sh") is None:
        pytest.skip("no sh to read the fixed scripts")
    for script in (root / "bin").glob("*.sh"):
        subprocess.run(["sh", "-n", str(script)], check=True)


def test_without_unsafe_fixes_nothing_is_written(tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(CASE, root)
    before = (root / "bin" / "worker.sh").read_text()
    _check(root, "--fix")
    assert (root / "bin" / "worker.sh").read_text() == before
