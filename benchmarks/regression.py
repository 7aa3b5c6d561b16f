"""CI's guard against a gross slowdown: jobcheck against Ruff on a generated project.

    python benchmarks/regression.py

Generates ``benchmarks/generate_chains.py``'s project (200 Celery jobs, each reaching a
helper four modules deep through 800 modules that name no job library: the work that
gathering does for the helpers jobs call), then times ``jobcheck check --no-cache`` and
``ruff check --select ALL --no-cache`` on it, three rounds each, alternating, and
compares the median CPU time (the process and its workers) of the two. It fails (exit 1)
only when jobcheck takes more than :data:`LIMIT` times Ruff's CPU: twice the ratio
measured when this guard was set (4.8 to 6.6, median about 5.5, on the 2-core
development machine, 2026-12-07), so that noise and a slower machine never fail it,
and a change that doubles the cost of gathering does. Real measurements live in
``docs/benchmarks.md`` (``bench.py``).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURED = 5.5
LIMIT = 2 * MEASURED
ROUNDS = 3


def cpu_seconds(command: list[str], cwd: Path) -> float:
    """The CPU time (user and system) of ``command`` and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not os.path.exists(ruff):
        print("regression: ruff is not installed, nothing to compare with", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        generator = Path(__file__).with_name("generate_chains.py")
        subprocess.run([sys.executable, str(generator), str(root)], check=True)
        project = root / "chains"
        jobcheck = [sys.executable, "-m", "jobcheck", "check", ".", "--no-cache"]
        lint = [ruff, "check", "--select", "ALL", "--no-cache", "--output-format", "concise", "."]
        ours, theirs = [], []
        for _ in range(ROUNDS):
            ours.append(cpu_seconds(jobcheck, project))
            theirs.append(cpu_seconds(lint, project))
    ratio = statistics.median(ours) / max(statistics.median(theirs), 0.01)
    print(
        f"regression: jobcheck {statistics.median(ours):.2f} s CPU, Ruff "
        f"{statistics.median(theirs):.2f} s: {ratio:.1f}x (fails above {LIMIT:.1f}x)"
    )
    return 1 if ratio > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
