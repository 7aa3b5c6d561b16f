"""The automatic fixes of a published document's findings, computed when a code action
asks for them rather than when the findings are published: a module of thousands of
tasks has a finding, and a fix, on each, and the editor asks about the few under the
cursor (or, for ``source.fixAll``, about all of them, once).

A :class:`DocumentFixes` belongs to one publication (one version of the document's
findings): it fixes them against the project as it was when they were found
(:meth:`jobcheck.lsp.project_state.ProjectState.fixer`), and keeps each fix it made,
so asking twice gives the same fix and two schedules are never moved to one minute.
"""

from __future__ import annotations

from collections.abc import Sequence

from jobcheck.findings import Finding
from jobcheck.fixes import Fixer, wants_fix


class DocumentFixes:
    def __init__(self, fixer: Fixer) -> None:
        self._fixer = fixer
        self._fixed: dict[int, tuple[Finding, Finding]] = {}
        """id of a published finding -> (the finding, the finding with its fix)."""

    def known(self, findings: Sequence[Finding]) -> list[Finding] | None:
        """``findings`` with their fixes, when every one is made already (else None).
        Cheap, for any thread."""
        found = []
        for finding in findings:
            fixed = self._known(finding) if wants_fix(finding) else finding
            if fixed is None:
                return None
            found.append(fixed)
        return found

    def fixed(self, findings: Sequence[Finding]) -> list[Finding]:
        """``findings`` (published ones) with their automatic fixes, made as needed:
        on one thread only (the fixer's trees and project facts are not shared)."""
        return [self._one(finding) for finding in findings]

    def _one(self, finding: Finding) -> Finding:
        if not wants_fix(finding):
            return finding
        known = self._known(finding)
        if known is None:
            known = self._fixer.fixed(finding)
            self._fixed[id(finding)] = (finding, known)
        return known

    def _known(self, finding: Finding) -> Finding | None:
        known = self._fixed.get(id(finding))
        return known[1] if known is not None and known[0] is finding else None
