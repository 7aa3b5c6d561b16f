"""Gathering every file's facts for a run: cache, prefilter, worker processes, second
pass, and the loader that reads further modules on demand.

1. Each file is looked up in the cache (``jobcheck/cache.py``) by its ``stat``
   signature; a hit needs no reading at all.
2. The rest are read, hashed and prefiltered; the files that can matter are parsed,
   in worker processes, each within a time budget (``jobcheck/scan.py``). A file whose
   content hash is still the cached one is not parsed again; one stopped at the budget
   is an error of the report, and is not cached.
3. A second pass analyses files the first pass shows are needed though no trigger
   fired on them: modules named by ``config_from_object`` (their lower-case settings
   count), files that call ``.send(`` and name a Dramatiq actor of the project.
4. Every other project module stays available to the project model through a
   :class:`ModuleLoader`: its facts are read from the cache, or extracted here, the
   first time a check looks up a name defined in it.
5. :meth:`Analysis.finish` writes the cache once the checks have run.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jobcheck.cache import Entry, FactsCache, new_entry
from jobcheck.discovery import SourceFile, module_name
from jobcheck.discovery.reading import DEFAULT_MAX_FILE_SIZE
from jobcheck.facts import MANAGEMENT_COMMAND, FileFacts
from jobcheck.facts.values import CallV, Ref, string
from jobcheck.findings import FileError
from jobcheck.project.lazy import ModuleLoader
from jobcheck.registry import enqueued_by_call, semantics

if TYPE_CHECKING:
    from jobcheck.extract.parts import Outline
    from jobcheck.part_workers import PartWorkers
    from jobcheck.scan import FileResult, FileTask

# Rounds of the second pass (a config module that names another config module...).
_MAX_ROUNDS = 5
# The cache's record of the second pass's decisions by content.
_SECOND_PASS = "second-pass"


def _methods(method: str | None) -> frozenset[str]:
    """The methods a part of a class keeps: the one named, and ``__init__``."""
    return frozenset({method or "__init__", "__init__"})


def _group(wanted: Sequence[tuple[str, str | None]]) -> tuple[frozenset[str], frozenset[str]]:
    """The definitions and the methods of classes kept when parts of one file are read
    together."""
    names = frozenset(name for name, _ in wanted)
    return names, frozenset().union(*(_methods(method) for _, method in wanted))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off while a part is parsed and walked (its trees hold no
    cycle; collections walking them again and again cost a third of the work)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Outlines of files parts are read from here, kept while gathering: a file's parts are
# asked a call level at a time (the part workers keep their own).
_OUTLINES_KEPT = 512
# Below this many parts in a level, handing them to workers costs more than reading here.
MIN_PARTS_FOR_WORKERS = 24


@dataclass(slots=True)
class _File:
    source: SourceFile
    display: str
    module: str
    is_package: bool
    stat: os.stat_result | None = None
    data: bytes | None = None
    """An unsaved editor buffer, used instead of the file on disk."""
    entry: Entry | None = None
    """What the cache (or this run) knows about the file."""
    read_error: str | None = None
    cached: bool = False
    """Its entry is the cache's, unchanged since the run that wrote it."""

    @property
    def facts(self) -> FileFacts | None:
        return self.entry.facts if self.entry is not None else None

    @property
    def empty(self) -> bool:
        return self.entry is not None and self.entry.empty


@dataclass
class Analysis:
    facts: list[FileFacts]
    """The files the project model iterates (prefilter kept, named, or second pass)."""
    errors: list[FileError]
    loader: ModuleLoader
    cache: FactsCache | None = None
    seen: frozenset[str] = frozenset()
    """Every file of the run, as displayed."""
    stats: dict[str, int] = field(default_factory=dict)

    def all_facts(self) -> list[FileFacts]:
        """Every file analysed, including those loaded on demand by the checks."""
        return sorted([*self.facts, *self.loader.loaded], key=lambda f: f.path)

    def finish(self, roots: Sequence[str] = ()) -> None:
        """Write the cache (when anything changed), forgetting files under the walked
        ``roots`` that this run did not see."""
        if self.cache is None:
            return
        self.cache.forget_missing(list(roots), set(self.seen))
        self.cache.save()


