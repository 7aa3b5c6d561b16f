"""Finding the files to check: paths from the command line, folders walked honouring
``.gitignore`` files (with pathspec), default excludes and ``--exclude`` globs.

A walk can reuse a :class:`WalkCache` from the previous run: a folder whose
modification time has not changed (no entry was added, removed or renamed in it) is
not listed again, so a run over an unchanged tree costs one ``stat`` per folder.
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from jobcheck.discovery.git_index import Tracked, tracked
from jobcheck.discovery.repository import work_tree_top
from jobcheck.extract.files import NOT_SOURCES, is_other_source
from jobcheck.extract.files import PATTERNS as OTHER_SOURCES
from jobcheck.guarded import OUTSIDE, Boundary

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
    ".semgrep",  # semgrep rule fixtures: code written to be flagged, never run
)
# Test code: it runs against mocks, throwaway apps and test settings, never in a
# deployment, so its jobs, enqueue sites and settings are not the project's. Skipped when
# a folder is walked (``include-tests = true`` or ``--include-tests`` keeps them); a file
# named on the command line is always checked.
TEST_EXCLUDES = (
    "tests/",
    "test/",
    "spec/",
    "test_*.py",
    "*_test.py",
    "tests.py",
    "conftest.py",
    "*_spec.rb",
    "*_test.rb",
)
# Python sources, plus the Ruby sources and Sidekiq YAML files the Ruby front end reads
# (``jobcheck/ruby/__init__.py`` SUFFIXES; kept literal here so discovery stays light).
SOURCE_SUFFIXES = (
    ".py",
    ".rb",
    "sidekiq.yml",
    "sidekiq.yaml",
    "sidekiq.yml.erb",
    "schedule.yml",
    "schedule.yaml",
    "scheduler.yml",
    "scheduler.yaml",
    "cron.yml",
    "cron.yaml",
)
# A folder listed this close to its last modification may change again within the file
# system's timestamp granularity: its listing is not reused.
_RACY_NS = 2_000_000_000


class DiscoveryError(ValueError):
    """A path given on the command line that does not exist or cannot be read."""


class SourceFile:
    """A file to check: its path as given or found (relative when the argument was
    relative), and whether it was named on the command line (``explicit``) rather than
    found by walking a folder."""

    __slots__ = ("_path", "_text", "error", "explicit", "symlink")

    def __init__(
        self,
        path: Path | str,
        explicit: bool,
        symlink: bool | None = None,
        error: str | None = None,
    ) -> None:
        # Walks make thousands of these: the Path object is built only when asked for.
        self._text = path if isinstance(path, str) else str(path)
        self._path: Path | None = None if isinstance(path, str) else path
        self.explicit = explicit
        self.symlink = symlink
        """Whether the file is a symbolic link, when the walk knows (None: unknown)."""
        self.error = error
        """Why this path cannot be checked (a folder that cannot be listed), if so."""

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self._text)
        return self._path

    @property
    def display(self) -> str:
        return self._text if os.sep == "/" else self.path.as_posix()

    @property
    def fspath(self) -> str:
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceFile):
            return NotImplemented
        return (self._text, self.explicit) == (other._text, other.explicit)

    def __hash__(self) -> int:
        return hash((self._text, self.explicit))

    def __repr__(self) -> str:
        return f"SourceFile(path={self._text!r}, explicit={self.explicit})"


@dataclass
class WalkCache:
    """Folder listings of earlier walks, keyed by walk settings and root; picklable."""

    walks: dict[tuple, _Walk] = field(default_factory=dict)
    changed: bool = False


@dataclass
class _Walk:
    gitignores: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """Every ``.gitignore`` the walk consulted, with its (mtime, size), or None when a
    folder above the root had none (so that one appearing is noticed)."""
    folders: dict[str, _Listing] = field(default_factory=dict)
    """Folder (relative to the root, ``""`` or ending in ``/``) -> its listing."""


@dataclass(frozen=True)
class _Listing:
    mtime_ns: int
    trusted: bool
    """Listed long enough after its last change that the mtime identifies the listing."""
    subfolders: tuple[str, ...]
    files: tuple[str, ...]
    """Kept files (and ``.gitignore`` when the folder has one)."""
    symlinks: frozenset[str] = frozenset()
    """Files that are symbolic links (de-duplicated by their target)."""


def discover(
    paths: Sequence[str],
    exclude: Iterable[str] = (),
    respect_gitignore: bool = True,
    suffixes: tuple[str, ...] = SOURCE_SUFFIXES,
    cache: WalkCache | None = None,
    patterns: tuple[str, ...] = OTHER_SOURCES,
    include_tests: bool = False,
) -> list[SourceFile]:
    """Every file to check, in a stable order, each once: files ending in ``suffixes``
    and, by default, the other kinds jobcheck reads (``patterns``, globs on the path:
    Kubernetes manifests, crontab files... ``jobcheck/extract/files.py``). Walks skip
    test code (``TEST_EXCLUDES``) unless ``include_tests``."""
    excludes = _Matcher(default_excludes(include_tests) + tuple(exclude))
    user_excludes = _Matcher(tuple(exclude))
    found: dict[str, SourceFile] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DiscoveryError(f"{raw}: no such file or directory")
        if not path.is_dir():  # a file, or a FIFO or device named as one: reported
            if not user_excludes.excluded(
                path.name, path.as_posix()
            ) and not user_excludes.excludes_a_folder_of(path):
                error = None if boundary_of(path).admits(path) else OUTSIDE
                found.setdefault(
                    os.path.realpath(path), SourceFile(_clean(path), explicit=True, error=error)
                )
            continue
        walker = _Walker(path, excludes, respect_gitignore, suffixes, patterns)
        boundary = boundary_of(path)
        key = (os.path.realpath(path), excludes.patterns, respect_gitignore, suffixes, patterns)
        for file, identity, symlink in walker.walk(
            cache.walks.get(key) if cache is not None else None
        ):
            error = None if not symlink or boundary.contains(identity) else OUTSIDE
            found.setdefault(
                identity, SourceFile(file, explicit=False, symlink=symlink, error=error)
            )
        for folder, message in walker.unreadable:
            found.setdefault(f"\0{folder}", SourceFile(folder, explicit=False, error=message))
        if cache is not None and walker.changed:
            cache.walks[key] = walker.state
            cache.changed = True
    return sorted(found.values(), key=lambda f: f.display)


def boundary_of(path: Path) -> Boundary:
    """The project a path given on the command line lies in: its git work tree, else the
    folder given (or the folder of the file given). A symbolic link found in it that
    leads outside is reported, never read: a pull request could link ``tasks.py`` to
    ``/etc/shadow`` and have its text echoed in findings."""
    folder = path if path.is_dir() else path.parent
    top = work_tree_top(Path(os.path.abspath(folder)))
    return Boundary.of([top if top is not None else folder])


def default_excludes(include_tests: bool) -> tuple[str, ...]:
    """What a walk skips before the configuration's own excludes."""
    return DEFAULT_EXCLUDES if include_tests else (*DEFAULT_EXCLUDES, *TEST_EXCLUDES)


