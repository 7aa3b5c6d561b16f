"""Running jobcheck as a separate process on hostile inputs, with a time limit: a hang,
a crash or a lost finding must show up as a failed test, not a stuck suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

TIMEOUT = 60

JOB = """\
from celery import shared_task


@shared_task
def work(order_id):
    return order_id
"""
"""A job with one finding (SCL-18 missing-time-limit), to show other files' findings
survive the hostile one."""


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str

    @property
    def report(self) -> dict:
        return json.loads(self.stdout)

    def checks(self) -> list[tuple[str, str, int]]:
        """(path relative to the project, check slug, line) of every finding."""
        return sorted(
            (Path(f["path"]).name, f["check"], f["line"]) for f in self.report["findings"]
        )

    def error_paths(self) -> list[str]:
        return sorted(Path(e["path"]).name for e in self.report["errors"])


def run_jobcheck(
    *arguments: str, cwd: Path, env: dict[str, str] | None = None, timeout: int = TIMEOUT
) -> Outcome:
    """``python -m jobcheck ARGUMENTS`` in ``cwd`` (``-m`` puts ``cwd`` on sys.path: the
    way most likely to import what lies there)."""
    environment = {**os.environ, **(env or {})}
    environment.pop("JOBCHECK_DEBUG", None)
    # A session of its own, so that a run past its time is killed with its worker
    # processes (killing the parent alone leaves them running, orphaned).
    with subprocess.Popen(
        [sys.executable, "-m", "jobcheck", *arguments],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=environment,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            raise
    return Outcome(process.returncode, stdout, stderr)


def _kill_group(process: subprocess.Popen) -> None:  # type: ignore[type-arg]
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        process.kill()
    process.communicate()


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")


def age(folder: Path, seconds: int = 3600) -> None:
    """Make every file look modified ``seconds`` ago (caches trust only older stats)."""
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink() or not path.exists():
            continue
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))
