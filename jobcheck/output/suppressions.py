"""How every format describes an unused suppression: the codes that suppressed nothing,
and codes that name no rule (with the nearest one that does)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence

from jobcheck import page_url
from jobcheck.findings import UnusedSuppression

UNUSED_ID = "unused-suppression"
UNUSED_TITLE = "Suppression that suppresses nothing"
UNUSED_URL = page_url("README.md", "suppressions")
UNUSED_HELP = (
    "A '# jobcheck: ignore' comment, or some of its codes, matched no finding on its line "
    "(reported with --show-unused-suppressions): the problem it silenced is gone, or the code "
    "names no rule. Remove the comment or the code, so it cannot hide a new finding later."
)


def fingerprints(items: Sequence[UnusedSuppression], path_of: Callable[[str], str]) -> list[str]:
    """Line-independent identities, as findings have: the path, the comment and which
    occurrence of that comment in the file it is."""
    seen: Counter[tuple[str, str]] = Counter()
    found = []
    for unused in items:
        key = (path_of(unused.path), comment(unused))
        identity = "\x1f".join((UNUSED_ID, *key, str(seen[key])))
        seen[key] += 1
        found.append(hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest())
    return found


def comment(unused: UnusedSuppression) -> str:
    codes = (*unused.codes, *unused.unknown)
    marker = "ignore-file" if unused.file_level else "ignore"
    return f"# jobcheck: {marker}[{', '.join(codes)}]" if codes else f"# jobcheck: {marker}"


def describe(unused: UnusedSuppression) -> str:
    """``unused suppression # jobcheck: ignore[SCL-18] (suppresses nothing: SCL-18)``."""
    if not unused.codes and not unused.unknown:
        where = "in this file" if unused.file_level else "on this line"
        return f"unused suppression {comment(unused)} (nothing {where} is reported)"
    parts = []
    if unused.codes:
        parts.append(f"suppresses nothing here: {', '.join(unused.codes)}")
    for code in unused.unknown:
        parts.append(f"unknown code {code!r}{_suggestion(code)}")
    return f"unused suppression {comment(unused)} ({'; '.join(parts)})"


def _suggestion(code: str) -> str:
    from jobcheck.catalog import load_catalog

    close = load_catalog().close_matches(code)
    return f", did you mean {close[0]!r}?" if close else ": no rule, alias or check has it"
