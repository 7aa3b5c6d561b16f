"""SCL-18 Give every job a time limit (EVT-17): countdown-exceeds-visibility.

A message delayed longer than the broker's visibility timeout is redelivered while it
waits, so the job runs more than once.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.registry import plugins, semantics


class CountdownExceedsVisibility(RuleChecks):
    rule = "SCL-18"

    @check("countdown-exceeds-visibility")
    def countdown_exceeds_visibility(self) -> Iterator[Finding]:
        for plugin in plugins():
            yield from semantics(plugin.name).countdown_exceeds_visibility(self)
