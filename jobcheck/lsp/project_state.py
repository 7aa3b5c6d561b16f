"""What the language server knows about one project: its configuration, every file's
facts, and the open buffers' syntax trees.

The project is analysed once, when the first document in it is opened (discovery, the
prefilter and extraction, as ``jobcheck check`` does). After that an edit re-extracts
only the edited buffer (parsed whole, see :mod:`jobcheck.lsp.buffers`), swaps its
facts into the dict, rebuilds the project model from all facts and reruns the checks, so
a finding in ``tasks.py`` that depends on ``settings.py`` follows the unsaved text of
either. Everything here runs on the server's single lint thread, but for the fixes of a
run's findings (:meth:`ProjectState.fixer`), computed from a snapshot when asked for.
"""

from __future__ import annotations

import os
import stat
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from jobcheck import guarded
from jobcheck.catalog import UnknownRuleError, load_catalog
from jobcheck.config import ConfigError, Layer, Options, find_config, load
from jobcheck.discovery import (
    DiscoveryError,
    SourceFile,
    _excluded,
    default_excludes,
    discover_for,
    module_name,
)
from jobcheck.engine import (
    RunSettings,
    Selection,
    _read,
    _second_pass,
    analyse,
    check_facts,
    read_docs,
)
from jobcheck.extract import files
from jobcheck.facts import DocFile, FileFacts
from jobcheck.findings import Finding
from jobcheck.fixes import Fixer
from jobcheck.guarded import Boundary
from jobcheck.lsp.buffers import ParsedBuffer, extract_buffer, parse_buffer
from jobcheck.lsp.limits import MAX_DOCUMENT_BYTES
from jobcheck.project.lazy import ModuleLoader
from jobcheck.registry import semantics
from jobcheck.syntax.source import SourceError

# Markers of a project's top folder, when no [tool.jobcheck] config names one.
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git", "manage.py")

CheckErrorLog = Callable[[str], None]
CheckErrorHandler = Callable[[str, str, Exception], None]

MAX_CULPRITS = 3
"""Files a failing check may be run without; failing on more, it is skipped."""
MAX_ISOLATION_RUNS = 48
"""Runs of a failing check's rule, at most, spent finding the files it fails on (one
file among a thousand takes about a dozen)."""


@dataclass
class CheckRun:
    """The result of one run of the checks over the whole project."""

    findings: dict[str, list[Finding]]
    """Path -> findings, for every file that has some."""
    errors: list[str] = field(default_factory=list)
    """Checks that raised (each one skipped), as messages for the client's log."""


@dataclass
class BufferState:
    parsed: ParsedBuffer | None = None
    text: str = ""
    error: str | None = None
    """The syntax error of the current text, when it does not parse."""
    too_large: bool = False
    """The text is over the size limit: it is not parsed and the file has no facts."""


def find_root(path: Path) -> Path | None:
    """The top folder of the project ``path`` belongs to: the folder of the nearest
    ``pyproject.toml`` with a ``[tool.jobcheck]`` table, else the nearest folder with a
    project marker; None when no project holds the file (a scratch file in ``/tmp``).

    The search stops below the first folder too wide to be a project (the home folder,
    the file system's root, a shared temporary folder such as ``/tmp``): a home folder
    that keeps its dotfiles in git is no project, and a marker or configuration someone
    else left in ``/tmp`` must not make every scratch file there part of one."""
    folders = project_folders(path)
    try:
        config = find_config(path)
    except ConfigError:  # a broken pyproject.toml: load_options reports it
        config = None
    if config is not None and config.parent in folders:
        return config.parent
    for folder in folders:
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
    return None


def project_folders(path: Path) -> list[Path]:
    """The folders above ``path`` that may be its project's root, nearest first: those
    below the first folder too wide to be one."""
    folders: list[Path] = []
    start = path.parent if path.suffix else path
    for folder in (start, *start.parents):
        if too_wide(folder):
            break
        folders.append(folder)
    return folders


