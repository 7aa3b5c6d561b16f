"""The server's side of the JSON-RPC conversation over stdin and stdout, hardened
against broken or hostile clients.

pygls 2 reads stdin with ``pygls.io_.run_async``, which parses each body with
``json.loads(body, object_hook=protocol.structure_message)``: a message whose params do
not fit the method's types raises inside the hook, is logged, and is dropped, so a
request with bad params never gets its response. Framing errors leave that reader deaf
for good (see :mod:`jobcheck.lsp.framing`). This module replaces only the reading loop
and the step from a body to a message:

- every request gets a response: one whose params do not validate gets a JSON-RPC
  error (-32602 InvalidParams) with its id; one that arrives after ``shutdown`` gets
  -32600 InvalidRequest, as the LSP asks;
- a notification whose params do not validate, and a body that is not JSON, are logged
  (stderr) and ignored;
- ``exit`` ends the reading loop with the LSP's exit code (0 after ``shutdown``, else 1)
  instead of raising ``SystemExit`` from inside a handler.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, BinaryIO

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    RPCRequest,
)

from jobcheck.lsp.framing import FramingError, MessageReader

log = logging.getLogger(__name__)

READ_CHUNK_BYTES = 64 * 1024
_QUEUED_CHUNKS = 16
"""Chunks read ahead of the event loop (a client that floods stdin waits)."""


class JobcheckProtocol(LanguageServerProtocol):
    exit_code: int | None = None
    """Set by ``exit``: the status the process must end with."""

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> None:
        self.exit_code = 0 if self._shutdown else 1

    def handle_body(self, body: bytes) -> None:
        """One framed message from the client."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as error:
            log.warning("jobcheck lsp: ignored a message that is not JSON: %s", error)
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            self._refuse(data, JsonRpcInvalidRequest.CODE, "not a JSON-RPC 2.0 message")
            return
        try:
            message = self._structure(data)
        except Exception as error:
            self._refuse(data, JsonRpcInvalidParams.CODE, _reason(error))
            return
        self.handle_message(message)

    def _structure(self, data: dict[str, Any]) -> Any:
        """pygls's ``structure_message`` without its handling of errors (it logs a
        traceback for each malformed message; :meth:`_refuse` logs one line)."""
        if "id" not in data:
            kind = self.get_message_type(data.get("method", "")) or JsonRPCNotification
        elif "method" in data:
            kind = self.get_message_type(data["method"]) or JsonRPCRequestMessage
        elif "error" in data:
            kind = types.ResponseErrorMessage
        else:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        return self._converter.structure(data, kind)

    def handle_message(self, message: Any) -> None:
        if self._shutdown and isinstance(message, RPCRequest) and message.method != types.EXIT:
            self._send_error(message.id, JsonRpcInvalidRequest.CODE, "the server is shutting down")
            return
        super().handle_message(message)

    def _refuse(self, data: Any, code: int, reason: str) -> None:
        """Answer (or log) a message that could not be turned into a request,
        notification or response."""
        fields = data if isinstance(data, dict) else {}
        msg_id, method = fields.get("id"), fields.get("method")
        if _is_id(msg_id) and isinstance(method, str):
            self._send_error(msg_id, code, f"{method}: {reason}")
        elif _is_id(msg_id) and "method" not in fields:
            log.warning("jobcheck lsp: the client's response %r is malformed: %s", msg_id, reason)
            future = self._request_futures.pop(msg_id, None)  # its awaiter must not hang
            if future is not None and not future.done():
                future.set_exception(JsonRpcInvalidParams(f"malformed response: {reason}"))
        else:
            what = f"notification {method!r}" if isinstance(method, str) else "message"
            log.warning("jobcheck lsp: ignored a %s: %s", what, reason)

    def _send_error(self, msg_id: int | str, code: int, message: str) -> None:
        self._send_response(msg_id, error=types.ResponseError(code=code, message=message))


def _is_id(value: Any) -> bool:
    """Whether ``value`` can be a request id (JSON-RPC: a string or an integer)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _reason(error: BaseException) -> str:
    """A short account of why params did not validate."""
    if isinstance(error, cattrs.BaseValidationError):
        problems = cattrs.transform_error(error)
        return "invalid params: " + "; ".join(problems[:3])
    return f"invalid params: {type(error).__name__}: {error}"[:300]


async def serve_streams(protocol: JobcheckProtocol, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Read messages from ``stdin`` until ``exit`` or the end of input; the exit code."""
    protocol.set_writer(StdoutWriter(stdout))
    chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=_QUEUED_CHUNKS)
    reading = threading.Thread(
        target=_read_chunks,
        args=(stdin, asyncio.get_running_loop(), chunks),
        name="jobcheck-stdin",
        daemon=True,  # blocked in a read when the server exits
    )
    reading.start()
    reader = MessageReader()
    while protocol.exit_code is None:
        chunk = await chunks.get()
        if not chunk:
            log.warning("jobcheck lsp: the client closed stdin without 'exit'")
            return 0 if protocol._shutdown else 1
        try:
            events = reader.feed(chunk)
        except Exception as error:  # a bug in the reader must not end the conversation
            log.error(
                "jobcheck lsp: failed to read the client's input (%s: %s); "
                "reading on from the next Content-Length header",
                type(error).__name__,
                error,
            )
            reader = MessageReader(lost=True)
            continue
        for event in events:
            if isinstance(event, FramingError):
                log.warning(
                    "jobcheck lsp: skipped input that was no LSP message (%s); "
                    "reading on from the next Content-Length header",
                    event.reason,
                )
                continue
            try:
                protocol.handle_body(event)
            except (BrokenPipeError, ConnectionError):
                log.warning("jobcheck lsp: the client closed stdout; exiting")
                return 1
            except Exception:  # a bug must not stop the server answering
                log.exception("jobcheck lsp: failed to handle a message")
            if protocol.exit_code is not None:
                break
    return protocol.exit_code


def _read_chunks(
    stdin: BinaryIO, loop: asyncio.AbstractEventLoop, chunks: asyncio.Queue[bytes]
) -> None:
    """Blocking reads of stdin, handed to the event loop (an empty chunk: end of input)."""
    read = getattr(stdin, "read1", stdin.read)
    while True:
        try:
            chunk = read(READ_CHUNK_BYTES)
        except (OSError, ValueError):
            chunk = b""
        try:
            asyncio.run_coroutine_threadsafe(chunks.put(chunk), loop).result()
        except RuntimeError:  # the loop is gone
            return
        if not chunk:
            return
