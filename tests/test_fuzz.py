"""Fuzzing: generated programs (hypothesmith) and mutants of the fixtures never make
extraction raise, never make the checks raise, and never cost the other files of a
project their findings.

A few hundred inputs per run; set ``JOBCHECK_FUZZ=N`` to multiply the counts by N
(``JOBCHECK_FUZZ=20 python -m pytest tests/test_fuzz.py``).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import Selection, check_facts
from jobcheck.extract import extract_file
from jobcheck.facts import FileFacts
from jobcheck.syntax.deep import run_deep

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, given, settings  # noqa: E402

SCALE = max(1, int(os.environ.get("JOBCHECK_FUZZ", "1") or 1))
ROOT = Path(__file__).parent.parent
SOURCES = sorted(
    p
    for folder in (ROOT / "tests" / "fixtures", ROOT / "examples")
    for p in folder.rglob("*.py")
    if p.stat().st_size < 20_000
)
SELECTION = Selection.resolve(load_catalog(), ["ALL"], [])
run_deep(lambda: None)  # raise the recursion limit now, not during a hypothesis test


def _extract(text: str | bytes, path: str = "fuzz.py", module: str = "fuzz") -> FileFacts:
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    facts = extract_file(path, data, module)
    assert isinstance(facts, FileFacts)
    assert facts.error is None or not facts.error.startswith("internal error"), facts.error
    return facts


@settings(
    max_examples=150 * SCALE,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@given(hypothesmith.from_grammar())
def test_generated_programs(source: str) -> None:
    facts = _extract(source)
    check_facts([facts], Options(), SELECTION)


@settings(
    max_examples=50 * SCALE, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(hypothesmith.from_node())
def test_generated_syntax_trees(source: str) -> None:
    _extract(source)


def _mutate(text: str, rng: random.Random) -> str:
    """One of the ways a careless edit or a hostile author breaks a file."""
    lines = text.splitlines(keepends=True) or [""]
    index = rng.randrange(len(lines))
    choice = rng.randrange(11)
    if choice == 0:
        del lines[index]
    elif choice == 1:
        lines.insert(index, lines[rng.randrange(len(lines))])
    elif choice == 2:
        position = rng.randrange(len(text) + 1)
        return text[:position]
    elif choice == 3:
        position = rng.randrange(len(text) + 1)
        return text[:position] + rng.choice("()[]{}:,.\\'\"#@=\n\t ") + text[position:]
    elif choice == 4:
        lines[index] = "    " * rng.randrange(1, 8) + lines[index].lstrip()
    elif choice == 5:
        depth = rng.choice((50, 199, 201, 400))
        lines.insert(index, "x = " + "(" * depth + "1" + ")" * depth + "\n")
    elif choice == 6:
        count = rng.choice((600, 3000, 12_000))
        operator = rng.choice((" and ", " + ", ".", " or "))
        lines.insert(index, "x = a" + (operator + "a") * count + "\n")
    elif choice == 7:
        lines[index] = lines[index][::-1]
    elif choice == 8:
        lines.insert(index, "\\\n")
    elif choice == 9:
        lines.insert(index, "x = '" + "\\" * rng.randrange(1, 4) + "\n")
    else:
        lines[index] = lines[index].replace("(", "[", 1).replace(")", "}", 1)
    return "".join(lines)


@pytest.mark.parametrize("seed", range(8 * SCALE))
def test_mutants_of_the_fixtures(seed: int) -> None:
    """A project of fixture files with one of them mutated, a few times over: the
    checks run, and every other file keeps its facts."""
    rng = random.Random(seed)
    for _ in range(25):
        path = rng.choice(SOURCES)
        text = path.read_text(encoding="utf-8")
        for _ in range(rng.randrange(1, 4)):
            text = _mutate(text, rng)
        mutant = _extract(text, str(path), path.stem)
        neighbours = [
            _extract(p.read_bytes(), str(p), p.stem)
            for p in sorted(path.parent.glob("*.py"))
            if p != path
        ]
        findings, _ = check_facts([mutant, *neighbours], Options(), SELECTION)
        for finding in findings:
            assert finding.loc.line >= 1 and finding.loc.column >= 1


@pytest.mark.parametrize("seed", range(4 * SCALE))
def test_random_bytes(seed: int) -> None:
    rng = random.Random(10_000 + seed)
    for _ in range(25):
        size = rng.choice((0, 1, 7, 300, 5000))
        data = bytes(rng.randrange(256) for _ in range(size))
        if rng.random() < 0.5:
            data = b"from celery import shared_task\n" + data
        _extract(data)
