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

    def __init__(self, root: Path) -> None:
        self.root = root
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jobcheck", "lsp"],
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


def test_a_module_of_5000_tasks_is_checked_within_seconds(fresh_server: RawServer) -> None:
    text = many_tasks(LARGE_MODULE_TASKS)
    started = time.perf_counter()
    uri = fresh_server.open("tasks.py", text)
    published = fresh_server.diagnostics(uri, version=1, timeout=30)
    opened = time.perf_counter() - started
    assert len(published["diagnostics"]) >= LARGE_MODULE_TASKS

    last = text.count("\n") - 1  # the last task's "    return x"
    edit = {
        "range": {"start": {"line": last, "character": 11}, "end": {"line": last, "character": 12}},
        "text": "y",
    }
    started = time.perf_counter()
    fresh_server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]},
    )
    fresh_server.diagnostics(uri, version=2, timeout=30)
    changed = time.perf_counter() - started
    print(
        f"\n{LARGE_MODULE_TASKS} tasks: open {opened:.2f} s, one-character change {changed:.2f} s"
    )
    assert opened < 5.0
    assert changed < 5.0


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
    sent = time.perf_counter()
    fresh_server.notify("exit")
    assert fresh_server.exit_status(timeout=5) == 0, fresh_server.log()
    assert time.perf_counter() - sent < 1.0


def test_exit_without_shutdown_ends_with_1_at_once_even_mid_run(fresh_server: RawServer) -> None:
    _start_a_long_run(fresh_server)
    sent = time.perf_counter()
    fresh_server.notify("exit")
    assert fresh_server.exit_status(timeout=5) == 1, fresh_server.log()
    assert time.perf_counter() - sent < 1.0


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
