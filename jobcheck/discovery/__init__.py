"""Finding the files to check: paths from the command line, folders walked honouring
``.gitignore`` files (read as pathspec reads them), default excludes and ``--exclude``
globs. A pull request writes both the ``.gitignore`` files and the configuration, so
every pattern is matched by RE2, in time linear in the path whatever the pattern says,
and the walk keeps its own stack, whatever the depth of the tree.

A walk can reuse a :class:`WalkCache` from the previous run: a folder whose
modification time has not changed (no entry was added, removed or renamed in it) is
not listed again, so a run over an unchanged tree costs one ``stat`` per folder.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from jobcheck.discovery.git_index import Tracked, tracked
from jobcheck.discovery.repository import work_tree_top
from jobcheck.extract.files import NOT_SOURCES, is_other_source
from jobcheck.extract.files import PATTERNS as OTHER_SOURCES
from jobcheck.guarded import OUTSIDE, SMALL_FILE_BYTES, Boundary, read_text

if TYPE_CHECKING:
    from jobcheck.config import Options

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
    "Gemfile",
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
    force_exclude: bool = False,
    root: Path | None = None,
) -> list[SourceFile]:
    """Every file to check, in a stable order, each once: files ending in ``suffixes``
    and, by default, the other kinds jobcheck reads (``patterns``, globs on the path:
    Kubernetes manifests, crontab files... ``jobcheck/extract/files.py``). Walks skip
    test code (``TEST_EXCLUDES``) unless ``include_tests``. A file named in ``paths`` is
    checked even when ``exclude`` matches it, as Ruff does, unless ``force_exclude``
    (what pre-commit wants: it names every staged file); its folders count from the
    working directory or from ``root``, the configuration's folder."""
    excludes = _Matcher(default_excludes(include_tests) + tuple(exclude))
    user_excludes = _Matcher(tuple(exclude))
    found: dict[str, SourceFile] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DiscoveryError(f"{raw}: no such file or directory")
        if not path.is_dir():  # a file, or a FIFO or device named as one: reported
            if not force_exclude or not _named_but_excluded(path, user_excludes, root):
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


def discover_for(
    options: Options, paths: Sequence[str], cache: WalkCache | None = None
) -> list[SourceFile]:
    """The files under ``paths`` that ``options`` keep (excludes, ``.gitignore``, test
    code, ``force-exclude``); raises DiscoveryError for a path that does not exist."""
    return discover(
        paths,
        exclude=(*options.exclude, *options.extend_exclude),
        respect_gitignore=options.respect_gitignore,
        include_tests=options.include_tests,
        force_exclude=options.force_exclude,
        root=Path(options.root) if options.config_path else None,
        cache=cache,
    )


def _named_but_excluded(path: Path, excludes: _Matcher, root: Path | None) -> bool:
    return excludes.excluded(path.name, path.as_posix()) or excludes.excludes_a_folder_of(
        path, root
    )


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

    def excludes_a_folder_of(self, path: Path, root: Path | None = None) -> bool:
        """Whether a folder ``path`` lies in is excluded (a file named on the command
        line inside ``legacy/`` is as excluded as the folder); only the folders of the
        path as given, below the working directory or below ``root`` (the
        configuration's folder) count."""
        if path.is_absolute():
            path = _below(path, [Path.cwd(), *([root] if root is not None else [])])
            if path is None:
                return False
        for parent in list(path.parents)[:-1]:
            if parent.name and self.excluded(parent.name, parent.as_posix(), is_dir=True):
                return True
        return False


def _below(path: Path, bases: list[Path]) -> Path | None:
    for base in bases:
        with contextlib.suppress(ValueError):
            return path.resolve().relative_to(base.resolve())
    return None


def _compiled(patterns: list[str]) -> tuple[_RegexSet | None, _RegexSet | None]:
    on_path = [*patterns, *(f"*/{p.lstrip('/')}" for p in patterns if "/" in p)]
    return _compile(p for p in patterns if "/" not in p), _compile(on_path)


