"""``jobcheck lsp``: the language server (pygls 2, stdio).

Diagnostics follow the editor's unsaved text: on open, on change (debounced) and on
save, the edited buffer is parsed and extracted again, the project model is rebuilt
from every file's facts and the checks run again; every open document whose findings
changed is republished, so editing ``settings.py`` updates ``tasks.py``. Closing a
document clears its diagnostics.

Work runs on one background thread, one run at a time: changes that arrive during a run
are merged into the next one. While a buffer does not parse (mid-typing), its last good
facts and diagnostics are kept, and the syntax error is logged once. A document larger
than :data:`~jobcheck.lsp.limits.MAX_DOCUMENT_BYTES` is not parsed; one diagnostic says
so. The conversation with the client (framing, malformed messages, ``exit``) is in
:mod:`jobcheck.lsp.protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from jobcheck import __version__
from jobcheck.config import Layer
from jobcheck.extract import files
from jobcheck.findings import Finding
from jobcheck.fixes import wants_fix
from jobcheck.lsp import actions
from jobcheck.lsp.buffers import split_lines
from jobcheck.lsp.collector import Collector
from jobcheck.lsp.diagnostics import overlaps, to_diagnostic, to_range
from jobcheck.lsp.hover import hover_markdown
from jobcheck.lsp.lazy_fixes import DocumentFixes
from jobcheck.lsp.limits import MAX_DOCUMENT_BYTES
from jobcheck.lsp.project_state import ProjectState, find_root, path_key, too_wide
from jobcheck.lsp.protocol import JobcheckProtocol, serve_streams

log = logging.getLogger(__name__)

TIDY_DELAY = 1.0
"""Seconds of idleness before the garbage collector's pass over what the runs left (see
:mod:`jobcheck.lsp.collector`)."""

DEFAULT_DEBOUNCE = 0.01
"""Seconds to wait after a change before linting: enough to merge the burst of
notifications one edit can send (changes that arrive during a run are merged into the
next run anyway), short against the time a run takes."""

WATCHED_FILES = (
    "**/*.py",
    "**/pyproject.toml",
    "**/jobcheck.toml",
    "**/.gitignore",
    # The other kinds jobcheck reads (jobcheck/extract/files.py): manifests and schedules.
    "**/*.yaml",
    "**/*.yml",
    "**/*.yml.erb",
    "**/*.rb",
    "**/crontab",
    "**/*.cron",
    "**/cron.d/*",
    "**/Procfile",
    "**/supervisord.conf",
)


@dataclass
class OpenDocument:
    uri: str
    path: str
    root: str
    version: int | None = None
    published: list[tuple[Finding, types.Diagnostic]] = field(default_factory=list)
    fixes: DocumentFixes | None = None
    """The automatic fixes of ``published``, made when a code action asks for them."""
    syntax_error: str | None = None
    too_large: bool = False
    """Whether the text is over the size limit (it is not parsed)."""


@dataclass
class BufferText:
    """A changed buffer, as the next run must see it."""

    path: str
    text: str | None
    """None when the buffer is over the size limit: the run drops it unparsed."""
    version: int | None


@dataclass
class Work:
    """What the next run must take into account."""

    texts: dict[str, BufferText] = field(default_factory=dict)
    """uri -> the changed buffer."""
    closed: set[str] = field(default_factory=set)
    disk: set[str] = field(default_factory=set)
    """Paths changed on disk (watched files)."""
    reload_roots: set[str] = field(default_factory=set)
    thorough: bool = False
    saved: bool = False
    documents: dict[str, OpenDocument] = field(default_factory=dict)
    """The open documents when the run was submitted (a snapshot for the lint thread)."""

    def __bool__(self) -> bool:
        return bool(self.texts or self.closed or self.disk or self.reload_roots or self.thorough)


@dataclass
class Publication:
    uri: str
    version: int | None
    entries: list[tuple[Finding, types.Diagnostic]]
    fixes: DocumentFixes | None = None


@dataclass
class RunResult:
    publications: list[Publication] = field(default_factory=list)
    messages: list[tuple[types.MessageType, str]] = field(default_factory=list)
    shown: list[tuple[types.MessageType, str]] = field(default_factory=list)
    syntax_errors: dict[str, str | None] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of the run, for the ``logTimings`` option."""

    @contextlib.contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started


