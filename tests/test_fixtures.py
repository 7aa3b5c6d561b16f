"""The core harness: every fixture case carries its expectations inline
(``# expect: SCL-21 fat-payload`` on the line of the finding). A case passes when every
expected finding appears and nothing else does, with the prefilter on and off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import actual, case_id, expectations, fixture_cases, run_case

CASES = fixture_cases()


def _describe(items: set) -> str:
    return (
        "\n".join(f"  {e.path}:{e.line}: {e.rule} {e.check}" for e in sorted(items)) or "  (none)"
    )


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "no-prefilter"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(p) for p in CASES])
def test_fixture_case(case: Path, prefilter: bool) -> None:
    report = run_case(case, prefilter=prefilter)
    assert not report.errors, report.errors
    expected = expectations(case)
    found = actual(case, report)
    missing, unexpected = expected - found, found - expected
    assert not missing and not unexpected, (
        f"\nmissing:\n{_describe(missing)}\nunexpected:\n{_describe(unexpected)}"
    )


def test_every_implemented_check_has_positive_fixtures() -> None:
    from jobcheck.checks import implemented_checks

    covered = {(e.rule, e.check) for case in CASES for e in expectations(case)}
    assert implemented_checks() <= covered, implemented_checks() - covered
