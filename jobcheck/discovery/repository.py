"""The git repository around the analysed tree, found and read as data.

A pull request can commit a bare repository as plain files (``svc/HEAD``, ``svc/config``,
``svc/objects/``): ``git -C svc ...`` would discover it and obey its configuration, whose
``core.fsmonitor`` is a command git runs and whose ``core.worktree`` can name ``/``. So
jobcheck never lets git discover a repository:

- the repository is the nearest folder, from the analysed path upwards, holding a
  ``.git`` entry (a folder, or a file naming the git folder of a worktree or a submodule);
  git refuses to commit a path named ``.git``, so no pull request can plant one, and a
  bare repository is never taken;
- when jobcheck runs inside a repository, a path in another one is refused, unless that
  one's git folder lies inside the invocation's own (a submodule);
- git runs with that git folder and work tree named explicitly, a scrubbed environment,
  and the configuration that makes it run commands switched off (fsmonitor, hooks,
  external diff, textconv); files at a revision are read with ``cat-file --batch``, which
  applies no filter (``git archive`` runs smudge filters and ``export-subst``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from jobcheck.guarded import Boundary, ReadError, read_text


class RepositoryError(ValueError):
    """A repository jobcheck will not use; the message says why, in one line."""


@dataclass(frozen=True)
class Repository:
    top: Path
    """The work tree's top folder (resolved)."""
    git_dir: Path
    """Its git folder (resolved)."""


def work_tree_top(start: Path) -> Path | None:
    """The nearest folder from ``start`` upwards that holds a ``.git`` entry."""
    folder = start if start.is_dir() else start.parent
    folder = Path(os.path.abspath(folder))
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def git_dir_of(top: Path) -> Path | None:
    """The git folder of the work tree at ``top``: ``.git``, or the folder a ``.git`` file
    names (a worktree, a submodule); None when it is neither."""
    dot_git = top / ".git"
    if dot_git.is_dir():
        return dot_git.resolve()
    try:
        text = read_text(dot_git, limit=4096, errors="replace").strip()
    except (ReadError, OSError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text.removeprefix("gitdir:").strip())
    folder = target if target.is_absolute() else top / target
    return folder.resolve() if folder.is_dir() else None


def _repository_at(start: Path) -> Repository | None:
    top = work_tree_top(start)
    if top is None:
        return None
    git_dir = git_dir_of(top)
    if git_dir is None or not (git_dir / "HEAD").is_file():
        return None
    return Repository(top.resolve(), git_dir)


def repository_of(start: Path, invocation: Path | None = None) -> Repository | None:
    """The repository holding ``start`` (None outside one). RepositoryError when jobcheck
    was started (in ``invocation``, the working directory by default) inside another
    repository that this one is not a submodule or worktree of."""
    found = _repository_at(Path(os.path.abspath(start)))
    if found is None:
        return None
    own = _repository_at(Path.cwd() if invocation is None else invocation)
    if own is None or own.top == found.top:
        return found
    if found.git_dir.is_relative_to(own.git_dir) or own.git_dir.is_relative_to(found.git_dir):
        return found  # a submodule of the invocation's repository, or its superproject
    raise RepositoryError(
        f"{_shown(start)} is inside another git repository ({_shown(found.top)}) than the "
        f"one jobcheck was started in ({_shown(own.top)}); run jobcheck from inside it"
    )


# Configuration that makes git run a command, switched off for every git jobcheck runs
# (given with -c, it outranks the repository's own configuration).
_NO_COMMANDS = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    "core.pager=cat",
)
# Environment variables git reads that are safe to keep; every other GIT_* is dropped
# (a git hook's GIT_DIR or GIT_INDEX_FILE would point git at another repository, and
# GIT_CONFIG_* can add configuration).
_KEPT_VARIABLES = frozenset({"GIT_EXEC_PATH", "GIT_SSL_CAINFO"})


def git_environment() -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("GIT_") or name in _KEPT_VARIABLES
    }
    environment.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        LC_ALL="C",
    )
    return environment


def git_command(repository: Repository, *arguments: str) -> list[str]:
    """The command line of ``git ARGUMENTS`` on ``repository``, with nothing discovered."""
    settings = [part for setting in _NO_COMMANDS for part in ("-c", setting)]
    return [
        "git",
        f"--git-dir={repository.git_dir}",
        f"--work-tree={repository.top}",
        *settings,
        *arguments,
    ]


def run_git(repository: Repository, *arguments: str, stdin: bytes | None = None) -> bytes | None:
    """The output of a git command, or None when it fails (or git is missing)."""
    try:
        done = subprocess.run(
            git_command(repository, *arguments),
            input=stdin,
            capture_output=True,
            check=False,
            env=git_environment(),
            cwd=repository.top,
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def run_git_text(repository: Repository, *arguments: str) -> str | None:
    out = run_git(repository, *arguments)
    return None if out is None else out.decode("utf-8", "surrogateescape")


def _shown(path: Path | str) -> str:
    return os.fspath(path).encode("utf-8", "backslashreplace").decode("utf-8")


def project_boundary(paths: Iterable[str | os.PathLike[str]]) -> Boundary:
    """The projects of the paths given on the command line: each one's git work tree,
    else the folder given (or the folder of the file given). Writes (``--fix``,
    ``--add-ignore``, ``--output``) never follow a link out of them."""
    folders = []
    for path in paths:
        given = Path(os.path.abspath(path))
        folder = given if given.is_dir() else given.parent
        top = work_tree_top(folder)
        folders.append(top if top is not None else folder)
    return Boundary.of(folders)
