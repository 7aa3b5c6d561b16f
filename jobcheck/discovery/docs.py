"""Finding the project's written procedures: Markdown and reST files under the
runbook folders (``runbook-dirs``), for EVT-24.

Each entry of ``runbook-dirs`` is a folder relative to a project root, searched with
its subfolders; the entry ``"."`` stands for the files directly in the root (README.md,
RUNBOOK.md), not for the whole tree, which would read every vendored document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from jobcheck.discovery import SourceFile, WalkCache, discover
from jobcheck.guarded import Boundary

DOC_SUFFIXES = (".md", ".markdown", ".rst")
# Files that record history or policy, not procedures.
NOT_PROCEDURES = re.compile(
    r"^(?:change(?:s|log)|history|news|release[-_ ]?notes|license|licence|authors"
    r"|contributors|code[-_]of[-_]conduct|security)\b",
    re.IGNORECASE,
)


def is_procedure_name(filename: str) -> bool:
    return NOT_PROCEDURES.match(filename) is None


def find_docs(
    roots: Sequence[Path],
    runbook_dirs: Iterable[str],
    exclude: Iterable[str] = (),
    respect_gitignore: bool = True,
    walk: WalkCache | None = None,
) -> list[SourceFile]:
    """Every document under ``runbook_dirs`` of each root, each once, in a stable order."""
    found: dict[Path, SourceFile] = {}
    folders = tuple(runbook_dirs)
    for root in roots:
        for folder in folders:
            if folder in (".", "./", ""):
                for path in sorted(root.iterdir()):
                    if path.is_file() and _is_doc(path):
                        found.setdefault(path.resolve(), SourceFile(path, explicit=False))
                continue
            base = root / folder
            if not base.is_dir() or not Boundary.of([root]).contains(base):
                continue  # missing, or a link leading outside the project
            for source in discover(
                [str(base)],
                exclude=tuple(exclude),
                respect_gitignore=respect_gitignore,
                suffixes=DOC_SUFFIXES,
                patterns=(),
                cache=walk,
            ):
                if is_procedure_name(source.path.name):
                    found.setdefault(source.path.resolve(), source)
    return sorted(found.values(), key=lambda s: s.display)


def _is_doc(path: Path) -> bool:
    return path.name.lower().endswith(DOC_SUFFIXES) and is_procedure_name(path.name)
