"""End to end: the real pre-commit framework installs the hook from this checkout
(``pre-commit try-repo``) and runs it in a throwaway git repository.

Each try-repo builds a virtualenv and pip-installs this checkout (about 20 s each), so
the test is marked ``slow`` and runs only in CI (``CI`` set), with ``JOBCHECK_E2E=1``,
or when selected with ``-m slow``. It skips, saying why, when pre-commit cannot build
its environment (no package index reachable, for example).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import SETTINGS, git, write

CHECKOUT = Path(__file__).resolve().parents[1]

TASKS_WITH_VIOLATION = """\
    from celery import shared_task


    @shared_task(max_retries=None)
    def charge(order_id):
        return order_id
    """

RUBY_JOB_WITH_VIOLATION = """\
class HookWorker
  include Sidekiq::Job

  def perform(id)
    Faraday.post("https://example.com/hook", id.to_s)
  end
end
"""

pytestmark = pytest.mark.slow


@pytest.fixture
def wanted(request: pytest.FixtureRequest) -> None:
    selected = "slow" in (request.config.getoption("markexpr") or "").replace("not slow", "")
    if not (os.environ.get("CI") or os.environ.get("JOBCHECK_E2E") or selected):
        pytest.skip("slow end-to-end test: runs in CI, with JOBCHECK_E2E=1, or with -m slow")
    pytest.importorskip(
        "pre_commit", reason="pre-commit is not installed (pip install -e '.[test]')"
    )
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not (CHECKOUT / ".git").exists():
        pytest.skip(f"{CHECKOUT} is not a git checkout, so pre-commit cannot install from it")


def _pre_commit(repo: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(repo.parent / "pre-commit-home")
    env["NO_COLOR"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(CHECKOUT), "jobcheck", *arguments],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    if "An unexpected error has occurred" in output and ("pip" in output or "virtualenv" in output):
        pytest.skip(f"pre-commit could not build the hook's environment:\n{output[-2000:]}")
    return done


def test_hook_fails_on_a_violation_and_passes_after_the_fix(tmp_path: Path, wanted) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    write(
        repo,
        {
            "app/__init__.py": "",
            "app/settings.py": SETTINGS,
            "app/tasks.py": TASKS_WITH_VIOLATION,
            "deploy/compose.yaml": "services: {}\n",
            "app/workers/hook_worker.rb": RUBY_JOB_WITH_VIOLATION,
        },
    )
    git(repo, "add", "-A")

    failing = _pre_commit(repo, "--all-files")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "jobcheck" in failing.stdout and "Failed" in failing.stdout
    assert "app/tasks.py:4:14: SCL-34 unbounded-retries" in failing.stdout
    # Ruby is read too: the hook's environment has tree-sitter.
    assert "app/workers/hook_worker.rb:5:5: SCL-18 http-call-without-timeout" in failing.stdout

    write(repo, {"app/tasks.py": TASKS_WITH_VIOLATION.replace("max_retries=None", "max_retries=5")})
    git(repo, "add", "-A")
    # Only the fixed file is passed; it has no time limit of its own, so it passes only
    # because the hook reads the project around it (the global limit in settings.py).
    passing = _pre_commit(repo, "--files", "app/tasks.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout


def test_the_documented_local_hook_reads_what_the_published_hook_reads() -> None:
    """The ``repo: local`` hook of docs/ci.md (no release to pin yet) runs the same
    command on the same kinds of files as ``.pre-commit-hooks.yaml``."""
    import re

    import yaml

    published = yaml.safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text())[0]
    text = (CHECKOUT / "docs" / "ci.md").read_text()
    block = re.search(
        r"```yaml\n(# \.pre-commit-config\.yaml\nrepos:\n  - repo: local\n.*?)```", text, re.S
    )
    assert block is not None
    local = yaml.safe_load(block.group(1))["repos"][0]["hooks"][0]
    assert local["id"] == published["id"]
    assert local["entry"] == published["entry"]
    assert local["types_or"] == published["types_or"]
    assert local["require_serial"] is published["require_serial"] is True
    readme = (CHECKOUT / "README.md").read_text()
    assert f"entry: {published['entry']}\n" in readme and "language: system" in readme
