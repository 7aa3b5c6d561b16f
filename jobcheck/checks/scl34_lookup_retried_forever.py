"""SCL-34 Set aside messages that keep failing (EVT-23): lookup-retried-forever.

A job that loads its record with a lookup that raises when the row is gone
(``Order.objects.get(pk=order_id)``, ``get_object_or_404``, ActiveRecord ``find``), in a
framework that retries every error for hours or days (Sidekiq's 25 retries over about 20
days, Dramatiq's 20 over weeks, ``autoretry_for=(Exception,)`` without a cap): when the
record is deleted before the job runs, every attempt fails the same way until the
retries run out. Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import Lookup
from jobcheck.findings import Finding
from jobcheck.project.contract import Retries, span_words
from jobcheck.project.model import Job
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import semantics

# Enqueues that run the job later (Sidekiq's scheduled set, ActiveJob's set(wait:)).
DELAYED_ENQUEUES = frozenset({"perform_in", "perform_at"})
DELAYS = frozenset({"wait", "wait_until"})
LONG_RETRIES_SECONDS = 3600.0
"""Retries that last an hour or more: a missing record keeps failing that long."""
# What the job handles when it names one of these in discard_on, rescue_from or throws.
_HANDLES_MISSING = ("RecordNotFound", "DeserializationError", "DoesNotExist", "NoResultFound")
_HANDLES_EVERYTHING = frozenset({"StandardError", "Exception", "BaseException"})


class LookupRetriedForever(RuleChecks):
    rule = "SCL-34"

    @check("lookup-retried-forever")
    def lookup_retried_forever(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            if is_test_code(job.file):
                continue
            found = self.project.functions.get(job.task.function or "")
            if found is None or not found[1].lookups:
                continue
            retries = self.project.contract(job).retries
            if retries is None or not _retried_long(retries) or _handled(retries):
                continue
            defined_in, function = found
            lookups = [
                lookup
                for lookup in function.lookups
                if self._may_be_gone(lookup, job, defined_in.deleted_models)
            ]
            if lookups:
                yield self._finding(job, defined_in.path, lookups[0], retries)

    @functools.cached_property
    def _delayed(self) -> frozenset[str]:
        """Jobs some call enqueues to run later (``perform_in``, ``set(wait:)``)."""
        return frozenset(
            qualname
            for qualname, sites in self.project.sites_by_job.items()
            if any(
                site.method in DELAYED_ENQUEUES or {key for key, _ in site.options} & DELAYS
                for _, site in sites
            )
        )

    def _may_be_gone(self, lookup: Lookup, job: Job, deleted_here: list[str]) -> bool:
        """Whether the row may be gone when the job runs. Python's deletions are not
        recorded (a CASCADE deletes rows no call names), so its lookups always may. A
        Ruby job's may when the job's own file deletes rows of that model (a retry after
        ``@user.destroy`` finds no user: feedbin's UserDeleter), or when it is enqueued to
        run later (``perform_in``) and the project deletes that model somewhere: a job run
        at once after its record was made rarely misses it, and a model nothing deletes
        never does."""
        if lookup.model is None:
            return True
        if lookup.model in deleted_here:
            return True
        return job.task.qualname in self._delayed and lookup.model in self._deleted

    @functools.cached_property
    def _deleted(self) -> frozenset[str]:
        return frozenset(name for f in self.project.files for name in f.deleted_models)

    def _finding(self, job: Job, path: str, lookup: Lookup, retries: Retries) -> Finding:
        noun = semantics(job.framework).job_noun
        remedy = retries.give_up.format(error=lookup.missing)
        seconds = retries.every_error_seconds or 0.0
        span = "without end" if seconds == math.inf else f"for {span_words(seconds)}"
        return self.finding(
            "lookup-retried-forever",
            path,
            lookup.loc,
            f"{noun} '{job.task.name}' retries a deleted record {span} ({lookup.text} "
            f"raises when the row is gone, and every error is retried "
            f"{retries.every_error}): {remedy}, as there is nothing left to do",
        )


def _retried_long(retries: Retries) -> bool:
    seconds = retries.every_error_seconds
    return bool(retries.every_error) and seconds is not None and seconds >= LONG_RETRIES_SECONDS


def _handled(retries: Retries) -> bool:
    for name in retries.given_up_on:
        short = name.replace("::", ".").split(".")[-1]
        if short in _HANDLES_EVERYTHING or short.endswith(_HANDLES_MISSING):
            return True
    return False
