"""One large module against Ruff: how jobcheck's time and memory grow with the size of a
single file, not with the number of files.

    python benchmarks/big_file.py [--tasks 25000] [--runs 5] [--out DIR] [--budget S]

Writes ``DIR/big/tasks.py``: ``--tasks`` Celery tasks, one line of body each, none with a
time limit (so each is a finding: the output grows with the file too). 25,000 tasks make
0.9 MB, under the default ``max-file-size`` of 1 MiB. Then runs, alternating and
rotating the order each round (``benchmarks/bench.py``'s ``run``: wall time, CPU time of
the process and its workers, peak memory of the process tree):

* ``jobcheck check DIR --no-cache --format concise``
* ``ruff check --select ALL --no-cache --output-format concise DIR``

and prints the median, minimum and maximum of each, with the ratios jobcheck / Ruff.
jobcheck runs without its per-file time budget (``JOBCHECK_FILE_TIME_BUDGET=off``) so
that the whole extraction is timed; ``--budget 20`` times what a default run does (the
file is reported as an error once it takes longer).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import Sample, ruff_command, run

HEADER = "from celery import shared_task\n"
TASK = "\n@shared_task\ndef t{n}(x): return x\n"


def generate(folder: Path, tasks: int) -> Path:
    """``folder/big/tasks.py`` with ``tasks`` tasks; the project folder."""
    project = folder / "big"
    project.mkdir(parents=True, exist_ok=True)
    text = HEADER + "".join(TASK.format(n=n) for n in range(tasks))
    (project / "tasks.py").write_text(text, encoding="utf-8")
    return project


def summary(name: str, samples: list[Sample]) -> str:
    walls = [s.wall for s in samples]
    lines = samples[-1].output.count(b"\n")
    return (
        f"{name:<22} median {statistics.median(walls):7.2f} s wall "
        f"(min {min(walls):.2f}, max {max(walls):.2f}), "
        f"CPU {statistics.median(s.cpu for s in samples):7.2f} s, "
        f"peak {max(s.peak_mb for s in samples):5.0f} MB, "
        f"{lines} lines of output"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=25_000, help="tasks in the module")
    parser.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--out", type=Path, help="where to write the project (a temporary folder)")
    parser.add_argument("--budget", default="off", help="JOBCHECK_FILE_TIME_BUDGET (default off)")
    arguments = parser.parse_args()

    folder = arguments.out or Path(tempfile.mkdtemp(prefix="jobcheck-big-file-"))
    project = generate(folder, arguments.tasks)
    size = (project / "tasks.py").stat().st_size
    print(f"{project / 'tasks.py'}: {arguments.tasks} tasks, {size / 1e6:.2f} MB", file=sys.stderr)
    os.environ["JOBCHECK_FILE_TIME_BUDGET"] = arguments.budget
    commands = {
        "jobcheck": [
            sys.executable,
            *("-m", "jobcheck", "check", str(project), "--no-cache", "--format", "concise"),
        ],
        "ruff --select ALL": [
            *ruff_command(),
            *("check", "--select", "ALL", "--no-cache", "--output-format", "concise"),
            str(project),
        ],
    }
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    names = list(commands)
    for round_index in range(arguments.runs):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            sample = run(commands[name])
            samples[name].append(sample)
            print(
                f"  round {round_index + 1}: {name:<18} {sample.wall:7.2f} s wall "
                f"{sample.cpu:7.2f} s CPU {sample.peak_mb:5.0f} MB",
                file=sys.stderr,
            )
    for name in names:
        print(summary(name, samples[name]))
    jobcheck, ruff = samples["jobcheck"], samples["ruff --select ALL"]
    wall = statistics.median(s.wall for s in jobcheck) / statistics.median(s.wall for s in ruff)
    cpu = statistics.median(s.cpu for s in jobcheck) / statistics.median(s.cpu for s in ruff)
    print(f"jobcheck / Ruff: {wall:.1f}x wall, {cpu:.1f}x CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
