"""SCL-34 Set aside messages that keep failing (EVT-23): swallowed-exception.

A job that catches an error and carries on is marked successful: the work is silently lost,
never retried and never dead-lettered.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import ExceptHandler
from jobcheck.findings import Finding, Related
from jobcheck.frameworks.semantics_base import Semantics, catches_cancellation
from jobcheck.project.bodies import JobBody, job_bodies
from jobcheck.project.summaries import Hop, Reach
from jobcheck.registry import semantics
from jobcheck.vocabulary.words import BEST_EFFORT_WORDS, matching_word


class SwallowedException(RuleChecks):
    rule = "SCL-34"
    judges_job_bodies = True

    @check("swallowed-exception")
    def swallowed_exception(self) -> Iterator[Finding]:
        # Handlers that re-raise, retry or record the failure are not recorded, nor are
        # those catching only expected outcomes (a deleted record, a duplicate insert,
        # lookup/parse fallbacks): see jobcheck/extract/handlers.py.
        in_helpers: dict[tuple[str, int, int], list[tuple[JobBody, Reach[ExceptHandler]]]] = {}
        for body in job_bodies(self.project):
            seen: set[tuple[str, int, int]] = set()
            for reach in body.summary(self.project).handlers:
                handler = reach.item
                if not handler.catches_all and all(map(self._project_error, handler.catches)):
                    # The project's own error, raised to say "nothing to do here" and
                    # caught on purpose (polar's UnhandledPaymentIntent): control flow.
                    continue
                if self._never_retried(body) and (not handler.catches_all or handler.records):
                    # Retries turned off on purpose (retry: false): a named error caught,
                    # or every error reported, loses nothing a retry would have recovered.
                    continue
                own = _own_method(body, reach)
                if (
                    not reach.direct
                    and not own
                    and (not handler.catches_all or handler.exits or _best_effort(reach.chain))
                ):
                    # A helper catching one named error, returning a fallback to its
                    # caller (``except Exception: return []``), or called as a statement
                    # for side work that is best effort by design (``emit_metric(...)``,
                    # telemetry) does what it was written for: only a catch-all that
                    # carries on in the job's own work loses it (``push_to_erp(order)``).
                    continue
                if own and handler.exits and reach.chain and not reach.chain[-1].discarded:
                    continue  # a method of the job's class returning a fallback it uses
                if not handler.inert and matching_word(body.name, BEST_EFFORT_WORDS):
                    continue  # a job that only tracks or emits (analytics) is best effort
                key = (reach.path, handler.loc.line, handler.loc.column)
                if key in seen:
                    continue  # the same helper's handler, reached by another call
                seen.add(key)
                if reach.direct or (own and reach.path == body.file.path):
                    yield self._in_job(body, reach)
                else:
                    in_helpers.setdefault(key, []).append((body, reach))
            yield from self._swallowed_cancellation(body, seen)
        for reached in in_helpers.values():
            # One clause, one finding: at the job's call when one job reaches it, else
            # once at the clause, naming the jobs.
            if len(reached) == 1:
                yield self._in_job(*reached[0])
            else:
                yield self._in_helper(reached)

    def _never_retried(self, body: JobBody) -> bool:
        if body.job is None:
            return False
        retries = self.project.contract(body.job).retries
        return retries is not None and retries.declined

    @functools.cached_property
    def _project_packages(self) -> frozenset[str]:
        return frozenset(f.module.split(".")[0] for f in self.project.files if f.module)

    def _project_error(self, name: str) -> bool:
        """An exception class the project defines (not a library's)."""
        dotted = name.replace("::", ".").lstrip(".")
        if dotted in self.project.classes:
            return True
        head = dotted.split(".")[0]
        return "." in dotted and head in self._project_packages and head[:1].islower()

    def _in_job(self, body: JobBody, reach: Reach[ExceptHandler]) -> Finding:
        handler = reach.item
        framework = semantics(body.framework)
        shown = _shown(framework, handler)
        at_rescue = reach.direct or (_own_method(body, reach) and reach.path == body.file.path)
        # In a subclass's own method a shared body runs (``cls().run()``): placed there.
        path, loc = (reach.path, handler.loc) if at_rescue else reach.place(body.file.path)
        return self.finding(
            "swallowed-exception",
            path,
            loc,
            f"{shown}{'' if at_rescue else reach.through()} in job '{body.name}' "
            f"{_consequence(handler, framework)}"
            f"{_cancellation_note(framework, handler.catches)}",
            related=reach.related(shown),
        )

    def _in_helper(self, reached: list[tuple[JobBody, Reach[ExceptHandler]]]) -> Finding:
        body, reach = reached[0]
        handler = reach.item
        framework = semantics(body.framework)
        shown = _shown(framework, handler)
        names = [f"'{b.name}'" for b, _ in reached]
        jobs = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        if len(names) == 2:
            jobs = " and ".join(names)
        related = tuple(
            Related(b.file.path, r.loc, f"job '{b.name}' calls {r.chain[0].label}")
            for b, r in reached
        )
        return self.finding(
            "swallowed-exception",
            reach.path,
            handler.loc,
            f"{shown} in {reach.function.name}(), reached from jobs {jobs}, "
            f"{_consequence(handler, framework)}"
            f"{_cancellation_note(framework, handler.catches)}",
            related=related,
        )

    def _swallowed_cancellation(
        self, body: JobBody, seen: set[tuple[str, int, int]]
    ) -> Iterator[Finding]:
        """An ``except`` in a coroutine job that catches the runner's cancellation and
        does not raise it again: logging it does not help, the runner sees the coroutine
        return and records the run as a success (arq, taskiq)."""
        noun = semantics(body.framework).words.cancellation_noun
        if noun is None:
            return
        # The job's own coroutine and those it awaits (a helper that catches the
        # cancellation swallows the job's: poeboto's client.start()).
        for reach in body.summary(self.project).functions:
            for handler_loc in reach.item.cancel_handlers:
                loc = handler_loc if reach.direct else reach.loc
                key = (body.file.path, loc.line, loc.column)
                if key in seen:
                    continue
                seen.add(key)
                where = (
                    "this except"
                    if reach.direct
                    else f"an except in {reach.item.name}() ({reach.path}:{handler_loc.line})"
                )
                yield self.finding(
                    "swallowed-exception",
                    body.file.path,
                    loc,
                    f"{where} in job '{body.name}' catches {noun} and does not raise it "
                    "again (logging it does not help): the runner sees the job return, so a "
                    "run that timed out ends as a success and one stopped by a deploy is "
                    "not run again; re-raise it with a bare raise after any cleanup",
                )


_CONSEQUENCE = (
    "swallows the error (no raise, retry, log at info or above, error tracker or saved "
    "failure): the job is marked successful and the work is silently lost; "
)


_SUCCEEDS = (
    "catches every error and {does}, then lets the job end normally: the queue records a "
    "success, so the failure is never retried and never reaches a dead letter, and the "
    "work is lost; "
)


def _consequence(handler: ExceptHandler, framework: Semantics) -> str:
    """Why the handler loses the work, and what to do instead."""
    words = framework.words
    if handler.inert:
        return f"{_CONSEQUENCE}{words.report_advice} or {words.let_it_fail}"
    does = "logs it" if handler.records else "carries on"
    return (
        _SUCCEEDS.format(does=does)
        + f"raise it again after logging (a bare raise), catch only the errors that may be "
        f"skipped, or {words.let_it_fail}"
    )


def _shown(framework: Semantics, handler: ExceptHandler) -> str:
    shown = framework.handler_text(handler.catches, handler.catches_all)
    return shown or _except_text(handler)


def _own_method(body: JobBody, reach: Reach[ExceptHandler]) -> bool:
    """A Ruby job class's own private method (``def refund(order)`` called from
    ``perform``): its rescue is the job's own, not a helper's fallback for its callers."""
    own_class = body.function.class_qualname
    return (
        own_class is not None
        and body.file.path.endswith(".rb")
        and reach.function.class_qualname == own_class
    )


def _best_effort(chain: tuple[Hop, ...]) -> bool:
    """Called, somewhere on the way, as a statement of a helper named for side work."""
    return any(
        hop.discarded and matching_word(hop.callee.rsplit(".", 1)[-1], BEST_EFFORT_WORDS)
        for hop in chain
    )


def _except_text(handler: ExceptHandler) -> str:
    if handler.catches == ("BaseException",) and handler.catches_all:
        return "a bare 'except:'"
    names = ", ".join(name if "(" in name else name.rsplit(".", 1)[-1] for name in handler.catches)
    return f"'except ({names})'" if len(handler.catches) > 1 else f"'except {names}'"


def _cancellation_note(framework: Semantics, catches: tuple[str, ...]) -> str:
    """What the handler also swallows when it catches the cancellation the framework's
    runner sends its coroutine jobs (a time limit, a shutdown)."""
    return framework.words.cancellation_swallowed if catches_cancellation(catches) else ""
