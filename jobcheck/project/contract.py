"""What a job promises, computed once: the values ``review``/``jobs`` print and the checks
judge (docs/ARCHITECTURE.md, "One contract per job").

A framework plugin normalises its options into a :class:`JobContract` per job
(``Semantics.job_contract``, asked once through ``Project.contract``); the words ``jobs``
prints are made here from it (:func:`describe_time_limit`...), and the checks judge the
same object, so what review says and what a check reports cannot disagree. A value set
in the project says where (:class:`Origin`); a framework's default is named in words
with the library source it was checked against (``none_by_default``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from jobcheck.facts import Loc
from jobcheck.facts.values import (
    EnvDefault,
    Value,
    describe,
    env_note,
    is_infinite,
    is_none,
    number,
)


@dataclass(frozen=True)
class Origin:
    """Where a contract value comes from."""

    where: str
    """"task", "base class", "task_annotations", "global setting", "job", or the
    framework's default ("RQ default")."""
    path: str | None = None
    loc: Loc | None = None


@dataclass(frozen=True)
class Seconds:
    """One limit as the project sets it: a number of seconds, no limit (None, 0 or
    infinity, each as written), or a value the code computes (unknown)."""

    value: Value | None
    """None where the option is there but nothing readable was recorded for it (taken
    to bound the run: the project chose a value)."""
    origin: Origin
    scale: float = 1.0
    """Seconds per unit of the value (Dramatiq writes milliseconds: 0.001)."""
    unlimited: bool | None = None
    """Whether the framework reads this value as no limit, when its plugin says (RQ's -1
    is none, Dramatiq's 0 is not); None for Celery's reading: None, 0 or infinity."""
    written: str = ""
    """The option as written, for messages and review (``job_timeout=-1``)."""

    @property
    def seconds(self) -> float | None:
        found = number(self.value)
        return float(found) * self.scale if found is not None else None

    @property
    def no_limit(self) -> bool:
        """Set to what means no limit: what the plugin says (:attr:`unlimited`), else
        None, 0 (billiard starts no timer for 0) or infinity."""
        if self.unlimited is not None:
            return self.unlimited
        return is_none(self.value) or is_infinite(self.value) or self.seconds in (0.0, math.inf)

    @property
    def limits(self) -> bool:
        """Whether it bounds the run (an unknown value is taken to: the project chose it)."""
        return not self.no_limit

    @property
    def from_environment(self) -> str | None:
        """The environment variable whose literal default this is, when it is one."""
        return self.value.variable if isinstance(self.value, EnvDefault) else None


@dataclass(frozen=True)
class TimeLimit:
    """A job's time limits: hard (the worker kills the run) and soft (the job is told)."""

    hard: Seconds | None
    soft: Seconds | None = None
    per_call: bool = False
    """Some call sends the job with limits of its own (``apply_async(time_limit=...)``)."""
    none_by_default: str = ""
    """What the framework's default is when nothing is set, with its source."""
    unenforced: str = ""
    """Why the workers apply no limit, whatever is set (the pool they run), or ""."""
    unenforced_at: Origin | None = None
    """The place that makes the workers apply none (the worker command, the broker's
    middleware list): a check reports the missing limit there, once."""
    soft_kind: bool = False
    """The framework has a soft limit too (Celery): review names each limit."""
    unknown: str = ""
    """Why jobcheck cannot tell the limit (a project Task class that may set one), or ""."""
    settable: bool = True
    """Whether the framework offers a job time limit to set: Sidekiq does not, by design
    (its calls need timeouts of their own), so no job of it is reported for lacking one."""

    @property
    def limits(self) -> tuple[Seconds, ...]:
        """The values set, hard first."""
        return tuple(s for s in (self.hard, self.soft) if s is not None)

    @property
    def decided_at(self) -> Origin | None:
        """Where the missing limit is decided, when a place in the project decides it:
        the worker setup that applies none, else the value that means none."""
        if self.unenforced_at is not None:
            return self.unenforced_at
        return next((s.origin for s in self.limits if s.no_limit and s.origin.loc), None)

    @property
    def bound_seconds(self) -> float | None:
        """How long a run can last, in seconds, when the workers stop it: the hard
        limit, else the soft one; None for no limit or a value jobcheck cannot read."""
        if not self.present:
            return None
        return next((s.seconds for s in self.limits if s.limits and s.seconds is not None), None)

    @property
    def is_set(self) -> bool:
        """Whether the project sets some limit for the job's runs."""
        return bool(self.unknown) or self.per_call or any(s.limits for s in self.limits)

    @property
    def present(self) -> bool:
        """Whether some limit bounds the job's runs: set, and applied by the workers."""
        return self.is_set and not self.unenforced


