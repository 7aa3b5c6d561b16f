"""Narrowed runs: --changed-since REV and explicit files report on some files but build the
project model from the whole project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_helpers import SETTINGS, git, git_repo, run, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# A task with no time limit of its own: fine only while the global limit in
# app/settings.py is part of the model.
PLAIN_TASK = """\
    from celery import shared_task


    @shared_task
    def ship(order_id):
        return order_id
    """
BAD_TASK = """\
    from celery import shared_task


    @shared_task(max_retries=None)
    def {name}(order_id):
        return order_id
    """


def _reported(*arguments: str) -> tuple[int, set[tuple[str, str]]]:
    result = run("check", "--format", "json", *arguments)
    assert result.exit_code in (0, 1), result.output
    findings = json.loads(result.stdout)["findings"]
    return result.exit_code, {(f["path"], f["check"]) for f in findings}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    git_repo(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/settings.py": SETTINGS,
            "app/old.py": BAD_TASK.format(name="old"),
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


class TestDiff:
    def test_reports_only_files_changed_since_the_revision(self, repo: Path) -> None:
        write(repo, {"app/new.py": BAD_TASK.format(name="new"), "app/plain.py": PLAIN_TASK})
        status, found = _reported("--changed-since", "HEAD", ".")
        assert status == 1
        # old.py's finding is not reported; plain.py is clean because the settings
        # module (unchanged) still gives the global time limit.
        assert found == {("app/new.py", "unbounded-retries")}

    def test_committed_staged_unstaged_and_untracked_files_count(self, repo: Path) -> None:
        base = git(repo, "rev-parse", "HEAD").strip()
        write(repo, {"app/committed.py": BAD_TASK.format(name="committed")})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "more")
        write(repo, {"app/staged.py": BAD_TASK.format(name="staged")})
        git(repo, "add", "app/staged.py")
        write(
            repo,
            {
                "app/old.py": BAD_TASK.format(name="old").replace("return", "return 2 *"),
                "app/untracked.py": BAD_TASK.format(name="untracked"),
            },
        )
        _, found = _reported("--changed-since", base, ".")
        assert {path for path, _ in found} == {
            "app/committed.py",
            "app/staged.py",
            "app/old.py",
            "app/untracked.py",
        }

    def test_nothing_changed_is_clean(self, repo: Path) -> None:
        assert _reported("--changed-since", "HEAD", ".") == (0, set())

    def test_branch_point_is_the_merge_base(self, repo: Path) -> None:
        git(repo, "checkout", "-q", "-b", "feature")
        write(repo, {"app/feature.py": BAD_TASK.format(name="feature")})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, {"app/mainline.py": BAD_TASK.format(name="mainline")})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "main moves on")
        git(repo, "checkout", "-q", "feature")
        _, found = _reported("--changed-since", "main", ".")
        assert found == {("app/feature.py", "unbounded-retries")}

    def test_unknown_revision_is_a_usage_error(self, repo: Path) -> None:
        result = run("check", "--changed-since", "no-such-branch", ".")
        assert result.exit_code == 2
        assert "unknown git revision 'no-such-branch'" in result.stderr

    def test_outside_a_git_repository_is_a_usage_error(self, tmp_path: Path, monkeypatch) -> None:
        plain = tmp_path / "plain"
        write(plain, {"tasks.py": PLAIN_TASK})
        monkeypatch.chdir(plain)
        monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
        result = run("check", "--changed-since", "HEAD", ".")
        assert result.exit_code == 2
        assert "needs a git repository" in result.stderr


class TestExplicitFiles:
    def test_files_are_checked_against_the_whole_project(self, repo: Path) -> None:
        write(repo, {"app/plain.py": PLAIN_TASK})
        assert _reported("app/plain.py") == (0, set())
        status, found = _reported("app/plain.py", "app/old.py")
        assert status == 1 and found == {("app/old.py", "unbounded-retries")}

    def test_no_project_checks_the_files_alone(self, repo: Path) -> None:
        write(repo, {"app/plain.py": PLAIN_TASK})
        _, found = _reported("--no-project", "app/plain.py")
        assert found == {("app/plain.py", "missing-time-limit")}

    def test_paths_are_shown_as_given(self, repo: Path, monkeypatch) -> None:
        monkeypatch.chdir(repo / "app")
        _, found = _reported("old.py")
        assert found == {("old.py", "unbounded-retries")}

    def test_yaml_and_empty_files_from_pre_commit_are_not_errors(self, repo: Path) -> None:
        write(repo, {"deploy/cron.yaml": "schedule: '0 * * * *'\n", "app/empty.py": ""})
        assert _reported("deploy/cron.yaml", "app/empty.py", "app/__init__.py") == (0, set())

    def test_parse_errors_elsewhere_do_not_block_the_given_files(self, repo: Path) -> None:
        write(repo, {"app/broken.py": "def broken(:\n", "app/plain.py": PLAIN_TASK})
        result = run("check", "app/plain.py")
        assert result.exit_code == 0, result.stdout

    def test_files_of_a_configured_subproject_use_that_project(self, repo: Path) -> None:
        write(
            repo,
            {
                "service/pyproject.toml": "[tool.jobcheck]\nselect = ['SCL-18']\n",
                "service/tasks.py": PLAIN_TASK,
            },
        )
        # The subproject has no global time limit of its own: the repository's settings
        # module lies outside it and does not count.
        _, found = _reported("service/tasks.py")
        assert found == {("service/tasks.py", "missing-time-limit")}


class TestNamedFiles:
    """Files named on the command line (as pre-commit passes them) are checked whatever
    the walk of the project around them skips, and whatever kind jobcheck reads."""

    def test_a_named_test_file_is_checked_though_walks_skip_test_code(self, repo: Path) -> None:
        write(repo, {"tests/test_jobs.py": BAD_TASK.format(name="in_tests")})
        assert _reported(".")[1] == {("app/old.py", "unbounded-retries")}
        status, found = _reported("tests/test_jobs.py")
        assert status == 1
        assert found == {("tests/test_jobs.py", "unbounded-retries")}

    def test_a_crontab_file_named_alone_is_checked(self, tmp_path: Path, monkeypatch) -> None:
        monkeypatch.chdir(tmp_path)
        write(
            tmp_path, {"deploy/crontab": "0 3 * * * flock -n /tmp/r.lock timeout 5m /app/report\n"}
        )
        status, found = _reported("deploy/crontab")
        assert status == 1
        assert found == {("deploy/crontab", "schedule-on-the-hour")}
