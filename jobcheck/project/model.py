"""The project model: indexes over every file's facts and the effective job contract."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from dataclasses import dataclass

from jobcheck.extract.django import is_model_root
from jobcheck.facts import (
    CeleryApp,
    EnqueueSite,
    FileFacts,
    FunctionFacts,
    Loc,
    Setting,
    TaskClass,
    TaskDef,
)
from jobcheck.facts.values import CallV, DictV, Ref, SeqV, Value, string

# Celery task options that a global setting provides when the task does not
# (celery/app/task.py reads them from ``app.conf`` under these names).
GLOBAL_TASK_SETTINGS = {
    "time_limit": "task_time_limit",
    "soft_time_limit": "task_soft_time_limit",
    "acks_late": "task_acks_late",
    "reject_on_worker_lost": "task_reject_on_worker_lost",
    "queue": "task_default_queue",
}


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
    ) -> None:
        self.files = list(files)
        self.source_of = source_of or _read_source
        self.astroid_modules: dict[str, object] = {}
        self.by_path = {f.path: f for f in self.files}
        self._foreign = {q for f in self.files for q in f.foreign_objects}
        self.classes: dict[str, tuple[str, ...]] = {
            q: bases for f in self.files for q, bases in f.classes.items()
        }
        self._model_roots = {m.qualname for f in self.files for m in f.models}
        self.apps: list[tuple[FileFacts, CeleryApp]] = [(f, a) for f in self.files for a in f.apps]
        self.jobs: list[Job] = [
            Job(task, f) for f in self.files for task in f.tasks if self._is_real_task(task)
        ]
        self.jobs.extend(self._class_based_tasks())
        self.jobs.extend(self._aliased_rq_jobs())
        self._by_qualname = {job.task.qualname: job for job in self.jobs}
        self._by_tail: dict[str, list[Job]] = {}
        for job in self.jobs:
            self._by_tail.setdefault(_tail(job.task.qualname), []).append(job)
        self._by_registered: dict[str, Job] = {}
        for job in self.jobs:
            if job.task.registered_name:
                self._by_registered.setdefault(job.task.registered_name, job)
        self.functions: dict[str, tuple[FileFacts, FunctionFacts]] = {
            qualname: (f, fn) for f in self.files for qualname, fn in f.functions.items()
        }
        self.task_classes: dict[str, tuple[FileFacts, TaskClass]] = {
            tc.qualname: (f, tc) for f in self.files for tc in f.task_classes
        }
        self._config_modules = self._find_config_modules()

    # -- jobs -------------------------------------------------------------------

    def _is_real_task(self, task: TaskDef) -> bool:
        return task.app_ref is None or task.app_ref not in self._foreign

    def _class_based_tasks(self) -> Iterator[Job]:
        for f in self.files:
            for tc in f.task_classes:
                attrs = dict(tc.attrs)
                if not tc.has_run or "abstract" in attrs:
                    continue
                if not self.is_celery_task_class(tc.qualname):
                    continue
                yield Job(
                    TaskDef(
                        framework="celery",
                        qualname=tc.qualname,
                        name=tc.qualname.rsplit(".", 1)[-1],
                        registered_name=string(attrs.get("name")) or tc.qualname,
                        loc=tc.loc,
                        decorator=None,
                        options=tc.attrs,
                        option_locs=tc.attr_locs,
                        base=tc.bases[0] if tc.bases else None,
                        kind="class",
                        bound=True,
                        function=f"{tc.qualname}.run",
                    ),
                    f,
                )

    def _aliased_rq_jobs(self) -> Iterator[Job]:
        """Functions decorated with the project's own wrapper of RQ's ``@job``, defined in
        another module (``from app.worker import job``; see ``FileFacts.job_decorators``)."""
        aliases = {q for f in self.files for q in f.job_decorators}
        if not aliases:
            return
        known = {job.task.qualname for job in self.jobs}
        for f in self.files:
            for function in f.functions.values():
                if function.qualname in known:
                    continue
                decorator = next((d for d in function.decorators if d.qualname in aliases), None)
                if decorator is None:
                    continue
                options: list[tuple[str, Value]] = []
                if isinstance(decorator.call, CallV):
                    if decorator.call.args:
                        options.append(("queue", decorator.call.args[0]))
                    options.extend(decorator.call.kwargs)
                yield Job(
                    TaskDef(
                        framework="rq",
                        qualname=function.qualname,
                        name=function.name,
                        registered_name=function.qualname,
                        loc=decorator.loc,
                        decorator="rq.job",
                        options=tuple(options),
                        function=function.qualname,
                    ),
                    f,
                )

    def is_celery_task_class(self, qualname: str, depth: int = 0) -> bool:
        if qualname.startswith("celery.") and qualname.endswith(".Task"):
            return True
        if depth > 20:
            return False
        bases = self.classes.get(qualname, ())
        if any(b.startswith("celery") and b.endswith("Task") for b in bases):
            return True
        # ``app.Task`` for a Celery app of this project.
        if any(b.endswith(".Task") and b[: -len(".Task")] in self.app_names for b in bases):
            return True
        return any(self.is_celery_task_class(b, depth + 1) for b in bases if b in self.classes)

    @functools.cached_property
    def app_names(self) -> frozenset[str]:
        return frozenset(app.qualname for _, app in self.apps)

    def job_for(self, site: EnqueueSite) -> Job | None:
        """The job an enqueue site puts on the queue, when the project defines it."""
        if site.method == "send_task":
            return self._by_registered.get(site.target_text)
        if site.target is None:
            return None
        job = self._by_qualname.get(site.target)
        if job is not None:
            return job
        if site.framework_hint == "rq":
            return None
        candidates = self._by_tail.get(_tail(site.target), [])
        return candidates[0] if len(candidates) == 1 else None

    def enqueues(self) -> Iterator[tuple[FileFacts, EnqueueSite, Job | None]]:
        """Every confirmed enqueue site, with its job when the project defines it.

        ``.delay`` on something that is not a job, or ``.send`` on a signal, is not
        an enqueue: only sites whose target is a known job, a Celery canvas, a
        ``send_task``, an RQ queue call or a task imported from a ``tasks`` module
        are kept."""
        for f in self.files:
            for site in f.enqueues:
                job = self.job_for(site)
                if job is not None:
                    if _method_fits(site.method, job.framework):
                        yield f, site, job
                    continue
                if self._unresolved_but_certain(site):
                    yield f, site, None

    def _unresolved_but_certain(self, site: EnqueueSite) -> bool:
        if site.framework_hint in ("rq", "celery"):
            return True
        if site.method in ("send", "send_with_options"):
            return False
        module = (site.target or "").rpartition(".")[0]
        return module.split(".")[-1] in ("tasks", "jobs") and module not in self.modules

    @functools.cached_property
    def modules(self) -> frozenset[str]:
        return frozenset(f.module for f in self.files)

    def function(self, qualname: str | None) -> FunctionFacts | None:
        if qualname is None:
            return None
        entry = self.functions.get(qualname)
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
            module, _, name = qualname.rpartition(".")
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
        if setting.origin != "module" or setting.raw_key.isupper():
            return True
        # Lower-case names count only in a Celery config module.
        module = f.module
        return module in self._config_modules or "celery" in module.rsplit(".", 1)[-1]

    def settings(self, key: str) -> list[tuple[FileFacts, Setting]]:
        return [
            (f, s)
            for f in self.files
            for s in f.settings
            if s.key == key and self._honoured(f, s)
        ]

    def setting(self, key: str) -> tuple[FileFacts, Setting] | None:
        found = self.settings(key)
        return found[0] if found else None

    # -- effective task options ----------------------------------------------------

    def option(self, job: Job, key: str) -> Resolved:
        """The effective value of a Celery task option, wherever it is set."""
        task = job.task
        if task.has_option(key):
            return Resolved(task.option(key), "task", job.file.path, task.option_loc(key))
        found = self._base_option(job, key)
        if found is not None:
            return found
        if job.framework != "celery":
            return Resolved(None, "default")
        found = self._annotation_option(task, key)
        if found is not None:
            return found
        setting_key = GLOBAL_TASK_SETTINGS.get(key)
        if setting_key is not None:
            entry = self.setting(setting_key)
            if entry is not None:
                f, setting = entry
                return Resolved(setting.value, "settings", f.path, setting.loc)
        return Resolved(None, "default")

    def _base_option(self, job: Job, key: str) -> Resolved | None:
        pending = [b for b in (job.task.base, *self._app_task_classes(job)) if b]
        seen: set[str] = set()
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            entry = self.task_classes.get(name)
            if entry is None:
                continue
            f, tc = entry
            for attr, value in tc.attrs:
                if attr == key:
                    loc = dict(tc.attr_locs).get(attr, tc.loc)
                    return Resolved(value, "base", f.path, loc)
            pending.extend(tc.bases)
        return None

    def _app_task_classes(self, job: Job) -> list[str]:
        if job.task.kind == "class":
            return list(self.classes.get(job.task.qualname, ()))
        classes = []
        for _, app in self.apps:
            if job.task.app_ref in (None, app.qualname):
                value = dict(app.kwargs).get("task_cls")
                if isinstance(value, Ref):
                    classes.append(value.qualname)
                elif string(value):
                    classes.append(string(value).replace(":", "."))  # type: ignore[union-attr]
        return classes

    def _annotation_option(self, task: TaskDef, key: str) -> Resolved | None:
        for f, setting in self.settings("task_annotations"):
            for mapping in _annotation_maps(setting.value):
                for name in (task.registered_name, "*"):
                    entry = mapping.get(name) if name else None
                    if isinstance(entry, DictV) and entry.get(key) is not None:
                        return Resolved(entry.get(key), "annotations", f.path, setting.loc)
        return None

    # -- broker ---------------------------------------------------------------------

    def broker_scheme(self) -> str | None:
        """The Celery broker's transport (``redis``, ``sqs``, ``amqp``...), if known."""
        candidates: list[Value | None] = [s.value for _, s in self.settings("broker_url")]
        candidates += [s.value for _, s in self.settings("broker_transport")]
        for _, app in self.apps:
            kwargs = dict(app.kwargs)
            candidates += [kwargs.get("broker"), kwargs.get("broker_url")]
        for value in candidates:
            url = _url_hint(value)
            if url:
                scheme = url.split("://", 1)[0].split("+", 1)[0].lower()
                return {"rediss": "redis", "sentinel": "redis"}.get(scheme, scheme)
        return None


def _read_source(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _tail(qualname: str) -> str:
    return ".".join(qualname.split(".")[-2:])


def _method_fits(method: str, framework: str) -> bool:
    if framework == "dramatiq":
        return method in ("send", "send_with_options")
    if framework == "rq":
        return method in ("delay", "enqueue", "enqueue_call", "enqueue_in", "enqueue_at")
    return method not in ("send", "send_with_options")


def _annotation_maps(value: Value) -> list[DictV]:
    if isinstance(value, DictV):
        return [value]
    if isinstance(value, SeqV):
        return [item for item in value.items if isinstance(item, DictV)]
    return []


def _url_hint(value: Value | None) -> str | None:
    """A broker URL, or the default of ``os.environ.get("X", "redis://...")``."""
    text = string(value)
    if text and "://" in text:
        return text
    if isinstance(value, CallV):
        for candidate in (*value.args, *(v for _, v in value.kwargs)):
            hint = _url_hint(candidate)
            if hint:
                return hint
    return None
