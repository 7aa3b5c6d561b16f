"""``jobcheck check --fix``, ``--unsafe-fixes``, ``--show-fixes``, ``--diff`` and
``--add-ignore`` on the command line, and ``check -`` with ``--stdin-filename``."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from jobcheck.cli import cli
from tests.cli_helpers import write

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop"

SCHEDULES = """\
    from celery.schedules import crontab

    CELERY_BEAT_SCHEDULE = {
        "nightly": {
            "task": "proj.tasks.report",
            "schedule": crontab(hour=3),
            "options": {"expires": 3600},
        },
    }
    """
TASKS = """\
    import requests
    from celery import shared_task


    @shared_task(time_limit=60, soft_time_limit=50)
    def report(url):
        return requests.get(url).json()
    """


def run(*arguments: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(arguments), input=stdin, catch_exceptions=False)


def check(*arguments: str, stdin: bytes | None = None) -> Result:
    return run("check", "--no-cache", "--jobs", "1", *arguments, stdin=stdin)


def _findings(*arguments: str) -> list[dict]:
    result = check("--output-format", "json", *arguments)
    return json.loads(result.stdout)["findings"]


def _project(tmp_path: Path) -> Path:
    write(tmp_path, {"proj/__init__.py": "", "proj/settings.py": SCHEDULES, "proj/tasks.py": TASKS})
    return tmp_path


def test_fix_applies_safe_fixes_and_reports_what_is_left(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = check("--fix", str(root))
    assert "fixed 1 finding in 1 file" in result.stderr
    settings = (root / "proj" / "settings.py").read_text()
    assert '"schedule": crontab(hour=3, minute=17),' in settings
    # The unsafe fix (a timeout) waits for --unsafe-fixes; the report shows what is left.
    assert "requests.get(url).json()" in (root / "proj" / "tasks.py").read_text()
    assert "SCL-18 [*] http-call-without-timeout" not in result.stdout
    assert "SCL-18 http-call-without-timeout" in result.stdout
    assert "1 more fix with --unsafe-fixes" in result.stdout
    assert result.exit_code == 1
    again = check("--fix", "--unsafe-fixes", str(root))
    assert "timeout=(3.05, 30)" in (root / "proj" / "tasks.py").read_text()
    left = {f["check"] for f in _findings(str(root))}
    assert "http-call-without-timeout" not in left and "crontab-missing-minute" not in left
    before = {p: p.read_text() for p in root.rglob("*.py")}
    third = check("--fix", "--unsafe-fixes", str(root))
    assert {p: p.read_text() for p in root.rglob("*.py")} == before
    assert "fixed" not in third.stderr and again.exit_code == third.exit_code


def test_diff_prints_the_fixes_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = (root / "proj" / "tasks.py").read_text()
    result = check("--diff", "--unsafe-fixes", str(root))
    assert result.exit_code == 1
    tasks = (root / "proj" / "tasks.py").as_posix()
    assert f"--- a/{tasks}\n+++ b/{tasks}\n" in result.stdout
    assert "-    return requests.get(url).json()\n" in result.stdout
    assert "+    return requests.get(url, timeout=(3.05, 30)).json()\n" in result.stdout
    assert (root / "proj" / "tasks.py").read_text() == before
    assert "would fix 2 findings in 2 files" in result.stderr
    clean = tmp_path / "clean"
    write(clean, {"a.py": "x = 1\n"})
    nothing = check("--diff", str(clean))
    assert nothing.exit_code == 0 and nothing.stdout == ""


def test_the_old_diff_revision_spelling_says_what_to_use(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = check("--diff", "origin/main", str(root))
    assert result.exit_code == 2
    assert "use --changed-since origin/main" in result.stderr
    equals = CliRunner().invoke(cli, ["check", "--diff=HEAD", str(root)], catch_exceptions=False)
    assert equals.exit_code == 2


def test_show_fixes_lists_each_fix(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = check("--show-fixes", str(root))
    assert "= fix: Add minute=17 (one run instead of sixty) (--fix)" in result.stdout
    assert "= unsafe fix: Pass timeout=(3.05, 30) (--fix --unsafe-fixes)" in result.stdout
    data = json.loads(check("--show-fixes", "--output-format", "json", str(root)).stdout)
    fixes = {f["check"]: f["fix"] for f in data["findings"]}
    assert fixes["crontab-missing-minute"]["applicability"] == "safe"
    assert fixes["http-call-without-timeout"]["edits"][0]["content"] == ", timeout=(3.05, 30)"


def test_the_example_shop_fixed_twice_is_fixed_once(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shutil.copytree(SHOP, shop)
    check("--fix", "--unsafe-fixes", str(shop))
    data = json.loads(check("--show-fixes", "--output-format", "json", str(shop)).stdout)
    assert data["findings"] and not [
        f for f in data["findings"] if f["fix"] and f["fix"]["applicability"] != "display-only"
    ]
    before = {p: p.read_text() for p in shop.rglob("*.py")}
    check("--fix", "--unsafe-fixes", str(shop))
    assert {p: p.read_text() for p in shop.rglob("*.py")} == before


def test_stdin_with_a_filename_in_the_project(tmp_path: Path) -> None:
    root = _project(tmp_path)
    edited = (
        (root / "proj" / "tasks.py").read_text().replace("requests.get(url)", "requests.post(url)")
    )
    result = check("-", "--stdin-filename", str(root / "proj" / "tasks.py"), stdin=edited.encode())
    assert result.exit_code == 1
    assert "requests.post(...) in job 'report' has no timeout" in result.stdout
    assert "return requests.post(url).json()" in result.stdout  # the snippet is stdin's
    fixed = check(
        "-",
        "--stdin-filename",
        str(root / "proj" / "tasks.py"),
        "--fix",
        "--unsafe-fixes",
        stdin=edited.encode(),
    )
    assert fixed.stdout == edited.replace("post(url)", "post(url, timeout=(3.05, 30))")
    assert (root / "proj" / "tasks.py").read_text() != fixed.stdout  # nothing written


def test_stdin_alone() -> None:
    source = textwrap.dedent(TASKS).encode()
    result = check("-", "--output-format", "json", stdin=source)
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["path"] == "-" and finding["check"] == "http-call-without-timeout"
    named = check(
        "-", "--stdin-filename", "jobs/sync.py", "--output-format", "concise", stdin=source
    )
    assert named.stdout.startswith("jobs/sync.py:7:12: SCL-18 http-call-without-timeout")


def test_add_ignore_suppresses_every_finding_and_merges_comments(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "tasks.py": """\
                import requests
                from celery import shared_task


                @shared_task  # noqa: E501
                def report(url):
                    x = 1  # type: int
                    return requests.get(url).json()  # jobcheck: ignore[SCL-21]
                """
        },
    )
    result = check("--add-ignore", str(tmp_path))
    assert result.exit_code == 0
    assert "added a suppression for 2 findings in 1 file" in result.stderr
    text = (tmp_path / "tasks.py").read_text()
    assert "@shared_task  # noqa: E501  # jobcheck: ignore[SCL-18]\n" in text
    assert "    x = 1  # type: int\n" in text
    assert "return requests.get(url).json()  # jobcheck: ignore[SCL-21, SCL-18]\n" in text
    assert check(str(tmp_path)).exit_code == 0
    assert check("--add-ignore", str(tmp_path)).exit_code == 0
    assert (tmp_path / "tasks.py").read_text() == text


def test_exit_non_zero_on_fix_fails_a_run_that_changed_files(tmp_path: Path) -> None:
    """Ruff's --exit-non-zero-on-fix: a run whose fixes leave no finding still exits 1
    when it changed files (a pre-commit hook must stop that commit); without the flag,
    0."""
    for flag, expected in (((), 0), (("--exit-non-zero-on-fix",), 1)):
        root = tmp_path / str(expected)
        write(root, {"proj/__init__.py": "", "proj/settings.py": SCHEDULES, "proj/tasks.py": ""})
        result = check("--fix", "--select", "SCL-22", *flag, str(root))
        assert "fixed 1 finding" in result.stderr
        assert result.exit_code == expected, result.output
    nothing = check("--fix", "--select", "SCL-22", "--exit-non-zero-on-fix", str(tmp_path / "1"))
    assert nothing.exit_code == 0  # nothing left to fix: nothing changed


def test_fixable_and_unfixable_choose_which_fixes_apply(tmp_path: Path) -> None:
    """Ruff's --fixable/--unfixable: codes are rules, aliases or check slugs."""
    only = _project(tmp_path / "only")
    check("--fix", "--unsafe-fixes", "--fixable", "crontab-missing-minute", str(only))
    assert "minute=17" in (only / "proj" / "settings.py").read_text()
    assert "requests.get(url).json()" in (only / "proj" / "tasks.py").read_text()
    never = _project(tmp_path / "never")
    check("--fix", "--unsafe-fixes", "--unfixable", "SCL-22", str(never))
    assert "minute=" not in (never / "proj" / "settings.py").read_text()
    assert "timeout=(3.05, 30)" in (never / "proj" / "tasks.py").read_text()
    wrong = run("check", "--no-cache", "--fix", "--fixable", "SCL-99", str(never))
    assert wrong.exit_code == 2
    assert "did you mean 'SCL-19'?" in wrong.stderr
