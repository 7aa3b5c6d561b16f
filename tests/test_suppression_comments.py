"""Only a real comment suppresses (issue 25): ``# jobcheck: ignore`` inside a string
literal, a docstring, a YAML block scalar or quoted value, a heredoc or a quoted shell
word is data, and must not silence the finding on its line."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli
from jobcheck.suppress import ruby_suppressions, suppressions
from tests.cli_helpers import write

TASK = """\
from celery import shared_task


@shared_task{suffix}
def work(order_id):
    return order_id
"""


def _findings(root: Path, *args: str) -> list[tuple[str, int, str]]:
    result = CliRunner().invoke(cli, ["check", str(root), "--no-cache", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return sorted(
        (Path(f["path"]).name, f["line"], f["check"]) for f in json.loads(result.stdout)["findings"]
    )


# -- Python -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "decorator",
    [
        '(name="# jobcheck: ignore")',
        "(name='x  # jobcheck: ignore[SCL-18]')",
        '(name=f"{1} # jobcheck: ignore")',
    ],
)
def test_a_marker_in_a_string_does_not_suppress(tmp_path: Path, decorator: str) -> None:
    write(tmp_path, {"tasks.py": TASK.format(suffix=decorator)})
    assert ("tasks.py", 4, "missing-time-limit") in _findings(tmp_path)


def test_a_real_comment_still_suppresses(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"tasks.py": TASK.format(suffix='(name="# jobcheck: ignore")  # jobcheck: ignore[SCL-18]')},
    )
    assert ("tasks.py", 4, "missing-time-limit") not in _findings(tmp_path)


def test_add_ignore_writes_a_comment_beside_a_string_holding_the_marker(tmp_path: Path) -> None:
    write(tmp_path, {"tasks.py": TASK.format(suffix='(name="# jobcheck: ignore[SCL-21]")')})
    result = CliRunner().invoke(cli, ["check", str(tmp_path), "--no-cache", "--add-ignore"])
    assert result.exit_code == 0, result.output
    line = (tmp_path / "tasks.py").read_text().splitlines()[3]
    assert line == '@shared_task(name="# jobcheck: ignore[SCL-21]")  # jobcheck: ignore[SCL-18]'
    assert _findings(tmp_path) == []


def test_python_suppressions_come_from_comment_tokens() -> None:
    text = textwrap.dedent(
        '''\
        a = "# jobcheck: ignore"
        b = """
        # jobcheck: ignore
        """
        c = 1  # jobcheck: ignore[SCL-18]  # jobcheck: ignore[fat-payload]
        d = "# jobcheck: ignore"  # note
        # jobcheck: ignore
        '''
    )
    assert suppressions(text) == {5: frozenset({"SCL-18", "fat-payload"}), 7: None}


# -- other file kinds ---------------------------------------------------------------------

CRONTAB = """\
# expect nothing from the comment lines
17 3 * * * echo '# jobcheck: ignore' && python manage.py purge
19 3 * * * python manage.py sync  # jobcheck: ignore[SCL-18, SCL-38]
"""


def test_crontab_comments_only(tmp_path: Path) -> None:
    write(tmp_path, {"crontab": CRONTAB})
    found = _findings(tmp_path)
    assert ("crontab", 2, "missing-time-limit") in found
    assert [f for f in found if f[1] == 3] == []


CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: "report # jobcheck: ignore"
  annotations:
    note: |
      # jobcheck: ignore
spec:
  schedule: "17 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: report
              image: shop:2.0
              command: ["python", "manage.py", "report"]
"""


def test_kubernetes_comments_only(tmp_path: Path) -> None:
    write(tmp_path, {"cronjobs.yaml": CRONJOB})
    assert ("cronjobs.yaml", 4, "missing-time-limit") in _findings(tmp_path)
    suppressed = CRONJOB.replace(
        'name: "report # jobcheck: ignore"', "name: report  # jobcheck: ignore"
    )
    write(tmp_path, {"cronjobs.yaml": suppressed})
    assert [f for f in _findings(tmp_path) if f[1] == 4] == []


@pytest.mark.parametrize(
    "kind,text,expected",
    [
        ("crontab", "* * * * * echo '# jobcheck: ignore' x\n", {}),
        ("crontab", '* * * * * echo "a # jobcheck: ignore" x\n', {}),
        ("crontab", "* * * * * a\\# jobcheck: ignore\n", {}),
        ("crontab", "* * * * * cmd  # jobcheck: ignore[A]\n", {1: frozenset({"A"})}),
        ("shell", "cat <<EOF\n# jobcheck: ignore\nEOF\necho # jobcheck: ignore\n", {4: None}),
        ("kubernetes", "a: 'x # jobcheck: ignore'\nb: y  # jobcheck: ignore\n", {2: None}),
        ("kubernetes", "a: |\n  # jobcheck: ignore\nb: it's # jobcheck: ignore[B]\n", {3: {"B"}}),
        ("kubernetes", "url: http://x/#jobcheck: ignore\n", {}),
        ("systemd", "ExecStart=/bin/x # jobcheck: ignore\n# jobcheck: ignore[C]\n", {2: {"C"}}),
        ("fly", 'worker = "x # jobcheck: ignore"  # jobcheck: ignore[D]\n', {1: {"D"}}),
        ("ruby", 'x = "# jobcheck: ignore"\ny = 1 # jobcheck: ignore[E]\n', {2: {"E"}}),
    ],
)
def test_each_file_kind_reads_its_own_comments(kind: str, text: str, expected: dict) -> None:
    wanted = {line: None if codes is None else frozenset(codes) for line, codes in expected.items()}
    assert suppressions(text, kind) == wanted


