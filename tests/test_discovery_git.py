"""git ignores only untracked files: a tracked file under a folder a ``.gitignore``
pattern matches is part of the project (tarodo/clouder-dj: ``tasks/`` in the root
``.gitignore`` also matched ``backend/app/tasks/``, and jobcheck saw no job at all)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from jobcheck.discovery import discover
from jobcheck.discovery.git_index import tracked

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _repo(root: Path, version: int) -> None:
    _git(root, "init", "-q")
    _git(root, "config", "index.version", str(version))
    (root / ".gitignore").write_text("tasks/\n*.local.py\n", encoding="utf-8")
    for path in ("backend/app/tasks/jobs.py", "tasks/scratch.py", "backend/app/settings.local.py"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n", encoding="utf-8")
    (root / "backend/app/views.py").write_text("y = 2\n", encoding="utf-8")
    _git(root, "add", ".gitignore", "backend/app/views.py")
    _git(root, "add", "-f", "backend/app/tasks/jobs.py", "backend/app/settings.local.py")


@pytest.mark.parametrize("version", [2, 3, 4])
def test_tracked_files_under_an_ignored_folder_are_kept(tmp_path: Path, version: int) -> None:
    _repo(tmp_path, version)
    found = {f.path.relative_to(tmp_path).as_posix() for f in discover([str(tmp_path)])}
    assert "backend/app/tasks/jobs.py" in found  # tracked, under an ignored folder name
    assert "backend/app/settings.local.py" in found  # tracked, an ignored file name
    assert "tasks/scratch.py" not in found  # untracked and ignored


def test_the_index_reader_agrees_with_git(tmp_path: Path) -> None:
    _repo(tmp_path, 4)
    listed = subprocess.run(
        ["git", "ls-files"], cwd=tmp_path, check=True, capture_output=True, text=True
    ).stdout.split()
    found = tracked(str(tmp_path))
    assert found is not None and found.files == frozenset(listed)
    assert "backend/app/tasks" in found.folders


def test_no_work_tree_or_a_damaged_index_tracks_nothing(tmp_path: Path) -> None:
    assert tracked(str(tmp_path)) is None
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05short")
    assert tracked(str(tmp_path)) is None
