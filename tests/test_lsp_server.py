"""End to end: the language server over stdio, driven by pytest-lsp with the client
capabilities of Neovim and VS Code."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

HERE = Path(__file__).parent
TIMEOUT = 30.0

TASKS = """from celery import shared_task

from shop.models import Order


@shared_task
def send_receipt(order_id):
    order = Order.objects.get(pk=order_id)
    return order.total


def pay(pk):
    order = Order.objects.get(pk=pk)
    send_receipt.delay("\U0001f600", order)
"""

SETTINGS = """CELERY_BROKER_URL = "redis://localhost:6379/0"
"""


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture
def project(workspace: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh project per test inside the shared workspace: the server finds its root
    by its [tool.jobcheck] table, so tests sharing one server do not see each other."""
    root = workspace / f"{request.node.name.replace('[', '-').replace(']', '')}"
    (root / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.jobcheck]\n')
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "models.py").write_text(
        "from django.db import models\n\n\nclass Order(models.Model):\n    total = 1\n"
    )
    (root / "shop" / "tasks.py").write_text(TASKS)
    (root / "shop" / "settings.py").write_text(SETTINGS)
    return root


def _server(*extra: str) -> list[str]:
    return [sys.executable, "-m", "jobcheck", "lsp", *extra]


# One server per client profile for the whole module: starting Python with pygls and
# lsprotocol costs seconds.
@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=_server()),
    params=["neovim", "visual-studio-code"],
    scope="module",
)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    registrations: list[types.Registration] = []
    lsp_client.registrations = registrations  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="workspace")],
        initialization_options={"debounce": 0.01},
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.position_encoding = result.capabilities.position_encoding  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _until(
    client: LanguageClient,
    uri: str,
    accept: Callable[[Sequence[types.Diagnostic]], bool],
) -> Sequence[types.Diagnostic]:
    """Wait until the diagnostics published for ``uri`` satisfy ``accept``."""

    async def poll() -> Sequence[types.Diagnostic]:
        while True:
            found = client.diagnostics.get(uri)
            if found is not None and accept(found):
                return found
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(poll(), TIMEOUT)


def _open(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )
    return uri


