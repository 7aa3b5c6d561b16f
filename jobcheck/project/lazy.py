"""Loading project modules on demand, when the project model looks up a name in them.

The prefilter skips files that mention no job system: model modules, helpers, a task's
base class in a shared module. Checks still need some of their facts, always by name:
"is ``shop.models.Order`` a model class?", "what does the base class ``core.tasks.Base``
set?". The project model keeps its by-name indexes in the mappings below; a lookup that
misses asks the :class:`ModuleLoader` for the modules the name could live in, and the
facts of those files join the indexes. So a run with the prefilter sees the same facts,
for every name a check asks about, as a run that parsed every file, while parsing only
the files a check actually reaches.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping

from jobcheck.facts import FileFacts

PartKey = tuple[str, str, "str | None"]
"""(path, top-level name, method of it): a part of a file (``ModuleLoader.part_for``)."""


class ModuleLoader:
    """Facts of project files that were not analysed, by module name."""

    def __init__(
        self,
        modules: dict[str, list[str]],
        load: Callable[[str], FileFacts | None],
        all_modules: Iterable[str] = (),
        load_part: Callable[[str, str, str | None], FileFacts | None] | None = None,
        load_parts: Callable[[list[PartKey]], dict[PartKey, FileFacts | None]] | None = None,
        on_freeze: Callable[[], None] | None = None,
    ) -> None:
        """``modules``: module name -> paths of the files not analysed yet;
        ``load(path)``: the facts of one of them (None when it cannot be read);
        ``all_modules``: every module of the project, analysed or not."""
        self._modules = modules
        self._load = load
        self._load_part = load_part
        """``load_part(path, name, method)``: the facts of only the top-level definition
        ``name`` (of a class, only its ``method`` when given)."""
        self._load_parts = load_parts
        """``load_parts(keys)``: many parts at once (in worker processes)."""
        self._parts: dict[PartKey, FileFacts | None] = {}
        self.all_modules = frozenset(all_modules) | frozenset(modules)
        self.loaded: list[FileFacts] = []
        self._tried: set[str] = set()
        self._on_freeze = on_freeze
        self.frozen = False
        """Set once gathering ends (:meth:`freeze`): nothing is read or parsed after."""
        self.missed: list[str] = []
        """Names asked for after the freeze whose module was never read (for tests and
        ``--statistics``)."""
        self.deferred: dict[PartKey, None] | None = None
        """While set (:meth:`start_deferring`), the parts asked are noted here instead of
        read, to be read together."""

    def freeze(self) -> None:
        """Gathering is over: from now on a name whose module was not read is unknown,
        as if the project did not define it."""
        self.frozen = True
        if self._on_freeze is not None:
            self._on_freeze()

    def part_for(self, qualname: str) -> list[FileFacts]:
        """Facts of just the top-level definition ``qualname`` names (``pkg.mod.f`` or
        ``pkg.mod.Class.method``), from the module it may be defined in, without the rest
        of that module (a call summary following a helper); the module's whole facts
        when it was loaded already, or when the loader cannot read parts."""
        if self._load_part is None:
            return self.load_for(qualname)
        found: list[FileFacts] = []
        for keys in self._part_keys(qualname):
            for key in keys:
                if key not in self._parts:
                    if self.frozen:
                        self.missed.append(qualname)
                        continue
                    if self.deferred is not None:
                        self.deferred[key] = None
                        continue
                    self._parts[key] = self._load_part(*key)
                facts = self._parts[key]
                if facts is not None:
                    found.append(facts)
            if found:
                return found
        return found

    def prefetch(self, qualnames: Iterable[str], keys: Iterable[PartKey] = ()) -> None:
        """Read the parts :meth:`part_for` would read for each of ``qualnames``, and the
        parts ``keys``, all at once (the loader's ``load_parts``, in worker processes),
        so that the summaries asking for them one by one find them read."""
        if self._load_parts is None or self._load_part is None or self.frozen:
            return
        wanted: dict[PartKey, None] = {key: None for key in keys if key not in self._parts}
        for qualname in qualnames:
            for keys in self._part_keys(qualname):
                wanted.update((key, None) for key in keys if key not in self._parts)
                break  # the longest module first, as part_for reads them
        if wanted:
            self._parts.update(self._load_parts(list(wanted)))

    def start_deferring(self) -> None:
        """From now on, note the parts :meth:`part_for` is asked for instead of reading
        them one by one (a summary follows calls into bases, constructors and other
        modules than the level's prefetch guessed)."""
        if self._load_parts is not None and not self.frozen:
            self.deferred = {}

    def stop_deferring(self) -> list[PartKey]:
        """Stop noting parts; those noted since :meth:`start_deferring` (to read with
        the next :meth:`prefetch`)."""
        noted, self.deferred = self.deferred, None
        return [key for key in noted or () if key not in self._parts]

    def noted(self) -> int:
        """How many parts were noted so far."""
        return len(self.deferred) if self.deferred is not None else 0

    def _part_keys(self, qualname: str) -> Iterator[list[PartKey]]:
        return part_keys(qualname, self._modules, self._tried, self.all_modules)

    def modules(self) -> dict[str, list[str]]:
        """Module name -> paths of the files not analysed (a copy)."""
        return {module: list(paths) for module, paths in self._modules.items()}

    def restricted(self, keep: Callable[[str], bool]) -> ModuleLoader:
        """A loader of the files whose path ``keep`` accepts (one copy of a project
        that a tree holds several times, ``jobcheck/project/units.py``); files it loads
        are also listed in this loader's ``loaded``."""
        modules = {m: [p for p in paths if keep(p)] for m, paths in self._modules.items()}
        narrowed = ModuleLoader(
            {m: p for m, p in modules.items() if p},
            self._load,
            self.all_modules,
            load_part=self._load_part,
            load_parts=self._load_parts,
            on_freeze=self._on_freeze,
        )
        narrowed.loaded = self.loaded
        narrowed.frozen = self.frozen
        narrowed.missed = self.missed
        return narrowed

    def load_for(self, qualname: str) -> list[FileFacts]:
        """Load the module ``qualname`` is defined in (its longest dotted prefix that
        is a module of the project: ``a.b.c`` in module ``a.b`` is never defined in
        package ``a``); the newly loaded files."""
        found: list[FileFacts] = []
        module = defining_module(qualname, self.all_modules)
        if module is None or module in self._tried:
            return found
        self._tried.add(module)
        if self.frozen:
            self.missed.append(qualname)
            return found
        for path in self._modules.get(module, ()):
            facts = self._load(path)
            if facts is not None:
                self.loaded.append(facts)
                found.append(facts)
        return found


def part_keys(
    qualname: str,
    modules: Mapping[str, list[str]],
    loaded: Container[str] = (),
    all_modules: Container[str] | None = None,
) -> Iterator[list[PartKey]]:
    """The parts that may define ``qualname``, for each module of ``modules`` (module
    name -> paths) it may be in, longest first, skipping modules ``loaded`` whole. A
    part is (path, top-level name, method): a class named without a method is read for
    its ``__init__`` (a constructor call), so the two share a key. With ``all_modules``
    (every module of the project, read or not), only the module defining ``qualname``."""
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if all_modules is not None and module not in all_modules:
            continue
        paths = modules.get(module)
        if not paths or module in loaded:
            if all_modules is not None:
                return  # the defining module was read whole: the indexes have it
            continue  # loaded whole: the project's indexes have it
        name = parts[end]
        method = parts[end + 1] if end + 2 == len(parts) else None
        yield [(path, name, method or "__init__") for path in paths]
        if all_modules is not None:
            return


def defining_module(qualname: str, modules: Container[str]) -> str | None:
    """The module of ``modules`` that defines ``qualname``: its longest dotted prefix
    that is one (None when no prefix is)."""
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if module in modules:
            return module
    return None


class LazyDict(dict):  # type: ignore[type-arg]
    """A dict whose missing keys trigger ``miss(key)``, which may add entries."""

    def __init__(self, data: dict, miss: Callable[[object], bool]) -> None:  # type: ignore[type-arg]
        super().__init__(data)
        self._miss = miss

    def _has(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return isinstance(key, str) and self._miss(key) and dict.__contains__(self, key)

    def __contains__(self, key: object) -> bool:
        return self._has(key)

    def __getitem__(self, key: object):  # type: ignore[no-untyped-def]
        self._has(key)
        return dict.__getitem__(self, key)

    def get(self, key: object, default=None):  # type: ignore[no-untyped-def, override]
        return dict.get(self, key, default) if self._has(key) else default


class LazySet(set):  # type: ignore[type-arg]
    """A set whose missing members trigger ``miss(member)``, which may add members."""

    def __init__(self, data: Iterable, miss: Callable[[object], bool]) -> None:  # type: ignore[type-arg]
        super().__init__(data)
        self._miss = miss

    def __contains__(self, member: object) -> bool:
        if set.__contains__(self, member):
            return True
        return isinstance(member, str) and self._miss(member) and set.__contains__(self, member)
