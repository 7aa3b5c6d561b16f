"""The jobcheck command ends without freeing what its run built (``cli.entry``,
``jobcheck/process_exit.py``): its output is whole, its exit code right, its exit
handlers run; and a long ``watch`` session keeps only the last run's objects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jobcheck import process_exit

ROOT = Path(__file__).resolve().parent.parent
COMMAND = (sys.executable, "-m", "jobcheck")
JOB = "from celery import shared_task\n\n\n@shared_task\ndef work(x):\n    return x\n"


def test_only_the_last_run_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process_exit, "_kept", [])
    process_exit.keep("not kept: no hard exit")
    assert process_exit._kept == []
    monkeypatch.setattr(process_exit, "HARD_EXIT", True)
    process_exit.keep("first run")
    process_exit.keep("second run")
    assert process_exit._kept == [("second run",)]


def test_the_command_flushes_its_output_and_exits_with_its_code(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text(JOB)
    report = tmp_path / "report.json"
    with report.open("w") as stream:
        done = subprocess.run(
            [*COMMAND, "check", str(tmp_path), "--no-cache", "--format", "json"],
            stdout=stream,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    findings = json.loads(report.read_text())
    assert any(f["check"] == "missing-time-limit" for f in findings["findings"])


def test_exit_handlers_run_before_the_process_ends(tmp_path: Path) -> None:
    """``check -`` writes the text to a temporary folder an exit handler removes."""
    private = tmp_path / "tmp"
    private.mkdir()
    done = subprocess.run(
        [*COMMAND, "check", "-", "--stdin-filename", "tasks.py"],
        input=JOB.encode(),
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(private)},
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert b"missing-time-limit" in done.stdout
    assert list(private.iterdir()) == []


@pytest.mark.parametrize("command", ["jobs", "review"])
def test_commands_that_read_parts_in_workers_end(tmp_path: Path, command: str) -> None:
    """A job reaching helpers in thirty modules no trigger keeps: their parts are read
    in worker processes, which must not keep the process from ending (``jobs`` on
    saleor waited for them forever)."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    for index in range(30):
        (app / f"helper{index}.py").write_text(f"def step{index}(x):\n    return x + {index}\n")
    imports = "".join(f"from app.helper{i} import step{i}\n" for i in range(30))
    calls = "".join(f"    x = step{i}(x)\n" for i in range(30))
    (app / "tasks.py").write_text(
        f"from celery import shared_task\n{imports}\n\n@shared_task(time_limit=60)\n"
        f"def work(x):\n{calls}    return x\n"
    )
    done = subprocess.run(
        [*COMMAND, command, str(tmp_path)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    assert b"app.tasks.work" in done.stdout
