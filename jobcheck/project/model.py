"""The project model: indexes over every file's facts and the effective job contract."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from jobcheck.facts import (
    MANAGEMENT_COMMAND,
    NOWHERE,
    SPLAT,
    CeleryApp,
    Decorator,
    DocFile,
    EnqueueSite,
    FileFacts,
    FrameworkConfig,
    FunctionFacts,
    Loc,
    ScheduleEntry,
    Setting,
    TaskClass,
    TaskDef,
)
from jobcheck.facts.values import (
    TYPE_ALIAS,
    CallV,
    Const,
    DictV,
    EnvDefault,
    Ref,
    Value,
    is_join,
    string,
)
from jobcheck.guarded import read_text
from jobcheck.project.lazy import LazyDict, LazySet, ModuleLoader
from jobcheck.project.orm import is_model_root
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import checked, plugins, schedule_terms, semantics
from jobcheck.vocabulary.words import identifier_words

if TYPE_CHECKING:
    from jobcheck.project.contract import JobContract
    from jobcheck.project.routing import Routing
    from jobcheck.project.summaries import Summaries

# Names of the enums that models modules hold beside the models (polar's
# ``OrderBillingReasonInternal``, a StrEnum in polar/models/order.py).
_ENUM_WORDS = frozenset({"reason", "status", "enum", "choices"})


@dataclass(frozen=True)
class Resolved:
    """An option's effective value and where it was set."""

    value: Value | None
    source: str
    """"task", "base", "annotations", "settings" or "default"."""
    path: str | None = None
    loc: Loc | None = None

    @property
    def is_set(self) -> bool:
        return self.source != "default"


@dataclass(frozen=True)
class Job:
    """A job of any framework, with the file it is defined in."""

    task: TaskDef
    file: FileFacts

    @property
    def framework(self) -> str:
        return self.task.framework