def test_ruby_suppressions_come_from_tree_sitter_comments() -> None:
    pytest.importorskip("tree_sitter_ruby")
    from jobcheck.ruby.parse import parser

    text = textwrap.dedent(
        """\
        x = "# jobcheck: ignore"
        y = %q(# jobcheck: ignore)
        z = 1 # jobcheck: ignore[SCL-18]
        =begin
        # jobcheck: ignore[SCL-21]
        =end
        """
    )
    tree = parser().parse(text.encode())
    assert ruby_suppressions(tree, text) == {
        3: frozenset({"SCL-18"}),
        5: frozenset({"SCL-21"}),
    }


def test_a_comment_at_a_helper_clause_several_jobs_reach_suppresses_it(tmp_path: Path) -> None:
    """A helper's ``except`` that several jobs reach is reported once, at the clause
    (not in a file the run analysed whole): a comment there silences it."""
    source = Path(__file__).parent / "fixtures/SCL-34/swallowed-exception/shared_helper/shop"
    (tmp_path / "shop").mkdir()
    for path in source.iterdir():
        (tmp_path / "shop" / path.name).write_text(path.read_text())
    erp = tmp_path / "shop" / "erp.py"
    assert ("erp.py", 7, "swallowed-exception") in _findings(tmp_path)
    erp.write_text(
        erp.read_text().replace(
            "# expect: SCL-34 swallowed-exception", "# jobcheck: ignore[SCL-34]"
        )
    )
    assert _findings(tmp_path) == [("tasks.py", 23, "swallowed-exception")]


def test_an_unclosed_code_list_suppresses_nothing_and_is_warned(tmp_path: Path) -> None:
    """``# jobcheck: ignore[SCL-18`` without ``]`` was read as a bare ``ignore`` and
    silently suppressed everything on the line (issue 29)."""
    write(tmp_path, {"tasks.py": TASK.format(suffix="  # jobcheck: ignore[SCL-18")})
    assert ("tasks.py", 4, "missing-time-limit") in _findings(tmp_path)
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "jobcheck", "check", ".", "--no-cache", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "tasks.py:4: '# jobcheck: ignore[' has no closing ']'" in done.stderr
    assert suppressions("x = 1  # jobcheck: ignore[SCL-18\n")[1] == frozenset({"[unclosed"})
    assert suppressions("x = 1  # jobcheck: ignore\n")[1] is None


def test_a_file_level_suppression_silences_the_whole_file(tmp_path: Path) -> None:
    """``# jobcheck: ignore-file[CODE]`` (Ruff's ``# ruff: noqa: CODE``) silences those
    codes anywhere in the file; a bare ``ignore-file`` every finding; an unused one is
    reported at line 1 as a file-level comment."""
    body = TASK.format(suffix="")
    write(tmp_path, {"tasks.py": "# jobcheck: ignore-file[SCL-18]\n" + body})
    assert ("tasks.py", 5, "missing-time-limit") not in _findings(tmp_path)
    write(tmp_path, {"tasks.py": "# jobcheck: ignore-file[SCL-21]\n" + body})
    assert ("tasks.py", 5, "missing-time-limit") in _findings(tmp_path)
    result = CliRunner().invoke(
        cli, ["check", str(tmp_path), "--no-cache", "--show-unused-suppressions", "-q"]
    )
    assert "unused suppression # jobcheck: ignore-file[SCL-21]" in result.stdout
    assert suppressions("# jobcheck: ignore-file\nx = 1\n") == {0: None}
    assert suppressions("x = 1  # jobcheck: ignore-file[SCL-18]\n") == {0: frozenset({"SCL-18"})}


def test_fix_removes_unused_suppressions_when_they_are_shown(tmp_path: Path) -> None:
    """Ruff's RUF100 fix: with --fix and --show-unused-suppressions, the codes that
    suppress nothing are taken out of their comments (another comment on the line is
    kept); a code still used stays."""
    text = (
        "from celery import shared_task\n\n\n"
        "@shared_task  # jobcheck: ignore[SCL-18, SCL-21]\n"
        "def work(order_id):\n    return order_id\n\n\n"
        "x = 1  # jobcheck: ignore  # noqa: E501\n"
    )
    write(tmp_path, {"tasks.py": text})
    result = CliRunner().invoke(
        cli, ["check", str(tmp_path), "--no-cache", "--fix", "--show-unused-suppressions"]
    )
    assert "removed 2 unused suppressions" in result.stderr, result.output
    fixed = (tmp_path / "tasks.py").read_text()
    assert "@shared_task  # jobcheck: ignore[SCL-18]\n" in fixed
    assert "x = 1  # noqa: E501\n" in fixed
    again = CliRunner().invoke(
        cli, ["check", str(tmp_path), "--no-cache", "--fix", "--show-unused-suppressions"]
    )
    assert "removed" not in again.stderr
    assert (tmp_path / "tasks.py").read_text() == fixed
