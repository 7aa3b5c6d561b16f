"""A pull request that commits a git repository as plain files cannot make jobcheck's git
run its commands or move the project root (jobcheck/discovery/repository.py).

Each case builds a real repository whose tree holds ``svc/`` with ``HEAD``, ``config``,
``objects/`` and ``refs/``: a bare repository as far as ``git -C svc`` is concerned, whose
configuration names commands (``core.fsmonitor``, a smudge filter) and a work tree
(``core.worktree``). Monorepo CI names such a folder, or a file in it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_helpers import git
from tests.hostile_helpers import JOB, run_jobcheck, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _planted_repository(root: Path, config: str) -> None:
    """Commit ``svc/`` holding a copy of a real git folder with ``config`` as its
    configuration, and a job module beside it."""
    source = root.parent / f"{root.name}-source"
    source.mkdir()
    git(source, "init", "-q")
    git(source, "commit", "-q", "--allow-empty", "-m", "planted")
    shutil.copytree(source / ".git", root / "svc", ignore=shutil.ignore_patterns("hooks"))
    (root / "svc" / "config").write_text(config, encoding="utf-8")
    write(root, {"svc/tasks.py": JOB, "svc/__init__.py": ""})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def _commit(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pull request")


def test_fsmonitor_of_a_planted_repository_never_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "fsmonitor-ran"
    _planted_repository(
        repo,
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f'\tfsmonitor = "touch {marker}; echo"\n',
    )
    _commit(repo)
    (repo / "svc" / "tasks.py").write_text(JOB + "\n# changed\n", encoding="utf-8")
    outcome = run_jobcheck("check", "svc", "--changed-since", "HEAD", "--format", "json", cwd=repo)
    assert not marker.exists()
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == [("tasks.py", "missing-time-limit", 4)]
    outcome = run_jobcheck("check", "svc/tasks.py", "--changed-since", "HEAD", cwd=repo)
    assert not marker.exists()
    assert outcome.returncode == 1, outcome.stderr


def test_smudge_filters_never_run_when_review_reads_a_revision(repo: Path, tmp_path: Path) -> None:
    """``review --changed-since`` reads the old tree with ``cat-file --batch``: neither the
    planted repository's filter nor one in the invocation's own configuration runs."""
    planted = tmp_path / "planted-smudge-ran"
    own = tmp_path / "own-smudge-ran"
    _planted_repository(
        repo,
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f'[filter "x"]\n\tsmudge = "touch {planted}; cat"\n',
    )
    write(repo, {".gitattributes": "*.py filter=x\n", "svc/.gitattributes": "*.py filter=x\n"})
    git(repo, "config", "filter.x.smudge", f"touch {own}; cat")
    _commit(repo)
    (repo / "svc" / "tasks.py").write_text(JOB.replace("def work(", "def labour("), "utf-8")
    outcome = run_jobcheck("review", "svc", "--changed-since", "HEAD", "--format", "json", cwd=repo)
    assert outcome.returncode in (0, 1), outcome.stderr
    assert not planted.exists()
    assert not own.exists()
    review = json.loads(outcome.stdout)
    assert [job["job"] for job in review["jobs"]] == ["svc.tasks.labour"]
    assert [change["job"] for change in review["changes"]] == ["svc.tasks.work"]


def test_a_planted_work_tree_does_not_move_the_project_root(repo: Path, tmp_path: Path) -> None:
    """``core.worktree`` naming a folder above the repository: git would take it as the
    top level and jobcheck would build the model from it, where a settings module
    outside the repository sets a global time limit and hides the finding."""
    write(tmp_path, {"settings.py": "CELERY_TASK_TIME_LIMIT = 300\n"})
    _planted_repository(
        repo,
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../..\n",
    )
    _commit(repo)
    outcome = run_jobcheck("check", "svc/tasks.py", "--format", "json", cwd=repo)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == [("tasks.py", "missing-time-limit", 4)]


def test_a_repository_other_than_the_invocations_is_refused(tmp_path: Path) -> None:
    here = tmp_path / "here"
    there = tmp_path / "there"
    for root in (here, there):
        root.mkdir()
        git(root, "init", "-q")
        write(root, {"tasks.py": JOB})
        _commit(root)
    outcome = run_jobcheck("check", str(there), "--changed-since", "HEAD", cwd=here)
    assert outcome.returncode == 2
    assert "another git repository" in outcome.stderr
    assert len(outcome.stderr.strip().splitlines()) == 1


def test_revisions_are_never_options(repo: Path) -> None:
    write(repo, {"tasks.py": JOB})
    _commit(repo)
    outcome = run_jobcheck("check", ".", "--changed-since", "--output=/tmp/x", cwd=repo)
    assert outcome.returncode == 2
    assert "unknown git revision" in outcome.stderr
