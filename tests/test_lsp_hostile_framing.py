"""The language server against hostile message headers (issue 25): the real server as a
subprocess, spoken to in raw bytes.

A ``Content-Length`` of 5,000 digits used to kill the server (Python refuses to turn
more than 4,300 digits into an int, the reader raised, and the process aborted on the
stdin lock held by its reading thread). Every malformed or oversized header is a
framing error now: the server logs one line, skips to the next ``Content-Length`` line
and answers the next valid request. Where the input ends before the stream can be
resynchronised, the server ends with a log line, never a traceback or a hang.
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from tests.test_lsp_hostile import RawServer, _body, _hover, _project, frame

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # jobcheck.lsp.framing.MAX_MESSAGE_BYTES
EXIT_TIMEOUT = 20.0


def _length(value: bytes) -> bytes:
    return b"Content-Length: " + value + b"\r\n\r\n"


HOSTILE_HEADERS: dict[str, Callable[[bytes], bytes]] = {
    "length-of-5000-digits": lambda body: b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n" + body,
    "length-of-5000-digits-lf-only": lambda body: (
        b"Content-Length: " + b"7" * 5000 + b"\n\n" + body
    ),
    "small-length-in-5000-digits": lambda body: (
        b"Content-Length: " + b"0" * 4998 + b"10\r\n\r\n" + body
    ),
    "length-of-100000-digits": lambda body: (
        b"Content-Length: " + b"9" * 100_000 + b"\r\n\r\n" + body
    ),
    "negative-length": lambda body: b"Content-Length: -5\r\n\r\n" + body,
    "plus-signed-length": lambda body: b"Content-Length: +%d\r\n\r\n" % len(body) + body,
    "fractional-length": lambda body: b"Content-Length: %d.0\r\n\r\n" % len(body) + body,
    "hexadecimal-length": lambda body: b"Content-Length: 0x%x\r\n\r\n" % len(body) + body,
    "arabic-indic-digits": lambda body: "Content-Length: ١٢\r\n\r\n".encode() + body,
    "length-just-over-the-limit": lambda body: (
        b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1) + body
    ),
    "header-line-of-100-kib": lambda body: b"X-Junk: " + b"a" * 100_000 + b"\r\n\r\n" + body,
    "header-block-of-many-lines": lambda body: b"X-Junk: a\r\n" * 2000 + b"\r\n" + body,
    "nul-bytes-in-the-header": lambda body: b"Content-\x00Length: 5\r\n\r\n" + body,
    "missing-header-end": lambda body: b"Content-Length: %d\r\n" % len(body) + body,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    server = RawServer(_project(tmp_path_factory.mktemp("framing")))
    server.initialize()
    yield server
    server.stop()


_ids = iter(range(1000, 100_000))


def _assert_no_crash(server: RawServer) -> None:
    log = server.log()
    assert server.process.poll() is None, log[-2000:]
    assert "Traceback" not in log, log[-2000:]
    assert "internal error" not in log, log[-2000:]


@pytest.mark.parametrize("hostile", HOSTILE_HEADERS.values(), ids=HOSTILE_HEADERS.keys())
def test_a_hostile_header_is_refused_and_the_next_request_answered(
    server: RawServer, hostile: Callable[[bytes], bytes]
) -> None:
    server.send(hostile(_body(_hover(next(_ids)))))
    msg_id = next(_ids)
    server.send(frame(_hover(msg_id)))
    assert server.response(msg_id)["result"] is None
    _assert_no_crash(server)


def test_a_5000_digit_length_is_logged_as_a_framing_error(server: RawServer) -> None:
    server.send(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}")
    msg_id = next(_ids)
    server.send(frame(_hover(msg_id)))
    server.response(msg_id)
    assert "skipped input that was no LSP message" in server.log()
    assert "more than" in server.log()
    _assert_no_crash(server)


def test_a_body_larger_than_the_limit_is_skipped_without_being_held(
    tmp_path: Path,
) -> None:
    server = RawServer(_project(tmp_path / "project"))
    try:
        server.initialize()
        before = server.memory_mib()
        declared = MAX_MESSAGE_BYTES + 1
        server.send(b"Content-Length: %d\r\n\r\n" % declared)
        piece = b" " * (1024 * 1024)
        for _ in range(declared // len(piece)):
            server.send(piece)
        server.send(b" " * (declared % len(piece)))
        msg_id = next(_ids)
        server.send(frame(_hover(msg_id)))
        assert server.response(msg_id, timeout=60)["result"] is None
        after = server.memory_mib()
        if before is not None and after is not None:
            assert after - before < 50, f"{after - before:.0f} MiB more"
        _assert_no_crash(server)
    finally:
        server.stop()


# -- input that ends before the stream is found again ------------------------------------

ENDINGS: dict[str, bytes] = {
    "length-of-5000-digits": b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n",
    "header-without-its-end": b"Content-Length: 20\r\n",
    "body-cut-short": b'Content-Length: 100\r\n\r\n{"jsonrpc": "2.0"',
    "header-line-without-its-end": b"Content-Length: 12345",
    "endless-junk": b"x" * 200_000,
}


@pytest.mark.parametrize("ending", ENDINGS.values(), ids=ENDINGS.keys())
def test_input_ending_mid_message_ends_the_server_with_a_log_line(
    tmp_path: Path, ending: bytes
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "jobcheck", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=_project(tmp_path / "project"),
    )
    try:
        _, stderr = process.communicate(ending, timeout=EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the server hung after its input ended")
    log = stderr.decode(errors="replace")
    assert process.returncode == 1, log[-2000:]  # ended without shutdown, not killed
    assert "closed stdin" in log
    assert "Traceback" not in log and "Fatal Python error" not in log, log[-2000:]


# -- the reader and the reading loop, in process ------------------------------------------


@pytest.mark.parametrize("hostile", HOSTILE_HEADERS.values(), ids=HOSTILE_HEADERS.keys())
def test_the_reader_refuses_a_hostile_header_and_reads_on(
    hostile: Callable[[bytes], bytes],
) -> None:
    from jobcheck.lsp.framing import FramingError, MessageReader

    good = frame({"id": 1})
    stream = hostile(b'{"id": 0}') + good
    for chunk_size in (1, 7, 4096, len(stream)):
        reader = MessageReader()
        events = [
            event
            for start in range(0, len(stream), chunk_size)
            for event in reader.feed(stream[start : start + chunk_size])
        ]
        bodies = [event for event in events if not isinstance(event, FramingError)]
        assert bodies[-1:] == [b'{"id": 1}'], (chunk_size, events)
        assert any(isinstance(event, FramingError) for event in events)


def test_the_reader_never_converts_an_overlong_number() -> None:
    from jobcheck.lsp.framing import FramingError, MessageReader

    # 5,000 digits is past Python's int-from-string limit (4,300): int() would raise.
    [event] = MessageReader().feed(b"Content-Length: " + b"1" * 5000 + b"\r\n\r\n")
    assert isinstance(event, FramingError)
    assert "more than" in event.reason


class _Chunks(io.RawIOBase):
    """A stdin that hands out the given chunks one read at a time."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = list(chunks)

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        return self._chunks.pop(0) if self._chunks else b""


