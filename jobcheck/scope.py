"""Which findings to report, as opposed to which files build the project model.

jobcheck's checks need the whole project (a global time limit in the settings module
counts for a task in another file), so narrowing a run never narrows the model:

- ``--changed-since REV``: the model comes from PATHS as usual; findings are reported only in
  the Python files changed since REV (committed on this branch, staged, unstaged or
  untracked).
- explicit files (pre-commit passes the staged files): the model comes from the
  project around them (the folder of the jobcheck configuration, else the git
  repository's top level); findings are reported only in those files.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from jobcheck.findings import FileError, Finding, Report, UnusedSuppression

ANALYSED_SUFFIXES = (".py",)
_Located = TypeVar("_Located", Finding, FileError, UnusedSuppression)


class ScopeError(ValueError):
    """A scope that cannot be worked out (not a git repository, unknown revision)."""


@dataclass(frozen=True)
class Scope:
    """The paths to analyse, and the files whose findings are reported."""

    targets: tuple[str, ...]
    reported: dict[Path, str | None] | None = None
    """Resolved path -> the name to show it under (None: as the engine names it);
    None reports every file."""

    def narrowed(self, paths: Iterable[Path]) -> Scope:
        """This scope, reporting only on ``paths`` as well."""
        wanted = {path.resolve() for path in paths}
        if self.reported is None:
            return replace(self, reported=dict.fromkeys(wanted))
        kept = {path: shown for path, shown in self.reported.items() if path in wanted}
        return replace(self, reported=kept)

    def includes(self, path: str) -> bool:
        """Whether findings in ``path`` (as the engine names it) are reported."""
        return self.reported is None or Path(path).resolve() in self.reported

    def restrict(self, report: Report) -> Report:
        """``report`` with only the findings, errors and unused suppressions in the
        reported files, under the names the user gave them."""
        if self.reported is None:
            return report
        return replace(
            report,
            findings=self._kept(report.findings),
            errors=self._kept(report.errors),
            unused_suppressions=self._kept(report.unused_suppressions),
        )

    def _kept(self, items: list[_Located]) -> list[_Located]:
        assert self.reported is not None
        kept = []
        for item in items:
            resolved = Path(item.path).resolve()
            if resolved in self.reported:
                kept.append(replace(item, path=self.reported[resolved] or item.path))
        return kept


def for_paths(paths: Sequence[str], config_root: Path | None, isolated: bool) -> Scope:
    """The scope of ``jobcheck check PATHS``. When every path is an existing file and
    ``isolated`` is false, the project around the files is analysed and only the files
    are reported (see the module docstring)."""
    targets = tuple(paths) or (".",)
    files = [Path(p) for p in targets]
    if isolated or not all(f.is_file() for f in files):
        return Scope(targets)
    root = project_root(files, config_root)
    if root is None:
        # No project to read around the files: check them alone, but only the kinds
        # of file jobcheck analyses (pre-commit also passes other text files).
        analysed = tuple(p for p in targets if _analysed(p))
        return Scope(analysed) if analysed else Scope((), reported={})
    # The files themselves too: a walk of the root skips test code, a file named on the
    # command line is checked all the same.
    return Scope(
        (_shortest_spelling(root), *(p for p in targets if _analysed(p))),
        reported={f.resolve(): os.path.normpath(str(f)).replace(os.sep, "/") for f in files},
    )


def _analysed(path: str) -> bool:
    """A file jobcheck reads: Python, or another kind it knows (a CronJob manifest, a
    crontab file, a Procfile, Ruby: ``jobcheck/extract/files.py``)."""
    from jobcheck.discovery import SOURCE_SUFFIXES
    from jobcheck.extract.files import is_other_source

    return path.endswith((*ANALYSED_SUFFIXES, *SOURCE_SUFFIXES)) or is_other_source(path)


def project_root(files: Sequence[Path], config_root: Path | None) -> Path | None:
    """The folder to build the model from for ``files``: the folder of the jobcheck
    configuration if it holds them all, else their git repository's top level."""
    resolved = [f.resolve() for f in files]
    candidates = []
    if config_root is not None:
        candidates.append(config_root.resolve())
    top = git_toplevel(resolved[0].parent)
    if top is not None:
        candidates.append(top)
    for candidate in candidates:
        if all(f.is_relative_to(candidate) for f in resolved):
            return candidate
    return None