def too_wide(folder: Path | str) -> bool:
    """Whether ``folder`` is too wide to be a project: the home folder, the file
    system's root, or a folder anyone may write to (``/tmp``: world-writable, sticky)."""
    key = path_key(folder)
    if key in (path_key(Path.home()), path_key("/")):
        return True
    try:
        mode = os.stat(key).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IWOTH and mode & stat.S_ISVTX)


def load_options(
    root: Path, alone: bool = False, editor: Layer | None = None
) -> tuple[Options, Selection, str | None]:
    """The project's options and enabled checks; on a configuration error the defaults,
    with the error's message (the server shows it rather than refusing to lint). A file
    analysed ``alone`` has no project, so no configuration: the defaults; so does a
    configuration in a folder too wide to be a project's (see :func:`find_root`)."""
    catalog = load_catalog()
    try:
        found = None if alone else find_config(root)
        if found is not None and too_wide(found.parent):
            found = None
        options = load(found) if found else Options(root=str(root))
        selection = Selection.for_options(catalog, options, editor)
        for codes in options.per_file_ignores.values():
            for code in codes:
                catalog.resolve(code)
        return options, selection, None
    except (ConfigError, UnknownRuleError) as error:
        options = Options(root=str(root))
        return options, Selection.resolve(catalog, options.select, options.ignore), str(error)


