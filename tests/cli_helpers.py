"""Small projects on disk and a CLI runner, for the tests of the CLI and CI features."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from jobcheck.cli import cli

TASKS = """\
    from celery import shared_task


    @shared_task(time_limit=60, soft_time_limit=50, max_retries=None)
    def charge(order_id):
        return order_id


    @shared_task(time_limit=60, soft_time_limit=50)
    def refund(order_id):
        return order_id
    """

SETTINGS = """\
    CELERY_TASK_TIME_LIMIT = 300
    CELERY_TASK_SOFT_TIME_LIMIT = 280
    """


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def run(*arguments: str) -> Result:
    """``jobcheck ARGUMENTS`` in this process, one worker, stdout and stderr apart."""
    return CliRunner().invoke(cli, [*arguments, "--jobs", "1"], catch_exceptions=False)


def git(root: Path, *arguments: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="test",
        GIT_COMMITTER_EMAIL="test@example.com",
    )
    done = subprocess.run(
        ["git", "-C", str(root), *arguments],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def git_repo(root: Path, files: dict[str, str]) -> None:
    """A git repository at ``root`` with ``files`` committed."""
    git(root, "init", "-q", "-b", "main")
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