class LintThread:
    """One daemon thread that runs jobs in order (a stuck run never blocks ``exit``)."""

    def __init__(self, name: str = "jobcheck-lint") -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], asyncio.Future, asyncio.AbstractEventLoop]]
        self._jobs = queue.Queue()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], Any]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((job, future, loop))
        return future

    def _work(self) -> None:
        while True:
            job, future, loop = self._jobs.get()
            try:
                result = job()
            except BaseException as error:  # reported to the awaiting coroutine
                loop.call_soon_threadsafe(_settle, future, None, error)
            else:
                loop.call_soon_threadsafe(_settle, future, result, None)


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class JobcheckLanguageServer(LanguageServer):
    protocol: JobcheckProtocol
    exit_code: int | None = None
    """The process's exit status, once the conversation with the client is over."""

    def __init__(self) -> None:
        super().__init__(
            "jobcheck",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=JobcheckProtocol,
        )
        self.debounce = DEFAULT_DEBOUNCE
        self.editor: Layer | None = None
        """The rules the editor's settings select or ignore, on top of each project's
        configuration (``initializationOptions`` or ``workspace/didChangeConfiguration``:
        ``select``, ``extendSelect``, ``ignore``, as the command line's options)."""
        self.max_document_bytes = MAX_DOCUMENT_BYTES
        self.log_timings = False
        self.jobs = 0
        self.documents: dict[str, OpenDocument] = {}
        self.projects: dict[str, ProjectState] = {}
        """Root -> state; touched only on the lint thread once created."""
        self.workspace_roots: list[str] = []
        self.lint_thread: LintThread | None = None
        self.fix_thread: LintThread | None = None
        """Where code actions have their fixes made, beside a run that may be going on."""
        self._pending = Work()
        self._timer: asyncio.TimerHandle | None = None
        self._running = False
        self._task: asyncio.Future | None = None
        self._logged: set[str] = set()
        self.run_count = 0
        self.collector = Collector()
        self._tidy_timer: asyncio.TimerHandle | None = None

    # -- the process -------------------------------------------------------------------

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Talk LSP over stdin and stdout until ``exit`` or the end of input (the exit
        code is left in ``exit_code``)."""
        if stdin is None:
            stdin = _private_stream(sys.stdin, "rb")
        if stdout is None:
            stdout = _private_stream(sys.stdout, "wb")
        self.exit_code = asyncio.run(serve_streams(self.protocol, stdin, stdout))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a request (a notification's handler failed): logged to the
        client's log once per message, not shown in a pop-up as pygls does."""
        log.error("jobcheck lsp: %s", error)
        if source is not FeatureRequestError:  # a request's error is in its response
            self._log(types.MessageType.Error, f"jobcheck: {error}")

    # -- scheduling (event loop) ------------------------------------------------------

    def request(self, delay: float | None = None) -> None:
        """Lint after ``delay`` seconds (the debounce) without further changes."""
        loop = asyncio.get_running_loop()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(self.debounce if delay is None else delay, self._start)

    def _start(self) -> None:
        self._timer = None
        if not self._running:
            self._running = True
            self._task = asyncio.ensure_future(self._run_until_idle())

    async def _run_until_idle(self) -> None:
        try:
            while self._pending:
                work, self._pending = self._pending, Work()
                self._snapshot(work)
                if self.lint_thread is None:
                    self.lint_thread = LintThread()
                try:
                    result = await self.lint_thread.submit(lambda w=work: self._lint(w))
                except Exception as error:  # a bug must not stop linting for the session
                    log.exception("jobcheck run failed")
                    self._log(types.MessageType.Error, f"jobcheck: run failed: {error!r}")
                else:
                    self._deliver(result)
                if self.collector.overdue():
                    await self.lint_thread.submit(lambda: self.collector.tidy(idle=False))
        finally:
            self._running = False
            self._tidy_when_idle()

    def _tidy_when_idle(self) -> None:
        if self._tidy_timer is not None:
            self._tidy_timer.cancel()
        self._tidy_timer = asyncio.get_running_loop().call_later(TIDY_DELAY, self._tidy)

    def _tidy(self) -> None:
        self._tidy_timer = None
        if not self._running:  # else the run's end comes back here
            self.collector.tidy()

    def _deliver(self, result: RunResult) -> None:
        for kind, message in result.messages:
            self._log(kind, message)
        for kind, message in result.shown:
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        for uri, error in result.syntax_errors.items():
            document = self.documents.get(uri)
            if document is None:
                continue
            if error is not None and document.syntax_error is None:
                self._log(
                    types.MessageType.Info,
                    f"jobcheck: {document.path} does not parse ({error}); "
                    "keeping its last diagnostics until it does",
                )
            document.syntax_error = error
        published = time.perf_counter()
        for publication in result.publications:
            document = self.documents.get(publication.uri)
            if document is None:
                continue
            if publication.uri in self._pending.texts:
                continue  # a newer text is queued: its run publishes
            document.published = publication.entries
            document.fixes = publication.fixes
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=publication.uri,
                    version=publication.version,
                    diagnostics=[diagnostic for _, diagnostic in publication.entries],
                )
            )
        self.run_count += 1
        if self.log_timings and result.publications:
            elapsed = (time.perf_counter() - published) * 1000
            self._log(types.MessageType.Log, f"jobcheck: published in {elapsed:.1f} ms")

    def _snapshot(self, work: Work) -> None:
        """Copy what the lint thread reads from the workspace, on the event loop."""
        work.documents = dict(self.documents)
        for document in work.documents.values():
            if document.root in work.reload_roots and document.uri not in work.texts:
                text = None if document.too_large else self._source(document.uri)
                work.texts[document.uri] = BufferText(document.path, text, document.version)

    def _log(self, kind: types.MessageType, message: str) -> None:
        if kind in (types.MessageType.Error, types.MessageType.Warning):
            if message in self._logged:
                return
            self._logged.add(message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # -- documents (event loop) ---------------------------------------------------------

    def document_changed(self, uri: str, thorough: bool = False) -> None:
        document = self.documents.get(uri)
        if document is None:
            return
        text_document = self.workspace.get_text_document(uri)
        document.version = text_document.version
        text = text_document.source
        size = _utf8_size(text, self.max_document_bytes)
        was_too_large, document.too_large = document.too_large, size > self.max_document_bytes
        if document.too_large:
            self._report_too_large(document, size, logged=was_too_large)
            text = None
        self._pending.texts[uri] = BufferText(document.path, text, text_document.version)
        self._pending.thorough |= thorough

    def _report_too_large(self, document: OpenDocument, size: int, logged: bool) -> None:
        """One diagnostic (and, the first time, a log line) instead of findings."""
        message = (
            f"jobcheck: this file is not checked: it is {size:,} bytes, larger than the "
            f"{self.max_document_bytes:,}-byte limit"
        )
        if not logged:
            self._log(types.MessageType.Info, f"{message} ({document.path})")
        document.published = []
        document.fixes = None
        origin = types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
        )
        diagnostic = types.Diagnostic(
            range=origin,
            message=message,
            severity=types.DiagnosticSeverity.Information,
            code="too-large",
            source="jobcheck",
        )
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri, version=document.version, diagnostics=[diagnostic]
            )
        )

    def _source(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    async def with_fixes(
        self, document: OpenDocument, entries: list[tuple[Finding, types.Diagnostic]]
    ) -> list[tuple[Finding, types.Diagnostic]]:
        """``entries`` (published ones) with the automatic fixes of their findings, made
        on the fix thread the first time they are asked for (beside a run that may be
        going on: they are made from the project as it was when they were found)."""
        fixes = document.fixes
        if fixes is None:
            return entries
        findings = [f for f, _ in entries]
        fixed = fixes.known(findings)
        if fixed is None:
            if self.fix_thread is None:
                self.fix_thread = LintThread("jobcheck-fixes")
            fixed = await self.fix_thread.submit(lambda: fixes.fixed(findings))
        return list(zip(fixed, (d for _, d in entries), strict=True))

    def open_document(
        self, uri: str, version: int | None, language: str = ""
    ) -> OpenDocument | None:
        path = to_fs_path(uri)
        if path is None and language == "python" and uri.startswith("untitled:"):
            path = _untitled_path(uri)  # a new, unsaved Python buffer: analysed alone
        if path is None or not (path.endswith((".py", ".pyi")) or files.kind_of(path)):
            return None  # neither Python nor a kind jobcheck reads (manifests, crontabs)
        key = path_key(path)
        document = OpenDocument(uri, key, self.root_for(key), version)
        self.documents[uri] = document
        return document

    def root_for(self, path: str) -> str:
        """The project a file belongs to: the folder of its [tool.jobcheck] config when
        that lies inside a workspace folder, else the innermost workspace folder that
        holds it, else a guess from project markers. A file no project holds is its own
        project (its path is the root): it is analysed alone, and its folder (``/tmp``,
        the home folder) is never walked. Workspace folders too wide to be a project
        (the home folder, ``/``) count as none."""
        inside = [r for r in self.workspace_roots if _is_within(path, r) and not too_wide(r)]
        found = find_root(Path(path))
        guess = path_key(found) if found is not None else None
        if inside:
            innermost = max(inside, key=len)
            if guess is not None and _is_within(guess, innermost) and guess != innermost:
                return guess
            return innermost
        return guess if guess is not None else path

    # -- the run (lint thread) -------------------------------------------------------------

    def _project(self, root: str, result: RunResult) -> ProjectState:
        state = self.projects.get(root)
        if state is None:
            # A root that is no folder is a file analysed alone (see root_for).
            state = ProjectState(
                Path(root), jobs=self.jobs, alone=not os.path.isdir(root), editor=self.editor
            )
            if state.config_error:
                result.shown.append(
                    (
                        types.MessageType.Warning,
                        f"jobcheck: {state.config_error}; using the default configuration",
                    )
                )
            state.load()
            self.projects[root] = state
            result.messages.append(
                (
                    types.MessageType.Info,
                    f"jobcheck: analysed {root}: {len(state.discovered)} files, "
                    f"{len(state.facts)} relevant",
                )
            )
            if state.file_errors:
                result.messages.append((types.MessageType.Warning, _file_errors(state)))
        return state

    def _lint(self, work: Work) -> RunResult:
        started = time.perf_counter(), time.process_time()
        with self.collector.paused():
            result = self._lint_work(work)
        if self.log_timings:
            wall = (time.perf_counter() - started[0]) * 1000
            cpu = (time.process_time() - started[1]) * 1000
            stages = ", ".join(f"{k} {v * 1000:.1f}" for k, v in result.timings.items())
            result.messages.append(
                (types.MessageType.Log, f"jobcheck: run {wall:.1f} ms (cpu {cpu:.1f}): {stages}")
            )
        return result

    def _lint_work(self, work: Work) -> RunResult:
        """One run. A failure (a bug, or input jobcheck does not survive) is confined to
        the buffer, project or document it happened in, and logged: the other buffers
        are read, the other projects checked and the other documents published."""
        result = RunResult()
        for root in work.reload_roots:
            self.projects.pop(root, None)
        touched: set[str] = set(work.reload_roots)
        for path in work.closed:
            for root, state in list(self.projects.items()):
                if state.alone and path == root:
                    del self.projects[root]  # a file analysed alone: nothing else to check
                elif _is_within(path, root):
                    with _confined(result, f"re-reading {path}"):
                        state.close_buffer(path)
                    touched.add(root)
        for path in work.disk:
            for root, state in list(self.projects.items()):
                if _is_within(path, root):
                    with _confined(result, f"re-reading {path}"):
                        state.reload_from_disk(path)
                    touched.add(root)
        documents = work.documents
        for uri, buffer in work.texts.items():
            document = documents.get(uri)
            if document is None:
                continue
            with _confined(result, f"reading {buffer.path}"):
                if self._read_buffer(document, buffer, result):
                    touched.add(document.root)
        self.collector.set_aside()
        for root in touched:
            with _confined(result, f"checking {root}"):
                self._check_project(root, documents, work, result)
        return result

    def _read_buffer(self, document: OpenDocument, buffer: BufferText, result: RunResult) -> bool:
        """Take the buffer's text into its project; whether the project changed."""
        state = self._project(document.root, result)
        if not state.contains(buffer.path):
            return False
        if buffer.text is None:
            state.drop_buffer(buffer.path)
            return True
        before = state.facts.get(buffer.path)
        try:
            with result.timed("extract"):
                result.syntax_errors[document.uri] = state.set_buffer(buffer.path, buffer.text)
        except Exception:
            # The buffer's facts are unknown: it counts as unopened (its file on disk)
            # rather than keeping facts of an older text.
            state.close_buffer(buffer.path)
            raise
        # A file jobcheck could not analyse (a bug, a manifest it cannot read) has no
        # findings: say why, once each time the reason changes.
        error = getattr(state.facts.get(buffer.path), "error", None)
        if error is not None and error != getattr(before, "error", None):
            result.messages.append((types.MessageType.Warning, f"jobcheck: {buffer.path}: {error}"))
        return True

    def _check_project(
        self, root: str, documents: dict[str, OpenDocument], work: Work, result: RunResult
    ) -> None:
        state = self._project(root, result)
        with result.timed("check"):
            run = state.check(thorough=work.thorough)
        for message in run.errors:
            result.messages.append((types.MessageType.Error, f"jobcheck: {message}"))
        with result.timed("diagnostics"):
            self._publications(state, root, run.findings, documents, work, result)

    def _publications(
        self,
        state: ProjectState,
        root: str,
        findings: dict[str, list[Finding]],
        documents: dict[str, OpenDocument],
        work: Work,
        result: RunResult,
    ) -> None:
        codec = self.workspace.position_codec
        for uri, document in documents.items():
            if document.root != root or uri in work.closed:
                continue
            changed = work.texts.get(uri)
            if changed is not None and changed.text is None:
                continue  # too large: its diagnostic is published already
            buffer = state.buffers.get(document.path)
            other_kind = files.kind_of(document.path) is not None  # a manifest, a crontab
            readable = buffer is not None and (buffer.parsed is not None or other_kind)
            if buffer is None or not readable or not state.contains(document.path):
                if uri in work.texts:
                    result.publications.append(Publication(uri, document.version, []))
                continue
            if buffer.error is not None:
                continue  # keep the last good diagnostics while the buffer does not parse
            lines = buffer.parsed.lines if buffer.parsed is not None else split_lines(buffer.text)
            mine = findings.get(document.path, [])
            entries: list[tuple[Finding, types.Diagnostic]] = []
            with _confined(result, f"publishing {document.path}"):
                entries = [(f, to_diagnostic(f, lines, codec)) for f in mine]
            if len(entries) != len(mine):
                continue  # the conversion failed (logged): the last diagnostics stay
            if changed is not None or _differ(entries, document.published):
                version = changed.version if changed is not None else document.version
                # Fixes are made when a code action asks: see jobcheck/lsp/lazy_fixes.py.
                fixes = DocumentFixes(state.fixer()) if any(map(wants_fix, mine)) else None
                result.publications.append(Publication(uri, version, entries, fixes))


def _file_errors(state: ProjectState, shown: int = 3) -> str:
    """One log line for the files of a project that could not be analysed."""
    errors = sorted(state.file_errors)
    named = "; ".join(f"{path}: {message}" for path, message in errors[:shown])
    more = f" (and {len(errors) - shown} more)" if len(errors) > shown else ""
    return f"jobcheck: {len(errors)} files of {state.root} could not be analysed: {named}{more}"


@contextlib.contextmanager
def _confined(result: RunResult, doing: str) -> Iterator[None]:
    """Log an error raised while ``doing`` (one line in the client's log and in the
    server's, the traceback at debug level) and go on with the rest of the run."""
    try:
        yield
    except Exception as error:
        log.warning("jobcheck lsp: failed %s: %s: %s", doing, type(error).__name__, error)
        log.debug("jobcheck lsp: the error", exc_info=True)
        result.messages.append(
            (types.MessageType.Error, f"jobcheck: failed {doing}: {type(error).__name__}: {error}")
        )


def _utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of ``text``; below ``limit`` when it cannot exceed it (a
    character takes one to four bytes), without encoding it."""
    if 4 * len(text) <= limit:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _differ(
    entries: list[tuple[Finding, types.Diagnostic]],
    published: list[tuple[Finding, types.Diagnostic]],
) -> bool:
    return [d for _, d in entries] != [d for _, d in published]


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


UNTITLED_FOLDER = "/jobcheck-untitled"
"""Where an untitled buffer is taken to live: a folder that does not exist, so nothing
is read from disk beside the buffer and nothing is ever written."""


def _untitled_path(uri: str) -> str:
    """A path for an untitled buffer (``untitled:Untitled-1``): its name, made safe."""
    import hashlib
    import re

    name = re.sub(r"[^A-Za-z0-9_-]", "_", uri.removeprefix("untitled:"))[:40] or "buffer"
    digest = hashlib.blake2b(uri.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"{UNTITLED_FOLDER}/{name}_{digest}.py"


def editor_layer(settings: dict[str, object]) -> Layer | None:
    """The rule selection in an editor's settings (lists of codes, or comma-separated
    strings), None when they select nothing."""

    def codes(key: str) -> tuple[str, ...]:
        value = settings.get(key)
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list):
            return ()
        return tuple(str(c).strip() for c in items if isinstance(c, str) and c.strip())

    select, extend, ignore = codes("select"), codes("extendSelect"), codes("ignore")
    if not (select or extend or ignore):
        return None
    return Layer(select or None, extend, ignore)


def make_server() -> JobcheckLanguageServer:
    ls = JobcheckLanguageServer()

    @ls.feature(types.INITIALIZE)
    def initialize(ls: JobcheckLanguageServer, params: types.InitializeParams) -> None:
        options = params.initialization_options or {}
        if isinstance(options, dict):
            if isinstance(options.get("debounce"), (int, float)):
                ls.debounce = max(0.0, float(options["debounce"]))
            if isinstance(options.get("jobs"), int):
                ls.jobs = max(0, options["jobs"])
            ls.log_timings = options.get("logTimings") is True
            ls.editor = editor_layer(options)
        roots = [f.uri for f in params.workspace_folders or []]
        if not roots and params.root_uri:
            roots = [params.root_uri]
        if not roots and params.root_path:
            roots = [from_fs_path(params.root_path) or ""]
        ls.workspace_roots = [path_key(p) for p in (to_fs_path(r) for r in roots if r) if p]

    @ls.feature(types.INITIALIZED)
    async def initialized(ls: JobcheckLanguageServer, params: types.InitializedParams) -> None:
        # Analyse the workspace now, so the first document opens onto a ready project
        # (not a home folder, the file system's root or /tmp: those are never walked,
        # a file opened there is analysed alone).
        ls._pending.reload_roots.update(r for r in ls.workspace_roots if not too_wide(r))
        ls.request(0)
        await _watch_files(ls)

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JobcheckLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        document = ls.open_document(item.uri, item.version, item.language_id)
        if document is not None:
            ls.document_changed(document.uri, thorough=True)
            ls.request(0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JobcheckLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.documents:
            ls.document_changed(params.text_document.uri)
            ls.request()

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JobcheckLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in ls.documents:
            ls.document_changed(params.text_document.uri, thorough=True)
            ls._pending.saved = True
            ls.request(0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JobcheckLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        document = ls.documents.pop(params.text_document.uri, None)
        if document is None:
            return
        ls._pending.texts.pop(document.uri, None)
        ls._pending.closed.add(document.path)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=[])
        )
        ls.request()

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: JobcheckLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path is None:
                continue
            key = path_key(path)
            name = Path(key).name
            if name in ("pyproject.toml", "jobcheck.toml", ".gitignore"):
                folder = str(Path(key).parent)
                ls._pending.reload_roots.update(
                    root for root in ls.projects if _is_within(root, folder)
                )
            elif key.endswith(".py") or files.kind_of(key) is not None:
                ls._pending.disk.add(key)
        ls.request()

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: JobcheckLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("jobcheck"), dict):
            settings = settings["jobcheck"]  # VS Code sends every extension's section
        layer = editor_layer(settings) if isinstance(settings, dict) else None
        if layer != ls.editor:
            ls.editor = layer
            ls._pending.reload_roots.update(ls.projects)
            ls.request()

    @ls.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(
        ls: JobcheckLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        for folder in params.event.removed:
            path = to_fs_path(folder.uri)
            if path and path_key(path) in ls.workspace_roots:
                ls.workspace_roots.remove(path_key(path))
        for folder in params.event.added:
            path = to_fs_path(folder.uri)
            if path:
                ls.workspace_roots.append(path_key(path))

    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND]
        ),
    )
    async def code_action(
        ls: JobcheckLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return None
        # Clients send the kinds as plain strings (lsprotocol keeps unknown ones so).
        wanted = [str(getattr(k, "value", k)) for k in params.context.only or ()]
        found: list[types.CodeAction] = []
        if actions.wants(wanted, types.CodeActionKind.QuickFix.value):
            entries = [(f, d) for f, d in document.published if overlaps(d.range, params.range)]
            found += _code_actions(ls, document, await ls.with_fixes(document, entries))
        if actions.wants(wanted, actions.FIX_ALL_KIND):
            every = await ls.with_fixes(document, document.published)
            found += _fix_all(ls, document, every, explicit=bool(wanted))
        return found or None

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: JobcheckLanguageServer, params: types.HoverParams) -> types.Hover | None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return None
        point = types.Range(start=params.position, end=params.position)
        entries = [(f, d) for f, d in document.published if overlaps(d.range, point)]
        text = hover_markdown(f for f, _ in entries)
        if text is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
            range=entries[0][1].range,
        )

    @ls.command(actions.OPEN_DOCUMENTATION)
    async def open_documentation(ls: JobcheckLanguageServer, url: str) -> None:
        capabilities = ls.client_capabilities.window
        if capabilities is not None and capabilities.show_document is not None:
            await ls.window_show_document_async(types.ShowDocumentParams(uri=url, external=True))
        else:
            ls.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=f"jobcheck: {url}")
            )

    @ls.feature(types.SHUTDOWN)
    def shutdown(ls: JobcheckLanguageServer, params: None) -> None:
        if ls._timer is not None:
            ls._timer.cancel()
            ls._timer = None
        ls._pending = Work()

    return ls


def _code_actions(
    ls: JobcheckLanguageServer,
    document: OpenDocument,
    entries: list[tuple[Finding, types.Diagnostic]],
) -> list[types.CodeAction]:
    try:
        text = ls.workspace.get_text_document(document.uri).source
    except Exception:
        return []
    lines = split_lines(text)
    codec = ls.workspace.position_codec
    fixes: list[types.CodeAction] = []
    suppressions: dict[tuple[int, str], types.CodeAction] = {}
    docs: dict[str, types.CodeAction] = {}
    for finding, diagnostic in entries:
        if finding.fix is not None and finding.fix.applicability != "display":
            fixes.append(_fix_action(document.uri, finding, diagnostic, lines, codec))
        edit = actions.suppression_edit(text, lines, finding)
        if edit is not None and (edit.line, finding.rule) not in suppressions:
            suppressions[(edit.line, finding.rule)] = _suppress_action(
                document.uri, finding, diagnostic, edit, lines, codec
            )
        if finding.url and finding.url not in docs:
            docs[finding.url] = types.CodeAction(
                title=actions.documentation_title(finding),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
                    title=actions.documentation_title(finding),
                    command=actions.OPEN_DOCUMENTATION,
                    arguments=[finding.url],
                ),
            )
    return [*fixes, *suppressions.values(), *docs.values()]


def _fix_all(
    ls: JobcheckLanguageServer,
    document: OpenDocument,
    entries: list[tuple[Finding, types.Diagnostic]],
    explicit: bool,
) -> list[types.CodeAction]:
    """``source.fixAll.jobcheck``: every safe fix of the document in one edit (offered
    unasked only when there is one; asked for, even when there is nothing to do)."""
    edits = actions.fix_all_edits([f for f, _ in entries])
    if not edits and not explicit:
        return []
    try:
        lines = split_lines(ls.workspace.get_text_document(document.uri).source)
    except Exception:
        return []
    codec = ls.workspace.position_codec
    changes = [
        types.TextEdit(range=to_range(e.loc, lines, codec), new_text=e.new_text) for e in edits
    ]
    return [
        types.CodeAction(
            title=actions.FIX_ALL_TITLE,
            kind=actions.FIX_ALL_KIND,
            edit=types.WorkspaceEdit(changes={document.uri: changes}),
        )
    ]


def _fix_action(uri, finding, diagnostic, lines, codec) -> types.CodeAction:  # type: ignore[no-untyped-def]
    fix = finding.fix
    edits = [
        types.TextEdit(range=to_range(edit.loc, lines, codec), new_text=edit.new_text)
        for edit in fix.edits
    ]
    return types.CodeAction(
        title=fix.title + (" (unsafe)" if fix.applicability == "unsafe" else ""),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(changes={uri: edits}),
        is_preferred=fix.applicability == "safe",
    )


def _suppress_action(uri, finding, diagnostic, edit, lines, codec) -> types.CodeAction:  # type: ignore[no-untyped-def]
    start = codec.position_to_client_units(
        lines, types.Position(line=edit.line, character=edit.start)
    )
    end = codec.position_to_client_units(lines, types.Position(line=edit.line, character=edit.end))
    return types.CodeAction(
        title=actions.suppression_title(finding),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(
            changes={
                uri: [
                    types.TextEdit(range=types.Range(start=start, end=end), new_text=edit.new_text)
                ]
            }
        ),
    )


async def _watch_files(ls: JobcheckLanguageServer) -> None:
    """Ask the client to report changes on disk (a git checkout, a formatter), when it
    can register the watcher dynamically."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if watched is None or not watched.dynamic_registration:
        return
    registration = types.Registration(
        id="jobcheck-watched-files",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED_FILES]
        ),
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams([registration]))
    except Exception as error:  # the client refused: edits still work, disk changes do not
        ls._log(types.MessageType.Warning, f"jobcheck: cannot watch files: {error}")


