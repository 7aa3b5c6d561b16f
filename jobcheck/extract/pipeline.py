"""Per-file extraction itself: decode, parse, one walk with every recognizer.

Imported lazily through ``jobcheck.extract`` so that light modules of this package
(``docs``, ``lock_names``) can be used without loading libcst.
"""

from __future__ import annotations

import re
import traceback

import libcst as cst

from jobcheck.extract.walker import Walker
from jobcheck.facts import FileFacts
from jobcheck.frameworks import recognizers
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.syntax.deep import run_deep
from jobcheck.syntax.positions import Positions
from jobcheck.syntax.source import parse_source

# Every recognizer, in the order the walker runs them (``jobcheck/frameworks``).
RECOGNIZERS = recognizers()

_LINES = re.compile(r"\r\n?|\n")
_SUPPRESSION = re.compile(r"#\s*jobcheck:\s*ignore\b(?:\[([^\]]*)\])?", re.IGNORECASE)


def extract_file(path: str, data: bytes, module: str, is_package: bool = False) -> FileFacts:
    """Every fact about one file. Never raises: problems become ``FileFacts.error``.
    Runs on a thread with a large stack (``jobcheck/syntax/deep.py``): the walk of a
    deeply nested tree recurses as deep as the parser did."""
    return run_deep(lambda: _extract_file(path, data, module, is_package))


def _extract_file(path: str, data: bytes, module: str, is_package: bool) -> FileFacts:
    facts = FileFacts(path=path, module=module)
    try:
        text = decode(data)
        facts.suppressions = suppressions(text)
        tree, text = parse_source(text)
    except SourceError as error:
        facts.error = str(error)
        facts.parsed = False
        return facts
    return extract_tree(facts, tree, text, is_package)


def extract_tree(
    facts: FileFacts,
    tree: cst.Module,
    text: str,
    is_package: bool = False,
    positions: Positions | None = None,
    walker_class: type[Walker] = Walker,
) -> FileFacts:
    """The facts of an already parsed module (the language server parses edited buffers
    incrementally, keeps ``positions`` across edits and uses a walker that replays
    unchanged statements). Never raises."""
    return run_deep(lambda: _extract_tree(facts, tree, text, is_package, positions, walker_class))


def _extract_tree(
    facts: FileFacts,
    tree: cst.Module,
    text: str,
    is_package: bool,
    positions: Positions | None,
    walker_class: type[Walker],
) -> FileFacts:
    path, module = facts.path, facts.module
    try:
        walker = walker_class(facts, tree, text, is_package, positions)
        walker.recognizers = [recognizer(walker) for recognizer in RECOGNIZERS]
        return walker.run()
    except RecursionError:
        failed = FileFacts(path=path, module=module, suppressions=facts.suppressions)
        failed.error = "the file is nested too deeply to analyse"
        failed.parsed = False
        return failed
    except Exception as error:  # a bug in jobcheck must not hide other files' findings
        failed = FileFacts(path=path, module=module, suppressions=facts.suppressions)
        where = traceback.extract_tb(error.__traceback__)[-1]
        failed.error = (
            f"internal error while analysing this file: {type(error).__name__}: {error} "
            f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please report it"
        )
        failed.parsed = False
        return failed


def suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """``# jobcheck: ignore[SCL-21, fat-payload]`` comments by line; None means all.
    Several on one line count together (``# jobcheck: ignore[A]  # jobcheck:
    ignore[B]`` suppresses A and B)."""
    found: dict[int, frozenset[str] | None] = {}
    if "jobcheck:" not in text.lower():
        return found
    # Lines as Python and libcst count them: str.splitlines would also split at form
    # feeds and other separators, and number every later line wrong.
    for number, line in enumerate(_LINES.split(text), start=1):
        if "jobcheck" not in line.lower():
            continue
        codes: set[str] = set()
        bare = False
        for match in _SUPPRESSION.finditer(line):
            if match.group(1) is None:
                bare = True
            else:
                codes.update(c.strip() for c in match.group(1).split(",") if c.strip())
        if bare:
            found[number] = None
        elif codes:
            found[number] = frozenset(codes)
        elif _SUPPRESSION.search(line):
            found[number] = frozenset()
    return found
