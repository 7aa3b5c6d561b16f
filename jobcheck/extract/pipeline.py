"""Per-file extraction itself: decode, parse, one walk with every recognizer.

Imported lazily through ``jobcheck.extract`` so that light modules of this package
(``docs``, ``lock_names``) can be used without loading libcst.
"""

from __future__ import annotations

import ast
import re
import traceback
from collections.abc import Callable

import libcst as cst

from jobcheck.extract.delegation import DelegationRecognizer
from jobcheck.extract.effects import EffectsRecognizer
from jobcheck.extract.fan_out import FanOutRecognizer
from jobcheck.extract.locks import LockRecognizer
from jobcheck.extract.routing import RoutingRecognizer
from jobcheck.extract.schedules import ScheduleBookkeeping
from jobcheck.extract.startup import StartupRecognizer
from jobcheck.extract.walker import Walker
from jobcheck.facts import FileFacts
from jobcheck.registry import plugins
from jobcheck.syntax import quiet
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.syntax.deep import run_deep
from jobcheck.syntax.positions import Positions
from jobcheck.syntax.source import parse_source


def recognizers() -> tuple[type, ...]:
    """Every recognizer, in the order the walker runs them: each plugin's (in registry
    order), the effects recognizer, each plugin's schedule readers, then the generic
    ones; routing after the framework recognizers, as it reads the enqueue sites they
    record for the same call."""
    main = [cls for p in plugins() for cls in p.load_recognizers()]
    schedules = [cls for p in plugins() for cls in p.load_schedule_readers()]
    return (
        *main,
        DelegationRecognizer,
        EffectsRecognizer,
        *schedules,
        ScheduleBookkeeping,
        LockRecognizer,
        StartupRecognizer,
        RoutingRecognizer,
        FanOutRecognizer,
    )


RECOGNIZERS = recognizers()

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


def extract_functions(
    path: str,
    data: bytes,
    module: str,
    is_package: bool,
    names: frozenset[str],
    methods: frozenset[str] | None = None,
) -> FileFacts:
    """The facts of the top-level functions and classes ``names`` of a file, with its
    imports, and of nothing else: a helper a call summary follows into a module no check
    needs whole. CPython's parser finds the statements (several times faster than
    libcst's); libcst then reads a text of the same lines with every other statement
    blanked out, so positions hold. Of a class, ``methods`` (when given) are kept with
    the class statement and its class-level assignments, not the other methods. Never
    raises."""
    try:
        text = decode(data)
        tree = quiet.parse(text)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return extract_file(path, data, module, is_package)
    lines = text.splitlines(keepends=True)
    kept = [False] * len(lines)

    def keep(node: ast.stmt) -> None:
        decorators = getattr(node, "decorator_list", ())
        first = min([node.lineno, *(d.lineno for d in decorators)])
        for index in range(first - 1, node.end_lineno or node.lineno):
            kept[index] = True

    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            keep(statement)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name in names:
                keep(statement)
        elif isinstance(statement, ast.ClassDef) and statement.name in names:
            _keep_class_part(statement, keep, kept, methods)
    reduced = "".join(
        line if keep else ("\n" if line.endswith("\n") else "") for line, keep in zip(lines, kept)
    )
    return extract_file(path, reduced.encode("utf-8"), module, is_package)


def _keep_class_part(
    node: ast.ClassDef,
    keep: Callable[[ast.stmt], None],
    kept: list[bool],
    methods: frozenset[str] | None,
) -> None:
    """Keep a class whole, or (``methods`` given) its header, its class-level statements
    and those methods only."""
    if methods is None:
        keep(node)
        return
    body = node.body
    decorators = node.decorator_list
    first = min([node.lineno, *(d.lineno for d in decorators)])
    for index in range(first - 1, body[0].lineno - 1 if body else node.lineno):
        kept[index] = True
    kept_any = False
    for statement in body:
        is_method = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        if not is_method or statement.name in methods:
            keep(statement)
            kept_any = True
    if not kept_any:
        keep(node)  # an empty body would not parse


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
    """``# jobcheck: ignore[SCL-21, fat-payload]`` comments by line; None means all."""
    found: dict[int, frozenset[str] | None] = {}
    if "jobcheck:" not in text.lower():
        return found
    for number, line in enumerate(text.splitlines(), start=1):
        if "jobcheck" not in line.lower():
            continue
        match = _SUPPRESSION.search(line)
        if match is None:
            continue
        if match.group(1) is None:
            found[number] = None
        else:
            codes = frozenset(c.strip() for c in match.group(1).split(",") if c.strip())
            found[number] = codes
    return found