class ProjectState:
    def __init__(
        self, root: Path, jobs: int = 0, alone: bool = False, editor: Layer | None = None
    ) -> None:
        """``root``: the project's top folder; with ``alone``, a file no project holds,
        analysed by itself (its folder is never walked); ``editor``: the rule selection
        the editor's settings add on top of the project's configuration."""
        self.root = root
        self.alone = alone
        self.boundary = Boundary.of([root])
        self.options, self.selection, self.config_error = load_options(root, alone, editor)
        self.jobs = jobs
        self.facts: dict[str, FileFacts] = {}
        self.buffers: dict[str, BufferState] = {}
        self.discovered: set[str] = set()
        self.skipped: set[str] = set()
        """Discovered files the prefilter skipped (candidates for the second pass)."""
        self.too_large: set[str] = set()
        """Files on disk over the size limit: never parsed, no facts."""
        self.file_errors: list[tuple[str, str]] = []
        """(path, why) of the files the last load could not read or analyse."""
        self._second_pass_keys: tuple[frozenset[str], frozenset[str]] | None = None
        self._loaded: dict[str, FileFacts] = {}
        """Facts of skipped files that checks looked up by name (see ``_loader``)."""
        self.docs: list[DocFile] | None = None
        """The project's Markdown/reST docs (for EVT-24), read once at load."""
        self._culprits: dict[tuple[str, str], dict[str, FileFacts]] = {}
        """Check -> the files it failed on, with their facts then (see ``_isolate``)."""

    # -- the whole project --------------------------------------------------------------

    def load(self) -> None:
        """Discover and extract every file that matters, as ``jobcheck check`` does."""
        try:
            files = discover_for(self.options, [str(self.root)])
        except DiscoveryError:
            files = []
        inputs = [_read(SourceFile(Path(path_key(f.path)), f.explicit), {}) for f in files]
        self.too_large = {i.source.display for i in inputs if _too_large(i.data)}
        inputs = [i for i in inputs if i.source.display not in self.too_large]
        facts, errors = analyse(
            inputs, RunSettings(jobs=self.jobs), frozenset(self.options.django_settings)
        )
        self.file_errors = [(e.path, e.message) for e in errors]
        self.docs = (
            read_docs([str(self.root)], self.options) if self.selection.slugs_of("EVT-24") else None
        )
        self.discovered = {i.source.display for i in inputs}
        self._loaded = {}
        self.facts = {f.path: f for f in facts}
        self.skipped = self.discovered - self.facts.keys()
        self._second_pass_keys = self._wanted()
        for path, buffer in self.buffers.items():
            if buffer.too_large:
                self.facts.pop(path, None)
            else:
                self._use_buffer(path, buffer)

    def _loader(self) -> ModuleLoader:
        """Files the prefilter skipped, loaded when a check looks up a name in them (a
        model class, a task's base class), as ``jobcheck check`` does; their facts are
        kept until the file changes."""
        modules: dict[str, list[str]] = {}
        for path in sorted(self.skipped):
            modules.setdefault(module_name(Path(path))[0], []).append(path)
        return ModuleLoader(modules, self._skipped_facts, {f.module for f in self.facts.values()})

    def _skipped_facts(self, path: str) -> FileFacts | None:
        buffer = self.buffers.get(path)
        if path in self.too_large or (buffer is not None and buffer.too_large):
            return None
        cached = self._loaded.get(path)
        if cached is None:
            item = _read(SourceFile(Path(path), explicit=False), {})
            if item.data is None:
                return None
            if _too_large(item.data):
                self.too_large.add(path)
                return None
            from jobcheck.extract import files

            cached = files.extract(path, item.data, item.module, item.is_package)
            self._loaded[path] = cached
        return None if cached.error is not None else cached

    def contains(self, path: str) -> bool:
        """Whether the file at ``path`` belongs to this project and is not excluded (by
        the default excludes, such as virtualenvs, or the configuration)."""
        try:
            relative = Path(path).relative_to(self.root)
        except ValueError:
            return False
        if path in self.discovered:
            return True
        patterns = (
            *default_excludes(self.options.include_tests),
            *self.options.exclude,
            *self.options.extend_exclude,
        )
        current = self.root
        for part in relative.parts:
            current = current / part
            if _excluded(current, patterns) or (current / "pyvenv.cfg").exists():
                return False
        return True

    # -- open buffers --------------------------------------------------------------------

    def set_buffer(self, path: str, text: str) -> str | None:
        """The editor's text of ``path`` (opened or changed). Returns the syntax error
        when the text does not parse: the file's last good facts are kept."""
        buffer = self.buffers.get(path)
        if buffer is None or buffer.too_large:
            buffer = self.buffers[path] = BufferState()
        if files.kind_of(path) is not None:
            # A manifest, crontab or Procfile: read whole by its kind's reader (no syntax
            # tree to update); a file it cannot read has no facts, as on disk.
            buffer.text = text
            self.facts[path] = files.extract(path, text.encode("utf-8"), "", False)
            self.skipped.discard(path)
            return None
        if buffer.text == text and (buffer.parsed is not None or buffer.error is not None):
            return buffer.error
        buffer.text = text
        try:
            buffer.parsed = parse_buffer(text)
            buffer.error = None
        except SourceError as error:
            buffer.error = str(error)
            return buffer.error
        self._use_buffer(path, buffer)
        return None

    def close_buffer(self, path: str) -> None:
        """The editor closed ``path``: the file on disk counts again."""
        self.buffers.pop(path, None)
        self.reload_from_disk(path)

    def drop_buffer(self, path: str) -> None:
        """The editor's text of ``path`` is over the size limit: it is not parsed, and
        the file has no facts while it stays so (its tree and facts are freed)."""
        self.buffers[path] = BufferState(too_large=True)
        self.facts.pop(path, None)
        self._loaded.pop(path, None)
        self.skipped.discard(path)

    def reload_from_disk(self, path: str) -> None:
        """``path`` changed on disk (or its buffer was closed): re-read it, unless an
        open buffer holds it."""
        if path in self.buffers:
            return
        self.facts.pop(path, None)
        self.skipped.discard(path)
        if not os.path.isfile(path) or not self.contains(path):
            self.discovered.discard(path)
            return
        self.discovered.add(path)
        self._loaded.pop(path, None)
        item = _read(SourceFile(Path(path), explicit=False), {})
        if _too_large(item.data):
            self.too_large.add(path)
            return
        self.too_large.discard(path)
        facts, _ = analyse([item], RunSettings(jobs=1))
        if facts:
            self.facts[path] = facts[0]
        else:
            self.skipped.add(path)

    def _use_buffer(self, path: str, buffer: BufferState) -> None:
        if buffer.parsed is None:
            return
        module, is_package = module_name(Path(path))
        self.facts[path] = extract_buffer(buffer.parsed, path, module, is_package)
        self.skipped.discard(path)

    # -- checks --------------------------------------------------------------------------

    def check(self, thorough: bool = False) -> CheckRun:
        """Run every enabled check over the project. ``thorough`` (on open and save)
        also runs the prefilter's second pass again when the project's Dramatiq actors
        or RQ job modules changed; while typing that file scan is skipped.

        A check that raises is not dropped for the whole project: the files it fails on
        are found (:meth:`_isolate`) and it runs again without them, so only those files
        go without its findings; either way the failure is in the run's errors."""
        if thorough:
            self._refresh_second_pass()
        failures: dict[tuple[str, str], Exception] = {}

        def on_error(rule: str, slug: str, error: Exception) -> None:
            failures.setdefault((rule, slug), error)

        facts = [self.facts[p] for p in sorted(self.facts)]
        errors: list[str] = []
        findings = self._run_checks(facts, self.selection, on_error)
        for (rule, slug), error in failures.items():
            found, message = self._isolate(rule, slug, error, facts)
            findings.extend(found)
            errors.append(message)
        grouped: dict[str, list[Finding]] = {}
        for finding in findings:
            grouped.setdefault(finding.path, []).append(finding)
        return CheckRun(grouped, errors)

    def _run_checks(
        self, facts: list[FileFacts], selection: Selection, on_error: CheckErrorHandler
    ) -> list[Finding]:
        findings, _ = check_facts(
            facts,
            self.options,
            selection,
            source_of=self._source_of,
            on_error=on_error,
            docs=self.docs,
            loader=self._loader(),
        )
        return findings

    def _isolate(
        self, rule: str, slug: str, error: Exception, facts: list[FileFacts]
    ) -> tuple[list[Finding], str]:
        """The findings of the check ``rule`` ``slug``, which raised ``error`` on the
        whole project, from the project less the files it fails on, and a message for
        the client's log. Those files are found by halving: the shortest run of files
        (in path order) whose removal lets the check run ends with one of them; at most
        :data:`MAX_CULPRITS` files and :data:`MAX_ISOLATION_RUNS` runs of the rule."""
        where = traceback.extract_tb(error.__traceback__)[-1]
        reason = (
            f"{type(error).__name__}: {error} ({where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
        )
        selection = Selection(frozenset(p for p in self.selection.enabled if p[0] == rule))
        runs = 0

        def findings_without(excluded: set[str]) -> list[Finding] | None:
            """The check's findings with ``excluded`` left out; None if it raised."""
            nonlocal runs
            runs += 1
            raised = False

            def on_error(failed_rule: str, failed_slug: str, _: Exception) -> None:
                nonlocal raised
                raised |= (failed_rule, failed_slug) == (rule, slug)

            kept = [f for f in facts if f.path not in excluded]
            found = self._run_checks(kept, selection, on_error)
            return None if raised else [f for f in found if (f.rule, f.check) == (rule, slug)]

        known = self._culprits.get((rule, slug), {})
        culprits = {path for path, was in known.items() if self.facts.get(path) is was}
        found = findings_without(culprits) if culprits else None
        while found is None and len(culprits) < MAX_CULPRITS:
            suspects = [f.path for f in facts if f.path not in culprits]
            culprit = self._first_culprit(suspects, culprits, findings_without)
            if culprit is None or runs >= MAX_ISOLATION_RUNS:
                break
            culprits.add(culprit)
            found = findings_without(culprits)
        if found is None:
            self._culprits.pop((rule, slug), None)
            return [], f"check {rule} {slug} failed and was skipped: {reason}"
        self._culprits[(rule, slug)] = {path: self.facts[path] for path in culprits}
        named = ", ".join(sorted(culprits))
        return found, (
            f"check {rule} {slug} failed on {named} ({reason}): it was skipped for "
            f"{'that file' if len(culprits) == 1 else 'those files'} only"
        )

    @staticmethod
    def _first_culprit(
        suspects: list[str],
        culprits: set[str],
        findings_without: Callable[[set[str]], list[Finding] | None],
    ) -> str | None:
        """The file ending the shortest run of ``suspects`` whose removal (with the
        ``culprits`` known) lets the check run; None when even removing all does not."""
        if not suspects or findings_without(culprits | set(suspects)) is None:
            return None
        low, high = 1, len(suspects)
        while low < high:
            middle = (low + high) // 2
            if findings_without(culprits | set(suspects[:middle])) is None:
                low = middle + 1
            else:
                high = middle
        return suspects[low - 1]

    def fixer(self) -> Fixer:
        """What fixes this run's findings, later, when a code action asks (on another
        thread): the facts and the open buffers' texts as they are now."""
        texts = {
            path: text
            for path, b in self.buffers.items()
            if (text := _buffer_text(path, b)) is not None
        }
        text_of = partial(_text_of, texts, self.boundary)
        return Fixer(tuple(self.facts.values()), text_of, self.options)

    def _source_of(self, path: str) -> str | None:
        buffer = self.buffers.get(path)
        text = _buffer_text(path, buffer) if buffer is not None else None
        return text if text is not None else _disk_text(path, self.boundary)

    def _wanted(self) -> tuple[frozenset[str], frozenset[str]]:
        """What decides the second pass: Dramatiq actor names and RQ job modules."""
        facts = self.facts.values()
        actors = frozenset(
            t.name for f in facts for t in f.tasks if semantics(t.framework).sends_by_actor_name
        )
        modules = frozenset(
            (site.target or "").rpartition(".")[0]
            for f in facts
            for site in f.enqueues
            if semantics(site.framework_hint).enqueues_by_reference and site.target
        )
        return actors, modules

    def _refresh_second_pass(self) -> None:
        keys = self._wanted()
        if keys == self._second_pass_keys or not self.skipped:
            return
        self._second_pass_keys = keys
        rest = [_read(SourceFile(Path(p), explicit=False), {}) for p in sorted(self.skipped)]
        rest = [item for item in rest if item.data is not None]
        chosen = _second_pass(list(self.facts.values()), rest)
        if chosen:
            for facts in analyse_all(chosen):
                self.facts[facts.path] = facts
                self.skipped.discard(facts.path)


