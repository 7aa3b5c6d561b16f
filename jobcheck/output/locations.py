"""Shared by the CI formats: where a file error points, and paths as CI systems want
them (relative to the working directory, which is the repository root in CI)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

from jobcheck import page_url
from jobcheck.findings import FileError

# The position in messages made by jobcheck.syntax.source.parse: "syntax error at line
# 5, column 1: ...".
_ERROR_POSITION = re.compile(r"\bat line (\d+), column (\d+)\b")

PARSE_ERROR_ID = "parse-error"
PARSE_ERROR_TITLE = "File could not be checked"
PARSE_ERROR_URL = page_url("docs/ci.md", "output-formats")
PARSE_ERROR_HELP = (
    "jobcheck could not read or parse this file, so none of its checks ran on it and "
    "the project model lacks its tasks, settings and enqueue sites. Fix the syntax error "
    "(or the encoding), or exclude the file."
)


def error_position(error: FileError) -> tuple[int, int]:
    """The 1-based line and column a file error points at (1, 1 when it names none)."""
    match = _ERROR_POSITION.search(error.message)
    if match is None:
        return 1, 1
    return max(1, int(match.group(1))), max(1, int(match.group(2)))


def repository_path(path: str) -> str:
    """``path`` relative to the working directory, with forward slashes; absolute when
    it lies outside."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


def artifact_uri(path: str) -> tuple[str, bool]:
    """A URI for ``path`` and whether it is relative to the working directory."""
    relative = repository_path(path)
    if Path(relative).is_absolute():
        return Path(relative).as_uri(), False
    return quote(relative, errors="surrogateescape"), True


def working_directory_uri() -> str:
    return Path.cwd().as_uri().rstrip("/") + "/"
