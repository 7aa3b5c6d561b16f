"""Functions that only hand work to a job system: a body of nothing but enqueue calls
(``send_report.delay()``, ``await redis.enqueue_job("sync")``).

A scheduler (APScheduler, ``schedule``, a Huey periodic task...) that runs such a
function really schedules the jobs it enqueues: their bodies are what runs on the
schedule, in a worker. Recorded as ``FunctionFacts.enqueues_only``; the enqueue sites are
the ones the framework recognizers record for the same calls, so this recognizer runs
after them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FunctionFacts
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted

# Calls a delegating body may make beside its enqueues: logging (and print).
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "log"})


@dataclass
class _Frame:
    calls: dict[int, str | None] = field(default_factory=dict)
    """``id`` of each statement-level call that must enqueue -> what it enqueued."""
    delegating: bool = False


class DelegationRecognizer(Recognizer):
    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._frames: list[_Frame] = []

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        self._frames.append(_frame(node))

    def call(self, node: cst.Call, func: str | None) -> None:
        if not self._frames:
            return
        frame = self._frames[-1]
        if not frame.delegating or id(node) not in frame.calls:
            return
        site = self.walker.current_site
        if site is not None and site.order == self.walker.order:
            frame.calls[id(node)] = site.target or site.target_text

    def function_end(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        frame = self._frames.pop()
        targets = list(frame.calls.values())
        if frame.delegating and targets and all(t is not None for t in targets):
            facts.enqueues_only = tuple(targets)  # type: ignore[arg-type]


def _frame(node: cst.FunctionDef) -> _Frame:
    """The statement-level calls of a body made only of calls (and a docstring, ``pass``,
    log calls); not delegating when anything else is there."""
    frame = _Frame(delegating=True)
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    for index, statement in enumerate(body):
        if not isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return _Frame()
        for small in statement.body:
            if isinstance(small, cst.Pass):
                continue
            if index == 0 and isinstance(small, cst.Expr) and _is_string(small.value):
                continue
            value = small.value if isinstance(small, (cst.Expr, cst.Return)) else None
            if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
                value = small.value  # ``job = queue.enqueue(...)``: the job object kept
            if isinstance(value, cst.Await):
                value = value.expression
            if not isinstance(value, cst.Call):
                return _Frame()
            if _is_log_call(value):
                continue
            frame.calls[id(value)] = None
    return frame


def _is_string(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString))


def _is_log_call(call: cst.Call) -> bool:
    """``logger.info(...)``, and ``print(...)`` (a clock process's log)."""
    name = dotted(call.func) or ""
    if name == "print":
        return True
    return "." in name and name.rpartition(".")[2] in _LOG_METHODS and "log" in name.lower()
