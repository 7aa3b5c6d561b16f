"""The fast position index must give exactly libcst's ``PositionProvider`` ranges."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from jobcheck.syntax.positions import ANCHOR_TYPES, Positions
from jobcheck.syntax.source import parse
from jobcheck.syntax.walk import children

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


def _compare(text: str) -> tuple[int, list[str]]:
    module = parse(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = Positions(module, text)
    problems: list[str] = []
    count = 0

    def visit(node: cst.CSTNode, top: cst.CSTNode, anchors: list[cst.CSTNode]) -> None:
        nonlocal count
        anchor = type(node) in ANCHOR_TYPES
        if anchor:
            anchors.append(node)
        wanted = expected.get(node)
        if wanted is not None:
            count += 1
            loc = positions.loc(node, top, anchors)
            got = (loc.line, loc.column, loc.end_line, loc.end_column)
            want = (
                wanted.start.line,
                wanted.start.column + 1,
                wanted.end.line,
                wanted.end.column + 1,
            )
            if got != want:
                problems.append(f"{type(node).__name__}: {got} != {want}")
        for child in children(node):
            visit(child, top, anchors)
        if anchor:
            anchors.pop()

    for statement in module.body:
        visit(statement, statement, [])
    return count, problems


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_tricky_source_positions_match_libcst(newline: str) -> None:
    count, problems = _compare(TRICKY.replace("\n", newline))
    assert count > 150
    assert not problems, problems[:5]


def test_fixture_and_example_positions_match_libcst() -> None:
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted(
        (ROOT / "examples").rglob("*.py")
    )
    total = 0
    for file in files:
        count, problems = _compare(file.read_text(encoding="utf-8"))
        assert not problems, (file, problems[:5])
        total += count
    assert total > 1000


def test_fast_path_places_statement_headers_without_fallback() -> None:
    module = parse(TRICKY)
    positions = Positions(module, TRICKY)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    decorator = function.decorators[0].decorator
    loc = positions.loc(decorator, function, [function])
    assert (loc.line, loc.column) == (6, 2)
    assert positions.slow_placements == 0


def test_syntax_newer_than_this_python_falls_back_to_exact_positions() -> None:
    text = "type Alias = int\nx = 1\n"  # PEP 695: ast.parse fails before Python 3.12
    count, problems = _compare(text)
    assert count and not problems
