"""The command line through click's runner: exit codes, formats, select/ignore,
suppressions and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli

NO_LIMIT = """\
from celery import shared_task


@shared_task
def send(order_id):
    return order_id
"""

FAT = """\
from celery import shared_task

from shop.models import Order


@shared_task(time_limit=10)
def send(order_id):
    return order_id


def view(pk):
    order = Order.objects.get(pk=pk)
    send.delay(order){suffix}
"""


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_clean_project_exits_0(tmp_path: Path) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT.replace("@shared_task", "@shared_task(time_limit=5)"))
    code, output = run("check", str(tmp_path))
    assert code == 0
    assert "All checks passed" in output


def test_findings_exit_1_with_text_format(tmp_path: Path) -> None:
    path = write(tmp_path, "tasks.py", NO_LIMIT)
    code, output = run("check", str(tmp_path))
    assert code == 1
    line = output.splitlines()[0]
    assert (
        line
        == f"{path.as_posix()}:4:2: SCL-18 missing-time-limit Celery task 'send' has no time limit"
    )
    url = "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/job-time-limits"
    assert f"   {url}" in output
    assert "Found 1 finding in 1 file (1 file checked)." in output


def test_exit_zero(tmp_path: Path) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT)
    code, _ = run("check", "--exit-zero", str(tmp_path))
    assert code == 0


def test_json_contract(tmp_path: Path) -> None:
    write(tmp_path, "views.py", FAT.format(suffix=""))
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    data = json.loads(output)
    assert data["version"] == 1
    assert data["errors"] == []
    (finding,) = data["findings"]
    assert finding == {
        "rule": "SCL-21",
        "alias": "EVT-20",
        "check": "fat-payload",
        "path": (tmp_path / "views.py").as_posix(),
        "line": 13,
        "column": 16,
        "end_line": 13,
        "end_column": 21,
        "message": finding["message"],
        "severity": "warning",
        "url": "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/ids-in-jobs",
    }
    assert "'order'" in finding["message"]


def test_output_file(tmp_path: Path) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT)
    target = tmp_path / "report.json"
    code, output = run(
        "check", "--format", "json", "--output", str(target), str(tmp_path / "tasks.py")
    )
    assert code == 1
    assert output == ""
    assert json.loads(target.read_text())["findings"][0]["check"] == "missing-time-limit"


@pytest.mark.parametrize("selector", ["SCL-18", "EVT-17", "missing-time-limit", "scl-18"])
def test_select_by_id_alias_or_slug(tmp_path: Path, selector: str) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT)
    write(tmp_path, "views.py", FAT.format(suffix=""))
    code, output = run("check", "--format", "json", "--select", selector, str(tmp_path))
    assert code == 1
    assert {f["rule"] for f in json.loads(output)["findings"]} == {"SCL-18"}


@pytest.mark.parametrize("selector", ["SCL-18", "EVT-17", "missing-time-limit"])
def test_ignore_by_id_alias_or_slug(tmp_path: Path, selector: str) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT)
    code, output = run("check", "--ignore", selector, str(tmp_path))
    assert code == 0, output


def test_unknown_rule_is_a_usage_error(tmp_path: Path) -> None:
    code, output = run("check", "--select", "SCL-99", str(tmp_path))
    assert code == 2
    assert output.strip().splitlines() == [
        "jobcheck: error: unknown rule or check 'SCL-99' (expected an id such as SCL-18 "
        "or a prefix such as SCL, an alias such as EVT-17, or a check slug such as "
        "missing-time-limit); did you mean 'SCL-19'?"
    ]


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    code, output = run("check", str(tmp_path / "nope"))
    assert code == 2
    assert "no such file or directory" in output
    assert "Traceback" not in output


@pytest.mark.parametrize(
    "suffix",
    [
        "  # jobcheck: ignore[SCL-21]",
        "  # jobcheck: ignore[EVT-20]",
        "  # jobcheck: ignore[fat-payload]",
        "  # jobcheck: ignore[JOB-01, fat-payload]",
        "  # jobcheck: ignore",
    ],
)
def test_suppressions(tmp_path: Path, suffix: str) -> None:
    write(tmp_path, "views.py", FAT.format(suffix=suffix))
    code, output = run("check", str(tmp_path))
    assert code == 0, output


def test_suppression_of_another_rule_does_not_hide_the_finding(tmp_path: Path) -> None:
    write(tmp_path, "views.py", FAT.format(suffix="  # jobcheck: ignore[SCL-18]"))
    code, output = run("check", "--show-unused-suppressions", str(tmp_path))
    assert code == 1
    assert "SCL-21 fat-payload" in output
    assert "views.py:13:1: unused suppression # jobcheck: ignore[SCL-18]" in output


def test_unused_suppressions_only_when_asked(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tasks.py",
        NO_LIMIT.replace("@shared_task", "@shared_task(time_limit=5)")
        + "x = 1  # jobcheck: ignore\n",
    )
    assert run("check", str(tmp_path))[0] == 0
    code, output = run("check", "--show-unused-suppressions", str(tmp_path))
    assert code == 1
    assert "unused suppression" in output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"def broken(:\n    pass\n", "syntax error at line 1"),
        (b"x = '\xff\xfe'\n", "cannot decode"),
        (b"import os\x00\n", "NUL byte"),
        (b"", "file is empty"),
    ],
)
def test_bad_files_are_reported_and_others_still_checked(
    tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_bytes(content)
    good = write(tmp_path, "tasks.py", NO_LIMIT)
    code, output = run("check", "--format", "json", str(bad), str(good))
    assert code == 1
    data = json.loads(output)
    assert [e["path"] for e in data["errors"]] == [bad.as_posix()]
    assert message in data["errors"][0]["message"]
    assert [f["check"] for f in data["findings"]] == ["missing-time-limit"]


def test_broken_file_in_folder_is_reported_in_text(tmp_path: Path) -> None:
    write(tmp_path, "broken.py", "from celery import shared_task\n\n@shared_task\ndef f(:\n")
    write(tmp_path, "tasks.py", NO_LIMIT)
    code, output = run("check", str(tmp_path))
    assert code == 1
    assert "broken.py: error: syntax error at line 4" in output
    assert "SCL-18 missing-time-limit" in output
    assert "Traceback" not in output


def test_newer_syntax_is_checked(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tasks.py",
        NO_LIMIT + "\n\ntype Pair[T] = tuple[T, T]\n\n\ndef first[T](p: Pair[T]) -> T:\n"
        "    match p:\n        case (a, _):\n            return a\n"
        "    try:\n        pass\n    except* ValueError:\n        pass\n",
    )
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    data = json.loads(output)
    assert data["errors"] == []
    assert [f["check"] for f in data["findings"]] == ["missing-time-limit"]


def test_gitignore_and_default_excludes(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("generated/\n")
    for folder in ("generated", ".venv", "node_modules", "build"):
        (tmp_path / folder).mkdir()
        write(tmp_path / folder, "tasks.py", NO_LIMIT)
    write(tmp_path, "tasks.py", NO_LIMIT)
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    assert [Path(f["path"]).parent for f in json.loads(output)["findings"]] == [tmp_path]


def test_exclude_option(tmp_path: Path) -> None:
    (tmp_path / "legacy").mkdir()
    write(tmp_path / "legacy", "tasks.py", NO_LIMIT)
    code, _ = run("check", "--exclude", "legacy", str(tmp_path))
    assert code == 0


def _with_test_code(root: Path) -> None:
    """A project whose only jobs without a limit live in its test code, in each of the
    shapes walks skip: a tests/ folder, test_*.py, *_test.py, a Django app's tests.py
    and conftest.py."""
    (root / "tests").mkdir()
    (root / "app").mkdir()
    write(root / "tests", "jobs.py", NO_LIMIT)
    write(root / "app", "test_tasks.py", NO_LIMIT)
    write(root / "app", "tasks_test.py", NO_LIMIT)
    write(root / "app", "tests.py", NO_LIMIT)
    write(root, "conftest.py", NO_LIMIT)
    write(root / "app", "testing_tools.py", NO_LIMIT)  # not test code by its name


def _finding_paths(output: str, root: Path) -> list[str]:
    return sorted(
        Path(f["path"]).relative_to(root).as_posix() for f in json.loads(output)["findings"]
    )


def test_walks_skip_test_code(tmp_path: Path) -> None:
    _with_test_code(tmp_path)
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    assert _finding_paths(output, tmp_path) == ["app/testing_tools.py"]


def test_include_tests_flag_and_config_key_check_test_code(tmp_path: Path) -> None:
    _with_test_code(tmp_path)
    everything = [
        "app/tasks_test.py",
        "app/test_tasks.py",
        "app/testing_tools.py",
        "app/tests.py",
        "conftest.py",
        "tests/jobs.py",
    ]
    _, output = run("check", "--format", "json", "--include-tests", str(tmp_path))
    assert _finding_paths(output, tmp_path) == everything
    write(tmp_path, "pyproject.toml", "[tool.jobcheck]\ninclude-tests = true\n")
    _, output = run("check", "--format", "json", str(tmp_path))
    assert _finding_paths(output, tmp_path) == everything


def test_a_test_file_named_on_the_command_line_is_checked(tmp_path: Path) -> None:
    _with_test_code(tmp_path)
    code, output = run("check", "--format", "json", str(tmp_path / "app" / "test_tasks.py"))
    assert code == 1
    assert _finding_paths(output, tmp_path) == ["app/test_tasks.py"]


def test_config_select_and_bad_key(tmp_path: Path) -> None:
    write(tmp_path, "tasks.py", NO_LIMIT)
    write(tmp_path, "pyproject.toml", '[tool.jobcheck]\nignore = ["SCL-18"]\n')
    assert run("check", str(tmp_path))[0] == 0
    write(tmp_path, "pyproject.toml", '[tool.jobcheck]\nignroe = ["SCL-18"]\n')
    code, output = run("check", str(tmp_path))
    assert code == 2
    assert "unknown key 'ignroe'" in output
    write(tmp_path, "pyproject.toml", '[tool.jobcheck]\nignore = "SCL-18"\n')
    code, output = run("check", str(tmp_path))
    assert code == 2
    assert "ignore must be a list of strings" in output


def test_rules_lists_every_rule_with_state() -> None:
    code, output = run("rules", "--format", "json")
    assert code == 0
    rules = {rule["id"]: rule for rule in json.loads(output)}
    assert set(rules) == {
        "SCL-16",
        "SCL-17",
        "SCL-18",
        "SCL-19",
        "SCL-20",
        "SCL-21",
        "SCL-22",
        "SCL-38",
        "SCL-34",
        "EVT-24",
        "JOB-01",
        "JOB-02",
        "JOB-03",
        "JOB-04",
        "JOB-05",
    }
    states = {c["slug"]: c["implemented"] for c in rules["SCL-18"]["checks"]}
    assert states["missing-time-limit"] is True
    assert rules["JOB-04"]["level"] == "opt-in"


@pytest.mark.parametrize("ident", ["SCL-21", "EVT-20", "fat-payload"])
def test_explain(ident: str) -> None:
    code, output = run("explain", ident)
    assert code == 0
    assert "Put record IDs in jobs instead of copies" in output


def test_explain_unknown() -> None:
    code, output = run("explain", "nope")
    assert code == 2
    assert "unknown rule" in output
