"""jobcheck writes only inside the project: a file committed as a symbolic link to a file
outside it (``/etc/cron.d/job``, site-packages) is never written through by ``--fix``,
``--add-ignore`` or ``--output`` (as root in CI, that would reach anything), and every
write replaces its file atomically (jobcheck/guarded.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jobcheck.guarded import Boundary, WriteError, write_atomically
from tests.hostile_helpers import JOB, run_jobcheck, write

# A job with a safe fix (SCL-22 schedule-on-the-hour would need a schedule; the
# backoff fix is unsafe): retry-without-backoff is fixed by --unsafe-fixes.
FIXABLE = """\
from celery import shared_task


@shared_task(autoretry_for=(IOError,), time_limit=60, soft_time_limit=50)
def work(order_id):
    return order_id
"""


def _outside_target(tmp_path: Path, text: str) -> Path:
    target = tmp_path / "outside" / "system.py"
    write(target.parent, {target.name: text})
    return target


@pytest.mark.parametrize(
    "arguments",
    [("--fix", "--unsafe-fixes"), ("--add-ignore",)],
    ids=["fix", "add-ignore"],
)
def test_fixes_and_suppressions_never_write_through_a_link(
    tmp_path: Path, arguments: tuple[str, ...]
) -> None:
    root = tmp_path / "project"
    target = _outside_target(tmp_path, FIXABLE)
    write(root, {"tasks.py": FIXABLE})
    (root / "linked.py").symlink_to(target)
    outcome = run_jobcheck("check", ".", "--no-cache", *arguments, cwd=root)
    assert outcome.returncode in (0, 1), outcome.stderr
    assert target.read_text() == FIXABLE
    assert (root / "linked.py").is_symlink()
    assert (root / "tasks.py").read_text() != FIXABLE  # the file inside was fixed or suppressed


def test_output_never_writes_through_a_committed_link(tmp_path: Path) -> None:
    root = tmp_path / "project"
    target = _outside_target(tmp_path, "keep\n")
    write(root, {"tasks.py": JOB})
    (root / "report.json").symlink_to(target)
    outcome = run_jobcheck(
        "check", ".", "--no-cache", "--format", "json", "--output", "report.json", cwd=root
    )
    assert outcome.returncode == 2
    assert "outside the project" in outcome.stderr
    assert target.read_text() == "keep\n"


def test_output_named_outside_the_project_is_the_users_choice(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    report = tmp_path / "reports" / "jobcheck.json"
    report.parent.mkdir()
    outcome = run_jobcheck("check", ".", "--format", "json", "--output", str(report), cwd=root)
    assert outcome.returncode == 1, outcome.stderr
    assert '"missing-time-limit"' in report.read_text()


def test_a_link_inside_the_project_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, {"real/tasks.py": "old\n"})
    link = project / "tasks.py"
    link.symlink_to(project / "real" / "tasks.py")
    (project / "real" / "tasks.py").chmod(0o640)
    write_atomically(link, b"new\n", Boundary.of([project]))
    assert link.is_symlink()
    assert (project / "real" / "tasks.py").read_text() == "new\n"
    assert (project / "real" / "tasks.py").stat().st_mode & 0o777 == 0o640
    assert [p.name for p in (project / "real").iterdir()] == ["tasks.py"]  # no temporary left


def test_a_link_leading_outside_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = _outside_target(tmp_path, "keep\n")
    (project / "cron").symlink_to(target.parent, target_is_directory=True)
    for path in (project / "cron" / "system.py", project / "cron" / "new.py"):
        with pytest.raises(WriteError, match="outside the project"):
            write_atomically(path, b"pwned\n", Boundary.of([project]))
    assert target.read_text() == "keep\n"
    assert sorted(os.listdir(target.parent)) == ["system.py"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_never_written(tmp_path: Path) -> None:
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="not a regular file"):
        write_atomically(fifo, b"x", Boundary.of([tmp_path]))


def test_a_baseline_is_never_written_through_a_committed_link(tmp_path: Path) -> None:
    root = tmp_path / "project"
    target = _outside_target(tmp_path, "keep\n")
    write(root, {"tasks.py": JOB})
    (root / "baseline.json").symlink_to(target)
    outcome = run_jobcheck("check", ".", "--write-baseline", "baseline.json", cwd=root)
    assert outcome.returncode == 2
    assert "outside the project" in outcome.stderr
    assert target.read_text() == "keep\n"


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder"])
def test_a_baseline_that_is_no_regular_file_is_one_line_and_exit_2(
    tmp_path: Path, kind: str
) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    baseline = root / "baseline.json"
    if kind == "dev-zero":
        baseline.symlink_to("/dev/zero")
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this system")
        os.mkfifo(baseline)
    else:
        baseline.mkdir()
    outcome = run_jobcheck("check", ".", "--baseline", "baseline.json", cwd=root, timeout=30)
    assert outcome.returncode == 2
    assert len(outcome.stderr.strip().splitlines()) == 1, outcome.stderr
    assert "baseline" in outcome.stderr
