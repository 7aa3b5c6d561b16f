"""Findings that stand for others: a check about configuration every project of a
framework gets (one finding per schedule entry, per job without a time limit) marks its
findings ``group_as`` the name of its places; once suppressions are applied, those of one
file and check become one, at the first, naming the others (each also a related location,
and fixed with it: ``Finding.grouped``). A reader wants one finding, not forty.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from jobcheck.findings import Finding, Related


def one_per_file(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` with those marked ``group_as`` made one per file and check."""
    kept: list[Finding] = []
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in findings:
        if finding.group_as:
            groups.setdefault((finding.path, finding.rule, finding.check), []).append(finding)
        else:
            kept.append(finding)
    for group in groups.values():
        kept.append(_grouped(sorted(group, key=lambda f: f.sort_key)))
    return kept


def _grouped(group: list[Finding]) -> Finding:
    first, others = group[0], group[1:]
    if not others:
        return first
    named = [_named(f) for f in others[:_NAMED]]
    if len(others) > _NAMED:
        named.append(f"{len(others) - _NAMED} more")
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    noun = first.group_as if len(others) > 1 else _singular(first.group_as)
    message = f"{first.message}. The same for {len(others)} more {noun} in this file: {listed}"
    related = first.related + tuple(Related(f.path, f.loc, f.message) for f in others)
    return dataclasses.replace(first, message=message, related=related, grouped=tuple(others))


_NAMED = 10
"""Places a message names; the rest are counted (all are related locations)."""


def _singular(plural: str) -> str:
    return plural[:-3] + "y" if plural.endswith("ies") else plural.removesuffix("s")


_FIRST_QUOTED = re.compile(r"'([^']{1,80})'")


def _named(finding: Finding) -> str:
    """``'nightly_export' (line 4)``: the first name its message quotes, and its line."""
    found = _FIRST_QUOTED.search(finding.message)
    return f"'{found.group(1)}' (line {finding.loc.line})" if found else f"line {finding.loc.line}"