def changed_files(revision: str, start: Path) -> set[Path]:
    """Python files changed since ``revision`` in the git repository around ``start``:
    changed on this branch since it left ``revision`` (the merge base), staged,
    unstaged, or untracked and not ignored. Deleted files are left out."""
    top = git_toplevel(start)
    if top is None:
        raise ScopeError(f"--changed-since needs a git repository, and {start} is not inside one")
    if _git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}") is None:
        raise ScopeError(f"--changed-since: unknown git revision {revision!r}")
    base = _git(top, "merge-base", revision, "HEAD") or revision
    base = base.strip()
    listed = _git(top, "diff", "--name-only", "-z", "--no-renames", base, "--")
    untracked = _git(top, "ls-files", "-z", "--others", "--exclude-standard")
    if listed is None or untracked is None:
        raise ScopeError(
            f"--changed-since: git could not list the files changed since {revision!r}"
        )
    names = [n for n in (listed + untracked).split("\0") if n]
    return {
        (top / name).resolve()
        for name in names
        if name.endswith(ANALYSED_SUFFIXES) and (top / name).is_file()
    }


def tree_at(revision: str, start: Path, into: Path) -> Path:
    """The files under ``start`` as they were at ``revision``, written below ``into`` (a
    temporary folder) with their paths inside the repository; returns where ``start`` is
    in that copy. Read with ``git archive``; nothing of the project is run."""
    import io
    import tarfile

    top = git_toplevel(start)
    if top is None:
        raise ScopeError(f"--changed-since needs a git repository, and {start} is not inside one")
    if _git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}") is None:
        raise ScopeError(f"--changed-since: unknown git revision {revision!r}")
    inside = start.resolve().relative_to(top).as_posix() or "."
    done = subprocess.run(
        ["git", "-C", str(top), "archive", "--format=tar", revision, "--", inside],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        if b"did not match any files" in done.stderr:
            (into / inside).mkdir(parents=True, exist_ok=True)  # the folder is new since
            return into / inside
        raise ScopeError(f"--changed-since: git could not read {inside!r} at {revision!r}")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        members = [
            m
            for m in archive.getmembers()
            if (m.isfile() or m.isdir())
            and not m.name.startswith("/")
            and ".." not in Path(m.name).parts
        ]
        archive.extractall(into, members=members)
    return into / inside


def git_toplevel(start: Path) -> Path | None:
    folder = start if start.is_dir() else start.parent
    out = _git(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()).resolve() if out else None


def _git(folder: Path, *arguments: str) -> str | None:
    """The output of a git command, or None when it fails (or git is missing)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *arguments],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            check=False,
            env=_git_environment(),
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _git_environment() -> dict[str, str]:
    """This process's environment without the variables a git hook sets (GIT_DIR,
    GIT_INDEX_FILE, ...), which would point ``git -C folder`` at another repository;
    pre-commit removes the same ones before it runs git (pre_commit/git.py no_git_env)."""
    keep = {
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSL_CAINFO",
        "GIT_SSL_NO_VERIFY",
        "GIT_CEILING_DIRECTORIES",
    }
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("GIT_") or name in keep or name.startswith("GIT_CONFIG")
    }


def _shortest_spelling(folder: Path) -> str:
    """``folder`` relative to the working directory when that is shorter."""
    relative = os.path.relpath(folder)
    return relative if len(relative) < len(str(folder)) else str(folder)
