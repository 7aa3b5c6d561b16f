"""Every file is parsed once, while gathering: after ``read_reached`` the checks run on
facts alone (nothing is read or parsed), and no file is parsed twice in a run, however
many of its definitions the summaries follow."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths

FILES = {
    "shop/__init__.py": "",
    "shop/models.py": (
        "from django.db import models\n\n\n"
        "class Base(models.Model):\n    class Meta:\n        abstract = True\n\n\n"
        "class Order(Base):\n    number = models.CharField(max_length=20)\n\n"
        "    def save(self, *args, **kwargs):\n        super().save(*args, **kwargs)\n"
    ),
    "shop/loaders.py": (
        "from .models import Order\n\n\n"
        "def load(number):\n    return Order.objects.get(number=number)\n\n\n"
        "def unused(number):\n    return number\n"
    ),
    "shop/services.py": (
        "import requests\n\nfrom .loaders import load\n\n\n"
        "def notify(number):\n    order = load(number)\n"
        "    requests.post('https://hooks.example', json={'n': order.number})\n\n\n"
        "def audit(number):\n    return load(number)\n"
    ),
    "shop/tasks.py": (
        "from celery import shared_task\n\nfrom .loaders import load\n"
        "from .services import audit, notify\n\n\n"
        "@shared_task\ndef send(number):\n    notify(number)\n    audit(number)\n\n\n"
        "def enqueue(number):\n    send.delay(load(number))\n"
    ),
    "shop/unrelated.py": "def nothing():\n    return 1\n",
}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(phase, digest of the text) of every parse of a file's text in this process."""
    import jobcheck.project.reach as reach
    from jobcheck.extract import parts, pipeline

    seen: list[tuple[str, str]] = []
    phase = ["gathering"]

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    parse_source = pipeline.parse_source

    def counted_parse_source(text: str, *args: object) -> object:
        seen.append((phase[0], digest(text)))
        return parse_source(text, *args)  # type: ignore[arg-type]

    outline = parts.Outline.__init__

    def counted_outline(self: parts.Outline, data: bytes) -> None:
        seen.append((phase[0], digest(data.decode())))
        outline(self, data)

    read_reached = reach.read_reached

    def then_checks(project: object, *roots: object) -> None:
        read_reached(project, *roots)  # type: ignore[arg-type]
        phase[0] = "checks"

    monkeypatch.setattr(pipeline, "parse_source", counted_parse_source)
    monkeypatch.setattr(parts.Outline, "__init__", counted_outline)
    monkeypatch.setattr("jobcheck.engine.read_reached", then_checks)
    return seen


def test_files_parsed_are_the_files_gathered_each_once(
    tmp_path: Path, parses: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time budget: the job file is parsed in this process, where it is counted (with
    # one, it goes to a worker that can be stopped).
    monkeypatch.setenv("JOBCHECK_FILE_TIME_BUDGET", "off")
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    options = Options(root=str(tmp_path))
    selection = Selection.resolve(load_catalog(), ["ALL"], [])
    report = check_paths([str(tmp_path)], options, selection, RunSettings(jobs=1))

    assert {(f.rule, f.check) for f in report.findings} >= {
        ("SCL-21", "fat-payload"),  # load() returns a row, through loaders.py
        ("SCL-18", "http-call-without-timeout"),  # reached through notify() in services.py
    }, report.findings
    assert [phase for phase, _ in parses if phase != "gathering"] == []
    digests = [digest for _, digest in parses]
    assert len(digests) == len(set(digests)), "a file was parsed twice"
    texts = {hashlib.sha256(t.encode()).hexdigest()[:12]: n for n, t in FILES.items()}
    parsed = sorted(texts[d] for d in digests if d in texts)
    assert parsed == ["shop/loaders.py", "shop/models.py", "shop/services.py", "shop/tasks.py"]
