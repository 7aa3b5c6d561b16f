"""Django's part of the checks' wording (it runs no jobs of its own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.frameworks.semantics_base import Semantics

if TYPE_CHECKING:
    from jobcheck.project.model import Project


class DjangoSemantics(Semantics):
    name = "django"
    title = "Django"

    def lock_examples(self, project: Project) -> tuple[str, ...]:
        # django/core/cache/backends/base.py ``add``: sets the key only if it is missing
        # and says whether it did: a lock in one call, on a shared cache.
        return ("cache.add",) if any("django" in f.imports for f in project.files) else ()


SEMANTICS = DjangoSemantics()
