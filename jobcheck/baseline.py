"""Baselines: adopt jobcheck in legacy code by recording today's findings and reporting
only new ones.

The file is JSON, versioned, with one entry per finding, sorted, without line numbers,
so that it diffs well and survives edits that only move code. An entry holds what makes
a finding's identity (see :mod:`jobcheck.fingerprint`): rule, check, path and the
flagged source text, whitespace-collapsed, plus its occurrence index among identical
ones and its fingerprint. Paths are relative to the folder that holds the baseline, so
the same baseline works whichever folder jobcheck is started from.

The file is committed, so it holds no secret: messages and source texts are masked as
every output masks them. A path that is not UTF-8 (its bad bytes kept as lone
surrogates) is written with ``\\udcff`` escapes, which read back as the same path. The
file is written through :func:`jobcheck.guarded.write_atomically` and read through
:func:`jobcheck.guarded.read_text`.

Matching: findings and entries with the same rule, check, path and source text form a
group. Within a group a finding first takes an entry with the same message (which names
the task or queue, so a new ``@shared_task`` inserted above an old identical one is the
one reported), then the remaining ones pair up in file order. So a group reports as
new exactly the findings beyond the number recorded.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobcheck import __version__
from jobcheck.findings import Finding
from jobcheck.fingerprint import Identity, SourceLines, identities, relative_posix
from jobcheck.guarded import Boundary, ReadError, WriteError, read_text, write_atomically
from jobcheck.output.encoding import json_text, visible
from jobcheck.vocabulary.credentials import mask

FORMAT_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024
"""About 150,000 entries: a baseline is read whole."""


class BaselineError(ValueError):
    """A baseline file that cannot be read or written; the message says why."""


@dataclass(frozen=True)
class Filtered:
    """The outcome of applying a baseline."""

    new: list[Finding]
    known: int
    """Findings the baseline already holds, not reported."""
    stale: int
    """Baseline entries that matched no finding (fixed, or their code changed)."""


GroupKey = tuple[str, str, str, str]


@dataclass(frozen=True)
class Entry:
    path: str
    rule: str
    check: str
    source: str
    occurrence: int
    message: str

    @property
    def group(self) -> GroupKey:
        return (self.path, self.rule, self.check, self.source)


@dataclass(frozen=True)
class Baseline:
    entries: tuple[Entry, ...]
    folder: Path
    """Paths in the baseline are relative to this folder."""

    def filter(self, findings: Sequence[Finding], sources: SourceLines | None = None) -> Filtered:
        """Drop the findings this baseline records."""
        ids = identities(findings, sources, lambda p: relative_posix(p, self.folder))
        recorded: dict[GroupKey, list[Entry]] = defaultdict(list)
        for entry in sorted(self.entries, key=lambda e: e.occurrence):
            recorded[entry.group].append(entry)
        found: dict[GroupKey, list[int]] = defaultdict(list)
        for index, identity in sorted(enumerate(ids), key=lambda pair: pair[1].occurrence):
            found[(identity.path, identity.rule, identity.check, identity.source)].append(index)
        new: set[int] = set()
        for group, members in found.items():
            new |= _unmatched(members, recorded[group], findings)
        stale = sum(len(entries) for entries in recorded.values())
        kept = [f for index, f in enumerate(findings) if index in new]
        return Filtered(new=kept, known=len(findings) - len(kept), stale=stale)


def _unmatched(members: list[int], entries: list[Entry], findings: Sequence[Finding]) -> set[int]:
    """Indexes of the group's findings that no entry accounts for; the entries the
    group leaves over stay in ``entries``."""
    waiting = []
    for index in members:
        message = mask(findings[index].message)  # as it was written
        same = next((e for e in entries if e.message == message), None)
        if same is None:
            waiting.append(index)
        else:
            entries.remove(same)
    new = set()
    for index in waiting:
        if entries:
            entries.pop(0)
        else:
            new.add(index)
    return new


def write(
    path: Path,
    findings: Sequence[Finding],
    sources: SourceLines | None = None,
    boundary: Boundary | None = None,
) -> int:
    """Record ``findings`` in the baseline file ``path``; returns how many."""
    base = path.resolve().parent
    ids = identities(findings, sources, lambda p: relative_posix(p, base))
    entries = sorted(
        (_entry(identity, finding) for identity, finding in zip(ids, findings, strict=True)),
        key=lambda e: (
            e["path"],
            e["rule"],
            e["check"],
            e["source"],
            e["occurrence"],
            e["fingerprint"],
        ),
    )
    document = {
        "version": FORMAT_VERSION,
        "tool": "jobcheck",
        "comment": (
            "Findings accepted when jobcheck was adopted; `jobcheck check --baseline "
            "FILE` reports only findings not listed here. Rewrite with --write-baseline."
        ),
        "findings": entries,
    }
    text = json_text(document) + "\n"
    try:
        write_atomically(path, text.encode("utf-8"), boundary)
    except WriteError as error:
        raise BaselineError(f"cannot write the baseline: {error}") from None
    return len(entries)


def load(path: Path) -> Baseline:
    """The baseline recorded in the file ``path``."""
    shown = _shown(path)
    if not path.exists():
        raise BaselineError(f"baseline {shown} not found (create it with --write-baseline {shown})")
    try:
        document = json.loads(read_text(path, MAX_BASELINE_BYTES))
    except (ReadError, UnicodeDecodeError) as error:
        raise BaselineError(f"cannot read baseline {shown}: {error}") from None
    except json.JSONDecodeError as error:
        raise BaselineError(f"baseline {shown} is not valid JSON: {error}") from None
    if not isinstance(document, dict) or document.get("tool") != "jobcheck":
        raise BaselineError(f"{shown} is not a jobcheck baseline")
    version = document.get("version")
    if version != FORMAT_VERSION:
        raise BaselineError(
            f"baseline {shown} has format version {version!r}; jobcheck {__version__} "
            f"reads version {FORMAT_VERSION} (rewrite it with --write-baseline)"
        )
    entries = document.get("findings")
    if not isinstance(entries, list) or not all(_valid_entry(e) for e in entries):
        raise BaselineError(
            f"baseline {shown}: 'findings' must be a list of entries with path, rule, "
            "check, source and occurrence (rewrite it with --write-baseline)"
        )
    return Baseline(tuple(_read_entry(e) for e in entries), path.resolve().parent)


def _shown(path: Path) -> str:
    return visible(str(path))


def _entry(identity: Identity, finding: Finding) -> dict[str, Any]:
    return {
        "path": identity.path,
        "rule": identity.rule,
        "check": identity.check,
        "source": identity.source,
        "occurrence": identity.occurrence,
        "message": mask(finding.message),
        "fingerprint": identity.fingerprint,
    }


def _valid_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(key), str) for key in ("path", "rule", "check", "source"))
        and isinstance(entry.get("occurrence"), int)
        and isinstance(entry.get("message", ""), str)
    )


def _read_entry(entry: dict[str, Any]) -> Entry:
    return Entry(
        path=entry["path"],
        rule=entry["rule"],
        check=entry["check"],
        source=entry["source"],
        occurrence=entry["occurrence"],
        message=entry.get("message", ""),
    )
