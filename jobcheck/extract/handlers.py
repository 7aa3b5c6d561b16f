"""What an ``except`` clause does with the error: re-raise it, retry, record it, or
swallow it.

A handler *swallows* the error when its body does nothing with it: only ``pass``,
``...``, ``continue``, ``break``, a bare ``return`` or ``return <constant>``,
``print(...)``, ``traceback.print_exc()`` or ``logger.debug(...)``. A body that does
anything else (assigns a fallback value, cleans up, calls a helper) is taken to handle
the error on purpose, even when it records nothing: precision first. So is a ``pass``
after a ``try`` that only computes names (the value set before the ``try`` is the
fallback).

A catch-all handler (``except Exception``, a bare ``except``) that logs or does other work
but neither re-raises, retries, stores a failed state, returns a value nor gives a
fallback *lets the job succeed* (:attr:`HandlerShape.lets_the_job_succeed`): recorded too
when its ``try`` ends the function (jobcheck/extract/effects.py), as the queue then sees a
success and never retries the work.

A handler *records* a failure when it leaves a trace someone can act on: a log call at
info level or above, an error tracker (Sentry's ``capture_exception``, Rollbar, ...), a
failed status or error text saved on a record, or the exception handed to another call.
``pass``, ``continue``, a bare ``return``, ``print`` and ``traceback.print_exc()`` do
not: a worker's stdout is not a place anyone looks for failures.

Some exceptions are deliberately swallowed in correct jobs and are never reported
(:func:`is_expected`): a record deleted since the job was enqueued (``DoesNotExist``,
``NoResultFound``, ``NotFound``, ``Http404``), an operation that does not apply
(``NotSupported``, ``NotImplementedError``), a lock another run holds (``LockError``),
a duplicate insert that proves an earlier
run already did the work (``IntegrityError``), lookup or parse fallbacks (``KeyError``,
``ValueError``, ...) and optional imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import Names, dotted
from jobcheck.syntax.tree import children

CATCH_ALL = frozenset(
    {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}
)

# Expected outcomes, matched on the class name wherever it is defined
# (``Order.DoesNotExist``, ``sqlalchemy.exc.IntegrityError``, ``psycopg2.IntegrityError``).
EXPECTED_ANYWHERE = frozenset({"Http404", "IntegrityError"})
# ... and by the words of the name: the thing is gone, the operation does not apply, or
# another run holds the lock (``ObjectDoesNotExist``, ``NoResultFound``, werkzeug's
# ``NotFound``, a data source that raises ``NotSupported``, redis' ``LockError``: skipping
# is the single-runner guard working).
EXPECTED_NAME = re.compile(r"DoesNotExist|NotFound|NotSupported|Unsupported|NotImplemented|Lock")
# Built-in exceptions that signal a lookup or parse fallback, matched only as built-ins.
EXPECTED_BUILTINS = frozenset(
    {
        "KeyError",
        "IndexError",
        "LookupError",
        "ValueError",
        "UnicodeError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
        "AttributeError",
        "StopIteration",
        "StopAsyncIteration",
        "GeneratorExit",
        "ImportError",
        "ModuleNotFoundError",
        "FileNotFoundError",
        "FileExistsError",
        "NotImplementedError",
    }
)
EXPECTED_QUALIFIED = frozenset({"json.JSONDecodeError", "json.decoder.JSONDecodeError"})
# Calls that leave no trace anyone looks for: a worker's stdout, debug logs.
INERT_CALLS = frozenset({"print", "print_exc", "print_exception", "debug"})
# Calls that release resources; a try around nothing else is best-effort cleanup.
CLEANUP_CALLS = frozenset(
    {
        "unlink",
        "remove",
        "rmtree",
        "rmdir",
        "close",
        "kill",
        "terminate",
        "release",
        "disconnect",
        "shutdown",
        "cleanup",
        "cancel",
        "stop",
    }
)

# Calls that put the job back on the queue or retry it.
RETRY_CALLS = frozenset(
    {
        "retry",
        "requeue",
        "enqueue",
        "enqueue_call",
        "enqueue_in",
        "enqueue_at",
        "delay",
        "apply_async",
        "send_with_options",
    }
)
LOG_METHODS = frozenset(
    {"info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)
# Words in a called name that say the failure goes somewhere: error trackers
# (capture_exception, report_exc_info, notice_error), failure tables, alerts.
RECORDING_WORDS = (
    "capture",
    "report",
    "fail",
    "error",
    "exception",
    "alert",
    "notify",
    "sentry",
    "rollbar",
    "bugsnag",
    "record",
    "dead_letter",
    "deadletter",
    "dlq",
)
# Words in an assigned attribute, subscript key or keyword argument that say a failed
# state is stored (``job.status = "failed"``, ``.update(state=FAILURE)``).
STATE_WORDS = ("status", "state", "error", "fail", "exception", "traceback", "reason")


@dataclass(frozen=True)
class HandlerShape:
    catches: tuple[str, ...]
    catches_all: bool
    reraises: bool
    retries: bool
    records: bool
    exits: bool
    inert: bool
    """The body does nothing with the error (see the module docstring)."""
    stores_state: bool = False
    """The body saves a failed state where someone can act on it (``job.status =
    "failed"``, ``.update(error=...)``, a failure table): a recovery, not a swallow."""
    fallback: bool = False
    """The body gives a local name a fallback value (``thumb = None``): an optional step
    whose result the job still produces."""
    returns_value: bool = False
    """The body returns a value (``return {"error": ...}``, ``return e``): the job's
    result carries the failure to whoever waits for it."""

    @property
    def swallows(self) -> bool:
        return self.inert and not (self.reraises or self.retries or self.records)

    @property
    def lets_the_job_succeed(self) -> bool:
        """A catch-all that logs (or does other work) and carries on, neither re-raising,
        retrying nor storing a failed state, with no fallback value: whatever the queue
        would do with a failure (a retry, a dead letter) it never sees."""
        return (
            self.catches_all
            and not (self.reraises or self.retries or self.stores_state or self.fallback)
            and not self.returns_value
            and not self.swallows
        )


def caught_names(
    handler: cst.ExceptHandler | cst.ExceptStarHandler, names: Names
) -> tuple[str, ...]:
    if handler.type is None:
        return ("BaseException",)
    elements = handler.type.elements if isinstance(handler.type, cst.Tuple) else None
    exprs = [el.value for el in elements] if elements is not None else [handler.type]
    return tuple(_caught_name(e, names) for e in exprs)


def _caught_name(expr: cst.BaseExpression, names: Names) -> str:
    """``requests.Timeout``, or ``?.DoesNotExist`` for ``get_user_model().DoesNotExist``."""
    qualified = names.qualify(expr)
    if qualified is not None:
        return qualified
    if isinstance(expr, cst.Attribute):
        return f"?.{expr.attr.value}"
    text = " ".join(cst.source_of(names.tree, expr).split()) if names.tree is not None else "?"
    return text if len(text) <= 40 else text[:37] + "..."


def is_cleanup(node: cst.Try | cst.TryStar) -> bool:
    """A try whose body only releases resources (``os.remove(tmp)``, ``conn.close()``):
    a failure there loses no work."""
    statements = node.body.body
    if not statements:
        return False
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            value = small.value if isinstance(small, cst.Expr) else None
            if not isinstance(value, cst.Call):
                return False
            name = (dotted(value.func) or "").rsplit(".", 1)[-1]
            if name not in CLEANUP_CALLS:
                return False
    return True


def is_expected(name: str) -> bool:
    """Whether swallowing ``name`` is a deliberate, correct choice (see module doc)."""
    if name in EXPECTED_QUALIFIED:
        return True
    last = name.split(".")[-1]
    if last in EXPECTED_ANYWHERE or EXPECTED_NAME.search(last):
        return True
    return name.removeprefix("builtins.") in EXPECTED_BUILTINS


def shape(
    node: cst.Try | cst.TryStar,
    handler: cst.ExceptHandler | cst.ExceptStarHandler,
    names: Names,
    in_loop: bool,
) -> HandlerShape:
    catches = caught_names(handler, names)
    error_name = _bound_name(handler)
    reraises = retries = records = exits = stores = returned = False
    for item in _body_nodes(handler.body):
        if isinstance(item, cst.Raise):
            reraises = True
        elif isinstance(item, (cst.Continue, cst.Break)):
            exits = True
        elif isinstance(item, cst.Return):
            exits = True
            returned = returned or (item.value is not None and not _is_constant(item.value))
            if item.value is not None and _mentions(item.value, error_name):
                records = True
        elif isinstance(item, cst.Call):
            kind = _call_kind(item, error_name, in_loop)
            retries = retries or kind == "retry"
            records = records or kind == "record"
            stores = stores or (kind == "record" and _stores_state_call(item))
        elif isinstance(item, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            stored = _stores_failure(item)
            records = records or stored
            stores = stores or stored
    if in_loop and not retries and _is_retry_loop_body(node):
        retries = True
    return HandlerShape(
        catches=catches,
        catches_all=any(name in CATCH_ALL for name in catches),
        reraises=reraises,
        retries=retries,
        records=records,
        exits=exits,
        inert=_is_inert(handler.body) and not _computes_values_only(node.body),
        stores_state=stores,
        fallback=_assigns_fallback(handler.body),
        returns_value=returned,
    )


# Words of a call that keeps the failure where someone can act on it: a failure table,
# a dead-letter store (a log line or an error tracker only tells).
STATE_CALL_WORDS = ("fail", "record", "dead_letter", "deadletter", "dlq")


def _stores_state_call(call: cst.Call) -> bool:
    """``record_failure(...)``, ``.update(status=...)``, ``job.set_status("failed")``,
    ``cache.set(key, "failed")``: the failure is kept where the product shows it."""
    name = (dotted(call.func) or "").lower()
    if any(word in name.rsplit(".", 1)[-1] for word in STATE_CALL_WORDS):
        return True
    last = name.rsplit(".", 1)[-1]
    for arg in call.args:
        if arg.keyword is not None and any(w in arg.keyword.value.lower() for w in STATE_WORDS):
            return True
        value = arg.value
        if (
            last not in LOG_METHODS
            and isinstance(value, cst.SimpleString)
            and any(word in value.value.lower() for word in ("fail", "error"))
        ):
            return True
    return False


def _assigns_fallback(body: cst.BaseSuite) -> bool:
    """A plain local name assigned in the handler (``result = default``)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and all(
                isinstance(target.target, cst.Name) for target in small.targets
            ):
                return True
    return False


