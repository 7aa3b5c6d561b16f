"""The facts of one definition of a file, without the rest of the file.

A call summary (``jobcheck/project/summaries.py``) follows a job into the helpers it
calls, often into modules no check needs whole (a ``models.py`` of 2,000 lines for one
method). libcst parses about 40 µs a line, empty lines included, so the part is cut
from the file before libcst sees it:

- CPython's parser (about a tenth of libcst's cost) finds the module's statements once
  per file (:class:`Outline`); each part asked of the same file reuses it;
- the definition is kept with the imports that bind a name it uses (and those of job
  systems, web frameworks and clients, which some facts read); every other line is
  emptied (line numbers hold, so positions are the file's own), and a run of dropped
  statements becomes one string statement spanning its lines, which libcst reads as
  one token;
- the names the module defines are handed to the walker, so a call to a module-local
  function stays qualified (``pkg.mod.helper``) and the summary can follow it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator

from jobcheck.syntax import quiet
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.vocabulary.libraries import THIRD_PARTY_ROOTS

# Physical lines as Python's tokenizer counts them (str.splitlines also splits at form
# feeds and other separators the tokenizer reads as ordinary characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Outline:
    """A file's statements, read once with CPython's parser, from which parts are cut."""

    def __init__(self, data: bytes) -> None:
        """Raises ``SourceError``, ``SyntaxError``, ``ValueError``, ``RecursionError`` or
        ``MemoryError`` when the file cannot be outlined (the caller reads it whole)."""
        self.data = data
        text = decode(data)
        self.tree = quiet.parse(text)
        self.lines = _LINE.findall(text)
        self.defined = frozenset(_module_names(self.tree.body))
        self._imports = [s for s in self.tree.body if _only_imports(s)]
        self._simple = [
            (s, frozenset(_module_names([s])), _used_names([s]))
            for s in self.tree.body
            if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr))
        ]
        self._bound = [frozenset(_import_names(s)) for s in self._imports]
        self._framework = [_imports_framework(s) for s in self._imports]

    def reduced(self, names: frozenset[str], methods: frozenset[str] | None) -> bytes:
        """The text of the definitions ``names`` (of a class, when ``methods`` is given,
        its header, class-level statements and those methods), with the imports they
        use; every other line emptied."""
        kept = [False] * len(self.lines)

        def keep(node: ast.stmt) -> None:
            for index in range(_first_line(node) - 1, node.end_lineno or node.lineno):
                kept[index] = True

        dropped: list[ast.stmt] = []
        chosen: list[ast.stmt] = []
        for statement in self.tree.body:
            if isinstance(statement, _DEFINITIONS) and statement.name in names:
                chosen.append(statement)
                if isinstance(statement, ast.ClassDef):
                    dropped.extend(_keep_class_part(statement, keep, kept, methods))
                else:
                    keep(statement)
        used = set(_used_names(chosen))
        self._keep_module_statements(names, used, keep)
        for statement, bound, framework in zip(self._imports, self._bound, self._framework):
            if framework or "*" in bound or not bound.isdisjoint(used):
                keep(statement)
        dropped.extend(s for s in self.tree.body if not kept[_first_line(s) - 1])
        return _blanked(self.lines, kept, dropped).encode("utf-8")

    def _keep_module_statements(
        self, names: frozenset[str], used: set[str], keep: Callable[[ast.stmt], None]
    ) -> None:
        """Keep the module-level statements that name the part (``app.add_url_rule(...,
        view)``, ``routes = [Route(..., endpoint=view)]`` make it a view), the
        assignments of the names used (``client = httpx.Client()``, ``app =
        Flask(...)``: what a call or decorator means depends on them), and of the names
        those use, and so on."""
        waiting = []
        for entry in self._simple:
            statement, _, uses = entry
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            if not uses.isdisjoint(names):
                keep(statement)
                used.update(uses)
            else:
                waiting.append(entry)
        grew = True
        while grew:
            grew = False
            for entry in list(waiting):
                statement, bound, uses = entry
                if not bound.isdisjoint(used):
                    keep(statement)
                    used.update(uses)
                    waiting.remove(entry)
                    grew = True


def outline(data: bytes) -> Outline | None:
    """The outline of a file, or None when CPython cannot read it."""
    try:
        return Outline(data)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _used_names(statements: Iterable[ast.stmt]) -> frozenset[str]:
    """Every identifier the statements mention, and the heads of dotted names written in
    strings (``"Order"``, ``"models.Order"`` annotations)."""
    used: set[str] = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.update(re.findall(r"(?<![\w.])[A-Za-z_]\w*", node.value))
    return frozenset(used)


def _import_names(statement: ast.stmt) -> Iterator[str]:
    for node in ast.walk(statement):
        if isinstance(node, ast.alias):
            if node.name == "*":
                yield "*"
            else:
                yield node.asname or node.name.partition(".")[0]


def _imports_framework(statement: ast.stmt) -> bool:
    """An import of a job system, web framework or client library: the walker reads some
    facts from what the file imports, used by name or not (a function taking ``request``
    in a module importing Django is a view)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Import):
            roots = [alias.name.partition(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots = [node.module.partition(".")[0]]
        else:
            continue
        if any(root in THIRD_PARTY_ROOTS for root in roots):
            return True
    return False


def _module_names(body: list[ast.stmt]) -> Iterator[str]:
    """The names a module's statements bind (as the walker's prepass finds them, in
    ``if``/``try`` blocks too)."""
    for statement in body:
        if isinstance(statement, _DEFINITIONS):
            yield statement.name
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(statement, (ast.If, ast.Try)):
            yield from _module_names(statement.body)
            yield from _module_names(statement.orelse)
            for handler in getattr(statement, "handlers", ()):
                yield from _module_names(handler.body)


def _only_imports(statement: ast.stmt) -> bool:
    """An import, or an ``if``/``try`` of imports only (``if TYPE_CHECKING:``, ``try:
    import x`` with its fallback)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, ast.If):
        blocks = [statement.body, statement.orelse]
    elif isinstance(statement, ast.Try):
        blocks = [statement.body, statement.orelse, statement.finalbody]
        blocks += [handler.body for handler in statement.handlers]
    else:
        return False
    inner = [s for block in blocks for s in block]
    return all(isinstance(s, ast.Pass) or _only_imports(s) for s in inner)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


def _keep_class_part(
    node: ast.ClassDef,
    keep: Callable[[ast.stmt], None],
    kept: list[bool],
    methods: frozenset[str] | None,
) -> list[ast.stmt]:
    """Keep a class whole, or (``methods`` given) its header, its class-level statements
    and those methods only; the statements dropped."""
    body = node.body
    if methods is None or not body or _first_line(body[0]) == node.lineno:
        keep(node)
        return []
    for index in range(_first_line(node) - 1, _first_line(body[0]) - 1):
        kept[index] = True
    dropped: list[ast.stmt] = []
    for statement in body:
        is_method = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        if not is_method or statement.name in methods:
            keep(statement)
        else:
            dropped.append(statement)
    if len(dropped) == len(body):
        keep(node)  # an empty body would not parse
        return []
    return dropped


def _blanked(lines: list[str], kept: list[bool], dropped: list[ast.stmt]) -> str:
    """The text with every line not ``kept`` emptied, line numbers unchanged; a run of
    dropped statements becomes one string statement spanning the same lines, at the
    indentation of the first statement dropped in it (3,000 empty lines cost libcst
    18 ms, one string of as many lines almost nothing)."""
    starts = {_first_line(statement) - 1 for statement in dropped}
    out = [line if keep else _ending(line) for line, keep in zip(lines, kept)]
    index = 0
    while index < len(lines):
        if kept[index]:
            index += 1
            continue
        end = index
        while end + 1 < len(lines) and not kept[end + 1]:
            end += 1
        first = next((i for i in range(index, end + 1) if i in starts), None)
        if first is not None and end > first:
            line = lines[first]
            indent = line[: len(line) - len(line.lstrip(" \t\f"))]
            out[first] = indent + '"""' + _ending(line)
            out[end] = '"""' + _ending(lines[end])
        index = end + 1
    return "".join(out)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]
