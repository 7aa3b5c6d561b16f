"""Splitting the client's byte stream into LSP messages, and finding the way back after
broken framing.

A message is a header block (``Content-Length: N``, optionally other headers such as
``Content-Type``, each line ended by CRLF, the block ended by an empty line) followed by
N bytes of JSON. pygls's own reader stops understanding the stream after one wrong
length, a missing header or LF-only line ends, and allocates whatever length a header
declares. This reader:

- accepts LF as well as CRLF line ends, header names in any case, other headers, and
  blank lines between messages;
- refuses a declared length above :data:`MAX_MESSAGE_BYTES` (never allocating it), one
  that is not plain ASCII digits (a sign, a fraction, other scripts' digits) or has
  more than 20 of them (never converting it), and a header block longer than
  :data:`MAX_HEADER_BYTES`;
- after any framing error, scans forward for the next ``Content-Length: N`` line and
  resumes there, keeping only a few bytes while it scans. This is reliable because that
  line cannot occur inside a valid JSON body: JSON allows no raw line break inside a
  string, and outside strings it has no such words. For the same reason a body that
  turns out to contain one (its length was declared too long, so it ran into the next
  message) is cut there, and the next message is read from that line.

A body whose JSON is broken is still a message: the protocol answers or logs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest body accepted; a larger declared length is a framing error."""

MAX_HEADER_BYTES = 8 * 1024
"""The longest header block accepted (clients send about 60 bytes)."""

_MAX_LENGTH_DIGITS = 20
"""The longest Content-Length numeral read (leading zeros included); a longer one is
refused unread."""

# Where a message can start again: a Content-Length line. It ends in a line break,
# which no valid JSON body holds.
_RESYNC = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n", re.IGNORECASE)
_LONGEST_PARTIAL_RESYNC = 64
"""Bytes kept while scanning: enough for a Content-Length line cut by a read."""


def _prefix_pattern(pieces: list[bytes]) -> re.Pattern[bytes]:
    """A pattern matching every non-empty prefix of the sequence ``pieces`` matches."""
    nested = pieces[0] + b"".join(b"(?:" + piece for piece in pieces[1:])
    return re.compile(nested + b")?" * (len(pieces) - 1), re.IGNORECASE)


# The start of a Content-Length line cut short by the end of the input so far.
_HEADER_START = _prefix_pattern(
    [bytes([c]) for c in b"content-length"]
    + [rb"[ \t]*", b":", rb"[ \t]*", rb"[0-9]+", rb"[ \t]*", rb"\r"]
)
_BLOCK_END = re.compile(rb"\n\r?\n")
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*")


@dataclass(frozen=True)
class FramingError:
    """Bytes that were not a well-formed message were skipped."""

    reason: str


Event = bytes | FramingError
"""What :meth:`MessageReader.feed` returns: message bodies and framing errors."""


