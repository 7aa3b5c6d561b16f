"""Every output treats text from the analysed project as hostile (issue 25, output
encoding): no format repeats a password, the Markdown review takes no markup from a
name, no text line becomes a CI runner's command or drives the terminal, and a name that
is not UTF-8 is printed escaped, never raised as an encoding error."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
import unicodedata
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from jobcheck.cli import cli
from jobcheck.output import review as review_output
from jobcheck.output.encoding import md_code, md_text, terminal
from jobcheck.review_diff import Change
from jobcheck.review_report import QueueReview, Review
from jobcheck.vocabulary.credentials import mask
from tests.hostile_helpers import JOB, TIMEOUT, write

# -- passwords --------------------------------------------------------------------------

# One password per place a secret can be written; each must appear in no output.
SECRETS = {
    "cron_url": "Qv7cronUrlPw",
    "cron_redis_cli": "Qv7cronCliPw",
    "cron_env": "Qv7cronEnvPw",
    "cron_flag": "Qv7cronFlagPw",
    "cron_flag_eq": "Qv7cronFlagEqPw",
    "cron_token": "Qv7cronTokenPw",
    "cron_at": "Qv7p@ss@cronAtPw",
    "cron_couchbase": "Qv7cronCbPw",
    "cron_srv": "Qv7cronSrvPw",
    "cron_amqps": "Qv7cronAmqpsPw",
    "k8s_cli": "Qv7k8sCliPw",
    "k8s_url": "Qv7k8sUrlPw",
    "py_couchbase": "Qv7pyCbPw",
    "py_keyword": "Qv7pyKwPw",
    "py_call": "Qv7pyCallPw",
}
S = SECRETS
CRONTAB_LINES = (
    f"*/5 * * * * celery -A shop -b redis://:{S['cron_url']}@cache.prod.internal:6379/0 inspect",
    f"@daily redis-cli -a {S['cron_redis_cli']} -h cache.prod.internal FLUSHDB",
    f"0 4 * * * PGPASSWORD={S['cron_env']} pg_dump -h db.prod.internal shop",
    f"15 4 * * * python manage.py sync --password {S['cron_flag']}",
    f"20 4 * * * python manage.py sync --password={S['cron_flag_eq']} --token='{S['cron_token']}'",
    f"25 4 * * * curl https://ops:{S['cron_at']}@api.prod.internal/ping",
    f"30 4 * * * python manage.py x couchbase://u:{S['cron_couchbase']}@cb.prod"
    f" mongodb+srv://u:{S['cron_srv']}@m.prod amqps://u:{S['cron_amqps']}@mq.prod",
)
K8S_COMMAND = (
    f'["sh", "-c", "redis-cli -a {S["k8s_cli"]} -u redis://:{S["k8s_url"]}@cache.prod:6379 X"]'
)
SECRET_PROJECT = {
    "crontab": "\n".join(CRONTAB_LINES) + "\n",
    "deploy/cronjob.yaml": f"""\
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: flush-cache
        spec:
          schedule: "0 3 * * *"
          jobTemplate:
            spec:
              template:
                spec:
                  restartPolicy: OnFailure
                  containers:
                    - name: flush
                      image: shop:2.0
                      command: {K8S_COMMAND}
        """,
    "shop/__init__.py": "",
    "shop/tasks.py": f"""\
        from celery import Celery
        from redis import Redis

        app = Celery("shop", broker="couchbase://admin:{S["py_couchbase"]}@cb.prod.internal")
        cache = Redis(host="cache.prod.internal", password="{S["py_keyword"]}")


        @app.task
        def ping():
            Redis(host="x.prod.internal", password="{S["py_call"]}").get("k")
        """,
}
COMMANDS = [
    *(("check", "--no-cache", "--format", fmt) for fmt in ("full", "concise", "json")),
    *(("check", "--no-cache", "--format", fmt) for fmt in ("sarif", "github", "gitlab")),
    ("check", "--no-cache", "--format", "junit"),
    ("check", "--no-cache", "--show-fixes", "--show-unused-suppressions"),
    ("check", "--no-cache", "--statistics"),
    *(("review", "--format", fmt) for fmt in ("text", "markdown", "json", "html")),
    *(("jobs", "--format", fmt) for fmt in ("text", "json")),
]


@pytest.fixture
def secret_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(root, SECRET_PROJECT)
    return root


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "internal error" not in result.output
    return result.output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:1] + c[-1:]))
def test_no_output_repeats_a_password(secret_project: Path, command: tuple[str, ...]) -> None:
    output = _invoke(command[0], str(secret_project), *command[1:])
    assert len(output) > 200, output
    leaked = [name for name, secret in SECRETS.items() if secret in output]
    assert leaked == []
    assert "@cronAtPw" not in output  # the part after a password's own "@"


def test_masks_keep_the_setting_recognizable(secret_project: Path) -> None:
    review = _invoke("review", str(secret_project), "--format", "markdown")
    assert "redis://:****@cache.prod.internal:6379/0" in review
    assert "redis-cli -a **** -h cache.prod.internal" in review
    assert "https://ops:****@api.prod.internal/ping" in review
    assert "couchbase://u:****@cb.prod" in review
    text = _invoke("check", str(secret_project), "--no-cache")
    assert 'password="****"' in text
    assert "couchbase://admin:****@cb.prod.internal" in text


def test_a_baseline_keeps_no_password_and_still_matches(
    secret_project: Path, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    _invoke("check", str(secret_project), "--no-cache", "--write-baseline", str(baseline))
    written = baseline.read_text(encoding="utf-8")
    assert "crontab" in written and "****" in written
    assert [name for name, secret in SECRETS.items() if secret in written] == []
    again = CliRunner().invoke(
        cli, ["check", str(secret_project), "--no-cache", "--baseline", str(baseline)]
    )
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    "text,expected",
    [
        ("-b redis://:s3cr@t@host:6379/0 x", "-b redis://:****@host:6379/0 x"),
        ("redis-cli -h h -a 's3 cret' get", "redis-cli -h h -a '****' get"),
        ("PGPASSWORD=s3cret pg_dump", "PGPASSWORD=**** pg_dump"),
        ("x --password s3cret --y", "x --password **** --y"),
        ('x --password="s3cret"', 'x --password="****"'),
        ("Redis(password='s3cret')", "Redis(password='****')"),
        ('{"token": "s3cret"}', '{"token": "****"}'),
        ("  REDIS_PASSWORD: s3cret", "  REDIS_PASSWORD: ****"),
        ('["redis-cli", "-a", "s3cret"]', '["redis-cli", "-a", "****"]'),
        ("mongodb+srv://u:s3cret@m.example", "mongodb+srv://u:****@m.example"),
        ("crontab line 'x redis://:s3c...' has", "crontab line 'x redis://:****...' has"),
        # Names of secrets, not secrets; prose.
        ("Redis(password=os.environ['PW'])", "Redis(password=os.environ['PW'])"),
        ("x --password=$REDIS_PASSWORD", "x --password=$REDIS_PASSWORD"),
        ("a job with no password: set one", "a job with no password: set one"),
        ("https://host:8080/path", "https://host:8080/path"),
    ],
)
def test_mask(text: str, expected: str) -> None:
    assert mask(text) == expected


# -- Markdown ---------------------------------------------------------------------------

HOSTILE = (
    '"\n<!-- hidden\n# Heading @org/team @someone [link](https://evil.example) '
    "![image](https://evil.example/i.png) | cell | <img src=x onerror=alert(1)> `tick` "
    "www.evil.example #123 *bold* ~strike~ $x$"
)
MARKDOWN_PROJECT = {
    "shop/__init__.py": "",
    "shop/celery.py": f"""\
        from celery import Celery
        from celery.schedules import crontab

        app = Celery("shop")
        app.conf.beat_schedule = {{
            {HOSTILE!r}: {{"task": {HOSTILE!r}, "schedule": crontab(minute=5, hour=3)}},
        }}


        @app.task(name={HOSTILE!r}, queue={HOSTILE!r})
        def evil(order_id):
            return order_id


        @app.task(name="plain", queue={HOSTILE!r}, time_limit=5)
        def plain(order_id):
            return order_id
        """,
}


def _assert_inert(markdown: str, tables: dict[int, int]) -> None:
    """Rendered as CommonMark with GFM tables: jobcheck's own heading and no markup from
    a name (no comment, heading, link, image, HTML, emphasis, mention, autolink), and
    each table (by its column count) with one row per item."""
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<!--" not in html
    assert len(re.findall(r"<h\d>", html)) == 1
    assert not re.search(r"<(a|img|script|em|del|s)[\s>]", html)
    outside = re.sub(r"<[^>]+>", "", re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL))
    assert not re.search(r"@[A-Za-z0-9]", outside), "a live mention"
    assert "://" not in outside and "www." not in outside and not re.search(r"#\d", outside)
    for table in re.findall(r"<table>.*?</table>", html, flags=re.DOTALL):
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL)
        width = len(re.findall(r"<th[ >]", rows[0]))
        assert all(len(re.findall(r"<td[ >]", row)) == width for row in rows[1:])
        if width in tables:
            assert len(rows) - 1 == tables[width]


def test_markdown_review_takes_no_markup_from_names(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, MARKDOWN_PROJECT)
    markdown = _invoke("review", str(root), "--format", "markdown")
    assert "evil" in markdown and "<details>" in markdown
    for line in markdown.splitlines():  # no line a name started
        assert not line.startswith(("#", "<!--", "<img")) or line in ("## jobcheck review",)
    # jobs: 2 rows (13 columns); queues: 1 (6 columns); schedule: 1 (5 columns).
    _assert_inert(markdown, {13: 2, 6: 1, 5: 1})


def test_markdown_changes_take_no_markup_from_names() -> None:
    change = Change("renamed", HOSTILE, HOSTILE, 3, HOSTILE)
    markdown = review_output.changes_markdown("main`<!--", [change, change])
    _assert_inert(markdown, {3: 2})


@pytest.mark.parametrize("text", [HOSTILE, "``x`", " lead", "@x", "|", "a\\b"])
def test_markdown_cells_keep_their_text(text: str) -> None:
    """Escaped, a name still reads as it was written (on one line)."""
    html = (
        MarkdownIt("commonmark")
        .enable("table")
        .render(f"| a | b |\n|---|---|\n| {md_text(text)} | {md_code(text)} |\n")
    )
    cells = [
        unescape(re.sub(r"<[^>]+>", "", cell)).replace("\u200b", "").strip()
        for cell in re.findall(r"<td>(.*?)</td>", html, flags=re.DOTALL)
    ]
    assert cells == [" ".join(text.split("\n")).strip()] * 2


# -- CI logs and terminals ----------------------------------------------------------------

LOG_PROJECT: dict[str, str | bytes] = {
    "::error title=pwned::injected/tasks.py": """\
        from celery import shared_task


        @shared_task
        def work(x):
            return x
        """,
    "nl\n::warning::x.py": """\
        from celery import shared_task


        @shared_task
        def other(x):
            return x
        """,
    "hostile.py": (
        "from celery import shared_task\n\n\n"
        '@shared_task(name="a\\n::error::job ##[error]x \\x1b]52;c;aGk=\\x07 \\x1b[2J \\x9b31m '
        '\\u202e \\u2028 ::warning::y", queue="q\\n::notice::queue \\x1b]52;c;aGk=\\x07")\n'
        "def work(x):\n    return x\n"
    ),
}
TEXT_COMMANDS = [
    ("check", "--no-cache", "--format", "full"),
    ("check", "--no-cache", "--format", "concise"),
    ("check", "--no-cache", "--format", "full", "--color"),
    ("check", "--no-cache", "--format", "pylint"),
    ("check", "--no-cache", "--format", "azure"),
    ("review", "--format", "text"),
    ("jobs", "--format", "text"),
]


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """jobcheck as its own process, its output as bytes, on a strict UTF-8 stdout."""
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "80"}
    environment.pop("JOBCHECK_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "jobcheck", *args],
        cwd=root,
        capture_output=True,
        env=environment,
        timeout=TIMEOUT,
        check=False,
    )


def _assert_log_safe(output: str) -> None:
    for line in output.splitlines():
        assert not line.lstrip().startswith("::"), line
        # Azure's logging commands: only the one an azure-format line starts with.
        assert line.lower().count("##vso[") == int(line.startswith("##vso[task.logissue ")), line
    assert "##[" not in output
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)  # jobcheck's own colours
    hostile = [
        c for c in plain if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")
    ]
    assert hostile == []


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses such file names")
@pytest.mark.parametrize("command", TEXT_COMMANDS, ids=lambda c: "-".join(c))
def test_text_outputs_start_no_workflow_command(tmp_path: Path, command: tuple[str, ...]) -> None:
    root = tmp_path / "project"
    write(root, LOG_PROJECT)
    done = _run(root, command[0], ".", *command[1:])
    assert done.returncode in (0, 1), done.stderr
    output = done.stdout.decode("utf-8")  # strict: never a raw surrogate
    assert "work" in output and "internal error" not in done.stderr.decode()
    _assert_log_safe(output)
    if command[0] != "check":
        assert "\\x1b]52;c;aGk=\\x07" in output  # escaped, so still readable


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses such file names")
def test_github_format_escapes_as_github_reads_it(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {**LOG_PROJECT, "odd%2C,x:y/tasks.py": LOG_PROJECT["hostile.py"]})
    done = _run(root, "check", ".", "--no-cache", "--format", "github")
    lines = done.stdout.decode("utf-8").splitlines()
    assert len(lines) == 4  # one annotation per finding, nothing else
    assert all(re.match(r"::(warning|error|notice) file=[^,:]*,line=\d+,", line) for line in lines)
    assert any("file=%3A%3Aerror title=pwned%3A%3Ainjected/tasks.py," in line for line in lines)
    assert any("file=odd%252C%2Cx%3Ay/tasks.py," in line for line in lines)
    assert not any("\x1b" in line or "\u202e" in line for line in lines)


def test_review_text_is_not_wrapped_into_a_command() -> None:
    """rich wraps a long word at the console's width (80 columns in a CI log): a queue
    name long enough puts its own "::error::" at the start of the next line."""
    name = "q" * 78 + "::error::pwned"
    review = Review(
        jobs=[], queues=[QueueReview("celery", name, ["work"], [], [], [])], schedules=[]
    )
    stream = io.StringIO()
    review_output.write_text(review, stream=stream)
    output = stream.getvalue()
    assert name in output
    _assert_log_safe(output)


def test_review_text_through_the_cli_is_not_wrapped_into_a_command(tmp_path: Path) -> None:
    """The same through ``jobcheck review``, in a CI log 80 columns wide (the command
    prints with ``jobcheck.output.review.write_text``)."""
    root = tmp_path / "project"
    queue = "q" * 78 + "::error::pwned"
    write(root, {"tasks.py": JOB.replace("@shared_task", f"@shared_task(queue={queue!r})")})
    done = _run(root, "review", ".", "--format", "text")
    output = done.stdout.decode("utf-8")
    assert queue in output
    _assert_log_safe(output)


def test_terminal_text_neutralises_commands_and_controls() -> None:
    shown = terminal("::error::x\n::warning::y ##[error]z \x1b]52;c;aGk=\x07 \x9b1m \u202e")
    assert shown == (
        "\\::error::x \\::warning::y ##\\[error]z \\x1b]52;c;aGk=\\x07 \\x9b1m \\u202e"
    )


# -- names that are not UTF-8 ---------------------------------------------------------------

SURROGATE_PROJECT: dict[str, str | bytes] = {
    "q.py": (
        "from celery import shared_task\n\n\n"
        '@shared_task(queue="\\udcff-queue", name="\\ud800-job", time_limit=5)\n'
        "def hostile(x):\n    return x\n"
    ),
}
ALL_FORMATS = [
    *(("check", "--no-cache", "--format", fmt) for fmt in ("full", "concise", "json", "sarif")),
    *(("check", "--no-cache", "--format", fmt) for fmt in ("github", "gitlab", "junit")),
    *(("review", "--format", fmt) for fmt in ("text", "markdown", "json", "html")),
    *(("jobs", "--format", fmt) for fmt in ("text", "json")),
]


@pytest.fixture
def surrogate_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(root, SURROGATE_PROJECT)
    if sys.platform != "darwin":
        (root / os.fsdecode(b"bad\xff.py")).write_bytes(
            textwrap.dedent(LOG_PROJECT["hostile.py"]).encode()  # type: ignore[arg-type]
        )
    return root


@pytest.mark.parametrize("command", ALL_FORMATS, ids=lambda c: "-".join(c[:1] + c[-1:]))
def test_surrogates_are_printed_escaped(surrogate_project: Path, command: tuple[str, ...]) -> None:
    done = _run(surrogate_project, command[0], ".", *command[1:])
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    assert b"internal error" not in done.stderr
    output = done.stdout.decode("utf-8")  # strict
    if command[0] != "check":
        assert "udcff-queue" in output and "ud800-job" in output
    if command[-1] in ("json", "sarif", "gitlab"):
        json.loads(output)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
def test_a_baseline_of_a_file_name_that_is_not_utf8(surrogate_project: Path) -> None:
    baseline = surrogate_project / "baseline.json"
    done = _run(surrogate_project, "check", ".", "--no-cache", "--write-baseline", "baseline.json")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert [p.name for p in surrogate_project.iterdir() if p.name.endswith(".tmp")] == []
    entries = json.loads(baseline.read_bytes().decode("utf-8"))["findings"]
    assert "bad\udcff.py" in {entry["path"] for entry in entries}
    again = _run(surrogate_project, "check", ".", "--no-cache", "--baseline", "baseline.json")
    assert again.returncode == 0, again.stdout.decode(errors="replace")


# -- what the lead wired: --diff, standard error, the language server -------------------

FIXABLE_WITH_SECRET = """\
from celery import shared_task

