"""The syntax tree (``jobcheck/syntax/tree.py``) is the same whichever parser read the
file: CPython's (``from_ast``) and libcst's (``from_libcst``, for grammar newer than the
running interpreter) give the same nodes with the same fields, values and positions,
and the positions are exactly libcst's ``PositionProvider`` ranges."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import hypothesmith
import libcst
import pytest
from hypothesis import HealthCheck, assume, given, settings

from jobcheck.extract import extract_file
from jobcheck.facts import FileFacts
from jobcheck.syntax import from_ast, from_libcst
from jobcheck.syntax import tree as t
from jobcheck.syntax.source import parse_source

ROOT = Path(__file__).parent.parent

TRICKY = '''\
# leading comment
import os; import sys  # two statements
x = {"é": 1}; y = call(
    x,
        z)
@decorator(
    a=1,  # comment
)

# comment between decorator and def
@other
async def f(a: int = 1, *, b=lambda q: q) -> None:
    """doc"""
    if a:
        pass
    elif b:
        c = [i for i in range(3)]
    else:
        while True: break
    try:
        pass
    except (ValueError, KeyError) as error:
        raise
    else:
        pass
    finally:
        pass
    async with a as b, c:
        async for i in b: await i
    match a:
        case [1, *rest]:
            pass
        case {"k": v} if v:
            pass
    return \\
        None
class A(B, metaclass=M):
\tattr = 1
\tdef m(self): return self.attr
if x:
    if y:
        z = 1
    else:
        if w:
            q = 2
'''


def _differences(text: str) -> tuple[int, list[str]]:
    """How many nodes the two conversions of ``text`` share, and where they differ."""
    mine = from_ast.convert(ast.parse(text), text)
    theirs = from_libcst.convert(libcst.parse_module(text), text)
    problems: list[str] = []
    count = 0
    stack: list[tuple[t.CSTNode, t.CSTNode]] = [(mine, theirs)]
    while stack:
        a, b = stack.pop()
        where = f"{type(a).__name__} at {a.pos}"
        if type(a) is not type(b):
            problems.append(f"{where}: {type(b).__name__} from libcst")
            continue
        count += 1
        if a.pos != b.pos and not isinstance(a, t.Module):
            problems.append(f"{where}: libcst places it at {b.pos}")
        for name in ("value", "evaluated_value"):
            if isinstance(a, (t.Name, t.SimpleString, t.Integer, t.Float)) and getattr(
                a, name, None
            ) != getattr(b, name, None):
                problems.append(f"{where}: {name} differs")
        for field in a.FIELDS:
            left, right = getattr(a, field), getattr(b, field)
            if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
                left_nodes = [n for n in left or () if isinstance(n, t.CSTNode)]
                right_nodes = [n for n in right or () if isinstance(n, t.CSTNode)]
                if len(left_nodes) != len(right_nodes):
                    problems.append(f"{where}: {field} has {len(left_nodes)} != {len(right_nodes)}")
                stack.extend(zip(left_nodes, right_nodes))
            elif isinstance(left, t.CSTNode) and isinstance(right, t.CSTNode):
                stack.append((left, right))
            elif isinstance(left, t.CSTNode) or isinstance(right, t.CSTNode):
                problems.append(f"{where}: {field} is {left!r} != {right!r}")
    return count, problems


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_tricky_source_parses_to_the_same_tree_both_ways(newline: str) -> None:
    count, problems = _differences(TRICKY.replace("\n", newline))
    assert count > 150
    assert not problems, problems[:5]


def test_every_fixture_and_example_parses_to_the_same_tree_both_ways() -> None:
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted(
        (ROOT / "examples").rglob("*.py")
    )
    total = 0
    for file in files:
        text = file.read_text(encoding="utf-8")
        try:
            ast.parse(text)
        except SyntaxError:
            continue  # broken on purpose, or newer grammar: only libcst reads it
        count, problems = _differences(text)
        assert not problems, (file, problems[:5])
        total += count
    assert total > 10_000


def test_every_fixture_has_the_same_facts_from_either_parser(monkeypatch) -> None:
    """Each fixture extracted through CPython's parser and through libcst's: the same
    jobs, enqueue sites, effects and positions."""
    from jobcheck.syntax import source

    files = sorted((ROOT / "tests" / "fixtures").rglob("*.py"))
    fast = {f: _facts(f) for f in files}
    monkeypatch.setattr(source.quiet, "parse", _refuse)
    for file in files:
        slow = _facts(file)
        assert slow == fast[file], file


def _refuse(text: str) -> ast.Module:
    raise SyntaxError("pretend this grammar is newer than the interpreter")


def _facts(file: Path) -> FileFacts:
    facts = extract_file(str(file), file.read_bytes(), "fixture")
    return facts


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_programs_parse_to_the_same_tree_both_ways(text: str) -> None:
    # A form feed in a line's indentation: CPython counts it in col_offset, libcst's
    # PositionProvider does not (hypothesmith found '\n\x0cpass\n'). Python resets the
    # indentation at a form feed; neither column is wrong, and no code is written so.
    assume(not any(line.lstrip(" \t").startswith("\x0c") for line in text.splitlines()))
    try:
        ast.parse(text)
        libcst.parse_module(text)
    except (SyntaxError, libcst.ParserSyntaxError, ValueError, RecursionError, MemoryError):
        return
    _, problems = _differences(text)
    assert not problems, problems[:5]


def test_grammar_newer_than_this_python_is_read_by_libcst() -> None:
    text = "type Alias = int\nx = f(1,\n  2)\n"
    module, _ = parse_source(text)
    call = module.body[1].body[0].value
    assert isinstance(call, t.Call)
    assert call.pos == (2, 5, 3, 5)


@pytest.mark.parametrize(
    "text",
    [
        "globalmatch,Aª\n",
        "xª = 1\nprint(xª.ŉ)\n",
        "def fª(aª, *, bª=1): pass\n",
        "import aª.b as cª\nfrom aª.ŉ import bª as cª, d\n",
        "class Cª(Bª): pass\n",
        "f(aª=1, **kª)\ng = lambda xª, *aª, **kª: xª\n",
        "try:\n    pass\nexcept Eª as eª:\n    pass\n",
        "def o():\n    xª = 1\n    def p():\n        nonlocal xª\n",
        'f"{aª!r:>{wª}}"\n',
        "pass\\\n;A\n",
        "pass;# note\n\n1\n",
        # Identifier characters outside ``\\w``: the middle dot (found by hypothesmith),
        # a combining accent, in names, attributes, parameters and global statements.
        "globalmatch,A·\n",
        "x = a\u0301b.c·d\n",
        "def f(é·):\n    global g·, ª\n    return é·\n",
    ],
)
def test_identifiers_cpython_normalises_and_statement_grouping(text: str) -> None:
    """Identifiers CPython's tree holds in NFKC form (``ª`` is ``a``) keep the text as
    written, and the length it has there, whatever identifier characters they hold;
    ``;`` groups statements only on one line."""
    _, problems = _differences(text)
    assert not problems, problems[:5]


GENERIC_SOURCE = """\
from celery import shared_task

