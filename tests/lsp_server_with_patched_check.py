"""The language server with SCL-18's missing-time-limit check patched, for
tests/test_lsp_server.py:

- ``broken``: the check raises; the server must log it and keep the other findings.
- ``fix``: the check's findings carry an automatic fix (no real check offers one yet),
  which the server must offer as a quick fix.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobcheck.checks.scl18_missing_time_limit import MissingTimeLimit as JobTimeLimits
from jobcheck.facts import Loc
from jobcheck.findings import Fix, TextEdit
from jobcheck.lsp.server import serve

NAME = JobTimeLimits.implemented()["missing-time-limit"]
ORIGINAL = getattr(JobTimeLimits, NAME)


def broken(self):  # type: ignore[no-untyped-def]
    raise RuntimeError("simulated bug")
    yield  # pragma: no cover


def with_fix(self):  # type: ignore[no-untyped-def]
    for finding in ORIGINAL(self):
        end = Loc(
            finding.loc.end_line,
            finding.loc.end_column,
            finding.loc.end_line,
            finding.loc.end_column,
        )
        fix = Fix("Add a time limit", (TextEdit(end, "(time_limit=60, soft_time_limit=50)"),))
        yield replace(finding, fix=fix)


if __name__ == "__main__":
    patched = {"broken": broken, "fix": with_fix}[sys.argv[1]]
    patched.check_slug = "missing-time-limit"  # type: ignore[attr-defined]
    setattr(JobTimeLimits, NAME, patched)
    sys.exit(serve())
