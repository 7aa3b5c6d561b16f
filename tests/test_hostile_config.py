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