def _computes_values_only(body: cst.BaseSuite) -> bool:
    """A ``try`` whose body only computes names (``probe = ffmpeg.probe(path)``,
    ``duration = probe["format"]["duration"]``): a ``pass`` in its handler keeps the value
    set before it, a fallback as much as ``except: duration = None`` is."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    smalls = []
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        smalls.extend(statement.body)
    return bool(smalls) and all(_assigns_a_name(small) for small in smalls)


def _assigns_a_name(small: cst.BaseSmallStatement) -> bool:
    """``x = ...``, or an item of a local mapping (``context["owner"] = task.owner.name``:
    an optional value of a message being built, tunga's notifications)."""
    if isinstance(small, cst.Assign):
        return all(_is_local_target(target.target) for target in small.targets)
    return isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)


def _is_local_target(target: cst.BaseAssignTargetExpression) -> bool:
    if isinstance(target, cst.Subscript):
        return isinstance(target.value, cst.Name) and target.value.value != "self"
    return isinstance(target, cst.Name)


def _is_inert(body: cst.BaseSuite) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for statement in statements:
        if not isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return False
        if not all(_is_inert_statement(small) for small in statement.body):
            return False
    return True


def _is_inert_statement(small: cst.BaseSmallStatement) -> bool:
    if isinstance(small, (cst.Pass, cst.Continue, cst.Break)):
        return True
    if isinstance(small, cst.Return):
        return small.value is None or _is_constant(small.value)
    if isinstance(small, cst.Expr):
        value = small.value
        if isinstance(value, cst.Call):
            return (dotted(value.func) or "").rsplit(".", 1)[-1] in INERT_CALLS
        return _is_constant(value)
    return False