import requests


def first[T](items: list[T]) -> T:
    return items[0]


class Box[T: (int, str)](dict):
    def fetch(self, url):
        return requests.get(url)


@shared_task(time_limit=60)
def refresh[K](key: K) -> None:
    Box().fetch(f"https://example.com/{key}")
    first([key])
"""


def test_generic_code_reads_the_same_through_cpython_as_through_libcst(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a Python that cannot read PEP 695 type parameters, they are blanked and
    CPython reads the file; its facts are those libcst's reading gives."""
    from jobcheck.extract.pipeline import _extract_file
    from jobcheck.syntax import source

    data = GENERIC_SOURCE.encode()
    through_python = _extract_file("m.py", data, "m", False)
    monkeypatch.setattr(source, "without_type_parameters", lambda text: None)
    through_libcst = _extract_file("m.py", data, "m", False)
    assert through_python.error is None and through_libcst.error is None
    assert repr(through_python) == repr(through_libcst)
    assert "m.refresh" in through_python.functions


def test_type_parameter_lists_are_blanked_in_place() -> None:
    from jobcheck.syntax.source import without_type_parameters

    blanked = without_type_parameters("class Box[T: (int, str)](Base):\n    pass\n")
    if sys.version_info >= (3, 12):
        assert blanked is None  # this Python reads them itself
        return
    assert blanked == "class Box               (Base):\n    pass\n"
    assert without_type_parameters("def f[\n    T,\n](x): pass\n") is None
    assert without_type_parameters("x = items[0]\n") is None
