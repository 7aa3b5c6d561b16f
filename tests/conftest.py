from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options, load
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.findings import Finding, Report

FIXTURES = Path(__file__).parent / "fixtures"
"""Cases live at ``<RULE>/<check slug>/<case>/`` (``SCL-19/unbounded-fan-out/fan_out_celery``)
or ``frameworks/<framework>/<case>/`` for a framework's cases that span rules."""


def fixture_cases() -> list[Path]:
    """Every fixture case folder, in a stable order."""
    return sorted(p for p in FIXTURES.glob("*/*/*") if p.is_dir())


def case_id(case: Path) -> str:
    """``SCL-19/unbounded-fan-out/fan_out_celery``: how tests name a case."""
    return case.relative_to(FIXTURES).as_posix()


_EXPECT = re.compile(r"(?:#|<!--)\s*expect:\s*(.+?)\s*(?:-->)?\s*$")
# On a line of its own, for the line below it: in crontab files a "#" after a command is
# part of the command, so expectations cannot trail it.
_EXPECT_NEXT = re.compile(r"^\s*#\s*expect-next:\s*(.+?)\s*$")
_ITEM = re.compile(r"([A-Z]{3}-\d{2})\s+([a-z0-9-]+)")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        default=False,
        help="Rewrite the fixtures' message and fix snapshots (tests/fixtures/*/*.snap).",
    )


@dataclass(frozen=True, order=True)
class Expected:
    path: str
    line: int
    rule: str
    check: str


def expectations(case: Path) -> set[Expected]:
    """``# expect: SCL-21 fat-payload, JOB-01 enqueue-before-commit`` comments, by line
    (``# expect-next: ...`` on a line of its own: for the line below)."""
    found: set[Expected] = set()
    for file in sorted(case.rglob("*")):
        if not file.is_file():
            continue
        relative = file.relative_to(case).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            below = _EXPECT_NEXT.match(line)
            match = below or _EXPECT.search(line)
            if match is None:
                continue
            for rule, check in _ITEM.findall(match.group(1)):
                found.add(Expected(relative, number + 1 if below else number, rule, check))
    return found


def run_case(
    case: Path,
    prefilter: bool = True,
    jobs: int = 1,
    options: Options | None = None,
    fixes: bool = False,
) -> Report:
    options = options or case_options(case)
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    settings = RunSettings(jobs=jobs, prefilter=prefilter, fixes=fixes)
    return check_paths([str(case)], options, selection, settings)


def case_options(case: Path) -> Options:
    """A case's own ``jobcheck.toml`` (to test configuration), else the defaults."""
    config = case / "jobcheck.toml"
    return load(config) if config.is_file() else Options(root=str(case))


def each_place(findings: Iterable[Finding]) -> Iterator[Finding]:
    """Every finding, and the findings of the other places a grouped one stands for
    (``Finding.grouped``): what each place was judged, as tests ask it line by line."""
    for finding in findings:
        yield finding
        yield from finding.grouped


def actual(case: Path, report: Report) -> set[Expected]:
    """The findings of a run, as expectations; a finding that stands for others of its
    file (``Finding.grouped``) counts at each of their lines too, so a fixture judges
    every place while the report shows one finding (tests/test_grouped_findings.py)."""
    prefix = case.as_posix().rstrip("/") + "/"
    return {
        Expected(g.path.removeprefix(prefix), g.loc.line, g.rule, g.check)
        for f in report.findings
        for g in (f, *f.grouped)
    }


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