class MessageReader:
    """Bytes in, message bodies (and framing errors) out; memory stays below about
    :data:`MAX_MESSAGE_BYTES` plus one read."""

    def __init__(self, lost: bool = False) -> None:
        """``lost``: the input so far is unknown ground (a reader that failed before this
        one read part of it): look for the next Content-Length line first."""
        self._buffer = bytearray()
        self._length: int | None = None
        """The declared length of the body being read; None while reading headers."""
        self._scanned = 0
        """How far the body being read was searched for a Content-Length line."""
        self._lost = lost
        """Whether the buffer's start is unknown ground (scanning for a header)."""

    def feed(self, data: bytes) -> list[Event]:
        self._buffer += data
        events: list[Event] = []
        while True:
            event = self._next()
            if event is None:
                return events
            events.append(event)

    def _next(self) -> Event | None:
        if self._lost and not self._resync(0):
            return None
        if self._length is None:
            return self._header()
        return self._body()

    # -- headers --------------------------------------------------------------------

    def _header(self) -> Event | None:
        buffer = self._buffer
        start = _skip_blank_lines(buffer)
        if start:
            del buffer[:start]
        if not buffer:
            return None
        end = _BLOCK_END.search(buffer, 0, MAX_HEADER_BYTES + 2)
        if end is None:
            if len(buffer) > MAX_HEADER_BYTES:
                return self._lose("a header block longer than 8 KiB")
            return None
        length, problem = _content_length(bytes(buffer[: end.start()]))
        if problem is not None:
            return self._lose(problem)
        assert length is not None
        del buffer[: end.end()]
        self._length = length
        self._scanned = 0
        return self._body()

    # -- bodies ---------------------------------------------------------------------

    def _body(self) -> Event | None:
        assert self._length is not None
        buffer, length = self._buffer, self._length
        start = max(self._scanned - _LONGEST_PARTIAL_RESYNC, 0)
        found = _RESYNC.search(buffer, start, length + _LONGEST_PARTIAL_RESYNC)
        if found is not None and found.start() < length:
            # The declared length ran into the next message.
            del buffer[: found.start()]
            self._length = None
            return FramingError(
                f"a body shorter than its Content-Length ({length}): a header inside it"
            )
        self._scanned = min(len(buffer), length)
        if len(buffer) < length or self._may_run_into_a_header(length):
            return None
        with memoryview(buffer) as view:
            body = bytes(view[:length])
        del buffer[:length]
        self._length = None
        return body

    def _may_run_into_a_header(self, length: int) -> bool:
        """Whether the body's last bytes may begin a Content-Length line that the next
        read completes (the declared length was a little too long). A valid JSON body
        never ends so: waiting for more input costs it nothing."""
        buffer = self._buffer
        for start in range(max(length - _LONGEST_PARTIAL_RESYNC, 0), length):
            if buffer[start] in b"cC" and _HEADER_START.fullmatch(buffer, start):
                return True
        return False

    # -- finding the next message ---------------------------------------------------

    def _lose(self, reason: str) -> FramingError:
        """Skip the header block at the buffer's start and look for the next one."""
        self._lost = True
        self._resync(1)
        return FramingError(reason)

    def _resync(self, start: int) -> bool:
        buffer = self._buffer
        found = _RESYNC.search(buffer, start)
        if found is None:
            keep = max(start, len(buffer) - _LONGEST_PARTIAL_RESYNC)
            del buffer[:keep]
            return False
        del buffer[: found.start()]
        self._lost = False
        return True


def _skip_blank_lines(buffer: bytearray) -> int:
    index = 0
    while index < len(buffer) and buffer[index] in b"\r\n":
        index += 1
    return index


def _content_length(block: bytes) -> tuple[int | None, str | None]:
    """The declared body length of a header block, or why the block is no header."""
    length: int | None = None
    for line in block.split(b"\n"):
        line = line.removesuffix(b"\r")
        header = _HEADER.fullmatch(line)
        if header is None:
            return None, f"not a header line: {_shown(line)}"
        name, value = header.groups()
        if name.lower() != b"content-length":
            continue
        declared, problem = _declared_length(value)
        if problem is not None:
            return None, problem
        if length is not None and declared != length:
            return None, "two different Content-Length headers"
        length = declared
    if length is None:
        return None, "a header block without Content-Length"
    return length, None


def _declared_length(value: bytes) -> tuple[int | None, str | None]:
    """A Content-Length value as a number of bytes, or why it is refused. Its digits are
    counted before they are converted: Python refuses to read an int of more than 4,300
    digits (raising), and anything longer than the limit's own numeral is too large."""
    if not value.isdigit():  # ASCII digits only, for bytes
        return None, f"a Content-Length that is not a number: {_shown(value)}"
    if len(value) > _MAX_LENGTH_DIGITS:
        return None, f"a Content-Length of more than {_MAX_LENGTH_DIGITS} digits"
    length = int(value)
    if length > MAX_MESSAGE_BYTES:
        return None, f"a Content-Length of {length} bytes (at most {MAX_MESSAGE_BYTES})"
    return length, None


def _shown(data: bytes) -> str:
    text = data[:40].decode("ascii", "backslashreplace")
    return f"'{text}{'...' if len(data) > 40 else ''}'"
