"""What the checks ask of a framework, answered by each plugin's semantics.

A plugin's ``semantics`` object subclasses :class:`Semantics` and overrides what its
framework defines; :data:`UNKNOWN` answers for a framework no plugin knows, and assumes
nothing of it (a job of an unknown framework is never checked as another's).
"""

from __future__ import annotations


class Semantics:
    """The neutral answers: nothing known."""

    name = "unknown"


UNKNOWN = Semantics()
