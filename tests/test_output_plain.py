"""Plain text output (no colour) is written without rich; it must be exactly what rich
would print, and text from the checked code (messages quote it) can neither add lines
nor send control characters to the terminal."""

from __future__ import annotations

import io

import pytest

from jobcheck.facts import Loc
from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.output import text

ODD = [
    "plain message",
    "brackets [bold]not markup[/] and :smile: codes",
    "unicode é 漢字 and emoji 🎉",
    "control\x07 chars\x08 here\r and\x0b\x0c",
    "trailing spaces   ",
    "a\nsecond line",
    "",
]


def _report(message: str, failed: bool = True) -> Report:
    if not failed:
        return Report(files_checked=3)
    return Report(
        findings=[
            Finding(
                "SCL-21", "fat-payload", "pkg/mod.py", Loc(3, 5, 3, 9), message, url="https://x/y"
            ),
            Finding("SCL-18", "missing-time-limit", "é/ü.py", Loc(1, 1, 1, 2), message, url=""),
        ],
        errors=[FileError("broken.py", f"syntax error: {message}")],
        unused_suppressions=[
            UnusedSuppression("u.py", 4, ("SCL-21", "fat-payload")),
            UnusedSuppression("v.py", 1, ()),
        ],
        files_checked=7,
    )


def _with_rich(report: Report) -> str:
    stream = io.StringIO()
    text.write_with_rich(text.render(report), stream, False)
    return stream.getvalue()


@pytest.mark.parametrize("message", ODD)
def test_plain_output_is_what_rich_prints(message: str) -> None:
    report = _report(message)
    plain = io.StringIO()
    text.write(report, plain, False)
    assert plain.getvalue() == _with_rich(report)
    headline = plain.getvalue().splitlines()[0]
    assert headline.startswith("pkg/mod.py:3:5: SCL-21 fat-payload")
    assert not any(char in headline for char in "\x07\x08\r\x0b\x0c\t")


def test_plain_output_of_a_clean_run() -> None:
    plain = io.StringIO()
    text.write(_report("", failed=False), plain, False)
    assert plain.getvalue() == "All checks passed (3 files checked).\n"


def test_tabs_and_control_characters_are_replaced() -> None:
    report = _report("tab\there and \x1b[31mred")
    plain = io.StringIO()
    text.write(report, plain, False)
    assert "tab here" in plain.getvalue()
    assert "\t" not in plain.getvalue() and "\x1b" not in plain.getvalue()