class Gatherer:
    def __init__(
        self,
        files: Sequence[SourceFile],
        jobs: int = 0,
        prefilter: bool = True,
        cache: FactsCache | None = None,
        overrides: dict[str, bytes] | None = None,
        progress: Callable[[int, int], None] | None = None,
        always: frozenset[str] = frozenset(),
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        self.max_file_size = max_file_size
        self.always = always
        """Modules analysed whatever the prefilter says (configured settings modules)."""
        self.jobs = jobs or default_jobs()
        self.prefilter = prefilter
        self.cache = cache
        self.progress = progress
        overrides = overrides or {}
        self.files = [self._file(source, overrides.get(source.display)) for source in files]
        self.by_display = {f.display: f for f in self.files}
        self.stats: dict[str, int] = {"files": len(self.files), "cached": 0, "extracted": 0}
        self._part_workers: PartWorkers | None = None
        self._in_workers: set[str] = set()
        """Files whose parts a part worker read (it keeps their outlines)."""
        self._choices: dict[str, dict[str, bool]] = {}
        """The second pass's decisions by content, for each set of names looked for."""
        self._read_whole: dict[str, FileFacts] = {}
        """Files parts were asked of that CPython cannot outline, read whole."""
        self._outlines: OrderedDict[str, Outline | None] = OrderedDict()
        """The outlines of the files parts were last read from (a summary asks several
        helpers of one module in a row)."""

    # -- the passes ------------------------------------------------------------------------

    def run(self) -> Analysis:
        self._lookup_cache()
        self._scan(
            [
                f
                for f in self.files
                if f.read_error is None and (f.entry is None or self._needs_facts(f))
            ]
        )
        analysed = {f.display for f in self.files if self._analysed(f)}
        for _ in range(_MAX_ROUNDS):
            wanted = self._second_pass(analysed)
            if not wanted:
                break
            self._scan(wanted, analyse=True)
            analysed |= {f.display for f in wanted}
        from jobcheck.scan import close_workers

        close_workers()  # the scans' workers, kept from round to round
        # A file named on the command line that is empty is an error, not a module.
        analysed -= {f.display for f in self.files if f.source.explicit and f.empty}
        facts = sorted(
            (f.facts for f in self.files if f.display in analysed and f.facts is not None),
            key=lambda f: f.path,
        )
        return Analysis(
            facts,
            self._errors(analysed),
            self._loader(analysed),
            self.cache,
            frozenset(self.by_display),
            self.stats,
        )

    def _file(self, source: SourceFile, data: bytes | None) -> _File:
        module, is_package = module_name(source.fspath, source.symlink)
        return _File(source, source.display, module, is_package, data=data, read_error=source.error)

    def _lookup_cache(self) -> None:
        for f in self.files:
            if f.data is not None or f.read_error is not None:
                continue
            try:
                f.stat = os.stat(f.source.fspath)
            except OSError:
                f.stat = None
                continue
            if self.cache is None:
                continue
            entry = self.cache.get(f.display)
            if entry is not None and entry.fresh(f.stat, f.module, f.is_package):
                f.entry = entry
                f.cached = True
                self.stats["cached"] += 1

    def _needs_facts(self, f: _File) -> bool:
        return f.entry is not None and f.entry.facts is None and self._must_analyse(f)

    def _must_analyse(self, f: _File) -> bool:
        return f.source.explicit or not self.prefilter

    def _analysed(self, f: _File) -> bool:
        if f.entry is None:
            return False
        return f.entry.kept or self._must_analyse(f)

    def _scan(self, files: list[_File], analyse: bool = False) -> None:
        """Read, hash, prefilter and extract ``files`` (in worker processes)."""
        if not files:
            return
        from jobcheck.scan import file_budget, scan_all

        tasks = [self._task(f, analyse) for f in files]
        results = scan_all(
            tasks, self.jobs, self.prefilter, self.progress, file_budget(), keep_workers=True
        )
        for f, result in zip(files, results, strict=True):
            self._record(f, result)

    def _task(self, f: _File, analyse: bool) -> FileTask:
        from jobcheck.scan import FileTask

        must = analyse or self._must_analyse(f)
        cached = self._cached_entry(f)
        # The cached entry is enough, if the content still has its hash, when it holds
        # facts or no facts are needed.
        sufficient = cached is not None and (cached.facts is not None or not (cached.kept or must))
        return FileTask(
            display=f.display,
            path=f.source.fspath,
            module=f.module,
            is_package=f.is_package,
            size=f.stat.st_size if f.stat is not None else len(f.data or b""),
            data=f.data,
            analyse=must,
            known_digest=cached.digest if cached is not None else None,
            need_facts=not sufficient,
            max_size=self.max_file_size,
        )

    def _cached_entry(self, f: _File) -> Entry | None:
        if self.cache is None or f.data is not None:
            return None
        cached = self.cache.get(f.display)
        if cached is None or cached.module != f.module or cached.is_package != f.is_package:
            return None
        return cached

    def _record(self, f: _File, result: FileResult) -> None:
        if result.digest is None:
            f.read_error = result.read_error
            return
        # Its content is the one the cache describes (its time changed, not its bytes).
        f.cached = result.unchanged
        if result.unchanged:
            cached = self._cached_entry(f)
            assert cached is not None
            kept, sends, facts, empty = cached.kept, cached.sends, cached.facts, cached.empty
        else:
            kept, sends, facts, empty = result.kept, result.sends, result.facts, result.empty
            if facts is not None:
                self.stats["extracted"] += 1
        f.entry = new_entry(
            f.stat,
            result.digest,
            f.module,
            f.is_package,
            kept,
            sends,
            facts,
            result.read_at_ns,
            empty,
        )
        # A file stopped at the time budget is not cached: a quieter machine may finish it.
        if self.cache is not None and f.data is None and not result.over_budget:
            self.cache.put(f.display, f.entry)

    # -- the second pass ---------------------------------------------------------------------

    def _second_pass(self, analysed: set[str]) -> list[_File]:
        """Files not analysed yet that analysed files show are needed."""
        facts = [self.by_display[d].facts for d in analysed]
        wanted = wanted_by([f for f in facts if f is not None], self.always)
        wanted.modules |= self._run_by_commands([f for f in facts if f is not None])
        known = self._known_choices(wanted.fingerprint())
        decided = False
        chosen: list[_File] = []
        for f in self.files:
            if f.display in analysed or f.entry is None:
                continue
            if f.module in wanted.modules:
                chosen.append(f)
                continue
            if not wanted.by_content():
                continue
            choice = known.get(f.display)
            if not isinstance(choice, bool):
                data = f.data if f.data is not None else _read(f.source.fspath)
                choice = data is not None and wanted.wants(f.module, data, f.entry.sends)
                if f.data is None:  # an editor's unsaved text is decided afresh each time
                    known[f.display] = choice
                    decided = True
            if choice:
                chosen.append(f)
        if decided and self.cache is not None:
            self.cache.dirty = True
        return chosen

    def _known_choices(self, fingerprint: str) -> dict[str, bool]:
        """What the last run decided, for each file read for its content, when it
        looked for the same names and the file is unchanged since (a run after one file
        changed does not read the project's other thousands of files again); filled in
        as this run decides (a later round of the second pass reads none again)."""
        if fingerprint in self._choices:
            return self._choices[fingerprint]
        choices = self._choices[fingerprint] = self._stored_choices(fingerprint)
        if self.cache is not None:
            self.cache.extras[_SECOND_PASS] = (fingerprint, choices)
        return choices

    def _stored_choices(self, fingerprint: str) -> dict[str, bool]:
        if self.cache is None:
            return {}
        stored = self.cache.extras.get(_SECOND_PASS)
        if (
            isinstance(stored, tuple)
            and len(stored) == 2
            and stored[0] == fingerprint
            and isinstance(stored[1], dict)
        ):
            return {
                display: choice
                for display, choice in stored[1].items()
                if display in self.by_display and self.by_display[display].cached
            }
        return {}

    def _run_by_commands(self, facts: list[FileFacts]) -> set[str]:
        """Modules the scheduled commands run (``python manage.py x`` in a CronJob)."""
        commands = [e.command for f in facts for e in f.schedules if e.command]
        # ``call_command("x")`` and ``queue.enqueue(call_command, "x")``: the command x.
        named = {s.target for f in facts for s in f.enqueues if s.target} | {
            c.callee for f in facts for fn in f.functions.values() for c in fn.call_sites
        }
        commands += [
            f"python manage.py {name.removeprefix(MANAGEMENT_COMMAND)}"
            for name in named
            if name.startswith(MANAGEMENT_COMMAND)
        ]
        if not commands:
            return set()
        from jobcheck.project.commands import command_modules

        modules = frozenset(f.module for f in self.files)  # not copied again per command
        scripts = {f.path: f.script_commands for f in facts if f.script_commands}
        return {m for command in commands for m in command_modules(command, modules, scripts)}

    def _errors(self, analysed: set[str]) -> list[FileError]:
        errors = []
        for f in self.files:
            if f.read_error is not None:
                errors.append(FileError(f.display, f.read_error))
            elif f.source.explicit and f.entry is not None and f.empty:
                errors.append(FileError(f.display, "file is empty"))
            elif f.display in analysed and f.facts is not None and f.facts.error is not None:
                errors.append(FileError(f.display, f.facts.error))
        return sorted(errors, key=lambda e: e.path)

    # -- modules on demand ---------------------------------------------------------------------

    def _loader(self, analysed: set[str]) -> ModuleLoader:
        modules: dict[str, list[str]] = {}
        for f in self.files:
            if f.display not in analysed and f.read_error is None:
                modules.setdefault(f.module, []).append(f.display)
        all_modules = {f.module for f in self.files}
        return ModuleLoader(
            modules,
            self._load,
            all_modules,
            self._load_part,
            self._load_parts,
            on_freeze=self.gathered,
        )

    def _load(self, display: str) -> FileFacts | None:
        from jobcheck.scan import file_budget, scan_file

        f = self.by_display[display]
        if f.facts is None:
            result = scan_file(self._task(f, analyse=True), self.prefilter, file_budget())
            self._record(f, result)
        facts = f.facts
        if facts is None or facts.error is not None:
            return None
        return facts

    def _load_part(self, display: str, name: str, method: str | None) -> FileFacts | None:
        """Facts of only the top-level definition ``name`` of a file, of a class only its
        ``method`` (its ``__init__`` when no method is given: a class named alone is a
        constructor call); the file's whole facts when this run or the cache has them."""
        return self._load_group(display, [(name, method)])

    def _load_group(self, display: str, wanted: list[tuple[str, str | None]]) -> FileFacts | None:
        """Facts of the top-level definitions ``wanted`` of one file, read together."""
        f = self.by_display[display]
        if f.facts is not None:
            return None if f.facts.error is not None else f.facts
        if len(wanted) == 1:
            cached = self._cached_part(f, *wanted[0])
            if cached is not None:
                return None if cached.error is not None else cached
        from jobcheck.extract import extract_functions

        data = self._part_data(f)
        if data is None:
            return None
        outline = self._outline(display, data)
        names, methods = _group(wanted)
        facts = self._read_whole.get(display)
        if facts is None:
            with collector_paused():
                facts = extract_functions(
                    display, data, f.module, f.is_package, names, methods, outline
                )
            if outline is None:  # read whole (newer grammar): the same for every part
                self._read_whole[display] = facts
        self._store_parts(f, wanted, facts)
        return None if facts.error is not None else facts

    def _load_parts(
        self, keys: Sequence[tuple[str, str, str | None]]
    ) -> dict[tuple[str, str, str | None], FileFacts | None]:
        """Many parts at once (``ModuleLoader.prefetch``), in worker processes when
        there are enough: grouped by file, the parts of a file read together (its
        imports converted and walked once, not once per part)."""
        found: dict[tuple[str, str, str | None], FileFacts | None] = {}
        by_file: dict[str, list[tuple[str, str | None]]] = {}
        for display, name, method in keys:
            f = self.by_display[display]
            known = f.facts or self._cached_part(f, name, method)
            if known is not None:
                found[(display, name, method)] = None if known.error else known
            else:
                by_file.setdefault(display, []).append((name, method))
        many = sum(len(wanted) for wanted in by_file.values()) >= MIN_PARTS_FOR_WORKERS
        # A file a worker outlined goes back to that worker, however few parts are asked.
        to_workers = {
            display: wanted
            for display, wanted in by_file.items()
            if (many and display not in self._outlines) or display in self._in_workers
        }
        if to_workers:
            self._read_parts_in_workers(to_workers, found)
        for display, wanted in by_file.items():
            if (display, *wanted[0]) in found:
                continue
            facts = self._load_group(display, wanted)
            found.update(((display, name, method), facts) for name, method in wanted)
        return found

    def _read_parts_in_workers(
        self,
        by_file: dict[str, list[tuple[str, str | None]]],
        found: dict[tuple[str, str, str | None], FileFacts | None],
    ) -> None:
        """Parts of files not outlined here, in the part workers (each file always in
        the same one, which keeps its outline for the next level)."""
        if self.jobs < 2:
            return
        from jobcheck.part_workers import PartsTask

        tasks = []
        for display, wanted in by_file.items():
            f = self.by_display[display]
            data = self._part_data(f)
            if data is not None:
                self._in_workers.add(display)
                names, methods = _group(wanted)
                tasks.append(PartsTask(display, data, f.module, f.is_package, names, methods))
        if self._part_workers is None:
            from jobcheck.part_workers import PartWorkers
            from jobcheck.scan import close_workers

            close_workers()
            self._part_workers = PartWorkers(self.jobs)
        for task, facts in self._part_workers.read(tasks):
            wanted = by_file[task.display]
            self._store_parts(self.by_display[task.display], wanted, facts)
            result = None if facts.error else facts
            found.update(((task.display, name, method), result) for name, method in wanted)

    def gathered(self) -> None:
        """Gathering is over: the workers stop, the outlines are dropped."""
        from jobcheck.scan import close_workers

        close_workers()
        if self._part_workers is not None:
            self._part_workers.close()
            self._part_workers = None
        self._in_workers.clear()
        self._outlines.clear()
        self._read_whole.clear()

    def _cached_part(self, f: _File, name: str, method: str | None) -> FileFacts | None:
        if self.cache is None or f.data is not None or f.entry is None:
            return None
        return self.cache.get_part(f.display, f.entry.digest, f"{name}:{method}")

    def _store_parts(
        self, f: _File, wanted: list[tuple[str, str | None]], facts: FileFacts
    ) -> None:
        if self.cache is not None and f.data is None and f.entry is not None:
            keys = [f"{name}:{method}" for name, method in wanted]
            self.cache.put_part(f.display, f.entry.digest, keys, facts)

    def _part_data(self, f: _File) -> bytes | None:
        from jobcheck.discovery.reading import Oversized, ReadError, read_source

        data: object = f.data
        if data is None:
            try:
                data = read_source(f.source.fspath, self.max_file_size)
            except ReadError:
                return None
        if isinstance(data, Oversized) or not isinstance(data, bytes):
            return None
        return data

    def _outline(self, display: str, data: bytes) -> Outline | None:
        from jobcheck.extract.parts import outline

        if display in self._outlines:
            self._outlines.move_to_end(display)
            return self._outlines[display]
        with collector_paused():
            found = self._outlines[display] = outline(data)
        if len(self._outlines) > _OUTLINES_KEPT:
            self._outlines.popitem(last=False)
        return found


@dataclass
class Wanted:
    """What decides the second pass: modules needed by name, and byte patterns of
    files needed for what they contain."""

    modules: set[str]
    patterns: list[tuple[re.Pattern[bytes], bool]]
    """(pattern, only in files that call ``.send(``)."""
    in_web_handlers: re.Pattern[bytes] | None = None
    """A pattern wanted only in a web module with a request handler (SCL-16: a view that
    imports a job module may call a job directly, running its body in the request)."""
    names: frozenset[bytes] = frozenset()
    """Words every match of the patterns holds (an actor's, a wrapper's, a job module's
    name): a file with none of them is not wanted, found in one pass by RE2."""
    _screen: Callable[[bytes], bool] | None = field(default=None, init=False, repr=False)

    def wants(self, module: str, data: bytes, sends: bool) -> bool:
        if module in self.modules:
            return True
        if not self._holds_a_name(data):
            return False
        if any(
            (sends or not needs_send) and pattern.search(data) is not None
            for pattern, needs_send in self.patterns
        ):
            return True
        from jobcheck.extract.effects import looks_like_web_handlers

        pattern = self.in_web_handlers
        return (
            pattern is not None
            and pattern.search(data) is not None
            and (looks_like_web_handlers(data))
        )

    def by_content(self) -> bool:
        return bool(self.patterns) or self.in_web_handlers is not None

    def _holds_a_name(self, data: bytes) -> bool:
        if not self.names:
            return True
        if self._screen is None:
            from jobcheck.triggers import LinearSearch

            self._screen = LinearSearch(b"|".join(re.escape(n) for n in sorted(self.names)))
        return self._screen(data)

    def fingerprint(self) -> str:
        """What decides which files are wanted for their content."""
        patterns = [(p.pattern, needs_send) for p, needs_send in self.patterns]
        web = self.in_web_handlers.pattern if self.in_web_handlers is not None else None
        return repr((patterns, web))


def wanted_by(facts: list[FileFacts], always: frozenset[str] = frozenset()) -> Wanted:
    """Files the analysed ones show are needed though no trigger fired on them:
    modules ``config_from_object`` names (their lower-case names are settings), the
    configured settings modules, modules that define RQ jobs enqueued by reference or
    functions schedules name, or the dicts of beat entries a beat setting is made of,
    files that ``.send(`` to a Dramatiq actor of the project or name a job enqueued by
    calling it (Huey), files decorated with the project's own wrapper of a job decorator
    (``job = partial(MyRQJob, ...)``), and files that call one of the project's enqueue wrappers."""
    modules = _config_modules(facts) | set(always)
    modules |= {
        (site.target or "").rpartition(".")[0]
        for f in facts
        for site in f.enqueues
        if semantics(site.framework_hint).enqueues_by_reference and site.target
    }
    modules |= {
        (entry.target or entry.task_name or "").rpartition(".")[0]
        for f in facts
        for entry in f.schedules
    }
    modules |= {ref.rpartition(".")[0] for f in facts for ref in f.beat_refs}
    modules.discard("")
    patterns: list[tuple[re.Pattern[bytes], bool]] = []
    from jobcheck.triggers import names_pattern

    actors = {t.name for f in facts for t in f.tasks if semantics(t.framework).sends_by_actor_name}
    if actors:
        pattern = names_pattern(actors)
        if pattern is not None:
            patterns.append((pattern, True))
    # Jobs enqueued by calling them (Huey): files that name one may enqueue it. A job of
    # an instance made in another file is known once the project model adopts it.
    called = {t.name for f in facts for t in f.tasks if enqueued_by_call(t.framework)}
    if any(f.foreign_objects for f in facts):
        from jobcheck.project import Project

        called |= {
            job.task.name for job in Project(facts).all_jobs if enqueued_by_call(job.framework)
        }
    if called:
        pattern = names_pattern(called)
        if pattern is not None:
            patterns.append((pattern, False))
    decorators = _custom_job_decorators(facts)
    if decorators:
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(decorators))
        patterns.append((re.compile(rb"@(?:\w+\.)*(?:" + alternatives + rb")\b"), False))
    # Calls of the project's enqueue wrappers are enqueue sites, and what callers hand a
    # function that forwards its **kwargs to a job is payload (project/wrappers.py).
    from jobcheck.project.wrappers import forwarding_functions, wrapper_functions

    wrapping = wrapper_functions(facts) | forwarding_functions(facts)
    wrappers = {qualname.rsplit(".", 1)[-1] for qualname in wrapping}
    if wrappers:
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(wrappers))
        patterns.append((re.compile(rb"(?<![\w])(?:" + alternatives + rb")\s*\("), False))
    # Subclasses of a class whose method enqueues its own class's method
    # (``queue.enqueue(cls.handle)``): each is a job (``Project.bound_sites``).
    families = _enqueuing_class_families(facts)
    if families:
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(families))
        patterns.append(
            (
                re.compile(rb"\bclass[ \t]+\w+[ \t]*\([^)]{0,400}?\b(?:" + alternatives + rb")\b"),
                False,
            )
        )
    lasts = _job_module_names(facts)
    names = {n for n in (*actors, *called, *decorators, *wrappers, *lasts, *families) if n}
    return Wanted(
        modules, patterns, _job_module_imports(lasts), frozenset(n.encode() for n in names)
    )


