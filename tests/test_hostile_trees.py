"""Generated hostile repositories (hypothesis): for any tree, jobcheck ends within a bound,
writes nothing outside the tree and its cache, leaks nothing of the files outside it, and
reports every other file's findings.

Each example is a project built from hostile pieces (links out of the tree and to
``/dev/zero``, FIFOs, link loops, folders nested past Python's recursion limit,
backtracking ``.gitignore`` patterns, template floods in YAML, numeric literals past every
limit, names that are workflow commands or not UTF-8, a cache folder linked elsewhere,
report files linked elsewhere) beside job modules whose findings must survive. Each is
checked twice in separate processes: once for the report, once with a writing option
(``--fix``, ``--add-ignore``, ``--output``, ``--write-baseline``).

A dozen trees per run; ``JOBCHECK_FUZZ=N`` multiplies the count by N.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.hostile_helpers import run_jobcheck

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SCALE = max(1, int(os.environ.get("JOBCHECK_FUZZ", "1") or 1))
BOUND = 120
"""Seconds a whole run may take, on any tree (a fixed run takes a few)."""
SECRET = "Zq9SecretOutsideTheTree"
"""Text of the files outside the tree: it must never reach an output."""

JOB = """\
from celery import shared_task


@shared_task
def work_{n}(order_id):
    return order_id
"""
"""A job with one finding (SCL-18 missing-time-limit on line 4). Its path holds neither
``q`` nor ``z``, which every generated ``.gitignore`` pattern holds, so no pattern can
ignore it."""

OUTSIDE_JOB = f"""\
from celery import shared_task

PASSWORD = "{SECRET}"


@shared_task
def {SECRET.lower()}(order_id):
    return order_id