def test_a_bug_in_the_reader_does_not_stop_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from jobcheck.lsp import framing
    from jobcheck.lsp.server import make_server

    real_feed = framing.MessageReader.feed
    calls = 0

    def feed_that_fails_once(self: framing.MessageReader, data: bytes) -> list[framing.Event]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("simulated bug in the reader")
        return real_feed(self, data)

    monkeypatch.setattr(framing.MessageReader, "feed", feed_that_fails_once)
    from jobcheck.lsp.protocol import serve_streams

    ls = make_server()
    stdout = io.BytesIO()
    stdin = _Chunks([frame(_hover(1)), frame(_hover(2))])
    code = asyncio.run(serve_streams(ls.protocol, stdin, stdout))  # type: ignore[arg-type]
    assert code == 1  # the input ended without shutdown
    assert b'"id": 2' in stdout.getvalue()


def test_an_error_escaping_the_reading_loop_ends_the_process_cleanly(tmp_path: Path) -> None:
    # As in the real loop, a thread is blocked reading stdin when the error escapes:
    # the interpreter's shutdown then aborted on that thread's lock of sys.stdin.
    script = (
        "import sys, threading, time\n"
        "import jobcheck.lsp.server as server\n"
        "async def broken(*args):\n"
        "    threading.Thread(target=sys.stdin.buffer.read, daemon=True).start()\n"
        "    time.sleep(0.2)\n"
        "    raise RuntimeError('simulated bug in the reading loop')\n"
        "server.serve_streams = broken\n"
        "server.serve()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        code = process.wait(timeout=EXIT_TIMEOUT)
    finally:
        process.kill()
        assert process.stdin is not None and process.stderr is not None
        process.stdin.close()
        log = process.stderr.read().decode(errors="replace")
    assert code == 1, log
    assert "simulated bug in the reading loop" in log
    assert "Traceback" not in log and "Fatal Python error" not in log, log