class Project:
    def __init__(
        self,
        files: Sequence[FileFacts],
        source_of: Callable[[str], str | None] | None = None,
        docs: Sequence[DocFile] | None = None,
        settings_modules: Sequence[str] = (),
        celery_app: str | None = None,
        loader: ModuleLoader | None = None,
        call_depth: int = 4,
    ) -> None:
        """``loader`` loads, on demand, the facts of project modules that were not
        analysed (``jobcheck/project/lazy.py``) when a by-name lookup misses."""
        self.files = list(files)
        self.docs: list[DocFile] | None = list(docs) if docs is not None else None
        """Markdown/reST files under the runbook folders; None when none were searched
        (a run over single files cannot see the project's docs)."""
        self.settings_modules = tuple(settings_modules)
        """``django-settings``: when given, Django-style settings count only from these."""
        self.celery_app = celery_app.replace(":", ".") if celery_app else None
        """``celery-app``: the project's Celery app, when it has several or hides it."""
        self.loader = loader
        self.call_depth = call_depth
        """How many calls deep summaries follow a function into its helpers."""
        self.source_of = source_of or _read_source
        self._memos: dict[str, dict[Any, Any]] = {}
        self.by_path = {f.path: f for f in self.files}
        self.foreign_objects = {q for f in self.files for q in f.foreign_objects}
        self.instances: dict[str, str] = {
            q: cls for f in self.files for q, cls in f.instances.items()
        }
        self.classes: dict[str, tuple[str, ...]] = {
            q: bases for f in self.files for q, bases in f.classes.items()
        }
        self._model_roots = {m.qualname for f in self.files for m in f.models}
        self.functions: dict[str, tuple[FileFacts, FunctionFacts]] = {
            qualname: (f, fn) for f in self.files for qualname, fn in f.functions.items()
        }
        self.task_classes: dict[str, tuple[FileFacts, TaskClass]] = {
            tc.qualname: (f, tc) for f in self.files for tc in f.task_classes
        }
        if loader is not None:
            self._load_on_demand()
        self.apps: list[tuple[FileFacts, CeleryApp]] = [
            (f, a)
            for f in self.files
            for a in f.apps
            if a.made_by is None or self._is_app_class(a.made_by)
        ]
        self.every_app = frozenset(a.qualname for _, a in self.apps)
        self.unmatched_options = self._unmatched_options()
        if self.celery_app not in self.every_app and self.every_app:
            self.celery_app = None  # warned: read every app, as without the option
        chosen = [(f, a) for f, a in self.apps if a.qualname == self.celery_app]
        if chosen:
            self.apps = chosen
        self._aliases: dict[str, Value] = {
            name: value for f in self.files for name, value in f.aliases.items()
        }
        if loader is not None:
            self._aliases = LazyDict(self._aliases, self._load_for)
        self.all_jobs: list[Job] = [
            Job(self.with_values(own), f)
            for f in self.files
            for task in f.tasks
            if (own := self._own_task(task)) is not None
        ]
        for plugin in plugins():
            self.all_jobs.extend(semantics(plugin.name).class_based_jobs(self))
        self.jobs: list[Job] = [job for job in self.all_jobs if checked(job.framework)]
        self.jobs.extend(self._custom_decorator_jobs())
        self._by_qualname = {job.task.qualname: job for job in self.jobs}
        self._by_tail: dict[str, list[Job]] = {}
        for job in self.jobs:
            self._by_tail.setdefault(_tail(job.task.qualname), []).append(job)
        self._by_registered: dict[str, Job] = {}
        for job in self.jobs:
            if job.task.registered_name:
                self._by_registered.setdefault(job.task.registered_name, job)
        self._config_modules = self._find_config_modules()

    # -- jobs -------------------------------------------------------------------

    def _own_task(self, task: TaskDef) -> TaskDef | None:
        """The job a recognized task really is: its framework may hand it to another
        (``@obj.task`` on an object another job library made), or drop it."""
        return semantics(task.framework).claim(self, task)

    def _custom_decorator_jobs(self) -> Iterator[Job]:
        """Functions decorated with a project's own wrapper of a job decorator:
        ``job = partial(MyJob, connection=redis)`` where ``class MyJob(rq.decorators.job)``."""
        known = {job.task.qualname for job in self.jobs}
        for f in self.files:
            for function in f.functions.values():
                if function.qualname in known:
                    continue
                for decorator in function.decorators:
                    resolved = self.resolve_callable(decorator.qualname, any_root=True)
                    if resolved is None and self._object_framework(decorator.qualname or ""):
                        # A decorator method of a job library's object made in the
                        # project (flask_dramatiq's ``dramatiq = Dramatiq(app)``).
                        resolved = (decorator.qualname or "", ())
                    if resolved is None:
                        continue
                    root, preset = resolved
                    framework = custom_decorator_roots().get(root) or self._object_framework(root)
                    if framework is None or not checked(framework):
                        continue
                    task = _custom_task(f, function, decorator, framework, preset)
                    yield Job(self.with_values(task), f)
                    break

    def alias(self, qualname: str) -> Value | None:
        """What a module-level name of the project stands for (``FileFacts.aliases``),
        loading its module on demand."""
        return self._aliases.get(qualname)

    def _is_app_class(self, qualname: str, depth: int = 0) -> bool:
        """Whether a project class subclasses a framework's application class."""
        roots = frozenset().union(*(semantics(p.name).app_classes for p in plugins()))
        if qualname in roots:
            return True
        if depth > 10:
            return False
        return any(self._is_app_class(base, depth + 1) for base in self.classes.get(qualname, ()))

    def _unmatched_options(self) -> tuple[str, ...]:
        """Configured names that name nothing in the project (a typo in
        ``django-settings`` or ``celery-app`` silently changes which settings and which
        app the checks read), each with the closest name that exists."""
        found = []
        modules = {f.module for f in self.files if f.module}
        for name in self.settings_modules:
            if modules and not any(_in_modules(m, (name,)) for m in modules):
                found.append(
                    f"django-settings '{name}' names no module jobcheck read (a typo, or a "
                    f"module outside the paths checked){_closest(name, modules)}"
                )
        if self.celery_app and self.every_app and self.celery_app not in self.every_app:
            close = _closest(self.celery_app, self.every_app)
            found.append(f"celery-app '{self.celery_app}' names no Celery app jobcheck read{close}")
        return tuple(found)

    def value(self, value: Value | None, depth: int = 0) -> Value | None:
        """``value`` with a name of a module constant replaced by the constant's value,
        from whichever module defines it (``time_limit=ONE_DAY``, ``**RETRY_POLICY``)."""
        from jobcheck.project.environment import env_default

        while isinstance(value, Ref) and depth < 10:
            if value.qualname.startswith(DJANGO_SETTINGS):
                setting = value.qualname.removeprefix(DJANGO_SETTINGS)
                bound = self._settings_constants.get(setting)
                if bound is None:
                    return value
                value, depth = bound, depth + 1
                continue
            bound = self._aliases.get(value.qualname)
            if bound is None:
                bound = self._class_attribute(value.qualname)
            if isinstance(bound, CallV):
                # A constant of another module read from the environment with a literal
                # default (redash's SCHEMAS_REFRESH_TIMEOUT = int(os.environ.get(..., 300))).
                read = env_default(bound, self.instances)
                return read if isinstance(read, EnvDefault) else value
            if not isinstance(bound, (Ref, DictV, Const)) and not is_join(bound):
                return value
            value, depth = bound, depth + 1
        if is_join(value) and depth < 10:
            return self._joined(value, depth)  # type: ignore[arg-type]
        return env_default(value, self.instances)

    def _class_attribute(self, qualname: str) -> Value | None:
        """``pkg.CleanupJob.queue_name`` set on a base class of ``CleanupJob`` (the
        nearest first, in the order the bases are written)."""
        owner, _, name = qualname.rpartition(".")
        for base in self.base_classes(owner):
            bound = dict.get(self._aliases, f"{base}.{name}")
            if bound is not None:
                return bound
        return None

    def base_classes(self, qualname: str) -> list[str]:
        """The project classes ``qualname`` inherits from that are known (read) now,
        nearest first (depth first in the order the bases are written, each once: close
        to Python's order for the single inheritance and mixins projects write)."""
        return _bases(lambda name: dict.get(self.classes, name, ()), qualname, self._class_named)

    def subclasses(self, qualname: str) -> list[str]:
        """The classes of the analysed files built on ``qualname``, directly or not, in
        a stable order (the second pass reads the files that subclass an enqueuing
        class: ``analysis.wanted_by``)."""
        return sorted(self._subclass_index.get(qualname, ()))

    @functools.cached_property
    def _subclass_index(self) -> dict[str, set[str]]:
        classes = {qualname: bases for f in self.files for qualname, bases in f.classes.items()}
        index: dict[str, set[str]] = {}
        for cls in classes:
            for base in _bases(lambda name: classes.get(name, ()), cls, self._class_named):
                index.setdefault(base, set()).add(cls)
        return index

    def _class_named(self, qualname: str) -> str:
        """The class ``qualname`` names: itself, or the one class of that name in a
        submodule of the package it goes through (``common.models.BaseJob`` for
        ``common.models.cron.BaseJob``, which the package's ``__init__`` re-exports)."""
        if dict.__contains__(self.classes, qualname):
            return qualname
        package, _, name = qualname.rpartition(".")
        candidates = [q for q in self._classes_by_name.get(name, ()) if q.startswith(package + ".")]
        return candidates[0] if len(candidates) == 1 else qualname

    @functools.cached_property
    def _classes_by_name(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for f in self.files:
            for qualname in f.classes:
                index.setdefault(qualname.rpartition(".")[2], []).append(qualname)
        return index

    def method_of(self, cls: str, name: str) -> str | None:
        """The function ``cls.name`` runs: its own method or the nearest base's (as
        defined, whether or not its facts were kept)."""
        for owner in (cls, *self.base_classes(cls)):
            qualname = f"{owner}.{name}"
            if dict.__contains__(self.functions, qualname) or qualname in self.defined_functions:
                return qualname
        return None

    def _concrete(self, cls: str, method: str) -> bool:
        """Whether an object of ``cls`` can run its ``method`` (``handle``): neither it
        nor what it calls on the object (``cls().run()``) is left to subclasses (``raise
        NotImplementedError``)."""
        if self.method_of(cls, method) is None:
            return False
        for qualname in self._runs_for(cls, method):
            known = dict.get(self.functions, qualname)
            if known is not None and known[1].not_implemented:
                return False
        return True

    @functools.cached_property
    def _settings_constants(self) -> dict[str, Value]:
        """``settings.NAME`` -> the value a settings module of the project gives NAME
        (the first one read; test settings never count)."""
        found: dict[str, Value] = {}
        for f in self.files:
            if is_test_code(f) or not self._is_settings_file(f.module):
                continue
            prefix = f"{f.module}."
            for qualname, value in f.aliases.items():
                name = qualname.removeprefix(prefix)
                if qualname.startswith(prefix) and "." not in name:
                    found.setdefault(name, value)
        return found

    def _is_settings_file(self, module: str) -> bool:
        if self.settings_modules:
            return _in_modules(module, self.settings_modules)
        return "settings" in module.split(".")

    def _joined(self, value: CallV, depth: int) -> Value:
        """The string a join of constants builds (``f"{PREFIX}-high"`` with ``PREFIX``
        a constant of another module); the join itself when a part stays unknown."""
        parts = []
        for part in value.args:
            resolved = self.value(part, depth + 1)
            if not (
                isinstance(resolved, Const)
                and isinstance(resolved.value, (str, int))
                and not isinstance(resolved.value, bool)
            ):
                return value
            parts.append(str(resolved.value))
        return Const("".join(parts))

    def with_values(self, task: TaskDef) -> TaskDef:
        """A job's options with module constants resolved and ``**options`` spread from
        a dict the project defines (an unreadable spread stays, as "any option")."""
        if not any(k == SPLAT or isinstance(v, (Ref, CallV)) for k, v in task.options):
            return task
        options: list[tuple[str, Value]] = []
        locs = dict(task.option_locs)
        extra_locs: list[tuple[str, Loc]] = []
        for key, raw in task.options:
            resolved = self.value(raw)
            spread = self._spread_items(resolved) if key == SPLAT else None
            if spread is not None:
                for name, v in spread:
                    options.append((name, self.value(v) or v))
                    extra_locs.append((name, locs.get(SPLAT, task.loc)))
                continue
            options.append((key, resolved if isinstance(resolved, (Const, DictV)) else raw))
        registered = task.registered_name
        name = dict(options).get("name")
        if isinstance(name, Const) and isinstance(name.value, str):
            registered = name.value  # ``name=OnyxCeleryTask.SYNC``, resolved
        return replace(
            task,
            options=tuple(options),
            option_locs=(*task.option_locs, *extra_locs),
            registered_name=registered,
        )

    def _spread_items(self, value: Value | None, depth: int = 0) -> list[tuple[str, Value]] | None:
        """The options a ``**spread`` dict holds, its own spreads flattened
        (``{**_RETRY, "autoretry_for": (...)}``, later keys winning as in Python); None
        when a key or a spread cannot be read."""
        if not isinstance(value, DictV) or depth > 10:
            return None
        found: dict[str, Value] = {}
        for k, v in value.items:
            if k is None:
                inner = self._spread_items(self.value(v), depth + 1)
                if inner is None:
                    return None
                found.update(inner)
            elif isinstance(k, Const) and isinstance(k.value, str):
                found[k.value] = v
            else:
                return None
        return list(found.items())

    def resolve_callable(
        self, qualname: str | None, depth: int = 0, any_root: bool = False
    ) -> tuple[str, tuple[tuple[str, Value], ...]] | None:
        """Follow aliases, ``functools.partial`` and subclassing from a project name to
        the library callable it stands for, with the keyword arguments preset on the way.
        With ``any_root``, a chain of at least one alias ends at whatever it reaches (a
        method of a job library's object: ``huey.contrib.djhuey.HUEY.task``)."""
        if qualname is None or depth > 10:
            return None
        if qualname in custom_decorator_roots():
            return qualname, ()
        alias = self._aliases.get(qualname)
        if isinstance(alias, Ref):
            return self.resolve_callable(alias.qualname, depth + 1, any_root)
        if isinstance(alias, CallV) and alias.func == "functools.partial":
            if alias.args and isinstance(alias.args[0], Ref):
                inner = self.resolve_callable(alias.args[0].qualname, depth + 1, any_root)
                if inner is not None:
                    return inner[0], (*inner[1], *alias.kwargs)
            return None
        if isinstance(alias, CallV) and alias.func is not None:
            # ``bg_task = shared_task(acks_late=True)``: what the factory returns.
            inner = self.resolve_callable(alias.func, depth + 1, any_root)
            if inner is not None:
                return inner[0], (*inner[1], *alias.kwargs)
        for base in self.classes.get(qualname, ()):
            inner = self.resolve_callable(base, depth + 1, any_root)
            if inner is not None:
                return inner
        if any_root and depth > 0 and alias is None and qualname not in self.classes:
            return qualname, ()
        return None

    def _object_framework(self, root: str) -> str | None:
        """The framework whose object's decorator method ``root`` is (``HUEY.task`` of
        djhuey, ``huey.task`` of an instance of a project subclass of ``RedisHuey``)."""
        head, _, method = root.rpartition(".")
        pending = [head, self.instances.get(head)]
        seen: set[str] = set()
        while pending and len(seen) < 20:
            cls = pending.pop(0)
            if cls is None or cls in seen:
                continue
            seen.add(cls)
            for plugin in plugins():
                owner = semantics(plugin.name)
                if plugin.owns_class(cls) and method in owner.object_decorators:
                    return plugin.name
            pending.extend(self.classes.get(cls, ()))
        return None

    def factory_framework(self, decorator: str | None) -> str | None:
        """The framework of the jobs a project decorator factory makes, when the
        decorator is one (``def task(...): ... return huey.task(...)(inner)``)."""
        if decorator is None or not isinstance(self._aliases.get(decorator), (Ref, CallV)):
            return None
        resolved = self.resolve_callable(decorator, any_root=True)
        if resolved is None:
            return None
        return custom_decorator_roots().get(resolved[0]) or self._object_framework(resolved[0])

    def job_for(self, site: EnqueueSite) -> Job | None:
        """The job an enqueue site puts on the queue, when the project defines it."""
        if site.method == "send_task":
            named = self.value(Ref(site.target)) if site.target else None
            name = named.value if isinstance(named, Const) else site.target_text
            return self._by_registered.get(name)  # type: ignore[arg-type]
        if semantics(site.framework_hint).enqueues_by_name(site):
            job = self._by_registered.get(string(site.option("function")) or "")
            return job if job is not None and job.framework == site.framework_hint else None
        if site.target is None:
            return None
        job = self._by_qualname.get(site.target)
        if job is not None:
            return job
        if not semantics(site.framework_hint).matches_by_tail:
            return None
        candidates = self._by_tail.get(_tail(site.target), [])
        return candidates[0] if len(candidates) == 1 else None

    @functools.cached_property
    def routing(self) -> Routing:
        """Queues, routes and bounds (built on first use: only queue checks need it)."""
        from jobcheck.project.routing import Routing

        return Routing(self)

    def enqueues(self) -> Iterator[tuple[FileFacts, EnqueueSite, Job | None]]:
        """Every confirmed enqueue site, with its job when the project defines it.

        ``.delay`` on something that is not a job, or ``.send`` on a signal, is not
        an enqueue: only sites whose target is a known job, a Celery canvas, a
        ``send_task``, an RQ queue call or a task imported from a ``tasks`` module
        are kept. Calls of the project's enqueue wrappers are enqueue sites too
        (``jobcheck/project/wrappers.py``); a wrapper's own call, whose job is its
        parameter, is not."""
        for f, site in self.enqueue_sites():
            if site.target_param is not None:
                continue
            if not checked(site.framework_hint):
                continue
            job = self.job_for(site)
            if job is not None:
                if semantics(job.framework).accepts_enqueue(site.method):
                    yield f, site, job
                continue
            if self._unresolved_but_certain(site):
                yield f, site, None

    @functools.cached_property
    def sites_by_job(self) -> dict[str, list[tuple[FileFacts, EnqueueSite]]]:
        """The confirmed enqueue sites of each job, by its qualname (what a contract
        reads of the calls that send it: limits given per call)."""
        found: dict[str, list[tuple[FileFacts, EnqueueSite]]] = {}
        for f, site, job in self.enqueues():
            if job is not None:
                found.setdefault(job.task.qualname, []).append((f, site))
        return found

    def enqueue_sites(self) -> Iterator[tuple[FileFacts, EnqueueSite]]:
        """Every enqueue site as written, and those made through enqueue wrappers."""
        for f in self.files:
            for site in f.enqueues:
                if site.receiver_elsewhere and not semantics(site.framework_hint).is_queue_object(
                    self, site.receiver or ""
                ):
                    continue
                yield f, site
        yield from self.wrapped_sites

    def bound_sites(self, site: EnqueueSite) -> list[EnqueueSite]:
        """An enqueue of a method of the class the enqueuing method is called on
        (``queue.enqueue(cls.handle)`` in a classmethod of ``BaseJob``): one site per
        class a caller can have: the class and its project subclasses, but those that
        leave the work to a subclass (``raise NotImplementedError``), each with its own
        method as the target (``CleanupJob.handle``); the site itself when there is
        none, or for any other enqueue. Checks of the call
        itself judge the written site once; the jobs, their bodies and their queues
        are the bound sites'."""
        if not self.per_class(site):
            return [site]
        assert site.target is not None
        owner, _, method = site.target.rpartition(".")
        found: list[EnqueueSite] = []
        seen: set[tuple[frozenset[str], Value | None]] = set()
        for cls in (owner, *self.subclasses(owner)):
            if not self._concrete(cls, method):
                continue
            bound = replace(site, target=f"{cls}.{method}")
            # A subclass that runs the same code on the same queue is no other job
            # (``Piece._delete_crossposts`` of every kind of post).
            behaviour = (
                self._runs_for(cls, method),
                self.value(self.as_bound(bound, self._site_queue(site))),
            )
            if behaviour not in seen:
                seen.add(behaviour)
                found.append(bound)
        return found or [site]

    def _runs_for(self, cls: str, method: str) -> frozenset[str]:
        """The methods an object of ``cls`` runs for its ``method``: it and what it calls
        on the object (``cls().run()``), as ``cls`` resolves them."""
        found: set[str] = set()
        pending = [method]
        while pending and len(found) < 100:
            qualname = self.method_of(cls, pending.pop())
            if qualname is None or qualname in found:
                continue
            found.add(qualname)
            known = dict.get(self.functions, qualname)
            if known is not None:
                pending += [s.callee.rpartition(".")[2] for s in known[1].call_sites if s.on_self]
        return frozenset(found)

    def _site_queue(self, site: EnqueueSite) -> Value | None:
        return self._site_queues_by_function.get((site.function, site.order))

    @functools.cached_property
    def _site_queues_by_function(self) -> dict[tuple[str | None, int], Value]:
        """The queue each enqueue site names by its own code (``SiteQueue``), by the
        function it is in and its order there."""
        found: dict[tuple[str | None, int], Value] = {}
        for f in self.files:
            functions = {site.order: site.function for site in f.enqueues}
            for named in f.site_queues:
                found[(functions.get(named.order), named.order)] = named.queue
        return found

    def per_class(self, site: EnqueueSite) -> bool:
        """Whether a site enqueues the method of whichever class its enqueuing method
        runs for: taken from the class (``cls.handle``), or from ``self`` when it is a
        classmethod (``self._execute`` is ``type(self)._execute``); a method of
        ``self`` otherwise runs for the object RQ pickles, the one method written."""
        if site.bound_to == "class":
            return site.target is not None
        if site.bound_to != "object" or site.target is None:
            return False
        owner, _, name = site.target.rpartition(".")
        known = dict.get(self.functions, self.method_of(owner, name) or "")
        return known is not None and is_classmethod(known[1])

    def as_bound(self, site: EnqueueSite, value: Value | None) -> Value | None:
        """``value`` read from the class a bound site is for: a class attribute the
        enqueuing method reads from its own class (``get_queue(cls.queue_name)``,
        ``pkg.BaseJob.queue_name``) is that class's (``pkg.CleanupJob.queue_name``)."""
        if not self.per_class(site) or not site.target or not site.function:
            return value
        if not isinstance(value, Ref):
            return value
        written = site.function.rpartition(".")[0] + "."
        bound = site.target.rpartition(".")[0]
        name = value.qualname.removeprefix(written)
        if not value.qualname.startswith(written) or "." in name:
            return value
        return Ref(f"{bound}.{name}")

    def forwarded_enqueues(self) -> Iterator[tuple[FileFacts, EnqueueSite, Job | None, str]]:
        """The payloads callers hand through a function that forwards its ``**kwargs``
        into an enqueue (``jobcheck/project/wrappers.py``), with that function's name:
        for the payload checks."""
        from jobcheck.project.wrappers import forwarded_sites

        for f, site, through in forwarded_sites(self):
            job = self.job_for(site)
            if job is not None or self._unresolved_but_certain(site):
                yield f, site, job, through

    def payload_enqueues(self) -> Iterator[tuple[FileFacts, EnqueueSite, Job | None, str | None]]:
        """Every enqueue whose arguments a payload check reads: the enqueue sites (no
        forwarding function: None), then the payloads handed through a function that
        forwards its ``**kwargs`` (with its name)."""
        for f, site, job in self.enqueues():
            yield f, site, job, None
        yield from self.forwarded_enqueues()

    @functools.cached_property
    def wrapped_sites(self) -> list[tuple[FileFacts, EnqueueSite]]:
        from jobcheck.project.wrappers import wrapped_sites

        return wrapped_sites(self)

    def certain_enqueue(self, site: EnqueueSite) -> bool:
        """Whether a call whose job the project does not define still enqueues."""
        return self._unresolved_but_certain(site)

    @functools.cached_property
    def summaries(self) -> Summaries:
        """What each function does through the functions it calls (built on use; the
        helpers the jobs reach are read at once when the first summary is asked,
        ``Summaries.prefetch``)."""
        from jobcheck.project.summaries import Summaries

        return Summaries(self, self.call_depth, roots=self._job_functions)

    def _job_functions(self) -> list[tuple[FileFacts, FunctionFacts]]:
        found = []
        for job in self.jobs:
            entry = self.functions.get(job.task.function or "")
            if entry is not None:
                found.append(entry)
        return found

    def _unresolved_but_certain(self, site: EnqueueSite) -> bool:
        if semantics(site.framework_hint).hint_is_certain(site):
            return True
        if site.method in _NEEDS_ITS_JOB:
            return False
        module = (site.target or "").rpartition(".")[0]
        return module.split(".")[-1] in ("tasks", "jobs") and module not in self.modules

    @functools.cached_property
    def modules(self) -> frozenset[str]:
        """Every module of the project (analysed or not, when a loader knows them)."""
        known = frozenset(f.module for f in self.files)
        return known | self.loader.all_modules if self.loader is not None else known

    def function(self, qualname: str | None, load: bool = True) -> FunctionFacts | None:
        """The facts of a project function; with ``load=False``, only when its module
        was analysed (no module is parsed on demand)."""
        if qualname is None:
            return None
        entry = self.functions.get(qualname) if load else dict.get(self.functions, qualname)
        return entry[1] if entry else None

    # -- models -----------------------------------------------------------------

    def is_model(self, qualname: str | None, depth: int = 0) -> bool:
        """Whether ``qualname`` is an ORM model class.

        Model files rarely mention a job system, so the prefilter skips them; a class
        the project did not analyse counts as a model when it lives in a ``models``
        module or package (``shop.models.Order``), Django's and most projects' layout."""
        if qualname is None or depth > 20:
            return False
        if qualname in self._model_roots or is_model_root(qualname):
            return True
        bases = self.classes.get(qualname)
        if bases is None:
            if self._aliases.get(qualname) == TYPE_ALIAS:
                return False  # ``EventType = Literal[...]`` in a models module
            module, _, name = qualname.rpartition(".")
            if _ENUM_WORDS & set(identifier_words(name)):
                return False  # ``OrderBillingReason``, ``InvoiceStatus``: an enum beside models
            return "models" in module.split(".") and name[:1].isupper() and not name.isupper()
        return any(self.is_model(b, depth + 1) for b in bases)

    # -- settings -----------------------------------------------------------------

    def _find_config_modules(self) -> frozenset[str]:
        modules = set()
        for f in self.files:
            for source in f.config_sources:
                target = string(source.target)
                if target is not None:
                    modules.add(target.split(":")[0])
                elif isinstance(source.target, Ref):
                    modules.add(source.target.qualname)
        return frozenset(modules)

    def _honoured(self, f: FileFacts, setting: Setting) -> bool:
        if self.settings_modules and setting.origin == "module" and setting.raw_key.isupper():
            return _in_modules(f.module, self.settings_modules)
        if self.celery_app and setting.origin == "conf" and setting.app in self.every_app:
            return setting.app == self.celery_app
        if not all(semantics(plugin.name).reads_setting(self, setting) for plugin in plugins()):
            return False
        if setting.origin != "module" or setting.raw_key.isupper():
            return True
        # Lower-case names count only in a Celery config module.
        module = f.module
        return module in self._config_modules or any(
            semantics(plugin.name).is_config_module(module) for plugin in plugins()
        )

    @functools.cached_property
    def star_importers(self) -> dict[str, frozenset[str]]:
        """Module -> the modules that import everything from it (``from .base import
        *``): settings modules built on one another."""
        found: dict[str, set[str]] = {}
        for f in self.files:
            for source in f.star_imports:
                found.setdefault(source, set()).add(f.module)
        return {module: frozenset(importers) for module, importers in found.items()}

    def settings(self, key: str) -> list[tuple[FileFacts, Setting]]:
        return self._settings_by_key.get(key, [])

    @functools.cached_property
    def _settings_by_key(self) -> dict[str, list[tuple[FileFacts, Setting]]]:
        """Honoured settings by key, built once (checks ask thousands of times)."""
        found: dict[str, list[tuple[FileFacts, Setting]]] = {}
        for f in self.files:
            for setting in f.settings:
                if self._honoured(f, setting):
                    resolved = self.value(setting.value)
                    if resolved is not setting.value and isinstance(resolved, Const):
                        setting = replace(setting, value=resolved)
                    found.setdefault(setting.key, []).append((f, setting))
        return found

    def setting(self, key: str) -> tuple[FileFacts, Setting] | None:
        found = self.settings(key)
        return found[0] if found else None

    # -- effective task options ----------------------------------------------------

    def memo(self, name: str) -> dict[Any, Any]:
        """A dictionary kept with the project for a plugin's own memoized answers
        (Celery's option chain), named so two plugins never share one."""
        return self._memos.setdefault(name, {})

    def contract(self, job: Job) -> JobContract:
        """What the job promises (``Semantics.job_contract``), made once per job: the
        checks judge it and ``jobs`` prints it."""
        memo = self.__dict__.setdefault("_contract_memo", {})
        known = memo.get(id(job))
        if known is None or known[0] is not job:
            known = memo[id(job)] = (job, semantics(job.framework).job_contract(self, job))
        return known[1]

    def task_bases(self, job: Job) -> list[str]:
        """The task classes a job is built on: its own class (class-based tasks), its
        ``base=``, the app's ``task_cls``, and their bases, nearest first."""
        own = [job.task.qualname] if job.task.kind == "class" else []
        return list(self.bases_from((*own, job.task.base, *self.app_task_classes(job)), True))

    def app_task_classes(self, job: Job) -> list[str]:
        """Classes every task of the job's app is built on (Celery's ``task_cls``)."""
        return semantics(job.framework).app_task_classes(self, job)

    def bases_from(self, start: Iterable[str | None], plain_classes: bool) -> Iterator[str]:
        """``start`` and the bases of each, breadth first, each once; the bases of
        classes that are not task classes only with ``plain_classes``."""
        pending = [name for name in start if name]
        seen: set[str] = set()
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            yield name
            entry = self.task_classes.get(name)
            if entry is not None:
                pending.extend(entry[1].bases)
            elif plain_classes:
                pending.extend(self.classes.get(name, ()))

    def outside_project(self, qualname: str, job: Job) -> bool:
        """A class of an installed library other than the job's framework (whose base
        classes set no options beyond the defaults the checks know)."""
        root = qualname.split(".")[0]
        return root not in self.root_packages and root not in semantics(job.framework).library_roots

    # -- schedules --------------------------------------------------------------------

    def job_at(self, qualname: str) -> Job | None:
        """The job whose function is exactly ``qualname``."""
        return self._by_qualname.get(qualname)

    def job_named(self, name: str | None = None, target: str | None = None) -> Job | None:
        """The job a schedule names: by the name it is registered under (a Celery task
        name, an actor name, ``"module.function"``) or by its dotted path."""
        if target is not None:
            job = self._by_qualname.get(target)
            if job is not None:
                return job
            candidates = self._by_tail.get(_tail(target), [])
            if len(candidates) == 1:
                return candidates[0]
        if name is None:
            return None
        job = self._by_registered.get(name)
        if job is None:
            # A path names a function (rq-scheduler's "module.function"), but Celery
            # looks tasks up only by registered name, which name= may have changed.
            by_path = self._by_qualname.get(name)
            if by_path is not None and semantics(by_path.framework).names_by_path:
                job = by_path
        return job if job is not None else self._by_name_suffix(name)

    def _by_name_suffix(self, name: str) -> Job | None:
        """The one job whose registered name equals ``name`` up to leading packages: the
        worker may import a module under a longer or shorter path than the files'
        layout gives (namespace packages, a source folder on ``sys.path``)."""
        found = {
            id(job): job
            for registered, job in self._by_registered.items()
            if registered.endswith("." + name) or name.endswith("." + registered)
        }
        return next(iter(found.values())) if len(found) == 1 else None

    def configs(
        self, framework: str, kind: str | None = None
    ) -> list[tuple[FileFacts, FrameworkConfig]]:
        """A job system's configurations (a Huey instance, arq ``WorkerSettings``, a taskiq
        broker, an APScheduler scheduler...), of one kind when ``kind`` is given."""
        return [
            (f, config)
            for f, config in self._configs_by_framework.get(framework, ())
            if kind is None or config.kind == kind
        ]

    @functools.cached_property
    def _configs_by_framework(self) -> dict[str, list[tuple[FileFacts, FrameworkConfig]]]:
        found: dict[str, list[tuple[FileFacts, FrameworkConfig]]] = {}
        for f in self.files:
            for config in f.configs:
                found.setdefault(config.framework, []).append((f, config))
        return found

    def schedules(self) -> list[tuple[FileFacts, ScheduleEntry]]:
        """Every schedule entry of the project outside test code (a test project's
        settings schedule nothing in production), of the frameworks the checks read."""
        return [(f, entry) for f, entry in self.all_schedules() if checked(entry.framework)]

    def all_schedules(self) -> list[tuple[FileFacts, ScheduleEntry]]:
        """Every schedule entry outside test code, of every framework: a dict of entries
        kept apart counts once a beat setting (outside test code) names it."""
        return self._all_schedules

    @functools.cached_property
    def _all_schedules(self) -> list[tuple[FileFacts, ScheduleEntry]]:
        files = [f for f in self.files if not is_test_code(f)]
        named = {ref for f in files for ref in f.beat_refs}
        found = [(f, e) for f in files for e in f.schedules if e.holder is None]
        written = {(f.path, e.loc) for f, e in found}
        found += [
            (f, e)
            for f in files
            for e in f.schedules
            if e.holder is not None and e.holder in named and (f.path, e.loc) not in written
        ]
        resolved = [(f, semantics(e.framework).with_scheduler_defaults(self, e)) for f, e in found]
        return [(f, e) for f, e in resolved if e is not None]

    def scheduled_jobs(self) -> list[tuple[FileFacts, ScheduleEntry, Job | None]]:
        """Every schedule entry (outside test code), with the job it runs when the
        project defines that job (None for library tasks, plain functions, unknown names).
        An entry whose function only enqueues jobs (an APScheduler job calling
        ``report.delay()``) runs those jobs: it comes once with each of them."""
        found: list[tuple[FileFacts, ScheduleEntry, Job | None]] = []
        for f, entry in self.schedules():
            job = self.job_named(entry.task_name, entry.target)
            if job is None and (called := schedule_terms(entry).enqueued_job_name):
                job = self.job_named(called)
            delegated = [] if job is not None else self.delegated_jobs(entry)
            found.extend((f, entry, j) for j in delegated or [job])
        return found

    def delegated_jobs(self, entry: ScheduleEntry) -> list[Job]:
        """The jobs an entry's function enqueues and does nothing else with
        (``ScheduleEntry.enqueues`` in its file, ``FunctionFacts.enqueues_only`` across
        files): those are what runs on the schedule, in a worker."""
        targets = entry.enqueues
        if not targets and entry.target is not None:
            function = self.function(entry.target)
            targets = function.enqueues_only if function is not None else ()
        jobs = []
        for target in targets:
            job = (
                self._by_qualname.get(target)
                or self._by_registered.get(target)
                or self._enqueued_function(target)
            )
            if job is not None and job.task.function != entry.target:
                jobs.append(job)
        return jobs

    def _enqueued_function(self, target: str) -> Job | None:
        """A plain function a framework enqueues by reference (RQ's
        ``queue.enqueue(count_customers)``) as a job: its options are the first such
        call's (``ttl=``, ``job_timeout=``)."""
        found = self.functions.get(target)
        if found is None:
            # A function with nothing for the checks in its body has no facts: its file.
            defined_in = next((f for f in self.files if target in f.defined_functions), None)
            if defined_in is None:
                return None
            found = (defined_in, FunctionFacts(target, target.rpartition(".")[2], NOWHERE))
        for _, site in self.enqueue_sites():
            framework = site.framework_hint
            if site.target != target or framework is None:
                continue
            if not semantics(framework).enqueues_by_reference:
                continue
            defined_in, function = found
            return Job(
                TaskDef(
                    framework=framework,
                    qualname=target,
                    name=function.name,
                    registered_name=target,
                    loc=function.loc,
                    options=site.options,
                    function=target,
                ),
                defined_in,
            )
        return None

    def command_functions(self, entry: ScheduleEntry) -> list[str]:
        """The project functions a scheduled command runs (``python manage.py x``: the
        command's ``handle``; ``python -m pkg.mod``: its ``main``), when defined."""
        if not entry.command:
            return []
        from jobcheck.project.commands import command_targets

        found = []
        for target in command_targets(entry.command, self.modules, self.scripts):
            qualname = self._command_body(target)
            if qualname is not None:
                found.append(qualname)
        return found

    def _command_body(self, target: str) -> str | None:
        """The defined function a command target stands for: ``Command.handle``, or the
        method an old-style command defines instead (Django < 1.10's ``NoArgsCommand``
        runs ``handle_noargs``, ``LabelCommand`` ``handle_label``)."""
        candidates = [target]
        if target.endswith(".Command.handle"):
            candidates += [f"{target}_noargs", f"{target}_label", f"{target}_app_config"]
        return next((q for q in candidates if self.function(q) is not None), None)

    def script_wrappers(self, entry: ScheduleEntry) -> frozenset[str]:
        """``lock``/``timeout`` taken inside the project's scripts an entry's command runs."""
        if not entry.command:
            return frozenset()
        from jobcheck.project.commands import script_wrappers

        return script_wrappers(entry.command, self.scripts)

    @functools.cached_property
    def scripts(self) -> dict[str, list[str]]:
        """The command lines of the project's shell scripts, by path."""
        return {f.path: f.script_commands for f in self.files if f.script_commands}

    def scheduled_function(self, entry: ScheduleEntry, job: Job | None) -> str | None:
        """The qualname of the function a schedule runs, when the project defines it: the
        job's body, or for RQ, APScheduler and ``schedule`` entries a plain function
        (Celery names only registered tasks)."""
        if job is not None:
            return job.task.function
        if not schedule_terms(entry).names_functions:
            return None
        return self.resolve_function(entry.target or entry.task_name)

    @functools.cached_property
    def defined_functions(self) -> frozenset[str]:
        """Every function and method the analysed files define (with or without facts)."""
        return frozenset(q for f in self.files for q in f.defined_functions)

    def resolve_function(self, qualname: str | None) -> str | None:
        """The defined function ``qualname`` stands for: itself, or the one function of
        that name in a submodule when ``qualname`` goes through a package that
        re-exports it (``pkg.refresh`` for ``pkg.maintenance.refresh``)."""
        if qualname is None:
            return None
        if qualname in self.defined_functions:
            return qualname
        if qualname.startswith(MANAGEMENT_COMMAND):
            return self._command_handle(qualname.removeprefix(MANAGEMENT_COMMAND))
        package, _, name = qualname.rpartition(".")
        candidates = [
            q for q in self._functions_by_name.get(name, ()) if q.startswith(package + ".")
        ]
        return candidates[0] if len(candidates) == 1 else None

    def _command_handle(self, name: str) -> str | None:
        """``call_command(name)``: the ``Command.handle`` of the project's one
        ``management/commands/<name>.py`` (django/core/management/__init__.py)."""
        from jobcheck.project.commands import MANAGE_COMMAND

        suffix = f"management.commands.{name}"
        found = [m for m in self.modules if m == suffix or m.endswith("." + suffix)]
        # Its module may not have been analysed (it names no job system): it is loaded
        # when the summaries ask for the function.
        return MANAGE_COMMAND.format(module=found[0]) if len(found) == 1 else None

    @functools.cached_property
    def _functions_by_name(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for qualname in self.defined_functions:
            index.setdefault(qualname.rpartition(".")[2], []).append(qualname)
        return index

    @functools.cached_property
    def root_packages(self) -> frozenset[str]:
        """The top-level packages (or modules) of the analysed files."""
        return frozenset(f.module.split(".")[0] for f in self.files if f.module)

    # -- modules loaded on demand ------------------------------------------------------

    def _load_on_demand(self) -> None:
        """Turn the by-name indexes into ones that load a missing name's module."""
        self.foreign_objects = LazySet(self.foreign_objects, self._load_for)
        self.instances = LazyDict(self.instances, self._load_for)
        self.classes = LazyDict(self.classes, self._load_for)
        self._model_roots = LazySet(self._model_roots, self._load_for)
        self.functions = LazyDict(self.functions, self._load_for)
        self.task_classes = LazyDict(self.task_classes, self._load_for)

    def read_definition(self, name: str) -> list[FileFacts]:
        """Read the definition of ``name`` alone from the module that defines it, when
        that module was not read (while gathering: ``jobcheck/project/reach.py``); its
        facts join the by-name indexes."""
        if self.loader is None or self.loader.frozen:
            return []
        found = self.loader.part_for(name)
        for f in found:
            self._merge(f)
        return found

    def _load_for(self, name: object) -> bool:
        """Load the modules ``name`` may be defined in; whether any was loaded. Names
        already known (from the files analysed first) keep their entries."""
        assert self.loader is not None
        loaded = self.loader.load_for(str(name))
        for f in loaded:
            self._merge(f)
        return bool(loaded)

    def _merge(self, f: FileFacts) -> None:
        """Add the by-name entries of a file (or part) read on demand; entries known
        already are kept."""
        set.update(self.foreign_objects, f.foreign_objects)
        for qualname, cls in f.instances.items():
            dict.setdefault(self.instances, qualname, cls)
        for qualname, bases in f.classes.items():
            dict.setdefault(self.classes, qualname, bases)
        set.update(self._model_roots, (m.qualname for m in f.models))
        for qualname, fn in f.functions.items():
            dict.setdefault(self.functions, qualname, (f, fn))
        for tc in f.task_classes:
            dict.setdefault(self.task_classes, tc.qualname, (f, tc))
        aliases = getattr(self, "_aliases", None)
        if aliases is not None:
            for qualname, value in f.aliases.items():
                dict.setdefault(aliases, qualname, value)


def is_classmethod(function: FunctionFacts) -> bool:
    return any(d.qualname == "classmethod" for d in function.decorators)


def _bases(
    bases_of: Callable[[str], tuple[str, ...]], qualname: str, named: Callable[[str], str]
) -> list[str]:
    """The bases of ``qualname``, nearest first, each as ``named`` resolves it."""
    found: list[str] = []
    pending = [named(base) for base in bases_of(qualname)]
    while pending and len(found) < 50:
        base = pending.pop(0)
        if base in found or base == qualname:
            continue
        found.append(base)
        pending[:0] = [named(b) for b in bases_of(base)]
    return found


def custom_decorator_roots() -> dict[str, str]:
    """Library decorators a project may wrap, and the framework each makes jobs for."""
    return {
        root: framework
        for plugin in plugins()
        for root, framework in semantics(plugin.name).decorator_roots.items()
    }


DJANGO_SETTINGS = "django.conf.settings."


def _custom_task(
    f: FileFacts,
    function: FunctionFacts,
    decorator: Decorator,
    framework: str,
    preset: tuple[tuple[str, Value], ...],
) -> TaskDef:
    # What the decorator is given comes first: it wins over what the factory presets
    # (functools.partial's keywords, a factory's kwargs.setdefault), as it does at run time.
    options: list[tuple[str, Value]] = []
    if isinstance(decorator.call, CallV):
        queue = semantics(framework).decorator_queue(decorator.call.args)
        if queue is not None:
            options.append(("queue", queue))
        options.extend(decorator.call.kwargs)
    options.extend(preset)
    base = dict(options).get("base")
    bind = dict(options).get("bind")
    return TaskDef(
        framework=framework,
        qualname=function.qualname,
        name=function.name,
        registered_name=string(dict(options).get("name")) or function.qualname,
        loc=decorator.loc if decorator.loc != NOWHERE else function.loc,
        decorator=decorator.qualname,
        options=tuple(options),
        base=base.qualname if isinstance(base, Ref) else None,
        bound=isinstance(bind, Const) and bind.value is True,
        function=function.qualname,
    )


def _closest(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the candidate closest to ``name``, or ""."""
    import difflib

    found = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.75)
    return f"; did you mean '{found[0]}'?" if found else ""


def _in_modules(module: str, modules: Sequence[str]) -> bool:
    """``module`` is one of ``modules`` or inside one of them (a package)."""
    return any(module == m or module.startswith(f"{m}.") for m in modules)


_SOURCE_LIMIT = 256 * 1024 * 1024
"""Sources were read before, within max-file-size; this only bounds a file that grew."""


def _read_source(path: str) -> str | None:
    try:
        return read_text(path, limit=_SOURCE_LIMIT)
    except (OSError, UnicodeDecodeError):
        return None


# Methods that enqueue only when called on a job (Dramatiq's ``actor.send``, calling a
# Huey task, Huey's ``task.schedule``): on anything else they are not enqueues at all.
_NEEDS_ITS_JOB = frozenset({"send", "send_with_options", "call", "schedule"})


def _tail(qualname: str) -> str:
    return ".".join(qualname.split(".")[-2:])