def _private_stream(stream: Any, mode: str) -> BinaryIO:
    """The process's standard ``stream`` as a file object of the server's own, with
    ``sys.stdin``/``sys.stdout`` pointed at the null device. Extraction forks worker
    processes while the reader thread blocks in a read of stdin holding its buffer's
    lock; a forked child closes ``sys.stdin`` (multiprocessing does, as it starts) and
    flushes ``sys.stdout`` (as it ends), and would wait on that lock for ever."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream.buffer  # type: ignore[no-any-return]  # not a file: nothing forks on it
    own = os.fdopen(os.dup(descriptor), mode)
    null = open(os.devnull, "r" if "r" in mode else "w", encoding="utf-8")  # noqa: SIM115
    if stream is sys.stdin:
        sys.stdin = null
    elif stream is sys.stdout:
        sys.stdout = null
    return own  # type: ignore[return-value]


def serve() -> NoReturn:
    """Run the server on stdin/stdout, then end the process with the status the LSP asks
    for (0 after a ``shutdown`` request, 1 without).

    The process ends at once, without the interpreter's clean-up: the lint thread may be
    in the middle of a run, and tearing down a heap of syntax trees object by object
    takes longer than an editor waits for a server to exit. For the same reason an
    error that escapes the conversation ends the process here, with one log line: left
    to the interpreter's shutdown, it would wait on the stdin reader's lock and abort."""
    ls = make_server()
    try:
        ls.start_io()
    except Exception as error:
        log.error("jobcheck lsp: stopped by an internal error: %s: %s", type(error).__name__, error)
        log.debug("jobcheck lsp: the internal error", exc_info=True)
    code = ls.exit_code if ls.exit_code is not None else 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
