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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from jobcheck.discovery.repository import (
    Repository,
    RepositoryError,
    repository_of,
    run_git,
    run_git_text,
    work_tree_top,
)
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
        analysed = tuple(p for p in targets if analysed_kind(p))
        return Scope(analysed) if analysed else Scope((), reported={})
    # The files themselves too: a walk of the root skips test code, a file named on the
    # command line is checked all the same.
    return Scope(
        (_shortest_spelling(root), *(p for p in targets if analysed_kind(p))),
        reported={f.resolve(): os.path.normpath(str(f)).replace(os.sep, "/") for f in files},
    )


def analysed_kind(path: str) -> bool:
    """A file jobcheck reads: Python, or another kind it knows (a CronJob manifest, a
    crontab file, a Procfile, Ruby: ``jobcheck/extract/files.py``)."""
    from jobcheck.discovery import SOURCE_SUFFIXES
    from jobcheck.extract.files import is_other_source

    return path.endswith((*ANALYSED_SUFFIXES, *SOURCE_SUFFIXES)) or is_other_source(path)


def project_root(files: Sequence[Path], config_root: Path | None) -> Path | None:
    """The folder to build the model from for ``files``: the folder of the jobcheck
    configuration if it holds them all, else their git repository's top level (found
    by jobcheck, never by git: ``jobcheck/discovery/repository.py``)."""
    resolved = [f.resolve() for f in files]
    candidates = []
    if config_root is not None:
        candidates.append(config_root.resolve())
    top = work_tree_top(Path(os.path.abspath(files[0])))
    if top is not None:
        candidates.append(top.resolve())
    for candidate in candidates:
        if all(f.is_relative_to(candidate) for f in resolved):
            return candidate
    return None


def changed_files(revision: str, start: Path) -> set[Path]:
    """Python files changed since ``revision`` in the git repository around ``start``:
    changed on this branch since it left ``revision`` (the merge base), staged,
    unstaged, or untracked and not ignored. Deleted files are left out."""
    repository = _repository(start)
    _verify(repository, revision)
    base = run_git_text(repository, "merge-base", revision, "HEAD") or revision
    base = base.strip()
    listed = run_git_text(
        repository,
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        base,
        "--",
    )
    untracked = run_git_text(repository, "ls-files", "-z", "--others", "--exclude-standard")
    if listed is None or untracked is None:
        raise ScopeError(
            f"--changed-since: git could not list the files changed since {revision!r}"
        )
    top = repository.top
    names = [n for n in (listed + untracked).split("\0") if n]
    return {
        (top / name).resolve()
        for name in names
        if name.endswith(ANALYSED_SUFFIXES) and (top / name).is_file()
    }


def tree_at(revision: str, start: Path, into: Path) -> Path:
    """The files under ``start`` as they were at ``revision``, written below ``into`` (a
    temporary folder) with their paths inside the repository; returns where ``start`` is
    in that copy. Blobs are read with ``cat-file --batch``: no filter, no ``export-subst``,
    nothing of the project is run."""
    repository = _repository(start)
    _verify(repository, revision)
    inside = Path(os.path.abspath(start)).resolve().relative_to(repository.top).as_posix()
    inside = inside or "."
    listing = run_git(repository, "ls-tree", "-r", "-z", "--full-tree", revision, "--", inside)
    if listing is None:
        raise ScopeError(f"--changed-since: git could not read {inside!r} at {revision!r}")
    blobs = [entry for entry in _blobs(listing) if _safe_relative(entry[1])]
    (into / inside).mkdir(parents=True, exist_ok=True)  # the folder may be new since
    if blobs:
        contents = _cat_blobs(repository, [object_id for object_id, _ in blobs])
        if contents is None:
            raise ScopeError(f"--changed-since: git could not read {inside!r} at {revision!r}")
        for (_, name), data in zip(blobs, contents):
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return into / inside


def _repository(start: Path) -> Repository:
    try:
        repository = repository_of(start)
    except RepositoryError as error:
        raise ScopeError(f"--changed-since: {error}") from None
    if repository is None:
        raise ScopeError(f"--changed-since needs a git repository, and {start} is not inside one")
    return repository


def _verify(repository: Repository, revision: str) -> None:
    if (
        revision.startswith("-")
        or run_git(
            repository,
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{revision}^{{commit}}",
        )
        is None
    ):
        raise ScopeError(f"--changed-since: unknown git revision {revision!r}")


def _blobs(listing: bytes) -> list[tuple[str, str]]:
    """(object id, path) of every regular file in ``ls-tree -z`` output (no links, no
    submodules)."""
    found = []
    for entry in listing.split(b"\0"):
        head, _, name = entry.partition(b"\t")
        fields = head.split()
        if len(fields) == 3 and fields[1] == b"blob" and fields[0] in (b"100644", b"100755"):
            found.append((fields[2].decode("ascii"), os.fsdecode(name)))
    return found


def _safe_relative(name: str) -> bool:
    """A path a tree may hold that stays inside the copy (a crafted tree object may name
    ``..`` or ``.git``; git itself would refuse to check those out)."""
    parts = name.split("/")
    return (
        bool(name)
        and not name.startswith("/")
        and all(part not in ("", ".", "..") and part.lower() != ".git" for part in parts)
    )


def _cat_blobs(repository: Repository, object_ids: list[str]) -> list[bytes] | None:
    """The contents of blobs, in order, read with ``git cat-file --batch``."""
    out = run_git(repository, "cat-file", "--batch", stdin="\n".join(object_ids).encode() + b"\n")
    if out is None:
        return None
    contents, offset = [], 0
    for _ in object_ids:
        end = out.find(b"\n", offset)
        if end < 0:
            return None
        header = out[offset:end].split()
        if len(header) != 3 or header[1] != b"blob":
            return None
        size = int(header[2])
        contents.append(out[end + 1 : end + 1 + size])
        offset = end + 1 + size + 1
    return contents


def _shortest_spelling(folder: Path) -> str:
    """``folder`` relative to the working directory when that is shorter."""
    relative = os.path.relpath(folder)
    return relative if len(relative) < len(str(folder)) else str(folder)
