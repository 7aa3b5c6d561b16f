"""Celery's option chain: the effective value of a task option, wherever it is set.

A task's own decorator or class attribute, else a ``**options`` spread it takes, else a
base class (``base=``, the app's ``task_cls``, their bases), else ``task_annotations``,
else the global setting (``task_time_limit`` for ``time_limit``...); an option set to
None takes the global setting, as ``Task.from_config`` does (celery/app/task.py
``_get_app``: ``for attr_name, config_name in cls.from_config: if getattr(cls,
attr_name, None) is None: setattr(...)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts import SPLAT, TaskDef
from jobcheck.facts.values import DictV, Opaque, Ref, SeqV, Value, is_none, string
from jobcheck.project.model import Resolved

if TYPE_CHECKING:
    from jobcheck.facts import Setting
    from jobcheck.project.model import Job, Project

# Celery task options that a global setting provides when the task does not
# (celery/app/task.py reads them from ``app.conf`` under these names).
GLOBAL_TASK_SETTINGS = {
    "time_limit": "task_time_limit",
    "soft_time_limit": "task_soft_time_limit",
    "acks_late": "task_acks_late",
    "reject_on_worker_lost": "task_reject_on_worker_lost",
    "queue": "task_default_queue",
}


def option(project: Project, job: Job, key: str) -> Resolved:
    """The effective value of Celery task option ``key`` for ``job`` (memoized: several
    checks ask for the same options of every job)."""
    memo = project.memo("celery.option")
    known = memo.get((id(job), key))
    if known is None or known[0] is not job:
        known = memo[(id(job), key)] = (job, _option(project, job, key))
    return known[1]


def _option(project: Project, job: Job, key: str) -> Resolved:
    task = job.task
    if task.has_option(key):
        resolved = Resolved(task.option(key), "task", job.file.path, task.option_loc(key))
        return _filled_when_none(project, job, key, resolved)
    if task.has_option(SPLAT):  # @shared_task(**OPTIONS): set there, for all we know
        spread = task.option(SPLAT)
        value = spread.get(key) if isinstance(spread, DictV) else None
        return Resolved(
            value if value is not None else Opaque(f"**{_text(spread)}"),
            "task",
            job.file.path,
            task.option_loc(SPLAT),
        )
    found = _base_option(project, job, key)
    if found is not None:
        return _filled_when_none(project, job, key, found)
    found = inherited_option(project, job, key)
    return found if found is not None else Resolved(None, "default")


def _filled_when_none(project: Project, job: Job, key: str, resolved: Resolved) -> Resolved:
    """An option set to None that Celery fills from a global setting (``time_limit=None``
    takes ``task_time_limit``): the setting's value when there is one."""
    if not is_none(resolved.value) or key not in GLOBAL_TASK_SETTINGS:
        return resolved
    inherited = inherited_option(project, job, key)
    return inherited if inherited is not None and inherited.value is not None else resolved


def _base_option(project: Project, job: Job, key: str) -> Resolved | None:
    for name in project.bases_from((job.task.base, *project.app_task_classes(job)), False):
        entry = project.task_classes.get(name)
        if entry is None:
            if project.outside_project(name, job):  # a library's base class: it may set it
                return Resolved(Opaque(name), "base", job.file.path, job.task.loc)
            continue
        f, tc = entry
        for attr, value in tc.attrs:
            if attr == key:
                loc = dict(tc.attr_locs).get(attr, tc.loc)
                return Resolved(value, "base", f.path, loc)
    return None


def inherited_option(project: Project, job: Job, key: str) -> Resolved | None:
    found = _annotation_option(project, job.task, key)
    if found is not None:
        return found
    setting_key = GLOBAL_TASK_SETTINGS.get(key)
    if setting_key is not None:
        entry = project.setting(setting_key)
        if entry is not None:
            f, setting = entry
            return Resolved(setting.value, "settings", f.path, setting.loc)
    return None


def _annotation_option(project: Project, task: TaskDef, key: str) -> Resolved | None:
    for f, setting in project.settings("task_annotations"):
        for mapping in _annotation_maps(setting.value):
            for name in (task.registered_name, "*"):
                entry = mapping.get(name) if name else None
                if isinstance(entry, DictV) and entry.get(key) is not None:
                    return Resolved(entry.get(key), "annotations", f.path, setting.loc)
    return None


def _annotation_maps(value: Value) -> list[DictV]:
    if isinstance(value, DictV):
        return [value]
    if isinstance(value, SeqV):
        return [item for item in value.items if isinstance(item, DictV)]
    return []


def _text(value: Value | None) -> str:
    """A short name for a spread value: ``RETRY_OPTIONS`` of ``**RETRY_OPTIONS``."""
    if isinstance(value, Ref):
        return value.qualname.rsplit(".", 1)[-1]
    if isinstance(value, Opaque):
        return value.text
    return "options"


def read_under_namespace(project: Project, setting: Setting) -> bool:
    """Whether Celery reads a Django setting under the namespace the project's apps load
    Django's settings with. celery/app/utils.py ``detect_settings``: "always use new format
    if prefix is used", so with ``config_from_object("django.conf:settings",
    namespace="CELERY")`` only ``CELERY_`` plus the upper-cased new name counts
    (``CELERY_TASK_QUEUES``); an old name (``CELERY_QUEUES``, ``CELERYD_PREFETCH_MULTIPLIER``)
    is ignored. Judged only when every app in sight loads Django's settings that way
    (celery 5dc781f)."""
    if setting.origin != "module" or not setting.raw_key.isupper() or not setting.key.islower():
        return True
    if setting.raw_key == "CELERY_" + setting.key.upper():
        return True
    return not _django_settings_namespaced(project)


def _django_settings_namespaced(project: Project) -> bool:
    memo = project.memo("celery")
    if "django_namespaced" not in memo:
        namespaces = [
            source.namespace
            for f in project.files
            for source in f.config_sources
            if (string(source.target) or "")
            .replace(".settings", ":settings")
            .startswith("django.conf:settings")
        ]
        memo["django_namespaced"] = bool(namespaces) and all(n == "CELERY" for n in namespaces)
    return bool(memo["django_namespaced"])
