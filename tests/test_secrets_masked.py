"""JOB-03 credentials-in-source never prints the secret: not in any output format, not
in a baseline file, not in the review."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli

SECRET = "Xk29fLq7vQ"
SETTINGS = f"""\
import os

CELERY_BROKER_URL = "redis://:{SECRET}@cache.prod.internal:6379/0"
CELERY_RESULT_BACKEND = os.environ.get(
    "RESULT_BACKEND", "amqp://jobs:{SECRET}@rabbit.prod.internal:5672//"
)
"""
TASKS = """\
from celery import Celery

app = Celery("shop")
app.config_from_object("shop.settings")


@app.task(time_limit=30)
def ping():
    pass
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "settings.py").write_text(SETTINGS)
    (tmp_path / "shop" / "celery.py").write_text(TASKS)
    return tmp_path


@pytest.mark.parametrize(
    "fmt", ["full", "concise", "json", "sarif", "github", "gitlab", "junit", "text"]
)
def test_no_output_format_prints_the_password(project: Path, fmt: str) -> None:
    result = CliRunner().invoke(
        cli, ["check", str(project), "--select", "credentials-in-source", "--format", fmt]
    )
    assert result.exit_code == 1, result.output
    assert "credentials-in-source" in result.output or "JOB-03" in result.output
    assert SECRET not in result.output


def test_a_baseline_does_not_keep_the_password(project: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    args = ["check", str(project), "--select", "JOB-03"]
    CliRunner().invoke(cli, [*args, "--write-baseline", str(baseline)])
    assert "credentials-in-source" in baseline.read_text()
    assert SECRET not in baseline.read_text()
    again = CliRunner().invoke(cli, [*args, "--baseline", str(baseline)])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_the_review_does_not_print_the_password(project: Path, fmt: str) -> None:
    result = CliRunner().invoke(cli, ["review", str(project), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
