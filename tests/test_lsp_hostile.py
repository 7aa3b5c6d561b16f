"""The language server against broken and hostile clients: the real server as a
subprocess, spoken to in raw bytes.

- Framing errors (wrong, missing or huge Content-Length, LF-only line ends) are skipped
  and later well-formed messages answered (docs/editors.md, "Robustness").
- Every request gets a response; one whose params do not validate gets an error
  response with its id; a notification with bad params is logged, not shown.
- A 5,000-task module is checked within a few seconds of opening and of a change (the
  tight figures are in benchmarks/lsp_latency.py); a document over the size limit is not
  parsed, and says so in one diagnostic.
- ``exit`` ends the process at once: 0 after ``shutdown``, 1 without, even mid-run.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

TIMEOUT = 15.0
LARGE_MODULE_TASKS = 5000
MAX_DOCUMENT_BYTES = 1024 * 1024  # jobcheck.lsp.MAX_DOCUMENT_BYTES


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def many_tasks(count: int) -> str:
    tasks = "".join(f"\n@shared_task\ndef t_{i}(x):\n    return x\n" for i in range(count))
    return "from celery import shared_task\n" + tasks


class RawServer:
    """``jobcheck lsp`` in a subprocess; what it writes is collected by a thread."""

    def __init__(self, root: Path, command: list[str] | None = None) -> None:
        self.root = root
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "jobcheck", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=root,
        )
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.stderr = bytearray()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.received.put(json.loads(stream.read(length)))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def request(self, msg_id: int, method: str, params: Any = None) -> None:
        self.send(frame(request(msg_id, method, params)))

    def notify(self, method: str, params: Any = None) -> None:
        self.send(frame(notification(method, params)))

    def wait_for(
        self, accept: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        for message in self.seen:
            if accept(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.received.get(timeout=left)
            except queue.Empty:
                break
            if accept(message):
                return message
            self.seen.append(message)
        raise AssertionError(f"no such message within {timeout} s; stderr: {self.log()[-2000:]}")

    def response(self, msg_id: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def diagnostics(self, uri: str, version: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        def published(message: dict[str, Any]) -> bool:
            params = message.get("params") or {}
            return (
                message.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and params.get("version") == version
            )

        return self.wait_for(published, timeout)["params"]

    def initialize(self) -> None:
        self.request(
            0,
            "initialize",
            {
                "processId": None,
                "rootUri": self.root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"debounce": 0.01},
            },
        )
        self.response(0, timeout=30)
        self.notify("initialized", {})

    def open(self, name: str, text: str) -> str:
        uri = (self.root / name).as_uri()
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def exit_status(self, timeout: float) -> int | None:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def memory_mib(self) -> float | None:
        """The server's resident memory (Linux only)."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return None
        rss = [line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")]
        return int(rss[0]) / 1024 if rss else None

    def log(self) -> str:
        return self.stderr.decode(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.jobcheck]\n")
    return root


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer(_project(tmp_path / "project"))
    server.initialize()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One server for the cheap cases (starting Python with pygls costs a second)."""
    server = RawServer(_project(tmp_path_factory.mktemp("hostile")))
    server.initialize()
    yield server
    server.stop()


_ids = iter(range(100, 100_000))


def _hover(msg_id: int) -> dict[str, Any]:
    """A request any server state can answer (no such document: a null result)."""
    params = {
        "textDocument": {"uri": "file:///nowhere.py"},
        "position": {"line": 0, "character": 0},
    }
    return request(msg_id, "textDocument/hover", params)


def _body(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


FRAMING_ERRORS: dict[str, Callable[[bytes], bytes]] = {
    "content-length-too-short": lambda body: b"Content-Length: 10\r\n\r\n" + body,
    "content-length-too-long": lambda body: (
        b"Content-Length: %d\r\n\r\n" % (len(body) + 500) + body
    ),
    "content-length-not-a-number": lambda body: b"Content-Length: abc\r\n\r\n" + body,
    "content-length-missing": lambda body: b"Content-Type: application/json\r\n\r\n" + body,
    "no-blank-line": lambda body: b"Content-Length: %d\r\n" % len(body) + body,
    "garbage": lambda body: b"\x00\xffhello\n\n" + body,
    "content-length-huge": lambda body: b"Content-Length: 1000000000000\r\n\r\n" + body,
}


# -- 1 and 2: framing -------------------------------------------------------------------


@pytest.mark.parametrize("broken", FRAMING_ERRORS.values(), ids=FRAMING_ERRORS.keys())
def test_after_a_framing_error_later_messages_are_answered(
    server: RawServer, broken: Callable[[bytes], bytes]
) -> None:
    server.send(broken(_body(_hover(next(_ids)))))
    msg_id = next(_ids)
    server.send(frame(_hover(msg_id)))
    assert server.response(msg_id)["result"] is None
    assert server.process.poll() is None


def test_lf_only_line_ends_are_understood(server: RawServer) -> None:
    msg_id = next(_ids)
    body = _body(_hover(msg_id))
    server.send(b"Content-Length: %d\n\n" % len(body) + body)
    assert server.response(msg_id)["result"] is None
    after = next(_ids)
    server.send(frame(_hover(after)))
    assert server.response(after)["result"] is None


def test_a_huge_declared_length_is_not_allocated(server: RawServer) -> None:
    before = server.memory_mib()
    server.send(b"Content-Length: 1000000000000\r\n\r\n{}")
    msg_id = next(_ids)
    server.send(frame(_hover(msg_id)))
    server.response(msg_id)
    after = server.memory_mib()
    if before is not None and after is not None:
        assert after - before < 50


# -- 3: every request gets a response -------------------------------------------------

BAD_PARAMS = {
    "hover-text-document-5": ("textDocument/hover", {"textDocument": 5, "position": None}),
    "hover-null-params": ("textDocument/hover", None),
    "code-action-without-range": (
        "textDocument/codeAction",
        {"textDocument": {"uri": "file:///nowhere.py"}, "context": {"diagnostics": []}},
    ),
    "hover-params-a-list": ("textDocument/hover", [1, 2, 3]),
}


@pytest.mark.parametrize("method, params", BAD_PARAMS.values(), ids=BAD_PARAMS.keys())
def test_a_request_with_bad_params_gets_an_error_response(
    server: RawServer, method: str, params: Any
) -> None:
    msg_id = next(_ids)
    server.request(msg_id, method, params)
    response = server.response(msg_id)
    assert response["error"]["code"] in (-32602, -32603)
    assert method in response["error"]["message"]


def test_a_notification_with_bad_params_is_logged_not_shown(server: RawServer) -> None:
    server.notify("textDocument/didOpen", {"textDocument": 5})
    server.notify("textDocument/didChange", None)
    msg_id = next(_ids)
    server.request(msg_id, "textDocument/hover", None)
    server.response(msg_id)
    # pygls showed "Error in server: Invalid Params" in a pop-up for each.
    shown = [m for m in server.seen if m.get("method") == "window/showMessage"]
    assert not shown
    assert "textDocument/didOpen" in server.log()


# -- 4 and 5: large documents -----------------------------------------------------------


def test_a_module_of_5000_tasks_is_checked_and_rechecked(fresh_server: RawServer) -> None:
    """Every task's diagnostic arrives, and a one-character change is checked again. How
    long each takes is measured by ``benchmarks/lsp_latency.py --tasks 5000``, not here
    (a loaded CI machine is no clock); the time-outs only catch a hang."""
    text = many_tasks(LARGE_MODULE_TASKS)
    uri = fresh_server.open("tasks.py", text)
    published = fresh_server.diagnostics(uri, version=1, timeout=120)
    assert len(published["diagnostics"]) >= LARGE_MODULE_TASKS

    last = text.count("\n") - 1  # the last task's "    return x"
    edit = {
        "range": {"start": {"line": last, "character": 11}, "end": {"line": last, "character": 12}},
        "text": "y",
    }
    fresh_server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]},
    )
    changed = fresh_server.diagnostics(uri, version=2, timeout=120)
    assert len(changed["diagnostics"]) >= LARGE_MODULE_TASKS


def test_a_document_over_the_size_limit_is_not_parsed(fresh_server: RawServer) -> None:
    text = "x = 1\n" * (2 * MAX_DOCUMENT_BYTES // 6)
    uri = fresh_server.open("huge.py", text)
    published = fresh_server.diagnostics(uri, version=1, timeout=10)
    [diagnostic] = published["diagnostics"]
    assert "larger than" in diagnostic["message"]
    memory = fresh_server.memory_mib()
    if memory is not None:
        assert memory < 400, f"{memory:.0f} MiB"
    fresh_server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    cleared = fresh_server.wait_for(
        lambda m: (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and not m["params"]["diagnostics"]
        )
    )
    assert cleared


# -- 6: exit ----------------------------------------------------------------------------


def _start_a_long_run(server: RawServer) -> None:
    server.open("tasks.py", many_tasks(LARGE_MODULE_TASKS))
    time.sleep(0.5)  # the lint thread is parsing and walking


def test_shutdown_then_exit_ends_with_0_at_once_even_mid_run(fresh_server: RawServer) -> None:
    _start_a_long_run(fresh_server)
    fresh_server.request(1, "shutdown")
    assert fresh_server.response(1)["result"] is None
    fresh_server.send(frame(_hover(2)))
    assert fresh_server.response(2)["error"]["code"] == -32600  # InvalidRequest
    fresh_server.notify("exit")
    assert fresh_server.exit_status(timeout=5) == 0, fresh_server.log()


def test_exit_without_shutdown_ends_with_1_at_once_even_mid_run(fresh_server: RawServer) -> None:
    _start_a_long_run(fresh_server)
    fresh_server.notify("exit")
    assert fresh_server.exit_status(timeout=5) == 1, fresh_server.log()


# -- the reader itself --------------------------------------------------------------------


def test_the_reader_resynchronises_byte_by_byte() -> None:
    from jobcheck.lsp.framing import FramingError, MessageReader

    good = frame({"id": 1})
    stream = b"".join(broken(b'{"id": 0}') + good for broken in FRAMING_ERRORS.values())
    reader = MessageReader()
    events = [
        event for byte in range(len(stream)) for event in reader.feed(stream[byte : byte + 1])
    ]
    bodies = [event for event in events if not isinstance(event, FramingError)]
    assert bodies.count(b'{"id": 1}') == len(FRAMING_ERRORS)


# -- a scratch file outside any project (issue 25) ---------------------------------------

SCRATCH_JOB = """from celery import shared_task


@shared_task
def scratch(x):
    return x
"""


def _neighbours(folder: Path, count: int) -> None:
    """Files beside a scratch file that a walk of its folder would read (each a job)."""
    for index in range(count):
        (folder / f"neighbour_{index}.py").write_text(SCRATCH_JOB.replace("scratch", f"n{index}"))


def _bare_server(cwd: Path) -> RawServer:
    """A server whose client names no workspace folder (an editor started on one file)."""
    server = RawServer(cwd)
    server.request(
        0,
        "initialize",
        {
            "processId": None,
            "rootUri": None,
            "capabilities": {},
            "initializationOptions": {"debounce": 0.01},
        },
    )
    server.response(0, timeout=30)
    server.notify("initialized", {})
    return server


def _analysed(server: RawServer) -> str:
    message = server.wait_for(
        lambda m: (
            m.get("method") == "window/logMessage"
            and "analysed" in m.get("params", {}).get("message", "")
        )
    )
    return str(message["params"]["message"])


def _open_file(server: RawServer, path: Path, text: str) -> str:
    uri = path.as_uri()
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": document})
    return uri


SCRATCH_PLACES = {
    # No marker anywhere above: /tmp/x.py.
    "a-folder-without-markers": ("scratch", ()),
    # The home folder keeps its dotfiles in git: a marker, but no project.
    "a-home-folder-with-git": ("home/notes", ("home/.git",)),
    "a-home-folder-with-pyproject": ("home", ("home/pyproject.toml",)),
}


@pytest.mark.parametrize("place, markers", SCRATCH_PLACES.values(), ids=SCRATCH_PLACES.keys())
def test_a_scratch_file_outside_any_project_is_analysed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str, markers: tuple[str, ...]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    for marker in markers:
        if marker.endswith(".git"):
            (tmp_path / marker).mkdir()
        else:
            (tmp_path / marker).write_text("[project]\nname = 'dotfiles'\n")
    folder = tmp_path / place
    folder.mkdir(parents=True, exist_ok=True)
    _neighbours(folder, 20)
    scratch = folder / "x.py"
    scratch.write_text(SCRATCH_JOB)
    server = _bare_server(tmp_path)
    try:
        uri = _open_file(server, scratch, SCRATCH_JOB)
        published = server.diagnostics(uri, version=1)
        assert "SCL-18 missing-time-limit" in {d["code"] for d in published["diagnostics"]}
        analysed = _analysed(server)
        assert ": 1 files" in analysed, analysed
        assert str(folder) not in analysed.replace(str(scratch), ""), analysed
    finally:
        server.stop()


def test_a_scratch_file_in_a_workspace_that_is_the_home_folder_is_analysed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    _neighbours(home, 20)
    (home / "x.py").write_text(SCRATCH_JOB)
    server = RawServer(home)
    try:
        server.initialize()  # rootUri: the home folder
        uri = _open_file(server, home / "x.py", SCRATCH_JOB)
        published = server.diagnostics(uri, version=1)
        assert "SCL-18 missing-time-limit" in {d["code"] for d in published["diagnostics"]}
        analysed = _analysed(server)
        assert ": 1 files" in analysed, analysed
    finally:
        server.stop()


def test_a_file_in_a_project_is_still_analysed_with_its_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    _neighbours(project, 3)
    (project / "x.py").write_text(SCRATCH_JOB)
    server = _bare_server(tmp_path)
    try:
        uri = _open_file(server, project / "x.py", SCRATCH_JOB)
        server.diagnostics(uri, version=1)
        assert ": 4 files" in _analysed(server)  # its 3 neighbours and itself
    finally:
        server.stop()


def test_an_untitled_buffer_walks_no_folder(tmp_path: Path) -> None:
    _neighbours(tmp_path, 5)
    server = _bare_server(tmp_path)  # the server's working folder holds jobs
    try:
        document = {"uri": "untitled:Untitled-1", "languageId": "python", "version": 1}
        server.notify("textDocument/didOpen", {"textDocument": {**document, "text": SCRATCH_JOB}})
        msg_id = next(_ids)
        server.send(frame(_hover(msg_id)))
        server.response(msg_id)
        server.notify("textDocument/didClose", {"textDocument": {"uri": "untitled:Untitled-1"}})
        msg_id = next(_ids)
        server.send(frame(_hover(msg_id)))
        server.response(msg_id)
        assert not [m for m in server.seen if "analysed" in str(m.get("params"))]
    finally:
        server.stop()


# -- one file or one check that raises (issue 25) ----------------------------------------

HUGE_NUMBERS = f"""from celery import Celery, shared_task

app = Celery("numbers")


@shared_task(time_limit=0x{"f" * 300})
def huge_limit(x):
    return x


@shared_task
def plain(x):
    return x


app.conf.beat_schedule = {{"plain": {{"task": "numbers.plain", "schedule": 1e999}}}}
"""


def _codes_by_line(published: dict[str, Any]) -> set[tuple[int, str]]:
    return {(d["range"]["start"]["line"], d["code"]) for d in published["diagnostics"]}


def _log_messages(server: RawServer) -> list[str]:
    return [
        str(m["params"]["message"]) for m in server.seen if m.get("method") == "window/logMessage"
    ]


def test_huge_numeric_literals_skip_no_check_in_the_server(fresh_server: RawServer) -> None:
    """A 300-digit hex time limit and a schedule of 1e999 in one file used to make SCL-18
    and SCL-19 fail, each skipped for the whole project: the other file's finding went
    with them. (This needs the analysis to read such numbers: jobcheck/syntax/evaluate.py.)"""
    (fresh_server.root / "numbers.py").write_text(HUGE_NUMBERS)
    (fresh_server.root / "other.py").write_text(SCRATCH_JOB)
    numbers = fresh_server.open("numbers.py", HUGE_NUMBERS)
    other = fresh_server.open("other.py", SCRATCH_JOB)
    published_other = fresh_server.diagnostics(other, version=1)
    published_numbers = fresh_server.diagnostics(numbers, version=1)
    msg_id = next(_ids)
    fresh_server.send(frame(_hover(msg_id)))
    fresh_server.response(msg_id)
    failures = [m for m in _log_messages(fresh_server) if "failed" in m]
    assert not failures, failures
    assert (3, "SCL-18 missing-time-limit") in _codes_by_line(published_other)
    # The finding is on the decorator, the line above the definition (0-based lines).
    plain_line = HUGE_NUMBERS.splitlines().index("def plain(x):") - 1
    assert (plain_line, "SCL-18 missing-time-limit") in _codes_by_line(published_numbers)


def _patched_server(root: Path, patch: str) -> RawServer:
    """``jobcheck lsp`` with ``patch`` (Python source) run first: a simulated bug."""
    script = f"import sys\n{patch}\nfrom jobcheck.lsp.server import serve\nserve()\n"
    server = RawServer(root, [sys.executable, "-c", script])
    server.initialize()
    return server


def _open_together(server: RawServer, files: dict[str, str]) -> list[str]:
    """didOpen of each file in one write: the server reads them in one run."""
    uris, frames = [], b""
    for name, text in files.items():
        uri = (server.root / name).as_uri()
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        frames += frame(notification("textDocument/didOpen", {"textDocument": document}))
        uris.append(uri)
    server.send(frames)
    return uris


RAISING_EXTRACTION = """
import jobcheck.lsp.project_state as state
real = state.extract_buffer
def extract_buffer(buffer, path, *args):
    if path.endswith("poison.py"):
        raise RuntimeError("simulated bug in extraction")
    return real(buffer, path, *args)
state.extract_buffer = extract_buffer
"""


def test_a_buffer_whose_extraction_raises_leaves_the_others_published(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    server = _patched_server(root, RAISING_EXTRACTION)
    try:
        _, tasks = _open_together(server, {"poison.py": SCRATCH_JOB, "tasks.py": SCRATCH_JOB})
        published = server.diagnostics(tasks, version=1)
        assert "SCL-18 missing-time-limit" in {d["code"] for d in published["diagnostics"]}
        logged = server.wait_for(
            lambda m: "simulated bug in extraction" in str(m.get("params", {}).get("message"))
        )
        assert "poison.py" in logged["params"]["message"]
    finally:
        server.stop()


RAISING_MODEL = """
import jobcheck.lsp.project_state as state
real = state.check_facts
def check_facts(facts, *args, **kwargs):
    if any(f.path.endswith("poison.py") for f in facts):
        raise RuntimeError("simulated bug in the project model")
    return real(facts, *args, **kwargs)
state.check_facts = check_facts
"""


def test_a_project_whose_model_raises_leaves_the_other_projects_published(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    _project(workspace / "a")
    _project(workspace / "b")
    server = _patched_server(workspace, RAISING_MODEL)
    try:
        _, tasks = _open_together(server, {"a/poison.py": SCRATCH_JOB, "b/tasks.py": SCRATCH_JOB})
        published = server.diagnostics(tasks, version=1)
        assert "SCL-18 missing-time-limit" in {d["code"] for d in published["diagnostics"]}
        logged = server.wait_for(
            lambda m: (
                "simulated bug in the project model" in str(m.get("params", {}).get("message"))
            )
        )
        assert str(workspace / "a") in logged["params"]["message"]
    finally:
        server.stop()


RAISING_CHECK = """
from jobcheck.checks.scl18_missing_time_limit import MissingTimeLimit
name = MissingTimeLimit.implemented()["missing-time-limit"]
original = getattr(MissingTimeLimit, name)
def raising(self):
    if any(f.path.endswith("poison.py") for f in self.project.files):
        raise RuntimeError("simulated bug on one file")
    yield from original(self)
raising.check_slug = "missing-time-limit"
setattr(MissingTimeLimit, name, raising)
"""


def test_a_check_that_raises_on_one_file_still_reports_the_others(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    server = _patched_server(root, RAISING_CHECK)
    try:
        poison, tasks = _open_together(server, {"poison.py": SCRATCH_JOB, "tasks.py": SCRATCH_JOB})
        published = server.diagnostics(tasks, version=1)
        assert "SCL-18 missing-time-limit" in {d["code"] for d in published["diagnostics"]}
        assert "SCL-18 missing-time-limit" not in {
            d["code"] for d in server.diagnostics(poison, version=1)["diagnostics"]
        }
        logged = server.wait_for(
            lambda m: "simulated bug on one file" in str(m.get("params", {}).get("message"))
        )
        assert "poison.py" in logged["params"]["message"]
        assert "tasks.py" not in logged["params"]["message"]
    finally:
        server.stop()
