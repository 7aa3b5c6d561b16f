"""Every fixture case's findings as a reviewer reads them: each message and fix, kept in a
snapshot file beside the case (``tests/fixtures/<RULE>/<slug>/<case>.snap``), so a change to a
message or a fix shows in the diff of a pull request. The inline ``# expect:`` comments
say where findings are (``test_fixtures.py``); the snapshots say what they say.

After a deliberate change: ``pytest tests/test_snapshots.py --update-snapshots``, then
read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jobcheck.findings import Finding
from tests.conftest import FIXTURES, case_id, fixture_cases, run_case

CASES = fixture_cases()


def render(case: Path) -> str:
    report = run_case(case, fixes=True)
    prefix = case.as_posix().rstrip("/") + "/"
    lines = [f"# {case_id(case)}: {len(report.findings)} findings"]
    for finding in sorted(report.findings, key=lambda f: f.sort_key):
        lines.extend(_finding(finding, prefix))
    return "\n".join(lines) + "\n"


def _finding(finding: Finding, prefix: str) -> list[str]:
    loc = finding.loc
    where = finding.path.removeprefix(prefix)
    out = [
        f"{where}:{loc.line}:{loc.column}: {finding.rule} {finding.check} [{finding.severity}]",
        f"    {_relative(finding.message, prefix)}",
    ]
    fix = finding.fix
    if fix is not None:
        out.append(f"    fix ({fix.applicability}): {_relative(fix.title, prefix)}")
        for edit in fix.edits:
            span = f"{edit.loc.line}:{edit.loc.column}-{edit.loc.end_line}:{edit.loc.end_column}"
            for number, text in enumerate(edit.new_text.split("\n")):
                out.append(f"      {span if number == 0 else ' ' * len(span)} | {text}")
    return out


def _relative(text: str, prefix: str) -> str:
    """Messages name other files by the path given on the command line: the case's own
    folder is left out, so a snapshot reads the same on every machine."""
    return text.replace(prefix, "")


def snapshot_path(case: Path) -> Path:
    return case.parent / f"{case.name}.snap"


@pytest.mark.parametrize("case", CASES, ids=[case_id(p) for p in CASES])
def test_messages_and_fixes_match_the_snapshot(case: Path, request: pytest.FixtureRequest) -> None:
    rendered = render(case)
    path = snapshot_path(case)
    if request.config.getoption("--update-snapshots"):
        path.write_text(rendered, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {path}: run pytest --update-snapshots and read it"
    assert path.read_text(encoding="utf-8") == rendered, (
        f"{path} differs from what jobcheck says now; if the change is meant, run "
        "pytest tests/test_snapshots.py --update-snapshots and review the diff"
    )


def test_every_snapshot_belongs_to_a_case() -> None:
    """A snapshot left behind by a removed or renamed case is an error, not a relic."""
    cases = {snapshot_path(case) for case in CASES}
    assert set(FIXTURES.glob("*/*/*.snap")) <= cases
