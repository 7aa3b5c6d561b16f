"""The facts of one definition of a file, without the rest of the file.

A call summary (``jobcheck/project/summaries.py``) follows a job into the helpers it
calls, often into modules no check needs whole (a ``models.py`` of 2,000 lines for one
method). Building jobcheck's tree costs about four times CPython's parse, and walking it
as much again, so only the part is built and walked:

- CPython's parser reads the module once per file (:class:`Outline`); each part asked
  of the same file reuses it;
- the definition is kept with the imports that bind a name it uses (and those of job
  systems, web frameworks and clients, which some facts read) and the module statements
  it depends on; the rest of the module is left out of the tree (positions are the
  file's own: the statements kept are the file's);
- the names the module defines are handed to the walker, so a call to a module-local
  function stays qualified (``pkg.mod.helper``) and the summary can follow it.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from jobcheck.syntax import from_ast, quiet
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.syntax.source import python_tree_of
from jobcheck.vocabulary.libraries import THIRD_PARTY_ROOTS

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Physical lines as Python's tokenizer counts them (str.splitlines also splits at form
# feeds and other separators the tokenizer reads as ordinary characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True)
class _Statement:
    """A top-level statement of the file, by its place (its tree is not kept)."""

    first: int
    """Its first line (its first decorator's)."""
    last: int
    line: int
    column: int
    """Where CPython's tree places it (``lineno``, ``col_offset``): to find it again
    among the statements a line holds."""


class Outline:
    """A file's statements, read once with CPython's parser, from which parts are cut.

    Only the statements' places are kept, with the file's text, and the trees of the
    definitions parts were cut from: a part's other statements are parsed again from
    their lines when asked (the trees of the two hundred helper files a large
    project's jobs reach are 70 MB, their text 2 MB). The first parts asked use the
    tree the outline was read from."""

    def __init__(self, data: bytes) -> None:
        """Raises ``SourceError``, ``SyntaxError``, ``ValueError``, ``RecursionError`` or
        ``MemoryError`` when the file cannot be outlined (the caller reads it whole)."""
        self.data = data
        # Type parameter lists blanked where this Python cannot read them (PEP 695).
        tree, text = python_tree_of(decode(data))
        self.text = text
        self.lines = from_ast.SourceLines(text)
        """Its lines, split once for every part converted (``from_ast.convert``)."""
        self.suppressions: dict[int, frozenset[str] | None] | None = None
        """The file's suppression comments, read with its first part."""
        self._lines = _LINE.findall(text)
        self.defined = frozenset(_module_names(tree.body))
        self._statements = [_place(s) for s in tree.body]
        self._fresh: list[ast.stmt] | None = tree.body
        """The statements as parsed, until the first part is cut from them."""
        imports = [i for i, s in enumerate(tree.body) if _only_imports(s)]
        self._asked: dict[int, ast.stmt] = {i: tree.body[i] for i in imports}
        """The trees of the definitions parts were cut from, and of the imports (small,
        and kept by most parts: not parsed again at each level)."""
        self._imports = [
            (i, frozenset(_import_names(tree.body[i])), _imports_framework(tree.body[i]))
            for i in imports
        ]
        self._simple = [
            (i, frozenset(_module_names([s])), self._names_in([s]))
            for i, s in enumerate(tree.body)
            if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            or (isinstance(s, ast.Expr) and not isinstance(s.value, ast.Constant))
        ]
        self._definitions = [
            (s.name, i) for i, s in enumerate(tree.body) if isinstance(s, _DEFINITIONS)
        ]

    def reduced(self, names: frozenset[str], methods: frozenset[str] | None) -> ast.Module:
        """The module of the definitions ``names`` (of a class, when ``methods`` is
        given, its header, class-level statements and those methods), with the imports
        and module statements they use: the file's own statements, at their own lines,
        the others left out."""
        statements = self._fresh
        self._fresh = None
        wanted = [i for name, i in self._definitions if name in names]
        read = {i: self._definition(i, statements) for i in wanted}
        chosen = {
            i: _class_part(s, methods) if isinstance(s, ast.ClassDef) else s
            for i, s in read.items()
        }
        used = set(self._names_in(chosen.values()))
        kept = set(chosen)
        kept.update(self._module_statements(names, used))
        for i, bound, framework in self._imports:
            if framework or "*" in bound or not bound.isdisjoint(used):
                kept.add(i)
        body = [chosen.get(i) or self._statement(i, statements) for i in sorted(kept)]
        return ast.Module(body=body, type_ignores=[])

    def _definition(self, index: int, statements: list[ast.stmt] | None) -> ast.stmt:
        """A definition asked for, kept once read: the levels of a summary ask the
        same class again for other methods."""
        found = self._asked.get(index)
        if found is None:
            found = self._asked[index] = self._statement(index, statements)
        return found

    def _statement(self, index: int, statements: list[ast.stmt] | None) -> ast.stmt:
        """The top-level statement ``index``: from the tree read whole, or parsed again
        from its lines (same lines and columns)."""
        if statements is not None:
            return statements[index]
        kept = self._asked.get(index)
        if kept is not None:
            return kept
        place = self._statements[index]
        # Blank lines before it put it at its own lines (the tokenizer skips them at
        # once; renumbering the tree afterwards walks every node).
        source = "\n" * (place.first - 1) + "".join(self._lines[place.first - 1 : place.last])
        try:
            parsed = quiet.parse(source).body
        except (SyntaxError, ValueError):
            parsed = []
        found = next(
            (s for s in parsed if (s.lineno, s.col_offset) == (place.line, place.column)),
            None,
        )
        # Its lines alone not read as the statement (never seen): the whole file again.
        return found if found is not None else quiet.parse(self.text).body[index]

    def _names_in(self, statements: Iterable[ast.stmt]) -> frozenset[str]:
        """Every identifier written in the statements' lines (a superset of the names
        they use: attribute names, words in strings such as ``"models.Order"``
        annotations), read from the text rather than by walking the tree."""
        found: set[str] = set()
        for statement in statements:
            if isinstance(statement, ast.ClassDef) and statement.body:
                # A class part: its header and the members kept, not the whole class.
                found.update(_WORD.findall(self._text_of(statement, statement.body[0])))
                for member in statement.body:
                    found.update(_WORD.findall(self._text_of(member)))
            else:
                found.update(_WORD.findall(self._text_of(statement)))
        return frozenset(found)

    def _text_of(self, statement: ast.stmt, until: ast.stmt | None = None) -> str:
        first = _first_line(statement) - 1
        last = (
            (_first_line(until) - 1) if until is not None else (statement.end_lineno or first + 1)
        )
        return "".join(self._lines[first:last])

    def _module_statements(self, names: frozenset[str], used: set[str]) -> list[int]:
        """The module-level statements that name the part (``app.add_url_rule(...,
        view)``, ``routes = [Route(..., endpoint=view)]`` make it a view), the
        assignments of the names used (``client = httpx.Client()``, ``app =
        Flask(...)``: what a call or decorator means depends on them), and of the names
        those use, and so on."""
        kept: list[int] = []
        waiting = []
        for entry in self._simple:
            index, _, uses = entry
            if not uses.isdisjoint(names):
                kept.append(index)
                used.update(uses)
            else:
                waiting.append(entry)
        grew = True
        while grew:
            grew = False
            for entry in list(waiting):
                index, bound, uses = entry
                if not bound.isdisjoint(used):
                    kept.append(index)
                    used.update(uses)
                    waiting.remove(entry)
                    grew = True
        return kept


def _place(statement: ast.stmt) -> _Statement:
    last = statement.end_lineno or statement.lineno
    return _Statement(_first_line(statement), last, statement.lineno, statement.col_offset)


def outline(data: bytes) -> Outline | None:
    """The outline of a file, or None when CPython cannot read it."""
    try:
        return Outline(data)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


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


def _class_part(node: ast.ClassDef, methods: frozenset[str] | None) -> ast.ClassDef:
    """A class whole, or (``methods`` given) with its class-level statements and those
    methods only."""
    if methods is None:
        return node
    body = [
        statement
        for statement in node.body
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        or statement.name in methods
    ]
    if not body:
        return node
    part = copy.copy(node)
    part.body = body
    return part
