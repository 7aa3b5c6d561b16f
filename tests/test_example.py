"""The bundled example (README's first command) shows every implemented check."""

from __future__ import annotations

from pathlib import Path

from jobcheck.catalog import load_catalog
from jobcheck.checks import implemented_checks
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_example_shows_every_implemented_check() -> None:
    selection = Selection.resolve(load_catalog(), ["ALL", "JOB-04"], [])  # JOB-04 is opt-in
    report = check_paths([str(EXAMPLES)], Options(root=str(EXAMPLES)), selection, RunSettings())
    found = {(f.rule, f.check) for f in report.findings}
    assert not report.errors
    assert set(implemented_checks()) - found == set()
