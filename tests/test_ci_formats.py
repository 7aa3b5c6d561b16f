"""The CI output formats: SARIF (validated against the official 2.1.0 schema), GitHub
annotations, GitLab Code Quality, JUnit XML, concise, and --statistics."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.output import FORMATS
from jobcheck.output.github import escape_data, escape_property
from tests.cli_helpers import TASKS, run, write

CHECKOUT = Path(__file__).resolve().parents[1]
SCHEMA_NAME = "sarif-schema-2.1.0.json"
BROKEN = "from celery import shared_task\n\n@shared_task\ndef broken(:\n    pass\n"


def _sarif_schema_path() -> Path | None:
    """The official schema lives beside the checkout (``../shared/data`` in CI, one more
    level up in a developer's worktree); it is not copied into the project."""
    for folder in CHECKOUT.parents:
        candidate = folder / "shared" / "data" / SCHEMA_NAME
        if candidate.is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    path = _sarif_schema_path()
    if path is None:
        pytest.skip(f"{SCHEMA_NAME} not found in shared/data/ beside the checkout")
    schema = json.loads(path.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def _assert_valid(validator, document: dict) -> None:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with two findings in app/tasks.py, run from its root."""
    write(tmp_path, {"app/__init__.py": "", "app/tasks.py": TASKS})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _sarif(*arguments: str) -> dict:
    result = run("check", "--format", "sarif", *arguments)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_every_format_is_registered() -> None:
    assert {"text", "json", "concise", "sarif", "github", "gitlab", "junit"} <= set(FORMATS)
    assert {"json-lines", "pylint", "azure"} <= set(FORMATS)  # Ruff's names


def test_json_lines_pylint_and_azure_carry_every_finding(project: Path) -> None:
    findings = json.loads(run("check", "--format", "json", ".").stdout)["findings"]
    lines = [
        json.loads(line) for line in run("check", "--format", "json-lines", ".").stdout.splitlines()
    ]
    assert lines == findings
    pylint = run("check", "--format", "pylint", ".").stdout.splitlines()
    assert [line.split(": [", 1)[0] for line in pylint] == [
        f"{f['path']}:{f['line']}" for f in findings
    ]
    assert all(f"[{f['rule']}({f['check']})]" in line for f, line in zip(findings, pylint))
    azure = run("check", "--format", "azure", ".").stdout.splitlines()
    assert len(azure) == len(findings)
    for f, line in zip(findings, azure):
        assert line.startswith(f"##vso[task.logissue type={f['severity']};")
        assert f"linenumber={f['line']};columnnumber={f['column']};code={f['rule']};]" in line


class TestSarif:
    def test_findings_validate_and_carry_rules_regions_and_links(
        self, project: Path, sarif_validator
    ) -> None:
        document = _sarif(".")
        _assert_valid(sarif_validator, document)
        run_ = document["runs"][0]
        rules = run_["tool"]["driver"]["rules"]
        catalog = load_catalog()
        by_id = {rule["id"]: rule for rule in rules}
        for rule in catalog:
            descriptor = by_id[rule.id]
            assert descriptor["helpUri"] == rule.url
            assert rule.title in descriptor["help"]["text"]
            assert rule.url in descriptor["help"]["text"]
        assert all(rule["helpUri"] and rule["help"]["text"] for rule in rules)
        results = run_["results"]
        assert [r["properties"]["check"] for r in results] == ["unbounded-retries"]
        result = results[0]
        assert result["ruleId"] == "SCL-34"
        assert rules[result["ruleIndex"]]["id"] == "SCL-34"
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "app/tasks.py", "uriBaseId": "%SRCROOT%"}
        assert location["region"] == {
            "startLine": 4,
            "startColumn": 49,
            "endLine": 4,
            "endColumn": 65,
        }
        assert result["partialFingerprints"]

    def test_clean_run_validates(self, tmp_path: Path, monkeypatch, sarif_validator) -> None:
        write(tmp_path, {"ok.py": "print('no jobs here')\n"})
        monkeypatch.chdir(tmp_path)
        document = _sarif(".")
        _assert_valid(sarif_validator, document)
        assert document["runs"][0]["results"] == []

    def test_parse_errors_validate_as_results_and_notifications(
        self, project: Path, sarif_validator
    ) -> None:
        write(project, {"app/broken.py": BROKEN})
        document = _sarif(".")
        _assert_valid(sarif_validator, document)
        run_ = document["runs"][0]
        errors = [r for r in run_["results"] if r["ruleId"] == "parse-error"]
        assert len(errors) == 1
        assert errors[0]["level"] == "error"
        assert errors[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
            "app/broken.py"
        )
        notifications = run_["invocations"][0]["toolExecutionNotifications"]
        assert [n["level"] for n in notifications] == ["error"]
        assert "app/broken.py" in notifications[0]["message"]["text"]

    def test_paths_outside_the_working_directory_are_absolute_uris(
        self, project: Path, tmp_path_factory, monkeypatch, sarif_validator
    ) -> None:
        monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
        document = _sarif(str(project))
        _assert_valid(sarif_validator, document)
        artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert artifact["artifactLocation"]["uri"].startswith("file:///")
        assert "uriBaseId" not in artifact["artifactLocation"]


class TestGithub:
    ANNOTATION = re.compile(
        r"^::(?P<level>error|warning|notice) file=(?P<file>[^,]+),line=(?P<line>\d+),"
        r"col=(?P<col>\d+),endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+),"
        r"title=(?P<title>[^:]+)::(?P<message>.+)$"
    )

    def test_one_annotation_line_per_finding(self, project: Path) -> None:
        result = run("check", "--format", "github", ".")
        assert result.exit_code == 1
        lines = result.stdout.splitlines()
        assert len(lines) == 1
        match = self.ANNOTATION.match(lines[0])
        assert match, lines[0]
        assert match["level"] == "warning"
        assert match["file"] == "app/tasks.py"
        assert (match["line"], match["col"], match["end_line"], match["end_col"]) == (
            "4",
            "49",
            "4",
            "65",
        )
        assert match["title"] == "jobcheck SCL-34 (unbounded-retries)"
        assert "max_retries=None" in match["message"]
        assert "https://agentwranglers.se/playbook/" in match["message"]

    def test_required_rules_are_errors(self, tmp_path: Path, monkeypatch) -> None:
        write(
            tmp_path,
            {
                "tasks.py": TASKS,
                "pyproject.toml": '[tool.jobcheck]\nseverity = {SCL-34 = "info"}\n',
            },
        )
        monkeypatch.chdir(tmp_path)
        result = run("check", "--format", "github", ".")
        assert result.stdout.startswith("::notice ")

    def test_escaping_follows_the_actions_toolkit(self) -> None:
        assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
        assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"

    def test_parse_errors_are_error_annotations(self, project: Path) -> None:
        write(project, {"app/broken.py": BROKEN})
        result = run("check", "--format", "github", ".")
        errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
        assert len(errors) == 1
        assert "file=app/broken.py,line=" in errors[0]
        assert "title=jobcheck (parse-error)::" in errors[0]


class TestGitlab:
    def _report(self) -> list[dict]:
        result = run("check", "--format", "gitlab", ".")
        assert result.exit_code in (0, 1)
        return json.loads(result.stdout)

    def test_code_quality_fields(self, project: Path) -> None:
        (issue,) = self._report()
        assert issue["check_name"] == "SCL-34 unbounded-retries"
        assert issue["severity"] == "minor"
        assert issue["location"] == {"path": "app/tasks.py", "lines": {"begin": 4, "end": 4}}
        assert re.fullmatch(r"[0-9a-f]{64}", issue["fingerprint"])
        assert issue["description"]

    def test_fingerprints_do_not_depend_on_lines(self, project: Path) -> None:
        before = self._report()
        tasks = project / "app" / "tasks.py"
        tasks.write_text('"""Tasks."""\n\nimport os\n\n' + tasks.read_text(), encoding="utf-8")
        after = self._report()
        assert after[0]["location"]["lines"]["begin"] == before[0]["location"]["lines"]["begin"] + 4
        assert after[0]["fingerprint"] == before[0]["fingerprint"]

    def test_identical_findings_get_distinct_fingerprints(
        self, tmp_path: Path, monkeypatch
    ) -> None:
        twice = "from celery import shared_task\n\n" + "\n".join(
            f"@shared_task(max_retries=None, time_limit=9, soft_time_limit=8)\ndef t{n}():\n"
            "    pass\n"
            for n in range(2)
        )
        write(tmp_path, {"tasks.py": twice})
        monkeypatch.chdir(tmp_path)
        fingerprints = [issue["fingerprint"] for issue in self._report()]
        assert len(fingerprints) == 2 and len(set(fingerprints)) == 2

    def test_parse_errors_are_issues(self, project: Path) -> None:
        write(project, {"app/broken.py": BROKEN})
        issues = self._report()
        errors = [i for i in issues if i["check_name"] == "parse-error"]
        assert len(errors) == 1 and errors[0]["location"]["path"] == "app/broken.py"


class TestJunit:
    def test_findings_are_failures(self, project: Path) -> None:
        write(project, {"app/broken.py": BROKEN})
        result = run("check", "--format", "junit", ".")
        root = ET.fromstring(result.stdout)
        assert root.tag == "testsuites"
        assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "1", "1")
        suites = {suite.get("name"): suite for suite in root}
        failure = suites["app/tasks.py"].find("testcase/failure")
        assert failure is not None and failure.get("type") == "SCL-34"
        assert "app/tasks.py:4:49: SCL-34 unbounded-retries" in (failure.text or "")
        assert suites["app/broken.py"].find("testcase/error") is not None

    def test_clean_run_has_one_passing_case(self, tmp_path: Path, monkeypatch) -> None:
        write(tmp_path, {"ok.py": "x = 1\n"})
        monkeypatch.chdir(tmp_path)
        root = ET.fromstring(run("check", "--format", "junit", ".").stdout)
        assert root.get("failures") == "0"
        assert len(root.findall("testsuite/testcase")) == 1


def test_concise_is_one_plain_line_per_finding(project: Path) -> None:
    write(project, {"app/broken.py": BROKEN})
    result = run("check", "--format", "concise", "--color", ".")
    assert result.exit_code == 1
    assert "\x1b[" not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("app/tasks.py:4:49: SCL-34 unbounded-retries ")
    assert lines[0].endswith("/dead-letter-queue)")
    assert re.match(r"app/broken\.py:\d+:\d+: error: syntax error", lines[1])
    assert lines[2] == "Found 1 finding in 1 file (3 files checked); 1 file could not be checked."
    assert len(lines) == 3


class TestStatistics:
    def test_counts_per_rule_and_check(self, project: Path) -> None:
        write(project, {"app/more.py": TASKS.replace("charge", "pay").replace("refund", "back")})
        result = run("check", "--statistics", ".")
        assert result.exit_code == 1
        assert result.stdout.splitlines() == [
            "2  SCL-34  unbounded-retries",
            "Found 2 findings in 2 files (3 files checked).",
        ]

    def test_json(self, project: Path) -> None:
        result = run("check", "--statistics", "--format", "json", ".")
        (row,) = json.loads(result.stdout)
        assert row["count"] == 1 and row["rule"] == "SCL-34" and row["check"] == "unbounded-retries"


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("tree_sitter_ruby") is None,
    reason="Ruby needs the ruby extra (pip install 'jobcheck[ruby]')",
)
def test_ruby_and_sidekiq_yaml_findings_in_every_ci_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator
) -> None:
    """Findings in Ruby files and in config/sidekiq.yml go through the CI formats like
    Python's: valid SARIF with regions, one GitHub annotation each, GitLab issues and
    JUnit failures naming the file."""
    write(
        tmp_path,
        {
            "app/workers/hook_worker.rb": (
                "class HookWorker\n  include Sidekiq::Job\n\n  def perform(id)\n"
                '    Faraday.post("https://example.com/hook", id.to_s)\n  end\nend\n'
            ),
            "config/sidekiq.yml": ":queues:\n  - default\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    document = _sarif(".", "--select", "SCL-18,SCL-19")
    _assert_valid(sarif_validator, document)
    located = {
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in document["runs"][0]["results"]
    }
    assert located == {
        ("SCL-18", "app/workers/hook_worker.rb", 5),
        ("SCL-19", "config/sidekiq.yml", 2),
    }
    github = run("check", ".", "--select", "SCL-18,SCL-19", "--format", "github").stdout
    assert "file=app/workers/hook_worker.rb,line=5" in github
    assert "file=config/sidekiq.yml,line=2" in github
    gitlab = json.loads(run("check", ".", "--select", "SCL-18", "--format", "gitlab").stdout)
    assert [issue["location"]["path"] for issue in gitlab] == ["app/workers/hook_worker.rb"]
    junit = ET.fromstring(run("check", ".", "--select", "SCL-18", "--format", "junit").stdout)
    assert "app/workers/hook_worker.rb" in ET.tostring(junit, encoding="unicode")
