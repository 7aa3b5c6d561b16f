"""Benchmark jobcheck against Ruff on the same tree, in one run.

    python benchmarks/bench.py PATH [--runs N] [--replicate K] [--jobs J]

Runs, alternating and rotating the order each round so that neither tool always runs
on a warmer file cache or a quieter machine:

Both tools print their concise format (one line per finding): Ruff's full format costs it
about three times the time on saleor, where it prints thousands of findings.

* jobcheck cold: ``jobcheck check PATH --no-cache --format concise``
* jobcheck warm: ``jobcheck check PATH --cache-dir DIR`` (DIR primed before timing,
  nothing changed in between: the stored report is replayed)
* jobcheck warm, one file touched: the same, after giving one job module a new
  modification time (its content unchanged, and set an hour in the past so that the
  cache trusts it): the checks run again on cached facts, the file is hashed again,
  nothing is parsed. The file's original time is restored at the end.
* Ruff: ``ruff check --select ALL --no-cache --output-format concise PATH``

and prints the median, minimum and maximum wall time of each, the peak memory of the
process tree (the sum of the resident sets of a command and its worker processes,
sampled with psutil when it is installed; else the largest single process, from
``wait4``), the CPU time, and the ratios jobcheck / Ruff. It also checks that the cold
and warm runs print the same findings.

A Rails app (Ruby front end, ``pip install 'jobcheck[ruby]'``): alphagov/whitehall, 1,807
Ruby files (5.1 MB; 1,083 kept by the walk and the prefilter), is checked cold, every rule,
in 1.40 s median (1.39-1.81 s over 3 rounds, 56 MB) on two cores, warm in 0.13 s
(2026-12-06, ``bench.py /tmp/whitehall --runs 3``; Ruff reads no Ruby, so its column is
only the floor); see docs/frameworks/sidekiq.md.

``--replicate K`` copies PATH K times side by side with hard links (``cp -al``) into a
temporary folder and benchmarks that tree, to see how the time grows with the size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import psutil
except ImportError:  # pragma: no cover - optional
    psutil = None


@dataclass
class Sample:
    wall: float
    cpu: float
    peak_mb: float
    output: bytes
    peak_pss_mb: float = 0.0


@dataclass
class Series:
    name: str
    command: list[str]
    samples: list[Sample] = field(default_factory=list)
    prepare: Callable[[], None] | None = None
    """Called before each timed run."""

    def median(self) -> float:
        return statistics.median(s.wall for s in self.samples)


def run(command: list[str], cwd: Path | None = None) -> Sample:
    """Run ``command``, measuring wall time, CPU time and peak memory of its tree."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    peak = [0.0, 0.0]
    stop = threading.Event()
    sampler = None
    if psutil is not None:
        sampler = threading.Thread(target=_sample_tree, args=(process.pid, peak, stop), daemon=True)
        sampler.start()
    chunks = []
    assert process.stdout is not None
    for chunk in iter(lambda: process.stdout.read(65536), b""):  # type: ignore[union-attr]
        chunks.append(chunk)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    if sampler is not None:
        sampler.join()
    largest_process = usage.ru_maxrss / 1024  # KiB on Linux
    return Sample(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        # wait4's maxrss is unreliable for a tree (and on Linux can carry the forking
        # process's high-water mark): prefer the sampled sum when psutil is there.
        peak_mb=peak[0] if psutil is not None else largest_process,
        output=b"".join(chunks),
        peak_pss_mb=peak[1],
    )


def _sample_tree(pid: int, peak: list[float], stop: threading.Event) -> None:
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
            total = proportional = 0
            for process in processes:
                try:
                    total += process.memory_info().rss
                    proportional += _pss(process)
                except psutil.Error:
                    continue
            peak[0] = max(peak[0], total / 2**20)
            peak[1] = max(peak[1], proportional / 2**20)
        except psutil.Error:
            return
        stop.wait(0.02)


def _pss(process: Any) -> int:
    """The process's proportional set size: its resident pages, each page it shares
    with the others (a forked worker and its parent) counted in part; 0 where the
    system does not tell (the sum of resident sets counts a shared page once per
    process)."""
    try:
        return getattr(process.memory_full_info(), "pss", 0)
    except (psutil.AccessDenied, NotImplementedError):
        return 0


def replicate(path: Path, copies: int) -> Path:
    """PATH copied ``copies`` times side by side (hard links: fast, no extra space)."""
    folder = Path(tempfile.mkdtemp(prefix="jobcheck-bench-"))
    for index in range(1, copies + 1):
        target = folder / f"copy{index}"
        subprocess.run(["cp", "-al", str(path), str(target)], check=True)
        shutil.rmtree(target / ".git", ignore_errors=True)
    return folder


