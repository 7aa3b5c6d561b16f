"""``--format junit``: JUnit XML, which CI systems (GitLab, Jenkins, Azure, CircleCI)
show as test results: one test suite per file with findings, one failing test case per
finding, an erroring test case per file that could not be checked, and one passing
test case when there is nothing to report (so the run shows as green, not as empty).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TextIO

from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.output.encoding import escaped_char, masked_report
from jobcheck.output.locations import PARSE_ERROR_ID, error_position
from jobcheck.output.suppressions import UNUSED_ID, describe

# Characters XML 1.0 cannot carry at all, even escaped.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """``text`` as XML 1.0 can carry it: a control character or lone surrogate as its
    escape (``\\x1b``, ``\\udcff``)."""
    return _NOT_XML.sub(lambda m: escaped_char(m.group(0)), text)


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    stream.write(to_xml(report))


def to_xml(report: Report) -> str:
    report = masked_report(report)
    by_file: dict[str, list[Finding | FileError | UnusedSuppression]] = defaultdict(list)
    for finding in report.findings:
        by_file[finding.path].append(finding)
    for error in report.errors:
        by_file[error.path].append(error)
    for unused in report.unused_suppressions:
        by_file[unused.path].append(unused)
    failures = len(report.findings) + len(report.unused_suppressions)
    root = ET.Element(
        "testsuites",
        name="jobcheck",
        tests=str(max(1, failures + len(report.errors))),
        failures=str(failures),
        errors=str(len(report.errors)),
    )
    for path in sorted(by_file):
        _suite(root, path, by_file[path])
    if not by_file:
        suite = ET.SubElement(
            root, "testsuite", name="jobcheck", tests="1", failures="0", errors="0"
        )
        ET.SubElement(
            suite,
            "testcase",
            name=f"no findings in {report.files_checked} files",
            classname="jobcheck",
        )
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _suite(
    root: ET.Element, path: str, items: list[Finding | FileError | UnusedSuppression]
) -> None:
    findings = [i for i in items if isinstance(i, Finding)]
    errors = [i for i in items if isinstance(i, FileError)]
    unused = [i for i in items if isinstance(i, UnusedSuppression)]
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_xml_text(path),
        tests=str(len(items)),
        failures=str(len(findings) + len(unused)),
        errors=str(len(errors)),
    )
    for finding in findings:
        loc = finding.loc
        case = ET.SubElement(
            suite,
            "testcase",
            name=_xml_text(f"{finding.rule} {finding.check} at {loc.line}:{loc.column}"),
            classname=_xml_text(path),
            file=_xml_text(path),
            line=str(loc.line),
        )
        failure = ET.SubElement(
            case, "failure", message=_xml_text(finding.message), type=finding.rule
        )
        failure.text = _xml_text(
            f"{path}:{loc.line}:{loc.column}: {finding.rule} {finding.check} "
            f"{finding.message} ({finding.url})"
        )
    for error in errors:
        line, column = error_position(error)
        case = ET.SubElement(
            suite,
            "testcase",
            name=PARSE_ERROR_ID,
            classname=_xml_text(path),
            file=_xml_text(path),
            line=str(line),
        )
        element = ET.SubElement(
            case, "error", message=_xml_text(error.message), type=PARSE_ERROR_ID
        )
        element.text = _xml_text(f"{path}:{line}:{column}: {error.message}")
    for item in unused:
        case = ET.SubElement(
            suite,
            "testcase",
            name=_xml_text(f"{UNUSED_ID} at {item.line}:1"),
            classname=_xml_text(path),
            file=_xml_text(path),
            line=str(item.line),
        )
        text = describe(item)
        failure = ET.SubElement(case, "failure", message=_xml_text(text), type=UNUSED_ID)
        failure.text = _xml_text(f"{path}:{item.line}:1: {text}")
