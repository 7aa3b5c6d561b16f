"""Automatic fixes, kept apart from the checks.

A check reports a finding; a fix module here, keyed by the finding's (rule id, check
slug), turns it into a :class:`~jobcheck.findings.Fix` after the checks ran, reading
only the finding, the flagged file (its text and libcst tree) and facts about the
project (:class:`~jobcheck.fixes.project.ProjectInfo`). So checks need not know about
fixes, and a fix module can move next to its check later without changing either.

Each module has ``RULE``, ``CHECK`` and ``fix(finding, source, project) -> Fix | None``
(None: no fix for this one). Fixes follow Ruff's applicability: "safe" fixes keep what
the code evidently means and are applied by ``--fix``; "unsafe" ones may change what
the program does and need ``--unsafe-fixes``; "display" ones are only shown (a value
that only a person can choose). See docs/fixes.md.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING

from jobcheck.findings import Finding, Fix

if TYPE_CHECKING:
    from jobcheck.config import Options
    from jobcheck.facts import FileFacts
    from jobcheck.fixes.project import ProjectInfo
    from jobcheck.fixes.source import Source

# (rule id, check slug) -> module under jobcheck/fixes/.
FIX_MODULES: dict[tuple[str, str], str] = {
    ("SCL-18", "missing-time-limit"): "scl18_missing_time_limit",
    ("SCL-18", "http-call-without-timeout"): "scl18_http_call_without_timeout",
    ("SCL-18", "soft-limit-not-below-hard"): "scl18_soft_limit_not_below_hard",
    ("SCL-19", "schedule-without-expiry"): "scl19_schedule_without_expiry",
    ("SCL-22", "crontab-missing-minute"): "scl22_crontab_missing_minute",
    ("SCL-22", "schedule-on-the-hour"): "scl22_schedule_on_the_hour",
    ("SCL-22", "schedule-pile-up"): "scl22_schedule_pile_up",
    ("SCL-34", "retry-without-backoff"): "scl34_retry_without_backoff",
    ("JOB-01", "enqueue-before-commit"): "job01_enqueue_before_commit",
}

APPLICABILITIES = ("safe", "unsafe", "display")


def has_fixer(rule: str, check: str) -> bool:
    return (rule, check) in FIX_MODULES


def fixer_module(rule: str, check: str) -> ModuleType | None:
    name = FIX_MODULES.get((rule, check))
    return importlib.import_module(f"jobcheck.fixes.{name}") if name else None


def attach_fixes(
    findings: Sequence[Finding],
    facts: Iterable[FileFacts],
    source_of: Callable[[str], str | None],
    options: Options,
    roots: Iterable[str] = (),
) -> list[Finding]:
    """``findings`` with the fix of each one that has one (a fix a check gave itself is
    kept). A fix module that fails is a bug: the finding keeps no fix, the run goes on
    (set JOBCHECK_DEBUG=1 to see the error)."""
    if not any(wants_fix(f) for f in findings):
        return list(findings)
    fixer = Fixer(facts, source_of, options, roots)
    return [fixer.fixed(finding) for finding in findings]


def wants_fix(finding: Finding) -> bool:
    """Whether a fix module may give ``finding`` a fix (it has none of its own)."""
    return finding.fix is None and has_fixer(finding.rule, finding.check)


class Fixer:
    """Fixes findings one at a time, against one state of the project: what they share
    (the project's facts, each file's tree, the start minutes handed out) is made once,
    on first use. The language server keeps one per published document and fixes the
    findings a code action asks about."""

    def __init__(
        self,
        facts: Iterable[FileFacts],
        source_of: Callable[[str], str | None],
        options: Options,
        roots: Iterable[str] = (),
    ) -> None:
        self._facts = facts
        self._source_of = source_of
        self._options = options
        self._roots = tuple(roots)
        self._project: ProjectInfo | None = None
        self._sources: dict[str, Source] = {}

    def fixed(self, finding: Finding) -> Finding:
        """``finding`` with its fix, if a fix module gives it one; a finding that stands
        for others of its file (``Finding.grouped``) gets their edits too."""
        fixed = self._fixed_one(finding)
        if not finding.grouped:
            return fixed
        fixes = [f.fix for f in (fixed, *map(self._fixed_one, finding.grouped)) if f.fix]
        if len(fixes) < 2:
            return replace(fixed, fix=fixes[0]) if fixes else fixed
        applicability = max((fix.applicability for fix in fixes), key=APPLICABILITIES.index)
        edits = tuple(edit for fix in fixes for edit in fix.edits)
        title = f"{fixes[0].title} (and {len(fixes) - 1} more)"
        return replace(fixed, fix=Fix(title, edits, applicability))

    def _fixed_one(self, finding: Finding) -> Finding:
        module = fixer_module(finding.rule, finding.check) if finding.fix is None else None
        if module is None:
            return finding
        from jobcheck.fixes.project import ProjectInfo
        from jobcheck.fixes.source import Source

        if self._project is None:
            self._project = ProjectInfo(self._facts, self._options, self._source_of, self._roots)
        source = self._sources.get(finding.path)
        if source is None:
            source = self._sources[finding.path] = Source(
                finding.path, self._source_of(finding.path)
            )
        try:
            fix = module.fix(finding, source, self._project)
        except Exception:
            if os.environ.get("JOBCHECK_DEBUG"):
                raise
            fix = None
        return replace(finding, fix=fix) if fix is not None else finding


def read_text(path: str, overrides: dict[str, bytes] | None = None) -> str | None:
    """A file's text as fixes edit it: UTF-8, newlines as they are (``\\r\\n`` stays);
    None when it cannot be read or is not UTF-8 (such a file is not fixed)."""
    data = overrides.get(path) if overrides else None
    if data is None:
        from jobcheck.discovery.reading import ReadError, open_regular

        try:
            with open_regular(path) as stream:
                data = stream.read()
        except (ReadError, OSError):
            return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
