"""JOB-01 ``enqueue-before-commit``: enqueue when Django's transaction commits.

``task.delay(...)`` becomes ``task.delay_on_commit(...)`` where the job's framework has
such a method (Celery 5.4's ``DjangoTask``: ``on_commit_method`` in
``jobcheck/frameworks/celery/fixes.py``), else
``transaction.on_commit(partial(task.delay, ...))`` (``partial`` binds the arguments
now, as the call did; a lambda would read them when the transaction commits). Unsafe:
the job is no longer sent when the transaction rolls back, and tests that never commit
(Django's TestCase) no longer see it.

Only for Django transactions (``transaction.atomic``, ``ATOMIC_REQUESTS`` views) and an
enqueue that is a statement of its own: ``on_commit`` returns None, so a call whose
result is used is left alone, and so is SQLAlchemy's ``session.commit()``.
"""

from __future__ import annotations

import libcst as cst

from jobcheck import registry
from jobcheck.facts import EnqueueSite
from jobcheck.findings import Finding, Fix, TextEdit
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "JOB-01", "enqueue-before-commit"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    site = project.enqueue_at(finding.path, finding.loc)
    if site is None or not _in_django_transaction(site, finding.path, project):
        return None
    call = source.at(finding.loc, cst.Call)
    if call is None or not isinstance(call.func, cst.Attribute):
        return None
    if not isinstance(source.parent(call), cst.Expr):
        return None  # the result is used: on_commit would return None instead
    new_method = _on_commit_method(site, call.func.attr.value, project)
    if new_method is not None:
        new = call.with_changes(func=call.func.with_changes(attr=cst.Name(new_method)))
        edit = source.replace(call, new)
        return Fix(f"Use {new_method}()", (edit,), "unsafe") if edit else None
    return _on_commit(source, call)


def _in_django_transaction(site: EnqueueSite, path: str, project: ProjectInfo) -> bool:
    if site.atomic in ("block", "decorator"):
        return True
    function = project.function(path, site.function)
    web = registry.semantics("web")  # a view that ATOMIC_REQUESTS runs in a transaction
    return function is not None and web.runs_in_request_transaction(function.view, True)


def _on_commit_method(site: EnqueueSite, method: str, project: ProjectInfo) -> str | None:
    """The method of the enqueued job that enqueues like ``method`` on commit, if any."""
    for _, task in project.tasks():
        if task.qualname == site.target:
            found = registry.framework_fixes(task.framework).on_commit_method(task, method, project)
            if found is not None:
                return found
    return None


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