def _is_constant(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value in ("None", "True", "False")
    if isinstance(expr, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
        return not expr.elements
    return isinstance(
        expr, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)
    )


def _bound_name(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str | None:
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        return handler.name.name.value
    return None


def _body_nodes(body: cst.CSTNode):
    """Nodes of a handler body, not looking into nested definitions."""
    stack = list(children(body))
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(current))


def _call_kind(call: cst.Call, error_name: str | None, in_loop: bool) -> str | None:
    name = dotted(call.func) or ""
    last = name.rsplit(".", 1)[-1]
    lowered = name.lower()
    if last in RETRY_CALLS:
        return "retry"
    if in_loop and last == "sleep":
        # ``except Timeout: time.sleep(5)`` inside a loop waits and tries again.
        return "retry"
    if last.startswith("print") or last in ("debug", "format_exc", "format_exception"):
        return None
    if "." in name and last in LOG_METHODS:
        return "record"
    if any(word in lowered for word in RECORDING_WORDS):
        return "record"
    for arg in call.args:
        if arg.keyword is not None and any(w in arg.keyword.value.lower() for w in STATE_WORDS):
            return "record"
        if error_name is not None and _mentions(arg.value, error_name):
            return "record"
    return None


def _stores_failure(node: cst.Assign | cst.AugAssign | cst.AnnAssign) -> bool:
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    for target in targets:
        if isinstance(target, cst.Attribute):
            word = target.attr.value.lower()
        elif isinstance(target, cst.Subscript):
            key = target.slice[0].slice if target.slice else None
            value = key.value if isinstance(key, cst.Index) else None
            word = value.value.lower() if isinstance(value, cst.SimpleString) else ""
        else:
            continue
        if any(w in word for w in STATE_WORDS):
            return True
    return False


def _mentions(expr: cst.CSTNode, name: str | None) -> bool:
    if name is None:
        return False
    if isinstance(expr, cst.Name):
        return expr.value == name
    return any(_mentions(child, name) for child in children(expr))


def _is_retry_loop_body(node: cst.Try | cst.TryStar) -> bool:
    """``for attempt in range(3): try: ...; break`` or ``while True: try: return ...``:
    the loop tries again after the handler, and the try body leaves it on success."""
    parts: list[cst.CSTNode] = [node.body]
    if node.orelse is not None:
        parts.append(node.orelse)
    for part in parts:
        stack = list(children(part))
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Break, cst.Return)):
                return True
            if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While)):
                continue
            stack.extend(children(current))
    return False
