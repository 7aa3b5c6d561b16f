"""JOB-01 ``enqueue-before-commit``: enqueue when Django's transaction commits.

``task.delay(...)`` becomes ``task.delay_on_commit(...)`` where Celery has it, else
``transaction.on_commit(partial(task.delay, ...))`` (``partial`` binds the arguments
now, as the call did; a lambda would read them when the transaction commits). Unsafe:
the job is no longer sent when the transaction rolls back, and tests that never commit
(Django's TestCase) no longer see it.

Only for Django transactions (``transaction.atomic``, ``ATOMIC_REQUESTS`` views) and an
enqueue that is a statement of its own: ``on_commit`` returns None, so a call whose
result is used is left alone, and so is SQLAlchemy's ``session.commit()``.

``delay_on_commit`` and ``apply_async_on_commit`` are methods of
``celery.contrib.django.task.DjangoTask``, new in Celery 5.4; the Django fixup makes it
the app's task class unless the app was given ``task_cls=``
(celery/fixups/django.py ``DjangoFixup.install``), and the fixup is installed when
``DJANGO_SETTINGS_MODULE`` is set (``fixup``). A task with a ``base=`` of its own does
not inherit it.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.facts import EnqueueSite
from jobcheck.findings import Finding, Fix, TextEdit
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "JOB-01", "enqueue-before-commit"

ON_COMMIT_METHODS = {"delay": "delay_on_commit", "apply_async": "apply_async_on_commit"}
FIRST_CELERY_WITH_ON_COMMIT = (5, 4)


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    site = project.enqueue_at(finding.path, finding.loc)
    if site is None or not _in_django_transaction(site, finding.path, project):
        return None
    call = source.at(finding.loc, cst.Call)
    if call is None or not isinstance(call.func, cst.Attribute):
        return None
    if not isinstance(source.parent(call), cst.Expr):
        return None  # the result is used: on_commit would return None instead
    method = call.func.attr.value
    if method in ON_COMMIT_METHODS and _celery_has_on_commit(site, project):
        new_method = ON_COMMIT_METHODS[method]
        new = call.with_changes(func=call.func.with_changes(attr=cst.Name(new_method)))
        edit = source.replace(call, new)
        return Fix(f"Use {new_method}()", (edit,), "unsafe") if edit else None
    return _on_commit(source, call)


def _in_django_transaction(site: EnqueueSite, path: str, project: ProjectInfo) -> bool:
    if site.atomic in ("block", "decorator"):
        return True
    function = project.function(path, site.function)
    return function is not None and function.view == "django"  # ATOMIC_REQUESTS


def _celery_has_on_commit(site: EnqueueSite, project: ProjectInfo) -> bool:
    version = project.celery_version
    if version is None or version < FIRST_CELERY_WITH_ON_COMMIT:
        return False
    task = next(
        (t for _, t in project.tasks() if t.framework == "celery" and t.qualname == site.target),
        None,
    )
    if task is None or task.base is not None:
        return False
    apps = [(facts, app) for facts in project.files.values() for app in facts.apps]
    if not apps or any(key == "task_cls" for _, app in apps for key, _ in app.kwargs):
        return False
    return any("DJANGO_SETTINGS_MODULE" in (project.text_of(f.path) or "") for f, _ in apps)


def _on_commit(source: Source, call: cst.Call) -> Fix | None:
    transaction = syntax.import_edit(source, "django.db", "transaction")
    if transaction is None:
        return None
    transaction_name, transaction_import = transaction
    imports: list[TextEdit] = [transaction_import] if transaction_import else []
    if call.args:
        partial = syntax.import_edit(source, "functools", "partial")
        if partial is None:
            return None
        partial_name, partial_import = partial
        if partial_import is not None:
            imports.append(partial_import)
        opening = call.whitespace_before_args
        separator = (
            opening.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
            if isinstance(opening, cst.ParenthesizedWhitespace)
            else cst.SimpleWhitespace(" ")
        )
        first = cst.Arg(call.func, comma=cst.Comma(whitespace_after=separator))
        callback: cst.BaseExpression = cst.Call(
            func=syntax.expression(partial_name),
            args=[first, *call.args],
            whitespace_before_args=opening,
        )
        title = f"Enqueue in {transaction_name}.on_commit({partial_name}(...))"
    else:
        callback = call.func
        title = f"Enqueue in {transaction_name}.on_commit(...)"
    new = cst.Call(
        func=syntax.expression(f"{transaction_name}.on_commit"), args=[cst.Arg(callback)]
    )
    edit = source.replace(call, new)
    if edit is None:
        return None
    return Fix(title, (edit, *imports), "unsafe")
