"""One hostile file never costs the rest of the report: sources that overflow or stall
the parser, special files, loops, huge files, odd encodings and names, copies of a
project in one tree. Each case runs jobcheck as its own process, with a time limit,
beside an ordinary job whose finding must survive."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.hostile_helpers import JOB, run_jobcheck, write

ROOT = Path(__file__).parent.parent
SURVIVOR = ("tasks.py", "missing-time-limit", 4)
HEADER = "from celery import shared_task\n"
TRAILER = "\n\n@shared_task\ndef late(x):\n    return x\n"


def _check(root: Path, *extra: str, timeout: int = 60) -> tuple[list, list[str], str]:
    outcome = run_jobcheck(
        "check", ".", "--no-cache", "--format", "json", *extra, cwd=root, timeout=timeout
    )
    assert outcome.returncode in (0, 1), outcome.stderr
    return outcome.checks(), outcome.error_paths(), outcome.stderr


# -- sources that overflow or stall libcst's parser -----------------------------------

OVERFLOWING = {
    "and_10000": "x = " + " and ".join(["a"] * 10_000),
    "parens_1300": "x = " + "(" * 1300 + "a" + ")" * 1300,
    "calls_3000": "x = " + "f(" * 3000 + "a" + ")" * 3000,
    "dicts_3000": "x = " + "{1: " * 3000 + "a" + "}" * 3000,
    "attributes_30000": "x = a" + ".b" * 30_000,
    "plus_10000": "x = " + " + ".join(["a"] * 10_000),
    "unary_10000": "x = " + "-" * 10_000 + "a",
    "subscripts_5000": "x = a" + "[0]" * 5000,
    "strings_10000": "x = " + " ".join(["'a'"] * 10_000),
    "conditional_5000": "x = " + "a if b else " * 5000 + "c",
}


@pytest.mark.parametrize("name", sorted(OVERFLOWING))
def test_a_file_the_parser_cannot_take_is_an_error_or_checked(tmp_path: Path, name: str) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "hostile.py": HEADER + OVERFLOWING[name] + "\n" + TRAILER})
    checks, errors, _ = _check(root, timeout=60)  # a hang fails the run, not a clock
    assert SURVIVOR in checks
    # Either it was checked (its job found) or it is reported; never silently lost.
    assert ("hostile.py", "missing-time-limit", 5) in checks or errors == ["hostile.py"]


@pytest.mark.parametrize(
    "source",
    [
        "x = " + " and ".join(["a"] * 500),
        "x = " + " and ".join(["a"] * 10_000),
        "x = (" + "\n".join(["'a'"] * 1000) + ")",
        "if 1:\n\\\n    pass",
        "x = [" + ",".join(["1"] * 200_000) + "]",
        "x = a" + ".b" * 900,
    ],
    ids=["and_500", "and_10000", "strings_1000", "lone_continuation", "list_200000", "attr_900"],
)
def test_valid_python_is_checked(tmp_path: Path, source: str) -> None:
    root = tmp_path / "project"
    text = HEADER + source + "\n" + TRAILER
    write(root, {"tasks.py": JOB, "valid.py": text})
    checks, errors, _ = _check(root)
    late_line = text.count("\n") - 2
    assert errors == []
    assert ("valid.py", "missing-time-limit", late_line) in checks
    assert SURVIVOR in checks


# -- files that are not regular files --------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_and_loops_are_reported_never_read(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    (root / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(root / "fifo.py")
    (root / "loop.py").symlink_to("loop.py")
    (root / "broken.py").symlink_to("missing.py")
    checks, errors, _ = _check(root, timeout=30)
    assert checks == [SURVIVOR]
    assert errors == ["broken.py", "fifo.py", "loop.py", "zero.py"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_named_on_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    os.mkfifo(root / "fifo.py")
    (root / "zero.py").symlink_to("/dev/zero")
    outcome = run_jobcheck(
        "check",
        "--no-cache",
        "--no-project",
        "--format",
        "json",
        "fifo.py",
        "zero.py",
        "tasks.py",
        cwd=root,
        timeout=30,
    )
    assert outcome.checks() == [SURVIVOR]
    assert outcome.error_paths() == ["fifo.py", "zero.py"]


def test_an_unreadable_folder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Run in this process: the tests may run as root, whom permissions do not stop.)"""
    from jobcheck import discovery

    write(tmp_path, {"tasks.py": JOB, "locked/jobs.py": JOB})
    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    from jobcheck.catalog import load_catalog
    from jobcheck.config import Options
    from jobcheck.engine import RunSettings, Selection, check_paths

    report = check_paths(
        [str(tmp_path)],
        Options(),
        Selection.resolve(load_catalog(), ["ALL"], []),
        RunSettings(jobs=1),
    )
    assert [(Path(e.path).name, e.message) for e in report.errors] == [
        ("locked", "cannot read folder: Permission denied")
    ]
    assert [Path(f.path).name for f in report.findings] == ["tasks.py"]


