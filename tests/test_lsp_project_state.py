"""The language server's project state gives what ``jobcheck check`` gives, and follows
unsaved buffers (in process, without the LSP transport)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.lsp.actions import lines_that_cannot_end_with_a_comment
from jobcheck.lsp.project_state import ProjectState, find_root, path_key
from tests.conftest import case_id, fixture_cases

SHOP = Path(__file__).parent.parent / "examples" / "shop"


def _keys(findings, root: Path) -> set[tuple]:
    return {(os.path.relpath(f.path, root), f.loc, f.rule, f.check, f.message) for f in findings}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = Path(path_key(tmp_path / "shop"))
    shutil.copytree(SHOP, root)
    return root


def test_the_project_state_finds_what_the_cli_finds(shop: Path) -> None:
    state = ProjectState(shop, jobs=1)
    state.load()
    run = state.check(thorough=True)
    assert not run.errors
    mine = _keys([f for found in run.findings.values() for f in found], shop)
    selection = Selection.resolve(load_catalog(), ["ALL"], [])
    report = check_paths([str(shop)], Options(root=str(shop)), selection, RunSettings(jobs=1))
    assert mine == _keys(report.findings, shop)
    assert len(mine) >= 10


def test_unsaved_settings_change_the_findings_of_other_files(shop: Path) -> None:
    state = ProjectState(shop, jobs=1)
    state.load()
    tasks = str(shop / "orders" / "tasks.py")
    settings = str(shop / "shop" / "settings.py")
    before = {f.check for f in state.check().findings[tasks]}
    assert "missing-time-limit" in before
    text = (shop / "shop" / "settings.py").read_text()
    assert state.set_buffer(settings, text + "CELERY_TASK_TIME_LIMIT = 300\n") is None
    after = {f.check for f in state.check().findings[tasks]}
    assert "missing-time-limit" not in after
    state.close_buffer(settings)  # back to the file on disk
    assert "missing-time-limit" in {f.check for f in state.check().findings[tasks]}


def test_a_buffer_that_does_not_parse_keeps_its_last_good_facts(shop: Path) -> None:
    state = ProjectState(shop, jobs=1)
    state.load()
    tasks = str(shop / "orders" / "tasks.py")
    text = (shop / "orders" / "tasks.py").read_text()
    state.set_buffer(tasks, text)
    good = state.facts[tasks]
    error = state.set_buffer(tasks, text.replace("def send_receipt(", "def send_receipt((", 1))
    assert error is not None and error.startswith("syntax error at line")
    assert state.facts[tasks] is good
    assert state.set_buffer(tasks, text) is None


def test_fixes_are_made_when_asked_from_the_project_as_it_was(shop: Path) -> None:
    """The server publishes findings without fixes; a code action has them made from the
    snapshot the run took, the same fixes ``jobcheck check --show-fixes`` gives, once."""
    from jobcheck.lsp.lazy_fixes import DocumentFixes

    state = ProjectState(shop, jobs=1)
    state.load()
    tasks = str(shop / "orders" / "tasks.py")
    findings = state.check().findings[tasks]
    fixes = DocumentFixes(state.fixer())
    assert fixes.known(findings) is None  # nothing made at publication
    # Later edits do not change the fixes of what was published.
    text = (shop / "orders" / "tasks.py").read_text()
    state.set_buffer(tasks, "\n\n" + text)
    fixed = fixes.fixed(findings)
    assert fixes.known(findings) == fixed
    assert all(a is b for a, b in zip(fixes.fixed(findings), fixed, strict=True))
    selection = Selection.resolve(load_catalog(), ["ALL"], [])
    settings = RunSettings(jobs=1, fixes=True)
    report = check_paths([str(shop)], Options(root=str(shop)), selection, settings)
    expected = {(f.loc, f.check, f.fix) for f in report.findings if f.path == tasks}
    assert {(f.loc, f.check, f.fix) for f in fixed} == expected
    assert sum(f.fix is not None for f in fixed) >= 2


def test_a_bad_configuration_falls_back_to_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.jobcheck]\nselect = ["NOPE-1"]\n')
    state = ProjectState(Path(path_key(tmp_path)))
    assert state.config_error is not None and "NOPE-1" in state.config_error
    assert state.selection == Selection.resolve(load_catalog(), ["ALL"], [])


def test_the_root_is_the_folder_of_the_jobcheck_configuration(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    service = tmp_path / "services" / "billing"
    (service / "billing").mkdir(parents=True)
    (service / "pyproject.toml").write_text("[tool.jobcheck]\n")
    assert find_root(service / "billing" / "tasks.py") == service
    (tmp_path / "other").mkdir()
    assert find_root(tmp_path / "other" / "jobs.py") == tmp_path


def test_excluded_files_are_not_part_of_the_project(shop: Path) -> None:
    state = ProjectState(shop, jobs=1)
    state.load()
    assert state.contains(str(shop / "orders" / "tasks.py"))
    assert state.contains(str(shop / "orders" / "new_module.py"))
    assert not state.contains(str(shop / ".venv" / "lib" / "celery" / "app.py"))
    assert not state.contains(str(shop.parent / "elsewhere.py"))
    assert not state.contains(str(shop / "orders" / "tests" / "test_tasks.py"))
    assert not state.contains(str(shop / "conftest.py"))


CASES = fixture_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(p) for p in CASES])
def test_fixture_cases_through_open_and_edited_buffers(case: Path, tmp_path: Path) -> None:
    """Every fixture case, with all its files open in the editor and then edited (a
    comment typed at the top of each): the findings are the expected ones, as with
    ``jobcheck check``, through incremental parsing and replayed statements."""
    from tests.conftest import Expected, expectations

    root = Path(path_key(tmp_path / case.name))
    shutil.copytree(case, root)
    state = ProjectState(root, jobs=1)
    state.load()
    files = sorted(p for p in root.rglob("*.py"))
    for file in files:
        assert state.set_buffer(str(file), file.read_text(encoding="utf-8")) is None
    state.check(thorough=True)
    for file in files:
        text = file.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        # Type a comment at the end of a line in the middle: nothing moves, and every
        # statement but the edited one is replayed.
        unsafe = lines_that_cannot_end_with_a_comment(text, lines)
        safe = [i for i in range(len(lines) // 2, len(lines)) if i not in unsafe]
        if not safe:
            continue
        lines[safe[0]] = lines[safe[0]].rstrip("\n") + "  # typed\n"
        assert state.set_buffer(str(file), "".join(lines)) is None
    run = state.check(thorough=True)
    found = {
        Expected(os.path.relpath(g.path, root), g.loc.line, g.rule, g.check)
        for findings in run.findings.values()
        for f in findings
        for g in (f, *f.grouped)
    }
    assert found == expectations(case)


def test_manifest_and_crontab_buffers_are_checked_as_typed(tmp_path: Path) -> None:
    """YAML manifests and crontab files are documents too: their unsaved text is read by
    its kind's reader, and a change in the editor changes the findings."""
    root = Path(path_key(tmp_path))
    manifest = root / "deploy" / "cronjob.yaml"
    manifest.parent.mkdir()
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\n", encoding="utf-8")
    crontab = root / "crontab"
    crontab.write_text("17 3 * * * flock -n /tmp/l timeout 5m /app/bin/backup\n", encoding="utf-8")
    state = ProjectState(root, jobs=1)
    state.load()

    def found() -> set[tuple[str, int, str]]:
        run = state.check(thorough=True)
        return {
            (Path(f.path).name, f.loc.line, f.check)
            for findings in run.findings.values()
            for f in findings
        }

    assert found() == set()
    typed = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n"
        '  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n'
        "        spec:\n          containers:\n            - name: n\n"
        '              image: shop\n              command: ["/app/bin/report"]\n'
    )
    assert state.set_buffer(str(manifest), typed) is None
    assert ("cronjob.yaml", 6, "schedule-on-the-hour") in found()
    assert state.set_buffer(str(crontab), "0 * * * * /app/bin/backup\n") is None
    now = found()
    assert ("crontab", 1, "schedule-on-the-hour") in now
    assert ("crontab", 1, "scheduled-job-without-lock") in now