def _clean(path: Path | str) -> str:
    return os.path.normpath(path)


class _Matcher:
    """``--exclude`` globs, compiled once, read as ``.gitignore`` patterns are: a pattern
    matches a file or folder name, or its path; a pattern with a ``/`` inside also
    matches the end of the path; a pattern ending in ``/`` (``legacy/``) matches folders
    only."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        anything = [p for p in patterns if not p.endswith("/")]
        folders = [p.rstrip("/") for p in patterns if p.endswith("/") and p.rstrip("/")]
        self._names, self._paths = _compiled(anything)
        self._folder_names, self._folder_paths = _compiled(folders)

    def excluded(self, name: str, path: str, is_dir: bool = False) -> bool:
        if _matches(self._names, self._paths, name, path):
            return True
        return is_dir and _matches(self._folder_names, self._folder_paths, name, path)

    def excludes_a_folder_of(self, path: Path) -> bool:
        """Whether a folder ``path`` lies in is excluded (a file named on the command
        line inside ``legacy/`` is as excluded as the folder); only the folders of the
        path as given, or below the working directory, count."""
        if path.is_absolute():
            try:
                path = path.relative_to(Path.cwd())
            except ValueError:
                return False
        for parent in list(path.parents)[:-1]:
            if parent.name and self.excluded(parent.name, parent.as_posix(), is_dir=True):
                return True
        return False


def _compiled(patterns: list[str]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    on_path = [*patterns, *(f"*/{p.lstrip('/')}" for p in patterns if "/" in p)]
    return _compile(p for p in patterns if "/" not in p), _compile(on_path)


def _matches(
    names: re.Pattern[str] | None, paths: re.Pattern[str] | None, name: str, path: str
) -> bool:
    if names is not None and names.match(name):
        return True
    return paths is not None and paths.match(path) is not None


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether ``patterns`` (globs, as ``--exclude`` takes them) exclude ``path``."""
    return _Matcher(tuple(patterns)).excluded(path.name, path.as_posix(), is_dir=path.is_dir())