"""


@dataclass
class Tree:
    """What a generated project holds, and what its report must say."""

    jobs: list[str] = field(default_factory=list)
    """Paths (relative to the project) of job modules whose finding must be reported."""
    pieces: list[str] = field(default_factory=list)
    """The hostile pieces, by name (shown when an example fails)."""


# -- the pieces --------------------------------------------------------------------------

GLOB_CHARACTERS = st.sampled_from(["*", "*", "*", "?", "q", "z", "/", "**/", "[!a]", "\\"])
gitignore_line = st.lists(GLOB_CHARACTERS, min_size=1, max_size=40).map(
    lambda parts: "".join(parts) + "q"
)
huge_number = st.sampled_from(
    [
        "0x" + "f" * 300,
        "9" * 5000,
        "1e999",
        "-1e999",
        "10**10**10",
        "float('inf')",
        "1_000" * 1000,
    ]
)


def _job(root: Path, tree: Tree, folder: str) -> None:
    n = len(tree.jobs)
    path = f"{folder}/jobs_{n}.py" if folder else f"jobs_{n}.py"
    _write(root / path, JOB.format(n=n))
    tree.jobs.append(path)


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def _link(path: Path, target: Path | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(path):
        os.symlink(target, path)


def _piece_link_out(root: Path, outside: Path, tree: Tree, name: str) -> None:
    _link(root / f"{name}.py", outside / "secret.py")
    _link(root / "linked_folder", outside)
    tree.pieces.append("link out")


def _piece_dev_zero(root: Path, outside: Path, tree: Tree, name: str) -> None:
    _link(root / f"{name}.py", "/dev/zero")
    _link(root / ".gitignore", "/dev/zero")
    _link(root / "docs" / "runbook.md", "/dev/zero")
    tree.pieces.append("links to /dev/zero")


def _piece_fifos(root: Path, outside: Path, tree: Tree, name: str) -> None:
    if not hasattr(os, "mkfifo"):
        return
    for path in (root / f"{name}.py", root / "ops" / "runbook.md", root / "sub" / ".gitignore"):
        path.parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(path):
            os.mkfifo(path)
    tree.pieces.append("FIFOs")


def _piece_loop(root: Path, outside: Path, tree: Tree, name: str) -> None:
    _link(root / f"{name}_a.py", root / f"{name}_b.py")
    _link(root / f"{name}_b.py", root / f"{name}_a.py")
    _link(root / "loop" / "again", root / "loop")
    tree.pieces.append("link loops")


def _piece_deep(root: Path, outside: Path, tree: Tree, depth: int) -> None:
    folder = "/".join(["d"] * depth)
    _job(root, tree, folder)
    tree.pieces.append(f"{depth} nested folders")


def _piece_gitignore(root: Path, tree: Tree, lines: list[str]) -> None:
    path = root / "ignored" / ".gitignore"
    _write(path, "\n".join(lines) + "\n")
    _write(root / "ignored" / ("q" * 20 + "x" * 25 + "z.py"), "x = 1\n")
    _job(root, tree, "ignored")
    tree.pieces.append(f"gitignore {lines!r}")


def _piece_templates(root: Path, tree: Tree, count: int) -> None:
    _write(root / "config" / "sidekiq.yml", ":queues:\n  - default\n" + "<%" * count + "\n")
    _write(
        root / "deploy" / "cronjob.yaml",
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: x\n"
        f'spec:\n  schedule: "0 * * * *"\n  x: {"{{" * count}\n',
    )
    _write(root / "crontab", "0 * * * * " + "a" * count + " \\\n" * 3)
    tree.pieces.append(f"{count} template openers")


def _piece_number(root: Path, tree: Tree, literal: str) -> None:
    _write(
        root / "numbers.py",
        "from celery import Celery, shared_task\n\napp = Celery('x')\n"
        f"app.conf.beat_schedule = {{'x': {{'task': 'numbers.n', 'schedule': {literal}}}}}\n\n"
        f"@shared_task(time_limit={literal}, max_retries={literal})\ndef n():\n    pass\n",
    )
    tree.pieces.append(f"number {literal[:20]}")


def _piece_names(root: Path, outside: Path, tree: Tree, name: str) -> None:
    _job(root, tree, "::error file=x,line=1::pwned")
    _write(root / "bad\nline.py", JOB.format(n="newline"))
    _write(root / "esc\x1b]52;c;cHduZWQ=\x07.py", "x = 1\n")
    raw = os.fsencode(root) + b"/not_utf8_\xff.py"
    with open(raw, "wb") as stream:
        stream.write(JOB.format(n="bytes").encode())
    tree.pieces.append("hostile names")


def _piece_cache_link(root: Path, outside: Path, tree: Tree, name: str) -> None:
    _link(root / ".jobcheck_cache", outside)
    tree.pieces.append("cache folder linked outside")


def _piece_reports_linked(root: Path, outside: Path, tree: Tree, name: str) -> None:
    for report in ("report.json", "baseline.json"):
        _link(root / report, outside / "system.conf")
    tree.pieces.append("report files linked outside")


def _piece_planted_repository(root: Path, outside: Path, tree: Tree, name: str) -> None:
    marker = outside.parent / "planted-command-ran"
    svc = root / "svc"
    for folder in ("objects", "refs/heads"):
        (svc / folder).mkdir(parents=True, exist_ok=True)
    _write(svc / "HEAD", "ref: refs/heads/main\n")
    _write(
        svc / "config",
        f'[core]\n\tbare = false\n\tworktree = /\n\tfsmonitor = "touch {marker}; echo"\n',
    )
    _job(root, tree, "svc")
    tree.pieces.append("planted bare repository")


SIMPLE_PIECES = [
    _piece_link_out,
    _piece_dev_zero,
    _piece_fifos,
    _piece_loop,
    _piece_names,
    _piece_cache_link,
    _piece_reports_linked,
    _piece_planted_repository,
]


@st.composite
def hostile_trees(draw: st.DrawFn) -> list[tuple[str, object]]:
    """A recipe: (piece, argument) pairs, built on disk by :func:`_build`."""
    recipe: list[tuple[str, object]] = [("job", "")]
    for piece in draw(st.lists(st.sampled_from(SIMPLE_PIECES), max_size=5, unique=True)):
        recipe.append((piece.__name__, None))
    if draw(st.booleans()):
        recipe.append(("deep", draw(st.sampled_from([30, 300, 1200]))))
    if draw(st.booleans()):
        recipe.append(("gitignore", draw(st.lists(gitignore_line, min_size=1, max_size=4))))
    if draw(st.booleans()):
        recipe.append(("templates", draw(st.sampled_from([1000, 40_000]))))
    if draw(st.booleans()):
        recipe.append(("number", draw(huge_number)))
    recipe.append(("job", draw(st.sampled_from(["", "app", "app/sub"]))))
    return recipe


def _build(root: Path, outside: Path, recipe: list[tuple[str, object]]) -> Tree:
    tree = Tree()
    by_name = {piece.__name__: piece for piece in SIMPLE_PIECES}
    for index, (kind, argument) in enumerate(recipe):
        if kind == "job":
            _job(root, tree, str(argument))
        elif kind == "deep":
            _piece_deep(root, outside, tree, int(argument))  # type: ignore[call-overload]
        elif kind == "gitignore":
            _piece_gitignore(root, tree, argument)  # type: ignore[arg-type]
        elif kind == "templates":
            _piece_templates(root, tree, int(argument))  # type: ignore[call-overload]
        elif kind == "number":
            _piece_number(root, tree, str(argument))
        else:
            by_name[kind](root, outside, tree, f"hostile_{index}")
    return tree


# -- the invariants ----------------------------------------------------------------------


def _snapshot(folder: Path, skip: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``folder`` but ``skip``: a link's target, a file's bytes."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for current, folders, files in os.walk(folder):
        here = Path(current)
        folders[:] = [f for f in folders if here / f != skip]
        for name in files + folders:
            path = here / name
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                found[str(path)] = ("file", path.read_bytes())
    return found


WRITING = [
    ("--fix", "--unsafe-fixes"),
    ("--add-ignore",),
    ("--format", "json", "--output", "report.json"),
    ("--write-baseline", "baseline.json"),
]


@settings(
    max_examples=12 * SCALE,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    # A failure names its pieces; shrinking a tree costs minutes of runs for little.
    phases=(Phase.explicit, Phase.generate),
)
@given(recipe=hostile_trees(), writing=st.sampled_from(WRITING))
def test_any_tree(tmp_path_factory: pytest.TempPathFactory, recipe, writing) -> None:  # type: ignore[no-untyped-def]
    base = tmp_path_factory.mktemp("tree")
    root, outside = base / "project", base / "outside"
    _write(outside / "secret.py", OUTSIDE_JOB)
    _write(outside / "system.conf", f"password={SECRET}\n")
    _write(outside / "facts-0123456789abcdef0123.json", "not jobcheck's\n")
    root.mkdir()
    tree = _build(root, outside, recipe)
    before = _snapshot(base, skip=root)
    try:
        outcome = run_jobcheck("check", ".", "--format", "json", cwd=root, timeout=BOUND)
        assert outcome.returncode in (0, 1), (tree.pieces, outcome.stderr[-2000:])
        assert SECRET not in outcome.stdout + outcome.stderr, tree.pieces
        report = json.loads(outcome.stdout)
        reported = {(f["path"], f["check"], f["line"]) for f in report["findings"]}
        for job in tree.jobs:
            assert (job, "missing-time-limit", 4) in reported, (tree.pieces, job, reported)
        written = run_jobcheck("check", ".", *writing, cwd=root, timeout=BOUND)
        assert written.returncode in (0, 1, 2), (tree.pieces, written.stderr[-2000:])
        assert "internal error" not in written.stderr, (tree.pieces, written.stderr[-2000:])
        assert SECRET not in written.stdout + written.stderr, tree.pieces
        assert _snapshot(base, skip=root) == before, tree.pieces
        for name in ("report.json", "baseline.json"):
            path = root / name
            if path.is_file() and not path.is_symlink():
                assert SECRET not in path.read_text("utf-8", "replace"), tree.pieces
    finally:
        shutil.rmtree(base, ignore_errors=True)