def _replace_all(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _codes(diagnostics: Sequence[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


def _apply(client: LanguageClient, text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply single-line edits (columns in the negotiated encoding) to ``text``."""
    encoding = client.position_encoding or "utf-16"  # type: ignore[attr-defined]
    lines = text.splitlines(keepends=True)
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        line = lines[edit.range.start.line]
        start = _index(line, edit.range.start.character, encoding)
        end = _index(line, edit.range.end.character, encoding)
        lines[edit.range.start.line] = line[:start] + edit.new_text + line[end:]
    return "".join(lines)


def _index(line: str, units: int, encoding: str) -> int:
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += (
            len(char.encode(encoding.replace("-", "_") + ("-le" if encoding != "utf-8" else "")))
            // ({"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding])
        )
    return len(line)


async def test_open_publishes_findings_with_codes_links_and_utf16_ranges(
    client: LanguageClient, project: Path
) -> None:
    uri = _open(client, project / "shop" / "tasks.py")
    found = await _until(client, uri, lambda d: len(d) >= 2)
    by_code = {str(d.code): d for d in found}
    assert set(by_code) == {"SCL-18 missing-time-limit", "SCL-21 fat-payload"}
    limit = by_code["SCL-18 missing-time-limit"]
    assert limit.source == "jobcheck"
    assert limit.severity == types.DiagnosticSeverity.Warning
    assert limit.code_description is not None
    assert limit.code_description.href.endswith("/job-time-limits")
    assert limit.range.start == types.Position(line=5, character=1)
    payload = by_code["SCL-21 fat-payload"]
    # '    send_receipt.delay("😀", order)': the emoji is one code point, two UTF-16 code
    # units, four UTF-8 bytes; the client and the server agreed on one of these.
    column = TASKS.splitlines()[13].index("order")
    extra = {"utf-8": 3, "utf-16": 1, "utf-32": 0}[client.position_encoding or "utf-16"]  # type: ignore[attr-defined]
    assert payload.range.start == types.Position(line=13, character=column + extra)
    assert payload.range.end == types.Position(line=13, character=column + extra + 5)
    assert "order" in payload.message


async def test_changes_update_diagnostics_from_the_unsaved_buffer(
    client: LanguageClient, project: Path
) -> None:
    path = project / "shop" / "tasks.py"
    uri = _open(client, path)
    await _until(client, uri, lambda d: "SCL-18 missing-time-limit" in _codes(d))
    fixed = TASKS.replace("@shared_task\n", "@shared_task(time_limit=60, soft_time_limit=50)\n")
    _replace_all(client, uri, 2, fixed)
    found = await _until(client, uri, lambda d: "SCL-18 missing-time-limit" not in _codes(d))
    assert _codes(found) == {"SCL-21 fat-payload"}
    assert path.read_text() == TASKS  # nothing was saved: the buffer is what counts
    # An incremental change: type a new violation (a second, limitless task).
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=10, character=0),
                        end=types.Position(line=10, character=0),
                    ),
                    text="@shared_task\ndef other(order_id):\n    return order_id\n\n\n",
                )
            ],
        )
    )
    found = await _until(client, uri, lambda d: "SCL-18 missing-time-limit" in _codes(d))
    limit = next(d for d in found if str(d.code) == "SCL-18 missing-time-limit")
    assert limit.range.start.line == 10


async def test_editing_settings_refreshes_the_tasks_module(
    client: LanguageClient, project: Path
) -> None:
    tasks = _open(client, project / "shop" / "tasks.py")
    settings = _open(client, project / "shop" / "settings.py")
    await _until(client, tasks, lambda d: "SCL-18 missing-time-limit" in _codes(d))
    _replace_all(client, settings, 2, SETTINGS + "CELERY_TASK_TIME_LIMIT = 300\n")
    found = await _until(client, tasks, lambda d: "SCL-18 missing-time-limit" not in _codes(d))
    assert _codes(found) == {"SCL-21 fat-payload"}
    _replace_all(client, settings, 3, SETTINGS)
    await _until(client, tasks, lambda d: "SCL-18 missing-time-limit" in _codes(d))


async def test_suppression_code_action_silences_the_finding(
    client: LanguageClient, project: Path
) -> None:
    uri = _open(client, project / "shop" / "tasks.py")
    found = await _until(client, uri, lambda d: "SCL-21 fat-payload" in _codes(d))
    payload = next(d for d in found if str(d.code) == "SCL-21 fat-payload")
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=payload.range,
            context=types.CodeActionContext(diagnostics=[payload]),
        )
    )
    assert result is not None
    # lsprotocol's client side reads any action that has a "command" as a bare Command
    # (editors follow the spec and see a CodeAction), so match on titles.
    titles = [a.title for a in result]
    assert "Suppress SCL-21 on this line (# jobcheck: ignore[SCL-21])" in titles
    assert "Open the documentation of SCL-21 fat-payload" in titles
    suppress = next(
        a for a in result if isinstance(a, types.CodeAction) and a.title.startswith("Suppress")
    )
    assert suppress.edit is not None and suppress.edit.changes is not None
    new_text = _apply(client, TASKS, suppress.edit.changes[uri])
    assert '    send_receipt.delay("\U0001f600", order)  # jobcheck: ignore[SCL-21]\n' in new_text
    _replace_all(client, uri, 2, new_text)
    found = await _until(client, uri, lambda d: "SCL-21 fat-payload" not in _codes(d))
    assert _codes(found) == {"SCL-18 missing-time-limit"}

    docs = next(a for a in result if a.title.startswith("Open the documentation"))
    assert "jobcheck.openDocumentation" in str(docs.command)
    url = "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/ids-in-jobs"
    assert url in str(docs.command)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="jobcheck.openDocumentation", arguments=[url])
    )
    if (
        client.capabilities
        and client.capabilities.window
        and client.capabilities.window.show_document
    ):
        assert client.shown_documents[-1].uri.endswith("/ids-in-jobs")
        assert client.shown_documents[-1].external is True


async def test_suppression_extends_an_existing_comment(
    client: LanguageClient, project: Path
) -> None:
    text = TASKS.replace(
        'send_receipt.delay("\U0001f600", order)',
        'send_receipt.delay("\U0001f600", order)  # jobcheck: ignore[JOB-01]',
    )
    uri = _open(client, project / "shop" / "tasks.py", text)
    found = await _until(client, uri, lambda d: "SCL-21 fat-payload" in _codes(d))
    payload = next(d for d in found if str(d.code) == "SCL-21 fat-payload")
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=payload.range,
            context=types.CodeActionContext(diagnostics=[payload]),
        )
    )
    suppress = next(a for a in result or [] if isinstance(a, types.CodeAction) and a.edit)
    new_text = _apply(client, text, suppress.edit.changes[uri])  # type: ignore[union-attr,index]
    assert "order)  # jobcheck: ignore[JOB-01, SCL-21]\n" in new_text


async def test_quick_fixes_when_the_editor_asks_for_quickfix_only(
    client: LanguageClient, project: Path
) -> None:
    """VS Code and Neovim send ``context.only = ["quickfix"]``; lsprotocol hands the
    kinds to the server as plain strings (the server failed with -32603 on them)."""
    uri = _open(client, project / "shop" / "tasks.py")
    found = await _until(client, uri, lambda d: "SCL-21 fat-payload" in _codes(d))
    payload = next(d for d in found if str(d.code) == "SCL-21 fat-payload")
    for only in (["quickfix"], [types.CodeActionKind.QuickFix]):
        result = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=payload.range,
                context=types.CodeActionContext(diagnostics=[payload], only=only),
            )
        )
        assert result is not None
        titles = [a.title for a in result]
        assert "Suppress SCL-21 on this line (# jobcheck: ignore[SCL-21])" in titles
        assert all(getattr(a, "kind", "quickfix") == "quickfix" for a in result)
    nothing = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=payload.range,
            context=types.CodeActionContext(diagnostics=[payload], only=["refactor"]),
        )
    )
    assert nothing is None


SCHEDULE = """from celery.schedules import crontab

CELERY_BEAT_SCHEDULE = {
    "nightly": {"task": "shop.tasks.send_receipt", "schedule": crontab(hour=3)},
}
"""


async def test_fixes_as_quick_fixes_and_fix_all(client: LanguageClient, project: Path) -> None:
    path = project / "shop" / "schedule.py"
    path.write_text(SCHEDULE)
    uri = _open(client, path)
    found = await _until(client, uri, lambda d: "SCL-22 crontab-missing-minute" in _codes(d))
    minute = next(d for d in found if str(d.code) == "SCL-22 crontab-missing-minute")
    quick = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=minute.range,
            context=types.CodeActionContext(diagnostics=[minute]),
        )
    )
    fix = next(a for a in quick or [] if a.title.startswith("Add minute="))
    assert isinstance(fix, types.CodeAction) and fix.is_preferred is True
    assert fix.edit is not None and fix.edit.changes is not None
    assert "crontab(hour=3, minute=" in _apply(client, SCHEDULE, fix.edit.changes[uri])
    # Asked for source actions only (as editors do on save), the one fix-all action.
    for only in (["source.fixAll"], ["source"]):
        result = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        [every] = result or []
        assert every.kind == "source.fixAll.jobcheck"
    assert every.edit is not None and every.edit.changes is not None
    fixed = _apply(client, SCHEDULE, every.edit.changes[uri])
    assert "crontab(hour=3, minute=" in fixed
    _replace_all(client, uri, 2, fixed)
    await _until(client, uri, lambda d: "SCL-22 crontab-missing-minute" not in _codes(d))


async def test_hover_explains_the_rule(client: LanguageClient, project: Path) -> None:
    uri = _open(client, project / "shop" / "tasks.py")
    found = await _until(client, uri, lambda d: "SCL-21 fat-payload" in _codes(d))
    payload = next(d for d in found if str(d.code) == "SCL-21 fat-payload")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=payload.range.start
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "Put record IDs in jobs instead of copies" in text
    assert "The worker reads the current" in text  # the rule's summary
    assert (
        "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/ids-in-jobs" in text
    )
    nothing = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert nothing is None


async def test_a_syntax_error_mid_edit_keeps_the_server_and_the_last_diagnostics(
    client: LanguageClient, project: Path
) -> None:
    uri = _open(client, project / "shop" / "tasks.py")
    before = await _until(client, uri, lambda d: len(d) == 2)
    broken = TASKS.replace("def pay(pk):", "def pay(pk:")
    _replace_all(client, uri, 2, broken)
    await asyncio.sleep(0.5)
    assert list(client.diagnostics[uri]) == list(before)
    # The server still answers.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=before[0].range.start
        )
    )
    assert hover is not None
    fixed = TASKS.replace("@shared_task\n", "@shared_task(time_limit=60, soft_time_limit=50)\n")
    _replace_all(client, uri, 3, fixed)
    found = await _until(client, uri, lambda d: len(d) == 1)
    assert _codes(found) == {"SCL-21 fat-payload"}


async def test_close_clears_diagnostics(client: LanguageClient, project: Path) -> None:
    uri = _open(client, project / "shop" / "tasks.py")
    await _until(client, uri, lambda d: len(d) == 2)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await _until(client, uri, lambda d: len(d) == 0)


async def test_shutdown_and_exit_end_the_process_cleanly(project: Path) -> None:
    from pytest_lsp import make_test_lsp_client

    lsp = make_test_lsp_client()
    await lsp.start_io(*_server())
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"), root_uri=project.as_uri()
        )
    )
    await lsp.shutdown_session()
    assert lsp._server is not None
    assert lsp._server.returncode == 0
    await lsp.stop()


async def _patched_server(project: Path, mode: str) -> LanguageClient:
    """A started server whose checks ``lsp_server_with_patched_check.py`` patched."""
    from pytest_lsp import make_test_lsp_client

    lsp = make_test_lsp_client()
    await lsp.start_io(sys.executable, str(HERE / "lsp_server_with_patched_check.py"), mode)
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"), root_uri=project.as_uri()
        )
    )
    return lsp


async def test_a_check_that_raises_is_logged_and_skipped(project: Path) -> None:
    lsp = await _patched_server(project, "broken")
    uri = _open(lsp, project / "shop" / "tasks.py")
    found = await _until(lsp, uri, lambda d: len(d) >= 1)
    assert _codes(found) == {"SCL-21 fat-payload"}  # the other checks still ran
    assert any("missing-time-limit failed and was skipped" in m.message for m in lsp.log_messages)
    await lsp.shutdown_session()
    await lsp.stop()


async def test_a_checks_autofix_is_offered_as_a_quick_fix(project: Path) -> None:
    lsp = await _patched_server(project, "fix")
    uri = _open(lsp, project / "shop" / "tasks.py")
    found = await _until(lsp, uri, lambda d: "SCL-18 missing-time-limit" in _codes(d))
    limit = next(d for d in found if str(d.code) == "SCL-18 missing-time-limit")
    result = await lsp.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=limit.range,
            context=types.CodeActionContext(diagnostics=[limit]),
        )
    )
    fix = next(a for a in result or [] if a.title == "Add a time limit")
    assert isinstance(fix, types.CodeAction)
    assert fix.is_preferred is True
    assert fix.edit is not None and fix.edit.changes is not None
    lsp.position_encoding = "utf-16"  # type: ignore[attr-defined]
    fixed = _apply(lsp, TASKS, fix.edit.changes[uri])
    assert "@shared_task(time_limit=60, soft_time_limit=50)\n" in fixed
    _replace_all(lsp, uri, 2, fixed)
    await _until(lsp, uri, lambda d: "SCL-18 missing-time-limit" not in _codes(d))
    await lsp.shutdown_session()
    await lsp.stop()


@pytest.mark.filterwarnings("ignore::pytest.PytestWarning")
def test_cli_says_how_to_install_pygls_when_it_is_missing(tmp_path: Path) -> None:
    import subprocess

    blocker = tmp_path / "pygls"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('no pygls', name='pygls')\n")
    result = subprocess.run(
        [sys.executable, "-m", "jobcheck", "lsp"],
        env={"PYTHONPATH": f"{tmp_path}:{HERE.parent}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "pip install 'jobcheck[lsp]'" in result.stderr
    assert "Traceback" not in result.stderr


async def test_a_crontab_buffer_gets_diagnostics(client: LanguageClient, project: Path) -> None:
    """Manifests and crontab files are served like Python files (the pre-commit hook and
    the CLI read them too): their diagnostics follow the unsaved text."""
    path = project / "crontab"
    path.write_text("17 3 * * * flock -n /tmp/l timeout 5m /app/bin/backup\n")
    uri = _open(client, path)
    await _until(client, uri, lambda d: not d)
    _replace_all(client, uri, 2, "0 * * * * /app/bin/backup\n")
    found = await _until(client, uri, lambda d: "SCL-22 schedule-on-the-hour" in _codes(d))
    assert "SCL-38 scheduled-job-without-lock" in _codes(found)


@pytest.mark.skipif(
    importlib.util.find_spec("tree_sitter_ruby") is None,
    reason="Ruby needs the ruby extra (pip install 'jobcheck[ruby]')",
)
async def test_a_ruby_buffer_gets_diagnostics_in_sidekiq_terms(
    client: LanguageClient, project: Path
) -> None:
    """A Sidekiq job is served like a Python job: its diagnostics follow the unsaved text,
    worded in Ruby's terms."""
    path = project / "app" / "workers" / "hook_worker.rb"
    path.parent.mkdir(parents=True)
    guarded = (
        "class HookWorker\n  include Sidekiq::Job\n\n  def perform(id)\n"
        '    Faraday.new(request: { timeout: 5 }).post("https://example.com/hook")\n'
        "  end\nend\n"
    )
    path.write_text(guarded)
    uri = _open(client, path)
    await _until(client, uri, lambda d: "SCL-18 http-call-without-timeout" not in _codes(d))
    _replace_all(client, uri, 2, guarded.replace("Faraday.new(request: { timeout: 5 })", "Faraday"))
    found = await _until(client, uri, lambda d: "SCL-18 http-call-without-timeout" in _codes(d))
    diagnostic = next(d for d in found if str(d.code) == "SCL-18 http-call-without-timeout")
    assert "Sidekiq has no job time limit" in diagnostic.message
    # Quick fixes on a Ruby line: a suppression comment (Ruby's comments start with #
    # too), no Python fix, no error.
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(
                diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    suppress = next(
        a for a in result or [] if isinstance(a, types.CodeAction) and a.title.startswith("Sup")
    )
    unguarded = guarded.replace("Faraday.new(request: { timeout: 5 })", "Faraday")
    new_text = _apply(client, unguarded, suppress.edit.changes[uri])  # type: ignore[union-attr,index]
    assert '/hook")  # jobcheck: ignore[SCL-18]\n' in new_text
    _replace_all(client, uri, 3, new_text)
    await _until(client, uri, lambda d: "SCL-18 http-call-without-timeout" not in _codes(d))


# vscode-languageclient (TransportKind.stdio) and coc.nvim start the server with the
# command the user configured plus "--stdio": the server must accept it.
@pytest_lsp.fixture(config=ClientServerConfig(server_command=_server("--stdio")))
async def stdio_client(lsp_client: LanguageClient, workspace: Path):
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="workspace")],
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.server_name = result.server_info.name if result.server_info else ""  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_the_server_starts_as_vscode_languageclient_starts_it(
    stdio_client: LanguageClient,
) -> None:
    assert stdio_client.server_name == "jobcheck"  # type: ignore[attr-defined]


# Rules selected in the editor's settings (initializationOptions, then
# workspace/didChangeConfiguration), on top of the project's configuration.
@pytest_lsp.fixture(config=ClientServerConfig(server_command=_server()), scope="module")
async def configured_client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="workspace")],
        initialization_options={"debounce": 0.01, "ignore": ["SCL-18"]},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def test_the_editors_settings_select_rules(
    configured_client: LanguageClient, project: Path
) -> None:
    uri = _open(configured_client, project / "shop" / "tasks.py")
    found = await _until(configured_client, uri, lambda d: len(d) > 0)
    assert not [d for d in found if str(d.code).startswith("SCL-18")]
    configured_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"jobcheck": {"select": ["SCL-18"]}})
    )
    found = await _until(
        configured_client, uri, lambda d: any(str(x.code).startswith("SCL-18") for x in d)
    )
    assert all(str(d.code).startswith("SCL-18") for d in found)


async def test_an_untitled_python_buffer_gets_diagnostics(client: LanguageClient) -> None:
    """A new buffer not saved yet (``untitled:``) is analysed alone, from its text."""
    uri = "untitled:Untitled-1"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=1,
                text="from celery import shared_task\n\n\n@shared_task\ndef work():\n    pass\n",
            )
        )
    )
    found = await _until(client, uri, lambda d: "SCL-18 missing-time-limit" in _codes(d))
    assert found
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
