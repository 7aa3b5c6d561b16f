"""The command line's conventions, as Ruff's: rule selection (prefixes, extend-select,
layers), did-you-mean, explain --all, --show-settings, --show-files, --quiet, --watch,
output formats; and the problems of issue 16, each as a new user met it."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from jobcheck.cli import cli
from tests.cli_helpers import write

ROOT = Path(__file__).resolve().parent.parent
FAN_OUT = ROOT / "tests" / "fixtures" / "SCL-19/unbounded-fan-out/fan_out_celery"

NO_LIMIT = """\
    from celery import shared_task


    @shared_task
    def send(order_id):
        return order_id
    """


def run(*arguments: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(arguments), env=env, catch_exceptions=False)


def check(*arguments: str) -> Result:
    return run("check", "--no-cache", "--jobs", "1", *arguments)


def _checks(*arguments: str) -> set[tuple[str, str]]:
    result = check("--output-format", "json", *arguments)
    assert result.exit_code in (0, 1), result.output
    return {(f["rule"], f["check"]) for f in json.loads(result.stdout)["findings"]}


# -- selecting rules --------------------------------------------------------------------


def test_select_by_prefix() -> None:
    everything = _checks(str(FAN_OUT))
    assert _checks("--select", "SCL", str(FAN_OUT)) == {
        c for c in everything if c[0].startswith("SCL")
    }
    assert {r for r, _ in _checks("--select", "SCL-1", str(FAN_OUT))} <= {
        "SCL-16",
        "SCL-17",
        "SCL-18",
        "SCL-19",
    }
    assert _checks("--select", "SCL-1", str(FAN_OUT))
    assert check("--select", "XYZ", str(FAN_OUT)).exit_code == 2


def test_extend_select_and_ignore_layers(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT, "jobcheck.toml": 'select = ["SCL-34"]\n'})
    assert _checks(str(tmp_path)) == set()
    assert _checks("--extend-select", "SCL-18", str(tmp_path)) == {("SCL-18", "missing-time-limit")}
    (tmp_path / "jobcheck.toml").write_text('extend-ignore = ["SCL-18"]\n')
    assert ("SCL-18", "missing-time-limit") not in _checks(str(tmp_path))
    # The command line's --select starts afresh, as Ruff's does.
    assert _checks("--select", "missing-time-limit", str(tmp_path)) == {
        ("SCL-18", "missing-time-limit")
    }
    # Within one layer the more specific selector wins: a check over its rule.
    chosen = _checks("--select", "missing-time-limit", "--ignore", "SCL-18", str(tmp_path))
    assert chosen == {("SCL-18", "missing-time-limit")}
    assert _checks("--select", "SCL-18", "--ignore", "missing-time-limit", str(tmp_path)) == set()


def test_did_you_mean() -> None:
    assert "did you mean 'SCL-19'?" in check("--select", "SCL-99", str(FAN_OUT)).stderr
    assert "did you mean 'fat-payload'?" in check("--ignore", "fat-paylod", str(FAN_OUT)).stderr
    option = check("--selct", "SCL-18", str(FAN_OUT))
    assert option.exit_code == 2 and "--select" in option.stderr


def test_did_you_mean_in_the_configuration(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT, "jobcheck.toml": 'extend-exlude = ["legacy/"]\n'})
    result = check(str(tmp_path))
    assert result.exit_code == 2
    assert (
        "unknown key 'extend-exlude' in [tool.jobcheck]; did you mean 'extend-exclude'?"
        in result.stderr
    )


# -- problem 3: gitignore-style excludes -------------------------------------------------


def test_excluding_a_folder_with_a_trailing_slash(tmp_path: Path) -> None:
    write(tmp_path, {"legacy/tasks.py": NO_LIMIT, "app/tasks.py": NO_LIMIT})
    paths = {
        f.split(":")[0]
        for f in check("--output-format", "concise", "-q", str(tmp_path)).stdout.splitlines()
    }
    assert len(paths) == 2
    result = check("--exclude", "legacy/", "--output-format", "json", str(tmp_path))
    assert {Path(f["path"]).parent.name for f in json.loads(result.stdout)["findings"]} == {"app"}
    write(tmp_path, {"pyproject.toml": '[tool.jobcheck]\nextend-exclude = ["legacy/"]\n'})
    result = check("--output-format", "json", str(tmp_path))
    assert {Path(f["path"]).parent.name for f in json.loads(result.stdout)["findings"]} == {"app"}
    files = check("--show-files", str(tmp_path)).stdout.splitlines()
    assert files == [(tmp_path / "app" / "tasks.py").as_posix()]
    # A pattern ending in "/" names folders only: files called tasks.py are kept.
    assert (
        check("--show-files", "--exclude", "tasks.py/", str(tmp_path)).stdout.splitlines() == files
    )


# -- problem 4: rules and explain when piped ---------------------------------------------


def test_rules_keep_their_ids_when_piped_or_at_80_columns() -> None:
    piped = run("rules").stdout
    terminal = run("rules", env={"FORCE_COLOR": "1", "COLUMNS": "80"}).stdout
    for output in (piped, terminal):
        for rule in ("SCL-16", "SCL-18", "SCL-22", "SCL-34", "SCL-38", "EVT-24", "JOB-01"):
            assert rule in output, output
    assert "missing-time-limit" in piped and "SCL…" not in terminal


def test_explain_piped_keeps_the_playbook_url() -> None:
    result = run("explain", "SCL-18")
    assert (
        "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/job-time-limits"
        in result.stdout
    )
    assert result.stdout.startswith("# SCL-18 ")


def test_explain_all_and_by_prefix() -> None:
    everything = run("explain", "--all").stdout
    assert all(f"# {rule} " in everything for rule in ("SCL-16", "SCL-38", "EVT-24", "JOB-02"))
    scl = run("explain", "SCL-3").stdout
    assert "# SCL-34 " in scl and "# SCL-38 " in scl and "# SCL-18 " not in scl
    assert run("explain").exit_code == 2


# -- problem 5: unused suppressions ------------------------------------------------------

SUPPRESSED = """\
    from celery import shared_task


    @shared_task(time_limit=60, soft_time_limit=50)
    def send(order_id):  # jobcheck: ignore[fat-payload]
        return order_id


    @shared_task  # jobcheck: ignore[SCL-99]
    def other(order_id):
        return order_id


    @shared_task  # jobcheck: ignore[SCL-21]  # jobcheck: ignore[SCL-18]
    def third(order_id):
        return order_id
    """


def test_unused_suppressions_in_every_format(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": SUPPRESSED})
    result = check("--show-unused-suppressions", "--output-format", "json", str(tmp_path))
    data = json.loads(result.stdout)
    by_line = {u["line"]: u for u in data["unused_suppressions"]}
    assert by_line[5]["codes"] == ["fat-payload"]
    assert by_line[9]["unknown"] == ["SCL-99"] and "did you mean 'SCL-19'?" in by_line[9]["message"]
    assert by_line[14]["codes"] == ["SCL-21"]  # SCL-18 in the second comment was used
    assert {f["line"] for f in data["findings"]} == {9}  # the third task's finding is silenced
    sarif = json.loads(
        check("--show-unused-suppressions", "--output-format", "sarif", str(tmp_path)).stdout
    )
    unused = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "unused-suppression"]
    assert len(unused) == 3
    assert any(r["id"] == "unused-suppression" for r in sarif["runs"][0]["tool"]["driver"]["rules"])
    gitlab = json.loads(
        check("--show-unused-suppressions", "--output-format", "gitlab", str(tmp_path)).stdout
    )
    assert len({i["fingerprint"] for i in gitlab if i["check_name"] == "unused-suppression"}) == 3
    junit = ET.fromstring(
        check("--show-unused-suppressions", "--output-format", "junit", str(tmp_path)).stdout
    )
    assert len(junit.findall(".//failure[@type='unused-suppression']")) == 3
    # Without the flag, an unknown code still gets a warning.
    plain = check(str(tmp_path))
    assert "unknown code 'SCL-99', did you mean 'SCL-19'?" in plain.stderr


def test_a_suppression_of_a_check_not_run_is_not_unused(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": SUPPRESSED})
    result = check(
        "--show-unused-suppressions", "--select", "SCL-18", "--output-format", "json", str(tmp_path)
    )
    lines = {u["line"] for u in json.loads(result.stdout).get("unused_suppressions", [])}
    assert 5 not in lines and 14 not in lines  # fat-payload and SCL-21 were not checked
    assert 9 in lines  # an unknown code is always worth saying


def test_show_unused_suppressions_as_a_config_key(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": SUPPRESSED, "jobcheck.toml": "show-unused-suppressions = true\n"})
    result = check("--output-format", "json", str(tmp_path))
    assert json.loads(result.stdout)["unused_suppressions"]


# -- problem 6: statistics and summaries --------------------------------------------------


def test_statistics_refuses_formats_it_cannot_print() -> None:
    result = check("--statistics", "--output-format", "sarif", str(FAN_OUT))
    assert result.exit_code == 2
    assert "--statistics prints text or json, not sarif" in result.stderr
    assert check("--statistics", "--output-format", "json", str(FAN_OUT)).exit_code == 1


def test_summaries_count_files_with_findings_and_files_checked(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT, "other.py": "x = 1\n"})
    assert "Found 1 finding in 1 file (2 files checked)." in check(str(tmp_path)).stdout
    assert "All checks passed (1 file checked)." in check(str(tmp_path / "other.py")).stdout


# -- problem 7: concise is short, text is full -------------------------------------------


def test_concise_is_one_short_line_and_text_has_source_and_help() -> None:
    concise = check("--output-format", "concise", "-q", str(ROOT / "examples" / "shop")).stdout
    text = check(str(ROOT / "examples" / "shop")).stdout
    # Measured without the clone's own path, which every line starts with.
    lines = [line.replace(str(ROOT), "") for line in concise.splitlines()]
    assert lines and all(len(line) < 320 for line in lines)
    assert concise != text
    assert "\n   = help: " in text and " | " in text and "^" in text


# -- the rest of the command line ----------------------------------------------------------


def test_output_format_names() -> None:
    assert (
        check("--format", "json", str(FAN_OUT)).stdout
        == check("--output-format", "json", str(FAN_OUT)).stdout
    )
    assert check("--output-format", "full", str(FAN_OUT)).stdout == check(str(FAN_OUT)).stdout


def test_show_settings(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT, "jobcheck.toml": 'extend-select = ["SCL-18"]\n'})
    result = check("--show-settings", "--ignore", "SCL-19", str(tmp_path))
    assert result.exit_code == 0
    assert f"config file: {tmp_path / 'jobcheck.toml'}" in result.stdout
    assert 'extend-select = ["SCL-18"]' in result.stdout
    assert 'ignore = ["SCL-19"]' in result.stdout
    assert "#   SCL-18 missing-time-limit" in result.stdout
    assert "SCL-19 unbounded-queue" not in result.stdout


def test_quiet_prints_the_findings_only(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT})
    result = check("-q", "--output-format", "concise", str(tmp_path))
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1 and "Found" not in result.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_watch_checks_again_on_change_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": NO_LIMIT})
    command = [sys.executable, "-m", "jobcheck", "check", "--watch", "--no-cache"]
    process = subprocess.Popen(
        [*command, "--output-format", "concise", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    threading.Thread(target=lambda: [lines.put(x) for x in process.stdout], daemon=True).start()

    def until(text: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if text in lines.get(timeout=1):
                    return
            except queue.Empty:
                continue
        raise AssertionError(f"no {text!r} from jobcheck --watch")

    try:
        until("missing-time-limit")
        time.sleep(1.2)
        limited = NO_LIMIT.replace("@shared_task", "@shared_task(time_limit=9, soft_time_limit=8)")
        write(tmp_path, {"tasks.py": limited})
        until("All checks passed")
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, errors
    assert "Traceback" not in errors and "stopped watching" in errors


# -- problem 8: the README -----------------------------------------------------------------


def test_readme_workflow_does_not_swallow_configuration_errors() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "|| true" not in readme
    assert "Python 3.10" in readme and "git" in readme
    assert "--exit-zero" in readme


def test_version_command() -> None:
    from jobcheck import __version__

    result = CliRunner().invoke(cli, ["version"])
    assert result.exit_code == 0
    assert result.output == f"jobcheck {__version__}\n"


def test_clean_removes_only_caches_jobcheck_made(tmp_path: Path) -> None:
    write(tmp_path, {"app/tasks.py": NO_LIMIT, "pyproject.toml": ""})
    done = CliRunner().invoke(cli, ["check", "--jobs", "1", str(tmp_path)])
    assert done.exit_code == 1  # and the cache written at the project root
    assert (tmp_path / ".jobcheck_cache" / "CACHEDIR.TAG").is_file()
    foreign = tmp_path / "app" / ".jobcheck_cache"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("not jobcheck's")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / ".jobcheck_cache").symlink_to(outside)
    result = CliRunner().invoke(cli, ["clean", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / ".jobcheck_cache").exists()
    assert (foreign / "keep.txt").exists()
    assert (outside / "keep.txt").exists()
    assert result.output.count("Removed ") == 1


def test_exclude_takes_comma_separated_globs_and_extend_exclude(tmp_path: Path) -> None:
    write(tmp_path, {"a/tasks.py": NO_LIMIT, "b/tasks.py": NO_LIMIT, "c/tasks.py": NO_LIMIT})

    def paths(*extra: str) -> set[str]:
        result = check("--format", "json", *extra, str(tmp_path))
        return {f["path"].split("/")[-2] for f in json.loads(result.stdout)["findings"]}

    assert paths() == {"a", "b", "c"}
    assert paths("--exclude", "a/,b/") == {"c"}
    assert paths("--extend-exclude", "a/", "--exclude", "c/") == {"b"}


def test_a_named_excluded_file_is_checked_unless_force_exclude(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "legacy/tasks.py": NO_LIMIT,
            "old_tasks.py": NO_LIMIT,
            "pyproject.toml": '[tool.jobcheck]\nexclude = ["legacy/", "old_*.py"]\n',
        },
    )
    named = [str(tmp_path / "legacy" / "tasks.py"), str(tmp_path / "old_tasks.py")]

    def reported(*extra: str) -> set[str]:
        result = check("--format", "json", *extra, *named)
        assert result.exit_code in (0, 1), result.output
        return {Path(f["path"]).name for f in json.loads(result.stdout)["findings"]}

    # As Ruff: a file named on the command line is checked though the excludes match it...
    assert reported() == {"tasks.py", "old_tasks.py"}
    assert reported("--no-project") == {"tasks.py", "old_tasks.py"}
    # ...unless --force-exclude (what pre-commit's hook passes), or the configuration's key.
    assert reported("--force-exclude") == set()
    assert reported("--force-exclude", "--no-project") == set()
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.jobcheck]\nexclude = ["legacy/", "old_*.py"]\n'
            "force-exclude = true\n"
        },
    )
    assert reported() == set()
    assert reported("--no-force-exclude") == {"tasks.py", "old_tasks.py"}
    # A folder walk skips them either way.
    assert check("--show-files", str(tmp_path)).stdout.strip() == ""
    # The count is of the named files checked, not of the project read around them.
    write(tmp_path, {"app/tasks.py": NO_LIMIT})
    assert "(0 files checked)" in check("--force-exclude", *named).stdout
    assert "(2 files checked)" in check("--no-force-exclude", *named).stdout


def test_pre_commit_hook_forces_the_excludes() -> None:
    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert "--force-exclude" in hook["entry"].split()


def test_per_file_ignores_on_the_command_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "scripts/tasks.py": NO_LIMIT,
            "app/tasks.py": NO_LIMIT,
            "pyproject.toml": '[tool.jobcheck]\nper-file-ignores = { "app/*" = ["SCL-18"] }\n',
        },
    )

    def folders(*extra: str) -> set[str]:
        result = check("--format", "json", *extra, str(tmp_path))
        assert result.exit_code in (0, 1), result.output
        return {f["path"].split("/")[-2] for f in json.loads(result.stdout)["findings"]}

    assert folders() == {"scripts"}
    # --per-file-ignores replaces the table; --extend-per-file-ignores adds to it.
    assert folders("--per-file-ignores", "scripts/*:missing-time-limit") == {"app"}
    assert folders("--extend-per-file-ignores", "scripts/*:SCL-18,SCL-21") == set()
    assert folders("--per-file-ignores", "scripts/*:SCL-21") == {"scripts", "app"}
    for flag, value, said in (
        ("--per-file-ignores", "scripts/*", "expected GLOB:CODES"),
        ("--extend-per-file-ignores", "scripts/*:", "expected GLOB:CODES"),
        ("--per-file-ignores", "scripts/*:SCL-99", "unknown rule or check 'SCL-99'"),
    ):
        result = check(flag, value, str(tmp_path))
        assert result.exit_code == 2
        assert result.output.count("\n") == 1 and said in result.output and flag in result.output