def ruff_command() -> list[str]:
    found = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return [found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--replicate", type=int, default=1, help="copies of PATH side by side")
    parser.add_argument("--jobs", type=int, default=0, help="jobcheck --jobs (default: cores)")
    parser.add_argument("--no-ruff", action="store_true", help="time jobcheck only")
    arguments = parser.parse_args()

    target = arguments.path.resolve()
    cleanup = None
    if arguments.replicate > 1:
        target = cleanup = replicate(target, arguments.replicate)
    files = sum(1 for _ in target.rglob("*.py"))
    cache_dir = Path(tempfile.mkdtemp(prefix="jobcheck-bench-cache-"))
    jobcheck = [
        sys.executable,
        "-m",
        "jobcheck",
        "check",
        str(target),
        "--jobs",
        str(arguments.jobs),
        "--format",
        "concise",
    ]
    series = [
        Series("jobcheck cold", [*jobcheck, "--no-cache"]),
        Series("jobcheck warm", [*jobcheck, "--cache-dir", str(cache_dir)]),
    ]
    touched = _job_module(target)
    original_times = os.stat(touched)
    moments = iter(range(1, 10**6))

    def touch() -> None:
        moment = original_times.st_mtime_ns - 3600 * 10**9 - next(moments)
        os.utime(touched, ns=(original_times.st_atime_ns, moment))

    series.append(
        Series("jobcheck touched", [*jobcheck, "--cache-dir", str(cache_dir)], prepare=touch)
    )
    if not arguments.no_ruff:
        series.append(
            Series(
                "ruff --select ALL",
                [
                    *ruff_command(),
                    "check",
                    "--select",
                    "ALL",
                    "--no-cache",
                    "--output-format",
                    "concise",
                    str(target),
                ],
            )
        )
    try:
        run(series[1].command)  # prime the cache
        for round_index in range(arguments.runs):
            order = series[round_index % len(series) :] + series[: round_index % len(series)]
            for item in order:
                if item.prepare is not None:
                    item.prepare()
                sample = run(item.command)
                item.samples.append(sample)
                print(
                    f"  round {round_index + 1}: {item.name:<18} {sample.wall:6.2f} s wall "
                    f"{sample.cpu:6.2f} s CPU {sample.peak_mb:5.0f} MB",
                    file=sys.stderr,
                )
    finally:
        os.utime(touched, ns=(original_times.st_atime_ns, original_times.st_mtime_ns))
        shutil.rmtree(cache_dir, ignore_errors=True)
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
    report(series, arguments, files)
    cold, warm, touched_runs = series[0].samples, series[1].samples, series[2].samples
    if any(s.output != cold[0].output for s in [*cold, *warm, *touched_runs]):
        print("\nWARNING: jobcheck printed different findings cold and warm", file=sys.stderr)
        return 1
    return 0


def report(series: list[Series], arguments: argparse.Namespace, files: int) -> None:
    print(
        f"\n{arguments.path} x{arguments.replicate}: {files} .py files, {arguments.runs} rounds, "
        f"{os.cpu_count()} cores\n"
    )
    print(
        "| command | median wall (s) | min | max | CPU (s, median) | peak memory (MB, "
        "resident sets) | peak memory (MB, proportional) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for item in series:
        walls = [s.wall for s in item.samples]
        cpu = statistics.median(s.cpu for s in item.samples)
        peak = max(s.peak_mb for s in item.samples)
        proportional = max(s.peak_pss_mb for s in item.samples)
        print(
            f"| {item.name} | {statistics.median(walls):.2f} | {min(walls):.2f} | {max(walls):.2f} "
            f"| {cpu:.2f} | {peak:.0f} | {proportional:.0f} |"
        )
    if len(series) > 3:
        ruff = series[3].median()
        print(
            f"\njobcheck cold / ruff: {series[0].median() / ruff:.2f}   "
            f"jobcheck warm / ruff: {series[1].median() / ruff:.2f}   "
            f"jobcheck touched / ruff: {series[2].median() / ruff:.2f}"
        )
        ruff_cpu = statistics.median(s.cpu for s in series[3].samples)
        cold_cpu = statistics.median(s.cpu for s in series[0].samples)
        print(f"jobcheck cold / ruff, CPU: {cold_cpu / ruff_cpu:.2f}")


def _job_module(root: Path) -> Path:
    """The first module jobcheck checks (in path order) that mentions a job library,
    else the first it checks: touching a file it skips would change nothing."""
    from jobcheck.discovery import discover

    modules = sorted(source.path for source in discover([str(root)]))
    if not modules:
        raise SystemExit(f"{root}: no Python files")
    for module in modules:
        with open(module, "rb") as stream:
            text = stream.read()
        if b"celery" in text or b"dramatiq" in text or b"from rq" in text:
            return module
    return modules[0]


if __name__ == "__main__":
    sys.exit(main())
