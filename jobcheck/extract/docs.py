"""Documents as facts for EVT-24: whether a Markdown/reST file is a written procedure
for dead letters (it names them, and says how to inspect and how to replay them).

No parsing: a few word patterns over the text. Like code facts, a :class:`DocFile` is
plain data and never holds the document itself.
"""

from __future__ import annotations

import re

from jobcheck.facts import DocFile

# Documents larger than this are read only up to it (a runbook is short).
MAX_DOC_BYTES = 1_000_000

DEAD_LETTER = re.compile(
    r"dead[\s_-]*letter|\bDLQs?\b|\bDLX\b|\bxq\b|failed[\s_-]*jobs?[\s_-]*registry"
    r"|FailedJobRegistry|\bfailed\s+(?:jobs?|messages?|tasks?)\b",
    re.IGNORECASE,
)
INSPECT = re.compile(
    r"\b(?:inspect|list|look\s+at|view|read|show|browse|examine|check|query|dashboard"
    r"|flower|rq\s+info|rqinfo|monitor|count)",
    re.IGNORECASE,
)
REPLAY = re.compile(
    r"\b(?:replay|re-?queue|re-?enqueue|re-?run|re-?submit|re-?drive|retry|re-?send"
    r"|re-?process|re-?publish|shovel|move\s+(?:them|it|the\s+\w+|messages?)\s+back)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.:/-]*[a-z0-9]|[a-z0-9]")
# How near (in lines) the inspect and replay steps must be to what they are about: a
# procedure keeps them together; a changelog or a long guide mentions each somewhere.
NEARBY_LINES = 30


def doc_facts(path: str, data: bytes) -> DocFile:
    """What a document says about dead letters, counting only lines with an inspect
    step and a replay step within NEARBY_LINES of them."""
    lines = data[:MAX_DOC_BYTES].decode("utf-8", "replace").splitlines()
    near = _near_both(lines)
    dead_letter = False
    words: set[str] = set()
    for line, ok in zip(lines, near):
        if not ok:
            continue
        dead_letter = dead_letter or DEAD_LETTER.search(line) is not None
        lowered = line.lower()
        words.update(_WORD.findall(lowered))
        words.update(re.findall(r"[a-z0-9_]+", lowered))
    return DocFile(
        path=path,
        dead_letter=dead_letter,
        inspect=any(INSPECT.search(line) for line in lines),
        replay=any(REPLAY.search(line) for line in lines),
        words=frozenset(words),
    )


def _near_both(lines: list[str]) -> list[bool]:
    """For each line, whether an inspect step and a replay step both lie within
    NEARBY_LINES of it."""
    inspect = _prefix([INSPECT.search(line) is not None for line in lines])
    replay = _prefix([REPLAY.search(line) is not None for line in lines])
    result = []
    for index in range(len(lines)):
        low = max(0, index - NEARBY_LINES)
        high = min(len(lines), index + NEARBY_LINES + 1)
        result.append(inspect[high] > inspect[low] and replay[high] > replay[low])
    return result


def _prefix(flags: list[bool]) -> list[int]:
    sums = [0]
    for flag in flags:
        sums.append(sums[-1] + int(flag))
    return sums
