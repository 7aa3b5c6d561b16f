"""Per-file extraction itself: decode, parse, one walk with every recognizer.

Imported lazily through ``jobcheck.extract`` so that light modules of this package
(``docs``, ``lock_names``) can be used without loading libcst.
"""

from __future__ import annotations

import traceback

from jobcheck.extract import parts
from jobcheck.extract.delegation import DelegationRecognizer
from jobcheck.extract.effects import EffectsRecognizer
from jobcheck.extract.fan_out import FanOutRecognizer
from jobcheck.extract.locks import LockRecognizer
from jobcheck.extract.lookups import LookupRecognizer
from jobcheck.extract.parts import Outline
from jobcheck.extract.routing import RoutingRecognizer
from jobcheck.extract.schedules import ScheduleBookkeeping
from jobcheck.extract.startup import StartupRecognizer
from jobcheck.extract.walker import Walker
from jobcheck.facts import FileFacts, Loc, SecretURL
from jobcheck.registry import plugins
from jobcheck.syntax import from_ast
from jobcheck.syntax import tree as cst
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.syntax.deep import run_deep
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
        LookupRecognizer,
        StartupRecognizer,
        RoutingRecognizer,
        FanOutRecognizer,
    )


RECOGNIZERS = recognizers()


def extract_file(path: str, data: bytes, module: str, is_package: bool = False) -> FileFacts:
    """Every fact about one file. Never raises: problems become ``FileFacts.error``.
    Runs on a thread with a large stack (``jobcheck/syntax/deep.py``): the walk of a
    deeply nested tree recurses as deep as the parser did."""
    return run_deep(lambda: _extract_file(path, data, module, is_package))


def _extract_file(
    path: str, data: bytes, module: str, is_package: bool, defined: frozenset[str] = frozenset()
) -> FileFacts:
    facts = FileFacts(path=path, module=module)
    try:
        text = decode(data)
        facts.suppressions = suppressions(text)
        tree, text = parse_source(text)
    except SourceError as error:
        facts.error = str(error)
        facts.parsed = False
        return facts
    return _extract_tree(facts, tree, text, is_package, Walker, defined)


def extract_functions(
    path: str,
    data: bytes,
    module: str,
    is_package: bool,
    names: frozenset[str],
    methods: frozenset[str] | None = None,
    outline: Outline | None = None,
) -> FileFacts:
    """The facts of the top-level functions and classes ``names`` of a file (of a class,
    when ``methods`` is given, only those methods), and of nothing else: a helper a call
    summary follows into a module no check needs whole (``jobcheck/extract/parts.py``).
    Pass the file's ``outline`` when asking for several parts of it. Never raises."""
    outline = outline or parts.outline(data)
    if outline is None:
        return extract_file(path, data, module, is_package)
    return run_deep(lambda: _extract_part(path, outline, module, is_package, names, methods))


def _extract_part(
    path: str,
    outline: Outline,
    module: str,
    is_package: bool,
    names: frozenset[str],
    methods: frozenset[str] | None,
) -> FileFacts:
    facts = FileFacts(path=path, module=module)
    if outline.suppressions is None:
        outline.suppressions = suppressions(outline.text)
    facts.suppressions = outline.suppressions
    try:
        tree = from_ast.convert(outline.reduced(names, methods), outline.text, outline.lines)
    except (RecursionError, MemoryError) as error:
        facts.error = f"cannot parse: {type(error).__name__}: {error}"
        facts.parsed = False
        return facts
    except Exception as error:  # a bug in jobcheck must not cost the run
        facts.error = _internal_error(error)
        facts.parsed = False
        return facts
    # No credential URLs: the whole file's are reported where the file is read whole.
    return _extract_tree(
        facts, tree, outline.text, is_package, Walker, outline.defined, credentials=False
    )


def extract_tree(
    facts: FileFacts,
    tree: cst.Module,
    text: str,
    is_package: bool = False,
    walker_class: type[Walker] = Walker,
) -> FileFacts:
    """The facts of an already parsed module. Never raises."""
    return run_deep(lambda: _extract_tree(facts, tree, text, is_package, walker_class))


def _extract_tree(
    facts: FileFacts,
    tree: cst.Module,
    text: str,
    is_package: bool,
    walker_class: type[Walker],
    defined: frozenset[str] = frozenset(),
    credentials: bool = True,
) -> FileFacts:
    path, module = facts.path, facts.module
    if credentials:
        facts.credential_urls = credential_urls(text)
    try:
        walker = walker_class(facts, tree, text, is_package)
        for name in defined:
            walker.names.define(name)
        walker.recognizers = [recognizer(walker) for recognizer in RECOGNIZERS]
        return walker.run()
    except RecursionError:
        failed = FileFacts(path=path, module=module, suppressions=facts.suppressions)
        failed.error = "the file is nested too deeply to analyse"
        failed.parsed = False
        return failed
    except Exception as error:  # a bug in jobcheck must not hide other files' findings
        failed = FileFacts(path=path, module=module, suppressions=facts.suppressions)
        failed.error = _internal_error(error)
        failed.parsed = False
        return failed


def _internal_error(error: Exception) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    return (
        f"internal error while analysing this file: {type(error).__name__}: {error} "
        f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please report it"
    )


def credential_urls(text: str) -> list[SecretURL]:
    """Broker and result-backend URLs with a password, their secret masked at once."""
    if "://" not in text:
        return []
    from jobcheck.vocabulary import credentials

    return [
        SecretURL(
            Loc(c.line, c.column, c.line, c.end_column),
            c.masked,
            c.local,
            c.placeholder,
            c.templated,
        )
        for c in credentials.find(text)
    ]


def suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """``# jobcheck: ignore[...]`` comments of a Python file by line; None means all.
    Comment tokens only: the marker in a string literal suppresses nothing."""
    from jobcheck.syntax.comments import suppressions as comment_suppressions

    return comment_suppressions(text, "python")
