"""Finding the files to check: paths from the command line, folders walked honouring
``.gitignore`` files (with pathspec), default excludes and ``--exclude`` globs."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

# Folders no one wants linted: VCS data, virtualenvs, caches, dependencies, build output.
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".venv",
    "venv",
    ".env",
    "env",
    "__pycache__",
    "node_modules",
    "site-packages",
    "build",
    "dist",
    "_build",
    "buck-out",
    ".eggs",
    "*.egg-info",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".jobcheck_cache",
    "__pypackages__",
    ".direnv",
    ".ipynb_checkpoints",
)


class DiscoveryError(ValueError):
    """A path given on the command line that does not exist or cannot be read."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    """As given or found (relative when the argument was relative)."""
    explicit: bool
    """Named on the command line, not found by walking a folder."""

    @property
    def display(self) -> str:
        return self.path.as_posix()


def discover(
    paths: Sequence[str],
    exclude: Iterable[str] = (),
    respect_gitignore: bool = True,
    suffixes: tuple[str, ...] = (".py",),
) -> list[SourceFile]:
    """Every file to check, in a stable order, each once."""
    excludes = tuple(DEFAULT_EXCLUDES) + tuple(exclude)
    user_excludes = tuple(exclude)
    found: dict[Path, SourceFile] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DiscoveryError(f"{raw}: no such file or directory")
        if path.is_file():
            if not _excluded(path, user_excludes):
                found.setdefault(path.resolve(), SourceFile(_clean(path), explicit=True))
            continue
        for file in _walk(path, excludes, respect_gitignore, suffixes):
            found.setdefault(file.resolve(), SourceFile(file, explicit=False))
    return sorted(found.values(), key=lambda f: f.display)


def _clean(path: Path) -> Path:
    text = os.path.normpath(str(path))
    return Path(text)


def _walk(
    root: Path, excludes: tuple[str, ...], respect_gitignore: bool, suffixes: tuple[str, ...]
) -> Iterator[Path]:
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    if respect_gitignore:
        ignores.extend(_parent_gitignores(root))
    for folder, dirnames, filenames in os.walk(root):
        current = Path(folder)
        if respect_gitignore:
            spec = _gitignore(current)
            if spec is not None:
                ignores.append((current, spec))
        kept = []
        for name in sorted(dirnames):
            candidate = current / name
            if _excluded(candidate, excludes) or (candidate / "pyvenv.cfg").exists():
                continue
            if _ignored(candidate, ignores, is_dir=True):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(suffixes):
                continue
            candidate = current / name
            if _excluded(candidate, excludes) or _ignored(candidate, ignores, is_dir=False):
                continue
            yield _clean(candidate)


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    text = path.as_posix()
    for pattern in patterns:
        if fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(text, pattern):
            return True
        if "/" in pattern and fnmatch.fnmatch(text, f"*/{pattern.lstrip('/')}"):
            return True
    return False


def _gitignore(folder: Path) -> pathspec.PathSpec | None:
    file = folder / ".gitignore"
    if not file.is_file():
        return None
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _parent_gitignores(root: Path) -> list[tuple[Path, pathspec.PathSpec]]:
    """``.gitignore`` files above the walked folder, up to the repository's top."""
    found = []
    current = root.resolve()
    for folder in current.parents:
        spec = _gitignore(folder)
        if spec is not None:
            found.append((folder, spec))
        if (folder / ".git").exists():
            break
    return list(reversed(found))


def _ignored(path: Path, ignores: list[tuple[Path, pathspec.PathSpec]], is_dir: bool) -> bool:
    resolved = None
    for base, spec in ignores:
        try:
            relative = path.relative_to(base)
        except ValueError:
            resolved = resolved or path.resolve()
            try:
                relative = resolved.relative_to(base.resolve())
            except ValueError:
                continue
        text = relative.as_posix() + ("/" if is_dir else "")
        if spec.match_file(text):
            return True
    return False


def module_name(path: Path) -> tuple[str, bool]:
    """The dotted module name of a file (walking up through packages) and whether it
    is a package's ``__init__``."""
    resolved = path.resolve()
    is_package = resolved.name == "__init__.py"
    parts = [] if is_package else [resolved.stem]
    folder = resolved.parent
    while folder.parent != folder and (
        (folder / "__init__.py").exists() or _namespace_in_package(folder)
    ):
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)), is_package


def _namespace_in_package(folder: Path) -> bool:
    """A folder without ``__init__.py`` inside a regular package is a namespace
    subpackage (``readthedocs/projects/tasks/``): Celery names its tasks
    ``readthedocs.projects.tasks.utils.x``, not ``utils.x``."""
    return folder.name.isidentifier() and (folder.parent / "__init__.py").exists()