def _matches(names: _RegexSet | None, paths: _RegexSet | None, name: str, path: str) -> bool:
    if names is not None and names.any(name):
        return True
    return paths is not None and paths.any(path)


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether ``patterns`` (globs, as ``--exclude`` takes them) exclude ``path``."""
    return _Matcher(tuple(patterns)).excluded(path.name, path.as_posix(), is_dir=path.is_dir())


def _compile(patterns: Iterable[str]) -> _RegexSet | None:
    """Globs (as ``fnmatch`` reads them) that match a whole text, or None for none."""
    regexes = [_glob_regex(p) for p in patterns]
    return _RegexSet(regexes, whole=True) if regexes else None


def _glob_regex(glob: str) -> str:
    """An ``fnmatch`` glob as an RE2 regular expression matching what
    ``fnmatch.fnmatchcase`` matches: ``*`` any run of characters, ``?`` one, ``[...]``
    a set read as ``fnmatch`` reads it (the set itself translated by ``fnmatch``)."""
    parts: list[str] = []
    i, end = 0, len(glob)
    while i < end:
        char = glob[i]
        i += 1
        if char == "*":
            if not parts or parts[-1] != ".*":
                parts.append(".*")
        elif char == "?":
            parts.append(".")
        elif char == "[":
            close = _set_end(glob, i)
            if close is None:
                parts.append(r"\[")
            else:
                parts.append(_set_regex(glob[i - 1 : close + 1]))
                i = close + 1
        else:
            parts.append(re.escape(char))
    return f"(?s:{''.join(parts)})"


def _set_end(glob: str, start: int) -> int | None:
    """Where the set opened just before ``start`` closes (fnmatch's reading: a ``!``
    and a ``]`` right after the ``[`` are part of it), or None when it never does."""
    i = start
    if i < len(glob) and glob[i] == "!":
        i += 1
    if i < len(glob) and glob[i] == "]":
        i += 1
    close = glob.find("]", i)
    return None if close < 0 else close


_NOTHING = r"[^\x00-\x{10FFFF}]"


def _set_regex(bracket: str) -> str:
    """A ``[...]`` set as ``fnmatch.translate`` writes it (ranges, ``!``, escapes),
    which RE2 reads alike; its "never matches" (an empty set) spelled for RE2."""
    inner = fnmatch.translate(bracket)[len("(?s:") : -len(r")\Z")]
    return _NOTHING if inner == "(?!)" else _literal_brackets(inner)


_SURROGATES = re.compile("[\ud800-\udfff]")
_SET_SIZE = 256
_SET_CHARACTERS = 16_384
"""Regular expressions compiled together, at most: RE2 compiles a set within a memory
budget, which a few thousand ``.gitignore`` patterns exceed; a group it refuses is split."""


def _groups(regexes: Sequence[str]) -> list[list[int]]:
    """The indices of ``regexes`` in groups of at most :data:`_SET_SIZE` regular
    expressions and :data:`_SET_CHARACTERS` characters (or one longer expression)."""
    groups: list[list[int]] = []
    current: list[int] = []
    size = 0
    for index, regex in enumerate(regexes):
        if current and (len(current) >= _SET_SIZE or size + len(regex) > _SET_CHARACTERS):
            groups.append(current)
            current, size = [], 0
        current.append(index)
        size += len(regex)
    if current:
        groups.append(current)
    return groups


def _literal_brackets(regex: str) -> str:
    """A Python regular expression as RE2 reads it alike: a ``[`` inside a set is a
    plain character to Python (``[[:alpha:]]`` is the set ``[:alph`` then a ``]``), and
    RE2 would read ``[:alpha:]`` there as a character class; it is escaped."""
    if "[" not in regex:
        return regex
    out: list[str] = []
    i, end = 0, len(regex)
    while i < end:
        char = regex[i]
        if char == "\\":
            out.append(regex[i : i + 2])
            i += 2
        elif char != "[":
            out.append(char)
            i += 1
        else:
            i = _copy_set(regex, i, out)
    return "".join(out)


def _copy_set(regex: str, start: int, out: list[str]) -> int:
    """Copy the set opening at ``start`` to ``out``, its ``[`` escaped; where it ends."""
    out.append("[")
    i, end = start + 1, len(regex)
    if i < end and regex[i] == "^":
        out.append("^")
        i += 1
    if i < end and regex[i] == "]":  # first in a set, a plain ``]``
        out.append("\\]")
        i += 1
    while i < end and regex[i] != "]":
        if regex[i] == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        out.append("\\[" if regex[i] == "[" else regex[i])
        i += 1
    if i < end:
        out.append("]")
    return i + 1


def _utf8_safe(text: str) -> str:
    """``text`` as RE2 can take it (UTF-8): a file name that is not UTF-8 holds lone
    surrogates (``surrogateescape``); each becomes U+FFFD, one character for one."""
    return text if text.isascii() else _SURROGATES.sub("\ufffd", text)


class _RegexSet:
    """Regular expressions matched together by RE2, in time linear in the text whatever
    they say: Python's ``re`` backtracks, and one ``.gitignore`` line of a dozen stars
    against one long file name takes it hours. Compiled in groups RE2's memory budget
    takes; a regular expression RE2 cannot take even alone never matches."""

    def __init__(self, regexes: Sequence[str], whole: bool = False) -> None:
        import re2

        self._options = re2.Options()
        self._options.log_errors = False
        self._options.never_capture = True
        self._whole = whole
        self.sets: list[tuple[object, list[int]]] = []
        pending = _groups(regexes)
        while pending:
            group = pending.pop()
            compiled = self._set([regexes[i] for i in group])
            if compiled is not None:
                self.sets.append((compiled, group))
            elif len(group) > 1:
                middle = len(group) // 2
                pending += [group[:middle], group[middle:]]

    def _set(self, regexes: list[str]) -> object | None:
        import re2

        made = (
            re2.Set.FullMatchSet(self._options) if self._whole else re2.Set.SearchSet(self._options)
        )
        try:
            for regex in regexes:
                made.Add(regex)
            made.Compile()
        except re2.error:
            return None
        return made

    def matches(self, text: str) -> list[int]:
        """The indices of the regular expressions that match ``text``, in no order."""
        text = _utf8_safe(text)
        found: list[int] = []
        for compiled, indices in self.sets:
            for index in compiled.Match(text) or ():  # type: ignore[attr-defined]
                found.append(indices[index])
        return found

    def any(self, text: str) -> bool:
        return bool(self.matches(text))


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
        # Depth first, each folder's files before its subfolders, with a stack of its
        # own: a tree thousands of folders deep must not exhaust Python's recursion.
        pending: list[tuple[str, str, list[tuple[str, _LazySpec]]]] = [
            (str(self.root), "", ignores)
        ]
        while pending:
            folder, relative, inherited = pending.pop()
            read = self._folder(folder, relative, inherited, previous)
            if read is None:
                continue
            listing, kept = read
            for name in listing.files:
                if name == ".gitignore":
                    continue
                path = os.path.join(folder, name)
                if name in listing.symlinks:
                    yield os.path.normpath(path), os.path.realpath(path), True
                else:
                    yield os.path.normpath(path), f"{self._real_root}/{relative}{name}", False
            pending.extend(
                (os.path.join(folder, name), f"{relative}{name}/", kept)
                for name in reversed(listing.subfolders)
            )

    def _folder(
        self,
        folder: str,
        relative: str,
        ignores: list[tuple[str, _LazySpec]],
        previous: _Walk | None,
    ) -> tuple[_Listing, list[tuple[str, _LazySpec]]] | None:
        """A folder's listing (reused from ``previous`` when its mtime says it can be)
        and the ``.gitignore`` files that apply inside it; None when it is skipped."""
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            return None
        listing = previous.folders.get(relative) if previous is not None else None
        if listing is not None and listing.trusted and listing.mtime_ns == mtime:
            if self.respect_gitignore and ".gitignore" in listing.files:
                ignores = [*ignores, (relative, self._gitignore(folder))]
        else:
            self.changed = True
            listed = self._list(folder, relative, ignores, mtime)
            if listed is None:
                return None
            listing, ignores = listed
        self.state.folders[relative] = listing
        return listing, ignores

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
                and self._others.any("/" + path_text)
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


MAX_PATTERN = 1024
"""Longer ``.gitignore`` lines are skipped: no real pattern is that long, pathspec's
translation of a line takes time quadratic in its length, and RE2 refuses (and logs)
regular expressions much longer."""


class _LazySpec:
    """A ``.gitignore`` file, read and compiled on first use: a walk that reuses every
    listing never reads it."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._spec: _GitIgnore | None = None

    def match_file(self, text: str) -> bool:
        if self._spec is None:
            try:
                content = read_text(self.file, SMALL_FILE_BYTES, errors="replace")
            except OSError:  # a FIFO, a device, a link to /dev/zero, too large: empty
                content = ""
            lines = [line for line in content.splitlines() if len(line) <= MAX_PATTERN]
            self._spec = _GitIgnore(lines)
        return self._spec.match_file(text)


class _GitIgnore:
    """``.gitignore`` patterns as pathspec reads them (``GitIgnoreSpec``) and decides
    between them (``pathspec/_backends/simple/gitignore.py``: the last pattern matching
    the path itself wins, else the last matching a folder of it), matched by RE2: a set
    of all the patterns says which match, and the folder mark of each (the one group
    pathspec's regular expressions capture) is read from RE2's match of that pattern
    alone, which picks the same alternative Python's ``re`` does."""

    def __init__(self, lines: list[str]) -> None:
        self._patterns = [
            (pattern.include, _literal_brackets(pattern.regex.pattern))
            for pattern in map(_pattern, lines)
            if pattern is not None and pattern.include is not None and pattern.regex is not None
        ]
        self._set = _RegexSet([regex.replace(_FOLDER_MARK, "/") for _, regex in self._patterns])
        self._alone: dict[int, object] = {}

    def match_file(self, text: str) -> bool:
        from pathspec.util import normalize_file

        path = normalize_file(text)
        folder_match: bool | None = None
        for index in sorted(self._set.matches(path), reverse=True):
            include, regex = self._patterns[index]
            if _FOLDER_MARK not in regex or not self._matches_a_folder(index, regex, path):
                return include
            if folder_match is None:
                folder_match = include
        return bool(folder_match)

    def _matches_a_folder(self, index: int, regex: str, path: str) -> bool:
        import re2

        compiled = self._alone.get(index)
        if compiled is None:
            options = re2.Options()
            options.log_errors = False
            try:
                compiled = self._alone[index] = re2.compile(regex, options)
            except re2.error:
                return False
        match = compiled.search(_utf8_safe(path))  # type: ignore[attr-defined]
        return match is not None and bool(match.group(_FOLDER_GROUP))


def _pattern(line: str) -> Any:
    """A ``.gitignore`` line as pathspec reads it (``GitIgnoreSpec.from_lines`` reads each
    non-empty line so); None for a line it refuses (``[z-a]``, a reversed range, raised
    for the whole file, and ended the run)."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    if not line:
        return None
    with warnings.catch_warnings():  # Python's "possible nested set", on stderr
        warnings.simplefilter("ignore")
        try:
            return GitIgnoreSpecPattern(line)
        except (re.error, ValueError, TypeError):
            return None


_FOLDER_GROUP = "ps_d"
_FOLDER_MARK = f"(?P<{_FOLDER_GROUP}>/)"
"""The group pathspec's gitignore patterns mark a folder match with
(``pathspec/patterns/gitignore/spec.py`` ``_DIR_MARK_CG``)."""


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
    # Up to the nearest folder already known (or a link, or the top), then down again:
    # a loop, not a recursion, for trees thousands of folders deep.
    below: list[tuple[str, str]] = []
    current = folder
    real = _REAL_FOLDERS.get(current)
    while real is None:
        parent, name = os.path.split(current)
        if not name or name in (".", "..") or parent == current or os.path.islink(current):
            real = _REAL_FOLDERS[current] = os.path.realpath(current)
            break
        below.append((current, name))
        current = parent or "."
        real = _REAL_FOLDERS.get(current)
    for path, name in reversed(below):
        real = _REAL_FOLDERS[path] = os.path.join(real, name)
    return real


def _package_parts(folder: str) -> tuple[str, ...]:
    """The package names from the outermost package down to ``folder`` (empty when
    ``folder`` is not a package); cached per folder."""
    below: list[tuple[str, str]] = []
    current = folder
    parts = _PACKAGE_CACHE.get(current)
    while parts is None:
        parent, name = os.path.split(current)
        if parent == current or not (
            os.path.exists(os.path.join(current, "__init__.py")) or _namespace_in_package(current)
        ):
            parts = _PACKAGE_CACHE[current] = ()
            break
        below.append((current, name))
        current = parent
        parts = _PACKAGE_CACHE.get(current)
    for path, name in reversed(below):
        parts = _PACKAGE_CACHE[path] = (*parts, name)
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
