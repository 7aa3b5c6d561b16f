"""What a run produces: findings, files that could not be checked, and the report."""

from __future__ import annotations

from dataclasses import dataclass, field

from jobcheck.location import Loc

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class TextEdit:
    """Replace the text at ``loc`` (1-based, end exclusive) of the finding's file."""

    loc: Loc
    new_text: str


@dataclass(frozen=True)
class Fix:
    """An automatic fix a check offers with its finding (the language server shows it as
    a quick fix). ``applicability`` follows Ruff: "safe" keeps the program's meaning,
    "unsafe" may change it, "display" is shown but never applied in bulk."""

    title: str
    edits: tuple[TextEdit, ...]
    applicability: str = "safe"


@dataclass(frozen=True)
class Related:
    """Another place a finding involves: a hop of the call chain that reaches the
    flagged code, the code itself (SARIF ``relatedLocations``, LSP ``relatedInformation``)."""

    path: str
    loc: Loc
    message: str


@dataclass(frozen=True)
class Finding:
    rule: str
    check: str
    path: str
    loc: Loc
    message: str
    severity: str = "warning"
    alias: str | None = None
    url: str = ""
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    group_as: str = ""
    """What its check calls the places it reports when their findings in one file are
    to be one (``jobcheck/grouping.py``), or ""."""
    grouped: tuple[Finding, ...] = ()
    """The findings of other places this one stands for (``jobcheck/grouping.py``): each
    is fixed with it."""

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.loc.line, self.loc.column, self.rule, self.check, self.message)


@dataclass(frozen=True)
class FileError:
    path: str
    message: str


@dataclass(frozen=True)
class UnusedSuppression:
    """A ``# jobcheck: ignore`` comment, or some of its codes, that suppressed nothing
    (``codes``) or that name no rule, alias or check (``unknown``); both empty for a
    bare ``# jobcheck: ignore``."""

    path: str
    line: int
    codes: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    file_level: bool = False
    """A ``# jobcheck: ignore-file`` comment (reported at line 1)."""


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    unused_suppressions: list[UnusedSuppression] = field(default_factory=list)
    files_checked: int = 0
    files_analysed: int = 0
    warnings: list[str] = field(default_factory=list)
    """Said on standard error with the report (and again when a cached run replays it):
    configuration that names nothing in the project."""

    @property
    def failed(self) -> bool:
        return bool(self.findings or self.errors or self.unused_suppressions)