def _text_of(buffers: dict[str, str], boundary: Boundary, path: str) -> str | None:
    """The text of ``path``: its open buffer's, else the file's on disk."""
    text = buffers.get(path)
    return text if text is not None else _disk_text(path, boundary)


def _buffer_text(path: str, buffer: BufferState) -> str | None:
    """The text a buffer holds that the checks read: a parsed Python buffer's, or the
    text of a manifest or crontab (read whole, never parsed as Python)."""
    if buffer.parsed is not None:
        return buffer.parsed.text
    return buffer.text if files.kind_of(path) is not None and not buffer.too_large else None


def _disk_text(path: str, boundary: Boundary | None = None) -> str | None:
    """A file's text on disk: a regular UTF-8 file within the size limit, inside the
    project's ``boundary``; else None."""
    try:
        return guarded.read_text(path, MAX_DOCUMENT_BYTES, boundary)
    except (OSError, UnicodeDecodeError):
        return None


def analyse_all(items: Iterable) -> list[FileFacts]:
    """Facts of files the second pass picked (no prefilter: they are known to matter),
    each read by its kind (``jobcheck/extract/files.py``)."""
    from jobcheck.extract import files

    return [files.extract(i.source.display, i.data, i.module, i.is_package) for i in items]


def _too_large(data: bytes | None) -> bool:
    return data is not None and len(data) > MAX_DOCUMENT_BYTES


def path_key(path: Path | str) -> str:
    """One spelling per file: absolute, symbolic links resolved."""
    return os.path.realpath(path)
