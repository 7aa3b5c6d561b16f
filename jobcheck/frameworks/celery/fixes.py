"""Celery's part of the automatic fixes (``jobcheck/frameworks/fixes_base.py``).

SCL-18 ``missing-time-limit``: a task with none gets ``time_limit=`` and
``soft_time_limit=`` on its decorator: the limits most of the project's tasks set, no
longer than the time between two of its runs for a scheduled task (a run that lasts
longer overlaps the next), and below the broker's visibility timeout (configured, else
SQS's 1800 s default, the smaller of the two transports jobcheck knows). When no task
sets a limit, the fix is display-only: a limit is a judgement about the job no tool can
make. An explicit ``None`` or infinity is replaced the same way.

JOB-01 ``enqueue-before-commit``: ``delay_on_commit`` and ``apply_async_on_commit`` are
methods of ``celery.contrib.django.task.DjangoTask``, new in Celery 5.4; the Django
fixup makes it the app's task class unless the app was given ``task_cls=``
(celery/fixups/django.py ``DjangoFixup.install``), and the fixup is installed when
``DJANGO_SETTINGS_MODULE`` is set (``fixup``). A task with a ``base=`` of its own does
not inherit it.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from jobcheck.facts import TaskDef
from jobcheck.facts.values import DictV, number
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.frameworks.fixes_base import FrameworkFixes
from jobcheck.timing import shortest_gap

NAME = "celery"
# The visibility timeout of SQS's transport (kombu/transport/SQS), the smaller default.
DEFAULT_VISIBILITY = 1800.0
# Shown, never applied, when the project gives nothing to go by.
EXAMPLE_LIMITS = (300, 270)
LIMIT_KEYS = ("time_limit", "soft_time_limit")

ON_COMMIT_METHODS = {"delay": "delay_on_commit", "apply_async": "apply_async_on_commit"}
FIRST_CELERY_WITH_ON_COMMIT = (5, 4)


class CeleryFixes(FrameworkFixes):
    def time_limit_fix(
        self, finding: Finding, source: Source, project: ProjectInfo, task: TaskDef | None
    ) -> Fix | None:
        return _time_limits(finding, source, project, task) if task is not None else None

    def on_commit_method(self, task: TaskDef, method: str, project: ProjectInfo) -> str | None:
        if method not in ON_COMMIT_METHODS or not _has_on_commit(task, project):
            return None
        return ON_COMMIT_METHODS[method]


FIXES = CeleryFixes()


# -- SCL-18 ---------------------------------------------------------------------------------


def _time_limits(
    finding: Finding, source: Source, project: ProjectInfo, task: TaskDef
) -> Fix | None:
    limits = celery_limits(project, task)
    hard, soft = limits or EXAMPLE_LIMITS
    applicability = "unsafe" if limits else "display"
    arg = source.at(finding.loc, cst.Arg)
    if arg is not None:  # time_limit=None or an infinite limit, on the task
        if arg.keyword is None or arg.keyword.value not in LIMIT_KEYS:
            return None
        call = source.parent(arg)
        if not isinstance(call, cst.Call):
            return None
        new = _with_limits(call, hard, soft, source)
        edit = source.replace(call, new) if new is not None else None
    else:
        if task.kind != "function":
            return None
        expression = source.at(finding.loc, cst.BaseExpression)
        if expression is None or not isinstance(source.parent(expression), cst.Decorator):
            return None
        call = (
            expression
            if isinstance(expression, cst.Call)
            else cst.Call(func=expression)  # @shared_task -> @shared_task(...)
        )
        new = _with_limits(call, hard, soft, source)
        edit = source.replace(expression, new) if new is not None else None
    if edit is None:
        return None
    title = f"Set time_limit={hard}, soft_time_limit={soft} on the task"
    if not limits:
        title += " (an example: nothing here says how long the job may take)"
    return Fix(title, (edit,), applicability)


def _with_limits(call: cst.Call, hard: int, soft: int, source: Source) -> cst.Call | None:
    """``call`` with both limits set; None when options it spreads may set them."""
    new = syntax.set_keyword(call, "time_limit", cst.Integer(str(hard)), source.module)
    if new is None:
        return None
    return syntax.set_keyword(new, "soft_time_limit", cst.Integer(str(soft)), source.module)


def celery_limits(project: ProjectInfo, task: TaskDef) -> tuple[int, int] | None:
    """Hard and soft limits to propose for ``task``, or None with nothing to go by."""
    typical = project.once("celery.typical_limits", typical_limits)
    if typical is None:
        # The time between a scheduled task's runs bounds its limit but says nothing
        # about how long it takes; and a limit written by a fix must not become the
        # "typical" one the next run proposes for every other task.
        return None
    hard, soft = typical
    gaps = [g for g in (shortest_gap(e.timing) for e in project.schedules_of(task)) if g]
    visibility = project.once("celery.visibility_timeout", visibility_timeout)
    ceiling = (visibility or DEFAULT_VISIBILITY) - 1
    hard = int(min(hard, ceiling, *gaps))
    if hard < 10:
        return None
    if soft is None or soft >= hard:
        soft = hard - max(1, hard // 10)
    return hard, int(soft)


def typical_limits(project: ProjectInfo) -> tuple[float, float | None] | None:
    """The hard time limit the project's Celery tasks set most often, with the soft
    limit most often set beside it; None when no task sets one."""
    hard: Counter[float] = Counter()
    soft: dict[float, Counter[float]] = {}
    for _, task in project.tasks():
        if task.framework != NAME:
            continue
        value = number(task.option("time_limit"))
        if value is None or value <= 0 or value == float("inf"):
            continue
        hard[value] += 1
        beside = number(task.option("soft_time_limit"))
        if beside is not None and 0 < beside < value:
            soft.setdefault(value, Counter())[beside] += 1
    if not hard:
        return None
    value = min(hard, key=lambda v: (-hard[v], v))
    counted = soft.get(value)
    return value, (min(counted, key=lambda v: (-counted[v], v)) if counted else None)


def visibility_timeout(project: ProjectInfo) -> float | None:
    """The smallest ``visibility_timeout`` the Celery settings give, if any."""
    found = []
    for facts in project.files.values():
        for setting in facts.settings:
            if setting.key == "broker_transport_options" and isinstance(setting.value, DictV):
                value = number(setting.value.get("visibility_timeout"))
                if value is not None:
                    found.append(value)
    return min(found) if found else None


# -- JOB-01 ---------------------------------------------------------------------------------


def _has_on_commit(task: TaskDef, project: ProjectInfo) -> bool:
    """Whether ``task`` is a ``DjangoTask``, which has the ``*_on_commit`` methods."""
    version = project.package_version(NAME)
    if version is None or version < FIRST_CELERY_WITH_ON_COMMIT:
        return False
    if task.framework != NAME or task.base is not None:
        return False
    apps = [(facts, app) for facts in project.files.values() for app in facts.apps]
    if not apps or any(key == "task_cls" for _, app in apps for key, _ in app.kwargs):
        return False
    return any("DJANGO_SETTINGS_MODULE" in (project.text_of(f.path) or "") for f, _ in apps)
