"""Output formats. Each renderer turns a :class:`Report` into text for a stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from jobcheck.findings import Report
from jobcheck.output import concise, github, gitlab, json_format, junit, sarif, text

Writer = Callable[[Report, TextIO, bool], None]

FORMATS: dict[str, Writer] = {
    "text": text.write,
    "json": json_format.write,
    "concise": concise.write,
    "sarif": sarif.write,
    "github": github.write,
    "gitlab": gitlab.write,
    "junit": junit.write,
}
