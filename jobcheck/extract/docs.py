"""Documents as facts for EVT-24: whether a Markdown/reST file is a written procedure
for dead letters (it names them, and says how to inspect and how to replay them).

No parsing: a few word patterns over the text. Like code facts, a :class:`DocFile` is
plain data and never holds the document itself.
"""

from __future__ import annotations

import bisect
import re

from jobcheck.facts import DocFile
from jobcheck.vocabulary.runbooks import (
    FAILED_ITEMS_TOKEN,
    RQ_FAILED_TOKEN,
    SIDEKIQ_DEAD_SET_TOKEN,
)

# Documents larger than this are read only up to it (a runbook is short).
MAX_DOC_BYTES = 1_000_000

# Names for a place where failed messages are set aside, whatever the framework.
DEAD_LETTER = re.compile(r"dead[\s_-]*letter|\bDLQs?\b|\bDLX\b", re.IGNORECASE)
# RQ's own name for it (rq/registry.py FailedJobRegistry; "failed queue" before RQ 1.0).
RQ_FAILED = re.compile(
    r"failed[\s_-]*jobs?[\s_-]*registry|FailedJobRegistry|\bfailed\s+queue\b", re.IGNORECASE
)
# Sidekiq's name for it (lib/sidekiq/api.rb ``DeadSet``; "morgue" in job_retry.rb and
# the Web UI's Dead tab).
SIDEKIQ_DEAD_SET = re.compile(
    r"dead[\s_-]*set|\bmorgue\b|\bdead\s+(?:jobs?|tab|queue)\b", re.IGNORECASE
)
# "failed jobs" and the like: a dead letter only next to an explicit replay step (a
# document saying that "a failed job is retried" describes retries, not a procedure).
FAILED_ITEMS = re.compile(
    r"\bfailed\s+(?:jobs?|tasks?|messages?|webhooks?|requests?|events?)\b", re.IGNORECASE
)
INSPECT = re.compile(
    r"\b(?:inspect|list|look\s+at|view|read|show|browse|examine|check|query|dashboard"
    r"|flower|rq\s+info|rqinfo|monitor|count)",
    re.IGNORECASE,
)
# Replaying by hand; "retry" also names automatic retries, so it is a weaker sign.
REPLAY_BY_HAND = re.compile(
    r"\b(?:replay|re-?queue|re-?enqueue|re-?submit|re-?drive|shovel"
    r"|move\s+(?:them|it|the\s+\w+|messages?)\s+back)",
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
    """What a document says about dead letters, counting only mentions with an inspect
    step and a replay step within NEARBY_LINES lines of them."""
    text = data[:MAX_DOC_BYTES].decode("utf-8", "replace")
    lines = text.splitlines()
    starts = _line_starts(text)
    inspect = _near(len(lines), _lines_of(INSPECT, text, starts))
    replay = _near(len(lines), _lines_of(REPLAY, text, starts))
    by_hand = _near(len(lines), _lines_of(REPLAY_BY_HAND, text, starts))

    def qualifies(line: int, strict: bool = False) -> bool:
        return inspect[line] and (by_hand[line] if strict else replay[line])

    words: set[str] = set()
    for index, line in enumerate(lines):
        if qualifies(index):
            lowered = line.lower()
            words.update(_WORD.findall(lowered))
            words.update(re.findall(r"[a-z0-9_]+", lowered))
    rq_spans = [m.span() for m in RQ_FAILED.finditer(text)]
    if any(qualifies(_line(start, starts)) for start, _ in rq_spans):
        words.add(RQ_FAILED_TOKEN)
    if any(qualifies(_line(m.start(), starts)) for m in SIDEKIQ_DEAD_SET.finditer(text)):
        words.add(SIDEKIQ_DEAD_SET_TOKEN)
    for match in FAILED_ITEMS.finditer(text):
        inside_rq = any(a <= match.start() < b for a, b in rq_spans)
        if not inside_rq and qualifies(_line(match.start(), starts), strict=True):
            words.add(FAILED_ITEMS_TOKEN)
            break
    dead_letter = any(qualifies(_line(m.start(), starts)) for m in DEAD_LETTER.finditer(text))
    return DocFile(
        path=path,
        dead_letter=dead_letter,
        inspect=any(inspect),
        replay=any(replay),
        words=frozenset(words),
    )


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _line(offset: int, starts: list[int]) -> int:
    return max(0, bisect.bisect_right(starts, offset) - 1)


def _lines_of(pattern: re.Pattern[str], text: str, starts: list[int]) -> set[int]:
    return {_line(m.start(), starts) for m in pattern.finditer(text)}


def _near(count: int, hits: set[int]) -> list[bool]:
    """For each of ``count`` lines, whether a hit lies within NEARBY_LINES of it."""
    sums = [0]
    for index in range(count):
        sums.append(sums[-1] + (index in hits))
    return [
        sums[min(count, index + NEARBY_LINES + 1)] > sums[max(0, index - NEARBY_LINES)]
        for index in range(count)
    ]