@dataclass(frozen=True)
class Retries:
    """How a job's failed runs are run again: the words review prints, and the option
    that makes them endless when it does (SCL-34 unbounded-retries reports there)."""

    words: str
    """``automatic on ConnectionError, max 5``, ``max 20 (Dramatiq default)``, ``none``."""
    unbounded_at: Origin | None = None
    """Where the project removes the cap (``max_retries=None``); None while some cap
    holds (or nothing retries)."""
    written: str = ""
    """That option as written, for the message (``max_retries=None``)."""
    capped_by_default: str = ""
    """The framework's cap when the option is left out (``Celery's default is 3``)."""
    forever: str = "retried forever"
    """What no cap means in this framework, as the message says it."""
    every_error: str = ""
    """How the framework runs the job again after any error at all, a missing record's
    included (``25 times over about 20 days (Sidekiq's default)``); "" when only some
    errors are retried, or none."""
    every_error_seconds: float | None = None
    """How long those attempts go on, in seconds (infinity without a cap); None when
    :attr:`every_error` is ""."""
    given_up_on: tuple[str, ...] = ()
    """Exceptions the job handles itself instead of retrying them (ActiveJob
    ``discard_on``/``rescue_from``, Dramatiq ``throws``), as written."""
    declined: bool = False
    """The project turned the framework's retries off for this job on purpose (Sidekiq
    ``retry: false``/``0``): a failure is not run again however it ends."""
    give_up: str = "catch {error} and return"
    """How the job gives up on an error at once, as a remedy says it (``{error}``: the
    exception's name): ActiveJob's ``discard_on``."""

    @property
    def unbounded(self) -> bool:
        return self.unbounded_at is not None


def span_words(seconds: float) -> str:
    """``about 20 days``, ``about 5 hours``, ``without end``."""
    if seconds == math.inf:
        return "without end"
    for unit, size in (("day", 86400.0), ("hour", 3600.0), ("minute", 60.0)):
        if seconds >= size:
            count = round(seconds / size)
            return f"about {count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} s"


@dataclass(frozen=True)
class DeadLetter:
    """Where a job that fails for good ends: kept somewhere to inspect and replay, or
    lost, and the option that decides it."""

    kept_in: str = ""
    """The framework's store of failed jobs (``Sidekiq's dead set``), or ""."""
    lost: str = ""
    """Why nothing is kept (``retry: false skips the dead set``), or ""."""
    recorded_by: str = ""
    """A handler of the project that records the failure, or ""."""
    decided_by: str = ""
    """The option that decides it, as written (``retry: false``)."""
    origin: Origin | None = None
    """Where that option is written."""

    @property
    def kept(self) -> bool:
        """Whether a failed job leaves something to inspect or replay."""
        return bool(self.kept_in or self.recorded_by)


@dataclass(frozen=True)
class Delivery:
    """When a job's message is acknowledged, and what a worker lost mid-run does to it."""

    words: str
    """The ``delivery`` line of ``jobcheck jobs``
    (``late (acks_late, task): a lost worker's job is redelivered ...``)."""
    late: bool | None = None
    """Whether the message is acknowledged only after the run, so a lost worker's job
    runs again (and, on Redis or SQS, one that outlasts the visibility timeout); None
    when the project does not show it."""


@dataclass(frozen=True)
class JobContract:
    """What one job promises, made once per job by its framework's plugin
    (``Semantics.job_contract``, asked through ``Project.contract``): ``jobs`` and
    ``review`` print it, and the checks judge the same value."""

    time_limit: TimeLimit | None = None
    """None where its framework has no limit jobcheck reads."""
    retries: Retries | None = None
    """None where jobcheck cannot say how its failed runs are retried."""
    delivery: Delivery = Delivery("unknown")
    backoff: str = "unknown"
    """How long it waits between retries, in words (``-`` when nothing retries)."""
    dead_letter: str = "unknown"
    """Where a run that fails for good ends, in words (``describe_dead_letter``)."""


def describe_dead_letter(dead: DeadLetter) -> str:
    """The ``dead letter`` line of ``jobcheck jobs``."""
    if dead.recorded_by and dead.lost:
        return f"{dead.lost}, after {dead.recorded_by} records it"
    if dead.recorded_by:
        return dead.recorded_by
    if dead.lost:
        return f"none: {dead.lost}"
    return dead.kept_in or "none found"


def describe_time_limit(limit: TimeLimit) -> str:
    """The ``time limit`` line of ``jobcheck jobs``: ``hard 300 s (global setting)``."""
    parts = [
        ("{name} " if limit.soft_kind else "").format(name=name) + _limit_text(s)
        for name, s in (("hard", limit.hard), ("soft", limit.soft))
        if s is not None and s.limits
    ]
    if limit.unknown and not parts:
        return f"unknown ({limit.unknown})"
    if limit.per_call and not parts:
        parts = ["set by the calls that send it"]
    if parts and limit.unenforced:
        return f"none: {', '.join(parts)}, but {limit.unenforced}"
    if parts:
        return ", ".join(parts)
    unset = [s for s in (limit.hard, limit.soft) if s is not None and s.from_environment]
    if unset:
        variables = " or ".join(f"${s.from_environment}" for s in unset)
        defaults = "its default is" if len(unset) == 1 else "their defaults are"
        return f"none unless {variables} is set ({defaults} None)"
    written = [s.written for s in limit.limits if s.no_limit and s.written]
    if written:
        return f"none ({', '.join(written)})"
    return f"none ({limit.none_by_default})" if limit.none_by_default else "none"


def _limit_text(limit: Seconds) -> str:
    """``300 s (job)``; a value computed at run time without a unit (it is not known to
    be seconds: Dramatiq's are milliseconds): ``settings.X (job, computed at run time)``."""
    seconds = limit.seconds
    if seconds is None:
        return f"{describe(limit.value)} ({_origin_text(limit)}, computed at run time)"
    return f"{seconds:g} s ({_origin_text(limit)})"


def _origin_text(limit: Seconds) -> str:
    return limit.origin.where + env_note(limit.value)