BROKER = "redis://:Qv7diffPw@cache.prod.internal:6379/0"  # \x1b]52;c;cHduZWQ=\x07


@shared_task(autoretry_for=(IOError,), time_limit=60, soft_time_limit=50)
def work(order_id):
    return order_id
"""


def test_a_diff_neither_leaks_a_password_nor_drives_the_terminal(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": FIXABLE_WITH_SECRET})
    done = subprocess.run(
        [sys.executable, "-m", "jobcheck", "check", ".", "--diff", "--unsafe-fixes"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "+@shared_task(autoretry_for=(IOError,), time_limit=60" in done.stdout
    assert "retry_backoff=True" in done.stdout
    assert "Qv7diffPw" not in done.stdout + done.stderr
    assert "\x1b" not in done.stdout and "\\x1b]52" in done.stdout


def test_standard_error_lines_start_no_workflow_command(tmp_path: Path) -> None:
    folder = "x\n::error file=a,line=1::pwned"
    write(tmp_path, {f"{folder}/tasks.py": "x = 1  # jobcheck: ignore[NOPE-1]\n"})
    done = subprocess.run(
        [sys.executable, "-m", "jobcheck", "check", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert "NOPE-1" in done.stderr, done.stderr
    for line in done.stderr.splitlines():
        assert not line.lstrip().startswith("::"), line


def test_language_server_diagnostics_mask_passwords() -> None:
    from lsprotocol import types
    from pygls.workspace import PositionCodec

    from jobcheck.findings import Finding, Related
    from jobcheck.location import Loc
    from jobcheck.lsp.diagnostics import to_diagnostic

    where = Loc(1, 1, 1, 5)
    finding = Finding(
        rule="JOB-03",
        check="credentials-in-source",
        path="settings.py",
        loc=where,
        message="broker URL redis://:Qv7lspPw@cache:6379/0 holds a password",
        related=(Related("settings.py", where, "set from redis://:Qv7lspPw@cache"),),
    )
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    diagnostic = to_diagnostic(finding, ["BROKER = 1\n"], codec)
    shown = diagnostic.message + "".join(r.message for r in diagnostic.related_information or [])
    assert "Qv7lspPw" not in shown and "redis://:****@cache" in shown


def test_a_suppression_edit_ignores_a_marker_in_a_string() -> None:
    from jobcheck.findings import Finding
    from jobcheck.location import Loc
    from jobcheck.lsp.actions import suppression_edit

    line = 'log = "# jobcheck: ignore[SCL-18]"; work.delay(1)\n'
    finding = Finding(
        rule="SCL-21", check="fat-payload", path="x.py", loc=Loc(1, 1, 1, 5), message="m"
    )
    edit = suppression_edit(line, [line], finding)
    assert edit is not None
    assert edit.start == len(line.rstrip())  # a new comment at the end of the line
    assert edit.new_text == "  # jobcheck: ignore[SCL-21]"
