"""The shape of a rule module: one class per rule, one method per check.

A rule class reads the project model and yields findings::

    class JobTimeLimits(RuleChecks):
        rule = "SCL-18"

        @check("missing-time-limit")
        def missing_time_limit(self) -> Iterator[Finding]:
            ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import ClassVar, TypeVar

from jobcheck.catalog import CheckInfo, load_catalog
from jobcheck.config import Options
from jobcheck.facts import FileFacts, Loc, ScheduleEntry
from jobcheck.findings import Finding, Fix, Related
from jobcheck.project import Project
from jobcheck.project.contract import TimeLimit
from jobcheck.project.model import Job
from jobcheck.project.reach import FunctionEntry
from jobcheck.registry import job_part, project_parts, schedule_part, time_limit_part
from jobcheck.triggers import Trigger


@dataclass(frozen=True)
class SummaryRoots:
    functions: tuple[FunctionEntry, ...] = ()
    """Summaries are asked of these."""
    callers: tuple[FunctionEntry, ...] = ()
    """Summaries are asked of what these call."""


RuleChecksT = TypeVar("RuleChecksT", bound="RuleChecks")
CheckMethod = Callable[[RuleChecksT], Iterator[Finding]]


def check(slug: str) -> Callable[[CheckMethod[RuleChecksT]], CheckMethod[RuleChecksT]]:
    """Mark a method as the implementation of the check ``slug``."""

    def mark(method: CheckMethod[RuleChecksT]) -> CheckMethod[RuleChecksT]:
        method.check_slug = slug  # type: ignore[attr-defined]
        return method

    return mark


class RuleChecks:
    rule: ClassVar[str]
    PREFILTER: ClassVar[tuple[Trigger, ...]] = ()
    judges_job_bodies: ClassVar[bool] = False
    """Its findings are about what job bodies run: code several jobs share (a method
    every subclass inherits) is one finding, saying how many more jobs run it."""
    """What in a file's bytes means this rule's checks may need the file's facts,
    beyond what the recognizers' triggers catch (``jobcheck/prefilter.py``)."""

    @classmethod
    def summary_roots(cls, project: Project) -> SummaryRoots:
        """The functions, beyond the job bodies, whose call summaries this rule's checks
        ask (``Summaries.of_function``), and those whose callees' summaries they ask:
        their helpers are read before any check runs (``jobcheck/project/reach.py``)."""
        return SummaryRoots()

    def __init__(self, project: Project, options: Options) -> None:
        self.project = project
        self.options = options
        self.enabled: set[str] = set()
        """The checks of this rule the run enables (a check may leave a case to another)."""

    @classmethod
    def implemented(cls) -> dict[str, str]:
        """Check slug -> method name, for every check this class implements."""
        found = {}
        for name in dir(cls):
            slug = getattr(getattr(cls, name), "check_slug", None)
            if slug is not None:
                found[slug] = name
        return found

    @classmethod
    def slug(cls) -> str:
        """The check this class implements (one per module)."""
        (slug,) = cls.implemented()
        return slug

    @classmethod
    def info(cls) -> CheckInfo:
        """The check's catalog entry (``rules/<RULE>.yaml``): its default severity and
        summary; its fix, when it has one, is ``jobcheck/fixes/<this module's name>.py``."""
        return load_catalog().rule(cls.rule).check(cls.slug())

    one_finding_per_file: ClassVar[str] = ""
    """For a check about configuration that every project of a framework gets (one per
    schedule entry): what its places are called ("schedule entries"). Its findings in one
    file become one, at the first, listing the others, once suppressions are applied
    (``jobcheck/grouping.py``)."""

    def run(self, slugs: set[str]) -> Iterator[Finding]:
        self.enabled = self.enabled or set(slugs)
        for slug, name in self.implemented().items():
            if slug in slugs:
                found = getattr(self, name)()
                found = one_per_place(found) if self.judges_job_bodies else distinct(found)
                if self.one_finding_per_file:
                    found = [replace(f, group_as=self.one_finding_per_file) for f in found]
                yield from found

    def framework_parts(self, slug: str) -> Iterator[Finding]:
        """The findings of every framework's own part of check ``slug`` that judges the
        project (``semantics_base.CheckParts``)."""
        for part in project_parts(slug):
            yield from part(self)

    def job_parts(self, slug: str, job: Job) -> Iterator[Finding]:
        """The findings of ``job``'s framework's own part of check ``slug``."""
        part = job_part(job.framework, slug)
        if part is not None:
            yield from part(self, job)

    def schedule_parts(
        self, slug: str, f: FileFacts, entry: ScheduleEntry, job: Job | None
    ) -> Iterator[Finding]:
        """The findings of ``entry``'s framework's own part of check ``slug``."""
        part = schedule_part(entry.framework, slug)
        if part is not None:
            yield from part(self, f, entry, job)

    def time_limit_parts(self, slug: str, job: Job, limit: TimeLimit) -> Iterator[Finding]:
        """``job``'s framework's report of check ``slug``'s judgement of ``limit``."""
        part = time_limit_part(job.framework, slug)
        if part is not None:
            yield from part(self, job, limit)

    def finding(
        self,
        slug: str,
        path: str,
        loc: Loc,
        message: str,
        fix: Fix | None = None,
        related: tuple[Related, ...] = (),
    ) -> Finding:
        """A finding of check ``slug``; ``fix`` is an automatic fix, when the check can
        offer one that is certain (edits in ``path`` only); ``related`` the other places
        it involves (the hops of a call chain)."""
        return Finding(
            rule=self.rule,
            check=slug,
            path=path,
            loc=loc,
            message=message,
            fix=fix,
            related=related,
        )


def distinct(findings: Iterable[Finding]) -> Iterator[Finding]:
    """Each finding once: a declaration several jobs inherit (an ActiveJob base class's
    ``retry_on``) is judged for every job that has it, and reported once where it is
    written."""
    seen: set[Finding] = set()
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            yield finding


def one_per_place(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per place for a check of job bodies: code several jobs run (a base
    class's method every subclass inherits) is reported once, at its line, saying how
    many more jobs run it (the engine keeps one finding per place and check anyway:
    ``engine._once_per_place``)."""
    kept: dict[tuple[str, int, int, int, int], list[Finding]] = {}
    for finding in findings:
        loc = finding.loc
        key = (finding.path, loc.line, loc.column, loc.end_line, loc.end_column)
        kept.setdefault(key, []).append(finding)
    return [_merged(same) for same in kept.values()]


def _merged(same: list[Finding]) -> Finding:
    first = same[0]
    others = len({f.message for f in same[1:]} - {first.message})
    if not others:
        return first
    more = "1 more job" if others == 1 else f"{others} more jobs"
    return dataclasses.replace(first, message=f"{first.message} (the same code runs for {more})")
