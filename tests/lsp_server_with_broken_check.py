"""The language server with one check that raises, for tests/test_lsp_server.py: the
server must log the failure to the client and keep the other checks' findings."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobcheck.checks.scl18_time_limits import JobTimeLimits
from jobcheck.lsp.server import serve

method = JobTimeLimits.implemented()["missing-time-limit"]


def broken(self):  # type: ignore[no-untyped-def]
    raise RuntimeError("simulated bug")
    yield  # pragma: no cover


broken.check_slug = "missing-time-limit"  # type: ignore[attr-defined]
setattr(JobTimeLimits, method, broken)

if __name__ == "__main__":
    sys.exit(serve())
