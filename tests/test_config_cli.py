"""The command line and project configuration: ``[tool.jobcheck]`` / ``--config FILE``
errors (exit 2, naming the key), selecting and ignoring by id, alias or slug, per-file
ignores and severities, and the keys that steer checks (words, runbook folders,
django-settings, celery-app)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from jobcheck.cli import cli
from tests.conftest import FIXTURES

FAN_OUT = FIXTURES / "SCL-19/unbounded-fan-out/fan_out_celery"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["check", "--no-color", *args])


def findings(*args: str) -> list[dict]:
    result = run("--format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["findings"]


def project(tmp_path: Path, config: str, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.jobcheck]\n" + textwrap.dedent(config), encoding="utf-8"
    )
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


# -- configuration errors: exit 2, one line naming the key ---------------------------


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('urgent_word = ["otp"]\n', "unknown key 'urgent_word'"),
        ('urgent-words = "otp"\n', "urgent-words must be a list of strings"),
        ('urgent-words = ["o/t/p"]\n', "urgent-words: 'o/t/p' is not a word"),
        ("runbook-dirs = [1]\n", "runbook-dirs must be a list of strings"),
        ('runbook-dirs = [" "]\n', "runbook-dirs: an empty folder name"),
        ('django-settings = ["proj/settings.py"]\n', "django-settings: 'proj/settings.py'"),
        ("celery-app = 3\n", "celery-app must be a string"),
        ('celery-app = "proj.worker:app:x"\n', "celery-app: 'proj.worker:app:x'"),
        ('severity = { SCL-19 = "fatal" }\n', "severity: SCL-19 = 'fatal'"),
        ('severity = { SCL-99 = "error" }\n', "severity: unknown rule or check 'SCL-99'"),
        ('select = ["SCL-19", "no-such-check"]\n', "select: unknown rule or check"),
        ('ignore = ["XYZ-01"]\n', "ignore: unknown rule or check 'XYZ-01'"),
        (
            'per-file-ignores = { "tasks.py" = ["bogus"] }\n',
            "per-file-ignores.'tasks.py': unknown rule or check 'bogus'",
        ),
        ("respect-gitignore = 1\n", "respect-gitignore must be true or false"),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, config: str, expected: str) -> None:
    root = project(tmp_path, config, {"tasks.py": "x = 1\n"})
    result = run(str(root))
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


def test_config_file_option_and_its_errors(tmp_path: Path) -> None:
    missing = run("--config", str(tmp_path / "nope.toml"), str(FAN_OUT))
    assert missing.exit_code == 2 and "config file not found" in missing.output
    broken = tmp_path / "jobcheck.toml"
    broken.write_text("select = [", encoding="utf-8")
    invalid = run("--config", str(broken), str(FAN_OUT))
    assert invalid.exit_code == 2 and "invalid TOML" in invalid.output
    broken.write_text('select = ["unbounded-fan-out"]\n', encoding="utf-8")
    chosen = findings("--config", str(broken), str(FAN_OUT))
    assert {f["check"] for f in chosen} == {"unbounded-fan-out"}


def test_unknown_rule_on_the_command_line(tmp_path: Path) -> None:
    result = run("--select", "SCL-99", str(FAN_OUT))
    assert result.exit_code == 2
    assert "unknown rule or check 'SCL-99'" in result.output


# -- selecting and ignoring ------------------------------------------------------------


@pytest.mark.parametrize("selector", ["SCL-19", "EVT-18", "unbounded-fan-out", "scl-19"])
def test_select_by_id_alias_or_slug(selector: str) -> None:
    chosen = findings("--select", selector, str(FAN_OUT))
    assert len(chosen) == 4
    assert {(f["rule"], f["alias"], f["check"]) for f in chosen} == {
        ("SCL-19", "EVT-18", "unbounded-fan-out")
    }


@pytest.mark.parametrize("selector", ["SCL-19", "EVT-18", "unbounded-fan-out"])
def test_ignore_by_id_alias_or_slug(selector: str) -> None:
    assert findings("--select", "SCL-19,SCL-18", "--ignore", selector, str(FAN_OUT)) == []


def test_exit_status_follows_findings() -> None:
    assert run("--select", "unbounded-fan-out", str(FAN_OUT)).exit_code == 1
    assert run("--select", "unbounded-fan-out", "--exit-zero", str(FAN_OUT)).exit_code == 0
    assert run("--select", "no-dead-letter", str(FAN_OUT)).exit_code == 0


# -- per-file ignores and severities -------------------------------------------------


def test_per_file_ignores_and_severity(tmp_path: Path) -> None:
    shutil.copytree(FAN_OUT, tmp_path / "app")
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.jobcheck]
            select = ["SCL-19"]
            severity = { EVT-18 = "warning" }
            """
        ),
        encoding="utf-8",
    )
    found = findings(str(tmp_path / "app"))
    assert found and {f["severity"] for f in found} == {"warning"}

    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.jobcheck]
            select = ["SCL-19"]
            per-file-ignores = { "app/shop/tasks.py" = ["unbounded-fan-out"] }
            """
        ),
        encoding="utf-8",
    )
    assert findings(str(tmp_path / "app")) == []


def test_severity_by_slug_and_default(tmp_path: Path) -> None:
    default = findings("--select", "unbounded-fan-out", str(FAN_OUT))
    assert {f["severity"] for f in default} == {"error"}  # SCL-19 is REQUIRED
    config = tmp_path / "jobcheck.toml"
    config.write_text('severity = { unbounded-fan-out = "info" }\n', encoding="utf-8")
    chosen = findings("--config", str(config), "--select", "unbounded-fan-out", str(FAN_OUT))
    assert {f["severity"] for f in chosen} == {"info"}


# -- keys that steer checks ----------------------------------------------------------

URGENT_PROJECT = {
    "worker.py": """
        from celery import Celery
        from kombu import Queue

        app = Celery("proj", broker="amqp://localhost")
        app.conf.task_time_limit = 60
        app.conf.task_queues = [
            Queue("celery", queue_arguments={"x-max-length": 9, "x-dead-letter-exchange": "d"})
        ]


        @app.task
        def send_invoice(order_id):
            pass


        @app.task
        def send_password_reset(user_id):
            pass
        """,
    "RUNBOOK.md": "Dead letters: inspect them in the UI, replay with the shovel plugin.\n",
}


def test_urgent_words_from_config(tmp_path: Path) -> None:
    root = project(tmp_path, "", URGENT_PROJECT)
    default = findings("--select", "SCL-20", str(root))
    assert [f["line"] for f in default] == [17]  # send_password_reset
    (root / "pyproject.toml").write_text(
        '[tool.jobcheck]\nurgent-words = ["invoice"]\n', encoding="utf-8"
    )
    configured = findings("--select", "SCL-20", str(root))
    assert [f["line"] for f in configured] == [12]  # send_invoice only
    assert "'invoice'" in configured[0]["message"]


def test_runbook_dirs_from_config(tmp_path: Path) -> None:
    files = {
        "jobs.py": """
            from redis import Redis
            from rq import Queue

            mail = Queue("mail", connection=Redis())


            def place_order(order_id):
                mail.enqueue(print, order_id, ttl=60)
            """,
        "handbook/failed-jobs.md": "Failed jobs: list them with `rq info`, then requeue them.\n",
    }
    root = project(tmp_path, "", files)
    assert len(findings("--select", "EVT-24", str(root))) == 1
    (root / "pyproject.toml").write_text(
        '[tool.jobcheck]\nrunbook-dirs = ["handbook"]\n', encoding="utf-8"
    )
    assert findings("--select", "EVT-24", str(root)) == []


def test_runbooks_are_not_judged_when_single_files_are_checked_alone(tmp_path: Path) -> None:
    jobs = FIXTURES / "EVT-24/dead-letter-without-runbook/rq_no_runbook" / "jobs.py"
    assert findings("--select", "EVT-24", "--no-project", str(jobs)) == []
    # The folder around it is a project without a runbook.
    assert len(findings("--select", "EVT-24", str(jobs.parent))) == 1


def test_django_settings_limits_where_settings_count(tmp_path: Path) -> None:
    files = {
        "proj/__init__.py": "",
        "proj/settings.py": (
            'CELERY_BROKER_URL = "redis://"\nCELERY_TASK_TIME_LIMIT = 60\n'
            'CELERY_TASK_DEFAULT_QUEUE = "celery"\n'
        ),
        # A leftover settings file that the deployment does not use.
        "legacy/__init__.py": "",
        "legacy/settings.py": 'CELERY_TASK_ANNOTATIONS = {"*": {"expires": 60}}\n',
        "proj/tasks.py": """
            from celery import shared_task


            @shared_task
            def send_receipt(order_id):
                pass
            """,
    }
    root = project(tmp_path, "", files)
    assert findings("--select", "unbounded-queue", str(root)) == []
    (root / "pyproject.toml").write_text(
        '[tool.jobcheck]\ndjango-settings = ["proj.settings"]\n', encoding="utf-8"
    )
    found = findings("--select", "unbounded-queue", str(root))
    assert [(Path(f["path"]).name, f["line"]) for f in found] == [("settings.py", 3)]


def test_celery_app_picks_the_projects_app(tmp_path: Path) -> None:
    files = {
        "proj/__init__.py": "",
        "proj/admin_worker.py": 'from celery import Celery\n\nadmin = Celery("admin")\n',
        "proj/worker.py": """
            from celery import Celery

            app = Celery("proj")


            @app.task(time_limit=10, expires=60)
            def charge(order_id):
                pass
            """,
    }
    root = project(tmp_path, "", files)
    first = findings("--select", "no-dead-letter", str(root))
    assert [Path(f["path"]).name for f in first] == ["admin_worker.py"]
    (root / "pyproject.toml").write_text(
        '[tool.jobcheck]\ncelery-app = "proj.worker:app"\n', encoding="utf-8"
    )
    chosen = findings("--select", "no-dead-letter", str(root))
    assert [(Path(f["path"]).name, f["line"]) for f in chosen] == [("worker.py", 4)]


def test_a_checks_severity_wins_over_its_rules(tmp_path: Path) -> None:
    config = tmp_path / "jobcheck.toml"
    config.write_text(
        'severity = { SCL-19 = "info", unbounded-fan-out = "warning" }\n', encoding="utf-8"
    )
    chosen = findings("--config", str(config), "--select", "SCL-19", str(FAN_OUT))
    assert {f["severity"] for f in chosen} == {"warning"}


def test_a_configured_name_that_names_nothing_is_warned_with_the_closest(
    tmp_path: Path,
) -> None:
    """A typo in django-settings or celery-app silently changed which settings and app
    the checks read (issue 29): each is warned, with the name meant, on a cold run and
    when the run cache replays it."""
    import subprocess
    import sys

    root = project(
        tmp_path,
        'django-settings = ["shop.setings"]\ncelery-app = "shop.celery:ap"\n',
        {
            "shop/__init__.py": "",
            "shop/settings.py": "CELERY_TASK_TIME_LIMIT = 60\n",
            "shop/celery.py": 'from celery import Celery\n\napp = Celery("shop")\n',
            "shop/tasks.py": "from shop.celery import app\n\n\n@app.task\ndef f():\n    pass\n",
        },
    )
    for _ in range(2):  # the second run replays the first from the run cache
        done = subprocess.run(
            [sys.executable, "-m", "jobcheck", "check", ".", "-q"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        assert "django-settings 'shop.setings'" in done.stderr
        assert "did you mean 'shop.settings'?" in done.stderr
        assert "celery-app 'shop.celery.ap'" in done.stderr
        assert "did you mean 'shop.celery.app'?" in done.stderr
    assert (root / ".jobcheck_cache").is_dir()


def test_configured_names_that_exist_are_not_warned(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = project(
        tmp_path,
        'django-settings = ["shop.settings"]\ncelery-app = "shop.celery:app"\n',
        {
            "shop/__init__.py": "",
            "shop/settings.py": "CELERY_TASK_TIME_LIMIT = 60\n",
            "shop/celery.py": 'from celery import Celery\n\napp = Celery("shop")\n',
        },
    )
    done = subprocess.run(
        [sys.executable, "-m", "jobcheck", "check", ".", "-q", "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "warning" not in done.stderr, done.stderr