def test_wide_encodings_inside_a_folder_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(
        root,
        {
            "tasks.py": JOB,
            "utf16.py": JOB.encode("utf-16"),
            "utf32.py": JOB.encode("utf-32"),
            "nul.py": b"import os\x00\n",
        },
    )
    outcome = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=root)
    assert outcome.checks() == [SURVIVOR]
    messages = {Path(e["path"]).name: e["message"] for e in outcome.report["errors"]}
    assert sorted(messages) == ["nul.py", "utf16.py", "utf32.py"]
    assert "UTF-16" in messages["utf16.py"] and "UTF-32" in messages["utf32.py"]


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "gitlab", "junit", "github"])
def test_a_file_name_that_is_not_utf8(tmp_path: Path, output_format: str) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    (root / os.fsdecode(b"bad\xff.py")).write_text(JOB)
    outcome = run_jobcheck("check", ".", "--no-cache", "--format", output_format, cwd=root)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.stderr == ""
    assert outcome.stdout.count("missing-time-limit") >= 2 or output_format == "junit"


# -- sizes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,make",
    [
        ("big.py", lambda: HEADER + "x = 1\n" * 9_000_000),  # 54 MB
        (
            "many_tasks.py",
            lambda: (
                HEADER
                + "".join(f"@shared_task\ndef t{i}(x):\n    return x\n" for i in range(200_000))
            ),
        ),
        ("long_list.py", lambda: HEADER + "X = [" + ",".join(["1"] * 1_000_000) + "]\n"),
    ],
)
def test_huge_files_are_refused_quickly(tmp_path: Path, name: str, make) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, name: make()})
    outcome = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=root, timeout=60)
    assert outcome.checks() == [SURVIVOR]
    [error] = outcome.report["errors"]
    assert Path(error["path"]).name == name
    assert "larger than max-file-size (1 MiB)" in error["message"]
    assert "max-file-size" in error["message"]


def test_a_huge_file_that_cannot_matter_is_skipped_silently(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "data.py": "x = 1\n" * 500_000})
    checks, errors, _ = _check(root)
    assert (checks, errors) == ([SURVIVOR], [])


def test_max_file_size_can_be_raised(tmp_path: Path) -> None:
    root = tmp_path / "project"
    padding = "".join(f"# {'padding ' * 8}{i}\n" for i in range(15_000))  # 1.1 MiB
    write(root, {"tasks.py": HEADER + padding + TRAILER})
    checks, errors, _ = _check(root, "--max-file-size", "2 MiB")
    assert errors == []
    assert [c[1] for c in checks] == ["missing-time-limit"]
    write(root, {"pyproject.toml": "[tool.jobcheck]\nmax-file-size = 2097152\n"})
    checks, errors, _ = _check(root)
    assert errors == []


# -- copies of one project -------------------------------------------------------------


def test_copies_of_a_project_in_one_tree_keep_their_findings(tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    shutil.copytree(ROOT / "examples" / "shop", alone)
    expected = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=alone).report
    tree = tmp_path / "tree"
    for copy in ("first", "second", "vendor/third"):
        shutil.copytree(ROOT / "examples" / "shop", tree / copy)
    report = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=tree).report

    def findings(report: dict, prefix: str = "") -> list[tuple[str, int, str]]:
        return sorted(
            (f["path"].removeprefix(prefix), f["line"], f["check"])
            for f in report["findings"]
            if f["path"].startswith(prefix)
        )

    for copy in ("first/", "second/", "vendor/third/"):
        assert findings(report, copy) == findings(expected)


# -- links out of the project, documents that are no regular files ----------------------

OUTSIDE = """\
from celery import shared_task

BROKER_PASSWORD = "Zq7LeakedFromOutside"


@shared_task
def zq7_outside_job(x):
    return x
"""


def test_a_link_to_a_file_outside_the_project_is_reported_never_read(tmp_path: Path) -> None:
    """A pull request links ``tasks2.py`` to a file of the machine (``/etc/shadow``): its
    text must not reach a finding, a snippet or a message."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "inner/real.py": JOB.replace("work", "inner_work")})
    write(tmp_path / "outside", {"secret.py": OUTSIDE})
    (root / "linked.py").symlink_to(tmp_path / "outside" / "secret.py")
    (root / "inside.py").symlink_to(root / "inner" / "real.py")  # a link inside: read
    for arguments in (("--format", "json", "."), ("--format", "text", "."), ("linked.py",)):
        outcome = run_jobcheck("check", "--no-cache", *arguments, cwd=root)
        shown = outcome.stdout + outcome.stderr
        assert "Zq7" not in shown and "zq7" not in shown, shown
        assert "outside the project" in shown
    outcome = run_jobcheck("check", "--no-cache", "--format", "json", ".", cwd=root)
    assert outcome.error_paths() == ["linked.py"]
    assert {(path, check) for path, check, _ in outcome.checks()} == {
        ("inside.py", "missing-time-limit"),
        ("tasks.py", "missing-time-limit"),
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_runbook_documents_that_are_no_regular_files_are_skipped(tmp_path: Path) -> None:
    """EVT-24 reads the runbook folders: a page that is /dev/zero ran out of memory, a
    FIFO hung the run for ever."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "docs/setup.md": "# Setup\n"})
    (root / "README.md").symlink_to("/dev/zero")
    (root / "docs" / "runbook.md").symlink_to("/dev/zero")
    os.mkfifo(root / "docs" / "failed-jobs.md")
    os.mkfifo(root / "RUNBOOK.md")
    checks, _, _ = _check(root, timeout=30)
    assert checks == [SURVIVOR]
