"""Every configuration problem is one line on standard error and exit status 2, and so is
every usage error; a configuration file is never read from a FIFO or a device."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile_helpers import JOB, run_jobcheck, write

BROKEN_PYPROJECTS = {
    "tool_int": "tool = 5\n",
    "tool_str": 'tool = "x"\n',
    "tool_list": 'tool = ["x"]\n',
    "jobcheck_int": "[tool]\njobcheck = 3\n",
    "unclosed": "[tool.jobcheck]\nselect = [\n",
    "duplicate_key": "[tool.jobcheck]\nselect = []\nselect = []\n",
    "deep_array": "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "not_utf8": b"[tool.jobcheck]\nselect = ['\xff']\n",
}


@pytest.mark.parametrize("name", sorted(BROKEN_PYPROJECTS))
def test_a_broken_pyproject_up_the_tree_is_one_line_and_exit_2(tmp_path: Path, name: str) -> None:
    write(tmp_path, {"pyproject.toml": BROKEN_PYPROJECTS[name], "app/tasks.py": JOB})
    outcome = run_jobcheck("check", "app", "--no-cache", cwd=tmp_path)
    assert outcome.returncode == 2
    assert outcome.stdout == ""
    [line] = outcome.stderr.splitlines()
    assert line.startswith("jobcheck: error: ") and "pyproject.toml" in line
    assert "internal error" not in line


@pytest.mark.parametrize("name", ["unclosed", "deep_array", "tool_int"])
def test_the_same_file_given_with_config(tmp_path: Path, name: str) -> None:
    write(tmp_path, {"broken.toml": BROKEN_PYPROJECTS[name], "tasks.py": JOB})
    outcome = run_jobcheck("check", ".", "--config", "broken.toml", "--no-cache", cwd=tmp_path)
    assert outcome.returncode == 2
    [line] = outcome.stderr.splitlines()
    assert line.startswith("jobcheck: error: broken.toml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder", "missing"])
def test_config_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    write(tmp_path, {"tasks.py": JOB})
    target = tmp_path / "config.toml"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev_zero":
        target.symlink_to("/dev/zero")
    elif kind == "folder":
        target.mkdir()
    outcome = run_jobcheck("check", ".", "--config", "config.toml", cwd=tmp_path, timeout=20)
    assert outcome.returncode == 2
    [line] = outcome.stderr.splitlines()
    assert line.startswith("jobcheck: error: config.toml")


@pytest.mark.parametrize(
    "arguments",
    [
        ("check", "--bogus"),
        ("check", "--jobs", "x"),
        ("check", "--format", "xml"),
        ("nope",),
        ("explain",),
        ("check", "--max-file-size", "huge"),
        ("check", "--select", "SCL-99"),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    write(tmp_path, {"tasks.py": JOB})
    outcome = run_jobcheck(*arguments, cwd=tmp_path)
    assert outcome.returncode == 2
    [line] = outcome.stderr.splitlines()
    assert line.startswith("jobcheck: error: ")


# -- bounds a repository's configuration cannot lift -----------------------------------

DEAD_LETTER_JOB = """\
from redis import Redis
from rq import Queue

mail = Queue("mail", connection=Redis())


def send_receipt(order_id):
    pass


def place_order(order_id):
    mail.enqueue(send_receipt, order_id, ttl=600)
"""
RUNBOOK = """\
# When mail jobs fail

Jobs that fail their last retry stay in the mail queue's failed job registry.
Inspect them with `rq info mail`; requeue them with `registry.requeue(job_id)`.
"""


@pytest.mark.parametrize("folder", ["/", "/etc", "../..", "docs/../../..", "C:/Windows"])
def test_runbook_dirs_stay_inside_the_project(tmp_path: Path, folder: str) -> None:
    write(
        tmp_path,
        {"pyproject.toml": f"[tool.jobcheck]\nrunbook-dirs = [{folder!r}]\n", "tasks.py": JOB},
    )
    outcome = run_jobcheck("check", ".", "--no-cache", cwd=tmp_path, timeout=30)
    assert outcome.returncode == 2
    assert "runbook-dirs" in outcome.stderr and "inside the project" in outcome.stderr
    assert len(outcome.stderr.strip().splitlines()) == 1


def test_a_runbook_folder_linked_outside_the_project_is_not_read(tmp_path: Path) -> None:
    """A runbook outside the project cannot answer for its dead letters (EVT-24)."""
    write(tmp_path, {"elsewhere/runbooks/failed-jobs.md": RUNBOOK, "app/jobs.py": DEAD_LETTER_JOB})
    (tmp_path / "app" / "docs").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "app" / "RUNBOOK.md").symlink_to(tmp_path / "elsewhere/runbooks/failed-jobs.md")
    outcome = run_jobcheck("check", "app", "--no-cache", "--format", "json", cwd=tmp_path)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == [("jobs.py", "dead-letter-without-runbook", 4)]
    # The same runbook inside the project counts.
    (tmp_path / "app" / "docs").unlink()
    (tmp_path / "app" / "RUNBOOK.md").unlink()
    write(tmp_path, {"app/docs/runbooks/failed-jobs.md": RUNBOOK})
    outcome = run_jobcheck("check", "app", "--no-cache", "--format", "json", cwd=tmp_path)
    assert outcome.checks() == []


def test_max_file_size_from_a_configuration_has_a_ceiling(tmp_path: Path) -> None:
    write(
        tmp_path, {"pyproject.toml": '[tool.jobcheck]\nmax-file-size = "8 MiB"\n', "tasks.py": JOB}
    )
    outcome = run_jobcheck("check", ".", "--no-cache", cwd=tmp_path)
    assert outcome.returncode == 2
    assert "max-file-size" in outcome.stderr and "--max-file-size" in outcome.stderr
    assert len(outcome.stderr.strip().splitlines()) == 1
    write(tmp_path, {"pyproject.toml": "[tool.jobcheck]\n"})
    outcome = run_jobcheck("check", ".", "--no-cache", "--max-file-size", "8 MiB", cwd=tmp_path)
    assert outcome.returncode == 1, outcome.stderr  # the command line may go further