def _enqueuing_class_families(facts: list[FileFacts]) -> set[str]:
    """The names of the classes whose methods enqueue a method of the class they are
    called on, and of their subclasses found so far (a deeper one is found in the
    next round)."""
    from jobcheck.project.model import is_classmethod

    family = {
        site.target.rpartition(".")[0]
        for f in facts
        for site in f.enqueues
        if site.target
        and (
            site.bound_to == "class"
            or (
                site.bound_to == "object"
                and (method := f.functions.get(site.target)) is not None
                and is_classmethod(method)
            )
        )
    }
    if not family:
        return set()
    classes = {qualname: bases for f in facts for qualname, bases in f.classes.items()}
    grew = True
    while grew:
        grew = False
        for qualname, bases in classes.items():
            if qualname not in family and family.intersection(bases):
                family.add(qualname)
                grew = True
    return {name for q in family if (name := q.rpartition(".")[2]).isidentifier()}


def _job_module_names(facts: list[FileFacts]) -> list[str]:
    """The last names of the modules that define jobs (only names an import can spell:
    a file name may hold anything, bytes included)."""
    lasts = sorted({f.module.rpartition(".")[2] for f in facts if f.tasks and f.module} - {""})
    return [n for n in lasts if n.isidentifier()]


def _job_module_imports(lasts: list[str]) -> re.Pattern[bytes] | None:
    """An import from a module that defines jobs (``from accounts.tasks import
    send_welcome``, ``from .tasks import ...``), by the module's last name."""
    if not lasts:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in lasts)
    return re.compile(
        rb"\bfrom[ \t]+[\w.]*?\b(?:" + alternatives + rb")[ \t]+import\b"
        rb"|\bimport[ \t]+[\w.]*?\b(?:" + alternatives + rb")\b"
    )


def _custom_job_decorators(facts: list[FileFacts]) -> set[str]:
    """Local names of the project's own wrappers of job decorators."""
    from jobcheck.project import Project
    from jobcheck.project.model import custom_decorator_roots

    # Only a name for another, a call (not a literal), or a class built on a job
    # library's decorator class can stand for a decorator.
    roots = custom_decorator_roots()
    if not any(isinstance(v, (Ref, CallV)) for f in facts for v in f.aliases.values()) and not any(
        base in roots for f in facts for bases in f.classes.values() for base in bases
    ):
        return set()
    project = Project(facts)
    return {
        qualname.rsplit(".", 1)[-1]
        for f in facts
        for qualname in (*f.aliases, *f.classes)
        if project.resolve_callable(qualname) is not None
    }


def _config_modules(facts: list[FileFacts]) -> set[str]:
    """Modules that ``config_from_object`` names: their lower-case names are settings."""
    modules = set()
    for f in facts:
        for source in f.config_sources:
            target = string(source.target)
            if target is not None:
                modules.add(target.split(":")[0])
            elif isinstance(source.target, Ref):
                modules.add(source.target.qualname)
    return modules


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None


def default_jobs() -> int:
    """Worker processes by default: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
