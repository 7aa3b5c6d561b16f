"""SCL-18 ``missing-time-limit``: give the job a finite limit.

- A Celery task with none gets ``time_limit=`` and ``soft_time_limit=`` on its
  decorator: the limits most of the project's tasks set, no longer than the time
  between two of its runs for a scheduled task (a run that lasts longer overlaps the
  next), and below the broker's visibility timeout (configured, else SQS's 1800 s
  default, the smaller of the two transports jobcheck knows). When no task sets a
  limit, the fix is display-only: a limit is a judgement about the job no tool can
  make. An explicit ``None`` or infinity is replaced the same way.
- Dramatiq's ``time_limit=None`` fails in the TimeLimit middleware; its default is
  600000 ms (dramatiq/middleware/time_limit.py): written out, it is safe. Infinity
  becomes the default too (unsafe: it was asked for).
- RQ's ``-1`` (no timeout) becomes RQ's default, 180 s (rq/queue.py
  ``Queue.DEFAULT_TIMEOUT``). Unsafe.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.facts import TaskDef
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.timing import shortest_gap

RULE, CHECK = "SCL-18", "missing-time-limit"

DRAMATIQ_DEFAULT_MS = 600_000
RQ_DEFAULT_SECONDS = 180
RQ_TIMEOUT_KEYS = ("job_timeout", "timeout", "default_timeout")
# The visibility timeout of SQS's transport (kombu/transport/SQS), the smaller default.
DEFAULT_VISIBILITY = 1800.0
# Shown, never applied, when the project gives nothing to go by.
EXAMPLE_LIMITS = (300, 270)


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    task = project.task_at(finding.path, finding.loc)
    if task is not None and task.framework == "dramatiq":
        return _dramatiq(finding, source)
    if task is not None and task.framework == "celery":
        return _celery(finding, source, project, task)
    return _rq(finding, source)


def _celery(finding: Finding, source: Source, project: ProjectInfo, task: TaskDef) -> Fix | None:
    limits = celery_limits(project, task)
    hard, soft = limits or EXAMPLE_LIMITS
    applicability = "unsafe" if limits else "display"
    arg = source.at(finding.loc, cst.Arg)
    if arg is not None:  # time_limit=None or an infinite limit, on the task
        if arg.keyword is None or arg.keyword.value not in ("time_limit", "soft_time_limit"):
            return None
        call = source.parent(arg)
        if not isinstance(call, cst.Call):
            return None
        new = syntax.set_keyword(call, "time_limit", cst.Integer(str(hard)))
        new = syntax.set_keyword(new, "soft_time_limit", cst.Integer(str(soft)))
        edit = source.replace(call, new)
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
        if syntax.has_splat(call):
            return None
        new = syntax.set_keyword(call, "time_limit", cst.Integer(str(hard)))
        new = syntax.set_keyword(new, "soft_time_limit", cst.Integer(str(soft)))
        edit = source.replace(expression, new)
    if edit is None:
        return None
    title = f"Set time_limit={hard}, soft_time_limit={soft} on the task"
    if not limits:
        title += " (an example: nothing here says how long the job may take)"
    return Fix(title, (edit,), applicability)


def celery_limits(project: ProjectInfo, task: TaskDef) -> tuple[int, int] | None:
    """Hard and soft limits to propose for ``task``, or None with nothing to go by."""
    typical = project.typical_celery_limits
    if typical is None:
        # The time between a scheduled task's runs bounds its limit but says nothing
        # about how long it takes; and a limit written by a fix must not become the
        # "typical" one the next run proposes for every other task.
        return None
    hard, soft = typical
    gaps = [g for g in (shortest_gap(e.timing) for e in project.schedules_of(task)) if g]
    ceiling = (project.visibility_timeout or DEFAULT_VISIBILITY) - 1
    hard = int(min(hard, ceiling, *gaps))
    if hard < 10:
        return None
    if soft is None or soft >= hard:
        soft = hard - max(1, hard // 10)
    return hard, int(soft)


def _dramatiq(finding: Finding, source: Source) -> Fix | None:
    arg = source.at(finding.loc, cst.Arg)
    if arg is None or arg.keyword is None or arg.keyword.value != "time_limit":
        return None
    call = source.parent(arg)
    if not isinstance(call, cst.Call):
        return None
    was_none = isinstance(arg.value, cst.Name) and arg.value.value == "None"
    new = syntax.set_keyword(call, "time_limit", cst.Integer(str(DRAMATIQ_DEFAULT_MS)))
    edit = source.replace(call, new)
    if edit is None:
        return None
    title = f"Set time_limit={DRAMATIQ_DEFAULT_MS} (Dramatiq's default, 10 minutes)"
    return Fix(title, (edit,), "safe" if was_none else "unsafe")


def _rq(finding: Finding, source: Source) -> Fix | None:
    call = source.at(finding.loc, cst.Call)
    if call is None:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in RQ_TIMEOUT_KEYS:
            if _is_minus_one(arg.value):
                key = arg.keyword.value
                new = syntax.set_keyword(call, key, cst.Integer(str(RQ_DEFAULT_SECONDS)))
                edit = source.replace(call, new)
                if edit is None:
                    return None
                return Fix(f"Set {key}={RQ_DEFAULT_SECONDS} (RQ's default)", (edit,), "unsafe")
    return None


def _is_minus_one(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.evaluated_value == 1
    )
