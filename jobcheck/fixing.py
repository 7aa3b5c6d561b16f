"""``--fix`` and ``--diff``: apply the fixes of a report, check again, repeat.

Fixes are applied in memory, each round checking the fixed text as an editor's unsaved
buffers are checked (``RunSettings.overrides``), until no applicable fix is left, a
round changes nothing, or :data:`MAX_ROUNDS` is reached. A fix that conflicts with one
applied before it in the same file waits for the next round, when it is made again from
the fixed text. Every file's fixed text must still parse; nothing is written before the
last round (``--diff`` writes nothing at all).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from jobcheck.findings import Finding, Fix, Report
from jobcheck.fixes import read_text
from jobcheck.fixes.edits import apply_fixes
from jobcheck.guarded import Boundary, WriteError, write_atomically
from jobcheck.syntax import quiet

MAX_ROUNDS = 10
BOM = "\ufeff"


@dataclass
class Outcome:
    report: Report
    """The check of the fixed text: the findings that are left."""
    first: Report | None = None
    """The first check, before any fix."""
    original: dict[str, str] = field(default_factory=dict)
    """Path -> text before any fix, for every file a fix changed."""
    fixed: dict[str, str] = field(default_factory=dict)
    """Path -> text after the fixes."""
    applied: list[Finding] = field(default_factory=list)
    """The findings whose fixes were applied, in the order they were."""
    unwritten: list[str] = field(default_factory=list)
    """Why each changed file that could not be written was not (one line each)."""

    @property
    def changed(self) -> list[str]:
        return sorted(p for p in self.fixed if self.fixed[p] != self.original.get(p))


def applicable(fix: Fix | None, unsafe: bool) -> bool:
    if fix is None:
        return False
    return fix.applicability == "safe" or (unsafe and fix.applicability == "unsafe")


def fix_rounds(
    check: Callable[[dict[str, bytes]], Report],
    unsafe: bool,
    wanted: Callable[[Finding], bool],
    rounds: int = MAX_ROUNDS,
    overrides: dict[str, bytes] | None = None,
) -> Outcome:
    """Check with ``check(overrides)``, apply the applicable fixes of the findings
    ``wanted`` keeps, and again."""
    buffers: dict[str, bytes] = dict(overrides or {})
    outcome = Outcome(Report())
    for _ in range(rounds):
        report = check(buffers)
        outcome.report = report
        if outcome.first is None:
            outcome.first = report
        chosen = [f for f in report.findings if applicable(f.fix, unsafe) and wanted(f)]
        if not chosen or not _apply_round(chosen, buffers, outcome):
            break
    else:
        outcome.report = check(buffers)
    return outcome


def _apply_round(chosen: list[Finding], buffers: dict[str, bytes], outcome: Outcome) -> bool:
    by_path: dict[str, list[Finding]] = {}
    for finding in chosen:
        by_path.setdefault(finding.path, []).append(finding)
    progress = False
    for path, findings in by_path.items():
        text = _current(path, buffers, outcome)
        if text is None:
            continue
        new, applied = _apply_checked(text, findings, _checker(path))
        if not applied or new == text:
            continue
        outcome.fixed[path] = new
        buffers[path] = new.encode("utf-8")
        outcome.applied.extend(applied)
        progress = True
    return progress


def _current(path: str, buffers: dict[str, bytes], outcome: Outcome) -> str | None:
    if path in outcome.fixed:
        return outcome.fixed[path]
    text = read_text(path, buffers)
    if text is None or text.startswith(BOM):
        return None
    outcome.original[path] = text
    return text


def _apply_checked(
    text: str, findings: list[Finding], parses: Callable[[str], bool]
) -> tuple[str, list[Finding]]:
    """All fixes at once when the result parses, else one at a time, keeping those
    after which the file still parses."""
    fixes = [f.fix for f in findings if f.fix is not None]
    new, applied = apply_fixes(text, fixes)
    if parses(new):
        return new, [f for f in findings if f.fix in applied]
    kept: list[Finding] = []
    current = text
    for finding in findings:
        assert finding.fix is not None
        candidate, done = apply_fixes(current, [finding.fix])
        if done and parses(candidate):
            current = candidate
            kept.append(finding)
    return current, kept


def _checker(path: str) -> Callable[[str], bool]:
    """How a fixed file is checked before it is kept: Python must still parse; a shell
    script, a crontab or a manifest is edited a word at a time (``exec`` before a
    command), which a whole-file parse would not judge better."""
    return _parses if path.endswith((".py", ".pyi")) else _any_text


def _any_text(text: str) -> bool:
    return True


def _parses(text: str) -> bool:
    try:
        quiet.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def write_files(
    outcome: Outcome, boundary: Boundary | None = None, only: Collection[str] | None = None
) -> list[str]:
    """Write every changed file back (UTF-8, its newlines as they were), atomically and
    never through a link leading outside ``boundary``; the paths written. A file that
    cannot be written is left out of ``outcome.applied`` and named in ``outcome.unwritten``."""
    written = []
    for path in outcome.changed:
        if only is not None and path not in only:
            continue
        try:
            write_atomically(path, outcome.fixed[path].encode("utf-8"), boundary)
        except WriteError as error:
            outcome.unwritten.append(str(error))
            outcome.applied = [f for f in outcome.applied if f.path != path]
            continue
        written.append(path)
    return written