def _compile(patterns: Iterable[str]) -> re.Pattern[str] | None:
    parts = [f"(?:{fnmatch.translate(p)})" for p in patterns]
    return re.compile("|".join(parts)) if parts else None


class _Walker:
    def __init__(
        self,
        root: Path,
        excludes: _Matcher,
        respect_gitignore: bool,
        suffixes: tuple[str, ...],
        patterns: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.excludes = excludes
        self.respect_gitignore = respect_gitignore
        self.suffixes = suffixes
        self._others = _compile(patterns)
        self.state = _Walk()
        self.changed = False
        self.unreadable: list[tuple[str, str]] = []
        """Folders that could not be listed, with why (reported, never skipped)."""
        self._now = time.time_ns()
        self._real_root = os.path.realpath(root)
        self._index: Tracked | Literal[False] | None = None
        """The tracked paths, read on the first ``.gitignore`` match (False: none)."""

    def walk(self, previous: _Walk | None) -> Iterator[tuple[str, str, bool]]:
        """(file path as displayed, identity for de-duplication, whether it is a
        symbolic link) of every file."""
        if previous is not None and not self._gitignores_unchanged(previous):
            previous = None
        if previous is None:
            self.changed = True
        ignores = []
        if self.respect_gitignore:
            ignores = [(prefix, spec) for prefix, spec in self._parent_gitignores()]
        yield from self._folder(str(self.root), "", ignores, previous)

    def _folder(
        self,
        folder: str,
        relative: str,
        ignores: list[tuple[str, _LazySpec]],
        previous: _Walk | None,
    ) -> Iterator[tuple[str, str, bool]]:
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            return
        listing = previous.folders.get(relative) if previous is not None else None
        if listing is not None and listing.trusted and listing.mtime_ns == mtime:
            if self.respect_gitignore and ".gitignore" in listing.files:
                ignores = [*ignores, (relative, self._gitignore(folder))]
        else:
            self.changed = True
            listed = self._list(folder, relative, ignores, mtime)
            if listed is None:
                return
            listing, ignores = listed
        self.state.folders[relative] = listing
        for name in listing.files:
            if name == ".gitignore":
                continue
            path = os.path.join(folder, name)
            if name in listing.symlinks:
                yield os.path.normpath(path), os.path.realpath(path), True
            else:
                yield os.path.normpath(path), f"{self._real_root}/{relative}{name}", False
        for name in listing.subfolders:
            yield from self._folder(
                os.path.join(folder, name), f"{relative}{name}/", ignores, previous
            )

    def _list(
        self, folder: str, relative: str, ignores: list[tuple[str, _LazySpec]], mtime: int
    ) -> tuple[_Listing, list[tuple[str, _LazySpec]]] | None:
        """The kept subfolders and files of ``folder`` (and ``.gitignore`` when it has
        one, so a reused listing knows to read it); None when it is a virtualenv."""
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            self.unreadable.append(
                (os.path.normpath(folder), f"cannot read folder: {error.strerror or error}")
            )
            return None
        names = {entry.name for entry in entries}
        if "pyvenv.cfg" in names:
            return None
        if self.respect_gitignore and ".gitignore" in names:
            ignores = [*ignores, (relative, self._gitignore(folder))]
        subfolders, files, symlinks = [], [], set()
        for entry in entries:
            name = entry.name
            path_text = os.path.normpath(os.path.join(folder, name)).replace(os.sep, "/")
            is_link = False
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()
            except OSError:  # a loop of links: a file to report when it is a source
                is_dir = False
            if is_dir:
                # Like os.walk: symbolic links to folders are not followed.
                if is_link or self.excludes.excluded(name, path_text, is_dir=True):
                    continue
                if _ignored(f"{relative}{name}", ignores, is_dir=True):
                    if not self._tracked(f"{relative}{name}", is_dir=True):
                        continue
                subfolders.append(name)
            elif name.endswith(self.suffixes) or (
                self._others is not None
                and self._others.match("/" + path_text)
                and not name.endswith(NOT_SOURCES)
            ):
                if self.excludes.excluded(name, path_text):
                    continue
                if _ignored(f"{relative}{name}", ignores, is_dir=False):
                    if not self._tracked(f"{relative}{name}", is_dir=False):
                        continue
                files.append(name)
                if is_link:
                    symlinks.add(name)
        if self.respect_gitignore and ".gitignore" in names:
            files.append(".gitignore")
        listing = _Listing(
            mtime,
            mtime < self._now - _RACY_NS,
            tuple(subfolders),
            tuple(files),
            frozenset(symlinks),
        )
        return listing, ignores

    # -- .gitignore ----------------------------------------------------------------------

    def _tracked(self, relative: str, is_dir: bool) -> bool:
        """Whether git tracks the file (or a file in the folder) a ``.gitignore`` pattern
        matches: git ignores untracked files only, so it is part of the project."""
        if self._index is None:
            self._index = tracked(self._real_root) or False
            if self._index:
                index = self._index.index
                try:
                    stat = os.stat(index)
                    self.state.gitignores[index] = (stat.st_mtime_ns, stat.st_size)
                except OSError:
                    pass
        if not self._index:
            return False
        under_top = os.path.relpath(self._real_root, self._index.top).replace(os.sep, "/")
        path = relative if under_top == "." else f"{under_top}/{relative}"
        return path in (self._index.folders if is_dir else self._index.files)

    def _gitignore(self, folder: str) -> _LazySpec:
        file = Path(folder, ".gitignore")
        try:
            stat = file.stat()
        except OSError:
            return _LazySpec(file)
        self.state.gitignores[os.path.realpath(file)] = (stat.st_mtime_ns, stat.st_size)
        return _LazySpec(file)

    def _parent_gitignores(self) -> list[tuple[str, _LazySpec]]:
        """``.gitignore`` files above the walked folder, up to the repository's top, each
        with the walked root's path relative to it."""
        found = []
        current = Path(self._real_root)
        for folder in current.parents:
            file = folder / ".gitignore"
            try:
                stat = file.stat()
            except OSError:
                self.state.gitignores[str(file)] = None
            else:
                self.state.gitignores[str(file)] = (stat.st_mtime_ns, stat.st_size)
                prefix = current.relative_to(folder).as_posix() + "/"
                found.append((prefix, _LazySpec(file)))
            if (folder / ".git").exists():
                break
        # Relative to the parent gitignore: "<root relative to it>/<path in walk>".
        return [(f"\0{prefix}", spec) for prefix, spec in reversed(found)]

    def _gitignores_unchanged(self, previous: _Walk) -> bool:
        for path, signature in previous.gitignores.items():
            try:
                stat = os.stat(path)
            except OSError:
                if signature is not None:
                    return False
                continue
            if signature != (stat.st_mtime_ns, stat.st_size):
                return False
            if stat.st_mtime_ns >= self._now - _RACY_NS:
                return False
        self.state.gitignores.update(previous.gitignores)
        return True


class _LazySpec:
    """A ``.gitignore`` file, read and compiled (with pathspec) on first use: a walk
    that reuses every listing never reads it."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._spec: object = None

    def match_file(self, text: str) -> bool:
        if self._spec is None:
            import pathspec

            try:
                lines = self.file.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return bool(self._spec.match_file(text))  # type: ignore[attr-defined]


def _ignored(relative: str, ignores: list[tuple[str, _LazySpec]], is_dir: bool) -> bool:
    """Whether a path (relative to the walked root) is ignored by a ``.gitignore``:
    those inside the walk (keyed by their folder relative to the root) and those above
    it (keyed by ``\\0`` and the root relative to them)."""
    suffix = "/" if is_dir else ""
    for base, spec in ignores:
        if base.startswith("\0"):
            text = base[1:] + relative
        elif relative.startswith(base):
            text = relative[len(base) :]
        else:
            continue
        if spec.match_file(text + suffix):
            return True
    return False


_PACKAGE_CACHE: dict[str, tuple[str, ...]] = {}


def module_name(path: Path | str, symlink: bool | None = None) -> tuple[str, bool]:
    """The dotted module name of a file (walking up through packages) and whether it
    is a package's ``__init__``; symbolic links are followed (``symlink``: whether the
    file is one, when the caller knows)."""
    text = os.fspath(path)
    if is_other_source(text):
        return "", False  # a manifest or a crontab is no module
    if symlink if symlink is not None else os.path.islink(text):
        folder, name = os.path.split(os.path.realpath(text))
        prefix = _prefix_of(folder)
    else:
        parent, name = os.path.split(text)
        prefix = _PREFIXES.get(parent)
        if prefix is None:
            prefix = _PREFIXES[parent] = _prefix_of(_real_folder(parent or "."))
    if name == "__init__.py":
        return prefix[:-1], True
    return prefix + (name.rsplit(".", 1)[0] if "." in name else name), False


# Module-name prefixes ("pkg.sub." or "") by folder as the caller spells it: one
# computation per folder, not per file.
_PREFIXES: dict[str, str] = {}


def _prefix_of(folder: str) -> str:
    parts = _package_parts(folder)
    return ".".join(parts) + "." if parts else ""


_REAL_FOLDERS: dict[str, str] = {}


def _real_folder(folder: str) -> str:
    """``os.path.realpath(folder)``, one ``lstat`` per folder (the parent's answer is
    reused) instead of one per path component."""
    real = _REAL_FOLDERS.get(folder)
    if real is None:
        parent, name = os.path.split(folder)
        if not name or name in (".", "..") or parent == folder or os.path.islink(folder):
            real = os.path.realpath(folder)
        else:
            real = os.path.join(_real_folder(parent or "."), name)
        _REAL_FOLDERS[folder] = real
    return real


def _package_parts(folder: str) -> tuple[str, ...]:
    """The package names from the outermost package down to ``folder`` (empty when
    ``folder`` is not a package); cached per folder."""
    cached = _PACKAGE_CACHE.get(folder)
    if cached is not None:
        return cached
    parent, name = os.path.split(folder)
    if parent == folder or not (
        os.path.exists(os.path.join(folder, "__init__.py")) or _namespace_in_package(folder)
    ):
        parts: tuple[str, ...] = ()
    else:
        parts = (*_package_parts(parent), name)
    _PACKAGE_CACHE[folder] = parts
    return parts


def clear_caches() -> None:
    """Forget folder facts learnt in this process (an editor session reuses it)."""
    _PACKAGE_CACHE.clear()
    _REAL_FOLDERS.clear()
    _PREFIXES.clear()


def _namespace_in_package(folder: str) -> bool:
    """A folder without ``__init__.py`` inside a regular package is a namespace
    subpackage (``readthedocs/projects/tasks/``): Celery names its tasks
    ``readthedocs.projects.tasks.utils.x``, not ``utils.x``."""
    parent, name = os.path.split(folder)
    return name.isidentifier() and os.path.exists(os.path.join(parent, "__init__.py"))
