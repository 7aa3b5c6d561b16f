"""libcst helpers for fixes: add or change a keyword argument, add a dictionary entry,
find or add an import, in the formatting the code already has (one line stays one line;
an argument list with one item per line gets the new item on a line of its own, with
the same indentation and trailing comma style)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import libcst as cst

from jobcheck.findings import TextEdit
from jobcheck.fixes.source import Source

Item = cst.Arg | cst.DictElement | cst.StarredDictElement


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def has_splat(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def set_keyword(
    call: cst.Call, name: str, value: cst.BaseExpression, module: cst.Module | None = None
) -> cst.Call | None:
    """``call`` with ``name=value``: the value replaced when the keyword is written there,
    else the keyword added after the last argument. None when it cannot be added safely:
    the call spreads arguments (``*args``, ``**options``) that may already pass ``name``,
    and a keyword passed twice is a TypeError when the call runs (on import, for a
    decorator). A ``**`` spread is safe only when ``module`` shows which keys it holds
    (:func:`spread_keys`) and ``name`` is not one of them."""
    existing = keyword(call, name)
    if existing is not None:
        args = [arg.with_changes(value=value) if arg is existing else arg for arg in call.args]
        return call.with_changes(args=args)
    if has_splat(call):
        spread = spread_keys(call, module)
        if spread is None or name in spread:
            return None
    new = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    return append_arg(call, new)


def spread_keys(call: cst.Call, module: cst.Module | None) -> frozenset[str] | None:
    """The keywords the ``**`` spreads of ``call`` pass, when the code shows them all;
    None when it does not, or when the call spreads positional arguments (``*args`` may
    fill the parameter a keyword names).

    A spread is known when it is a dict display with string keys, or a module-level name
    bound once to one and otherwise only spread (``**OPTS``): a name also subscripted,
    updated, imported, passed or rebound anywhere in the module may hold other keys."""
    keys: set[str] = set()
    for arg in call.args:
        if arg.star == "*":
            return None
        if arg.star != "**":
            continue
        value = arg.value
        if isinstance(value, cst.Name) and module is not None:
            value = _only_spread_dict(module, value.value)
        known = _dict_keys(value) if isinstance(value, cst.Dict) else None
        if known is None:
            return None
        keys |= known
    return frozenset(keys)


def _dict_keys(node: cst.Dict) -> frozenset[str] | None:
    keys: set[str] = set()
    for element in node.elements:
        key = string_value(element.key) if isinstance(element, cst.DictElement) else None
        if key is None:
            return None
        keys.add(key)
    return frozenset(keys)


def _only_spread_dict(module: cst.Module, name: str) -> cst.Dict | None:
    """The dict display ``name`` is bound to at the module's top level, when that is its
    only binding and every other use of it is a ``**`` spread (nothing can change it)."""
    bound: list[cst.BaseExpression] = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == name
            ):
                bound.append(small.value)
    if len(bound) != 1 or not isinstance(bound[0], cst.Dict):
        return None

    class Uses(cst.CSTVisitor):
        names = 0
        spreads = 0

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                self.names += 1

        def visit_Arg(self, node: cst.Arg) -> None:
            if node.star == "**" and isinstance(node.value, cst.Name) and node.value.value == name:
                self.spreads += 1

    uses = Uses()
    module.visit(uses)
    return bound[0] if uses.names == uses.spreads + 1 else None


def append_arg(call: cst.Call, new: cst.Arg) -> cst.Call:
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    separator = _separator(args, call.whitespace_before_args)
    if isinstance(last.comma, cst.Comma):
        closing = last.comma.whitespace_after
        last = last.with_changes(
            comma=last.comma.with_changes(whitespace_after=_to(closing, separator))
        )
        new = new.with_changes(comma=cst.Comma(whitespace_after=_without_comment(closing)))
    else:
        closing = last.whitespace_after_arg
        last = last.with_changes(
            comma=cst.Comma(whitespace_after=_to(closing, separator)),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        new = new.with_changes(whitespace_after_arg=_without_comment(closing))
    return call.with_changes(args=[*args[:-1], last, new])


def add_dict_element(
    node: cst.Dict, key: cst.BaseExpression, value: cst.BaseExpression
) -> cst.Dict:
    """``node`` with ``key: value`` added after its last entry."""
    new = cst.DictElement(
        key=key,
        value=value,
        whitespace_before_colon=cst.SimpleWhitespace(""),
        whitespace_after_colon=cst.SimpleWhitespace(" "),
    )
    elements = list(node.elements)
    if not elements:
        return node.with_changes(elements=[new])
    last = elements[-1]
    separator = _separator(elements, node.lbrace.whitespace_after)
    if isinstance(last.comma, cst.Comma):
        closing = last.comma.whitespace_after
        last = last.with_changes(
            comma=last.comma.with_changes(whitespace_after=_to(closing, separator))
        )
        new = new.with_changes(comma=cst.Comma(whitespace_after=_without_comment(closing)))
        return node.with_changes(elements=[*elements[:-1], last, new])
    closing = node.rbrace.whitespace_before
    last = last.with_changes(comma=cst.Comma(whitespace_after=_to(closing, separator)))
    return node.with_changes(
        elements=[*elements[:-1], last, new],
        rbrace=node.rbrace.with_changes(whitespace_before=_without_comment(closing)),
    )


def _separator(
    items: Sequence[Item], opening: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """The whitespace that separates two items: as between the last two, else as after
    the opening bracket (a newline and the items' indentation), else one space."""
    if len(items) >= 2 and isinstance(items[-2].comma, cst.Comma):
        return _without_comment(items[-2].comma.whitespace_after)
    if isinstance(opening, cst.ParenthesizedWhitespace):
        return _without_comment(opening)
    return cst.SimpleWhitespace(" ")


def _to(
    closing: cst.BaseParenthesizableWhitespace, separator: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """The whitespace after the old last item once another follows it: a comment on its
    line stays there; the next line is indented as the items are."""
    if isinstance(closing, cst.ParenthesizedWhitespace) and isinstance(
        separator, cst.ParenthesizedWhitespace
    ):
        return closing.with_changes(indent=separator.indent, last_line=separator.last_line)
    if isinstance(closing, cst.ParenthesizedWhitespace):
        return closing.with_changes(last_line=cst.SimpleWhitespace(""))
    return separator


def _without_comment(
    whitespace: cst.BaseParenthesizableWhitespace,
) -> cst.BaseParenthesizableWhitespace:
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return whitespace


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:
            return None
        return value if isinstance(value, str) else None
    return None


def string_like(original: cst.SimpleString, value: str) -> cst.SimpleString:
    """A string literal holding ``value`` written with ``original``'s quotes and prefix."""
    prefix = original.prefix
    quote = original.quote
    body = value.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0])
    return cst.SimpleString(f"{prefix}{quote}{body}{quote}")


def quote_of(nodes: Sequence[cst.CSTNode]) -> str:
    """The quote character the code around uses (a key or argument string), else '"'."""
    for node in nodes:
        if isinstance(node, cst.SimpleString) and node.quote in ("'", '"'):
            return node.quote
    return '"'


# -- imports -----------------------------------------------------------------------------


def imported_name(module: cst.Module, source_module: str, name: str) -> str | None:
    """How the module-level code spells ``source_module.name``: the local name of
    ``from source_module import name [as local]``, or ``alias.name`` after
    ``import source_module [as alias]``; None when neither import is there."""
    for statement in _top_imports(module):
        if isinstance(statement, cst.ImportFrom) and not statement.relative:
            if statement.module is None or _dotted(statement.module) != source_module:
                continue
            if isinstance(statement.names, cst.ImportStar):
                continue
            for alias in statement.names:
                if _dotted(alias.name) == name:
                    return _dotted(alias.asname.name) if alias.asname else name  # type: ignore[arg-type]
        elif isinstance(statement, cst.Import):
            for alias in statement.names:
                if _dotted(alias.name) == source_module:
                    local = _dotted(alias.asname.name) if alias.asname else source_module  # type: ignore[arg-type]
                    return f"{local}.{name}"
    return None


def name_is_free(module: cst.Module, name: str) -> bool:
    """Whether the module neither binds nor reads ``name`` (so an import may bind it).
    The parts of a dotted module path and an attribute's name are not the name:
    ``from django.db.transaction import atomic`` leaves ``transaction`` free."""

    class Finder(cst.CSTVisitor):
        found = False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                Finder.found = True

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name) and bound.value == name:
                        Finder.found = True
            return False

        def visit_Import(self, node: cst.Import) -> bool:
            for alias in node.names:
                bound = alias.asname.name if alias.asname else alias.name
                first = _dotted(bound).split(".")[0] if bound is not None else ""  # type: ignore[arg-type]
                if first == name:
                    Finder.found = True
            return False

    module.visit(Finder())
    return not Finder.found


def import_edit(
    source: Source, source_module: str, name: str
) -> tuple[str, TextEdit | None] | None:
    """How to spell ``source_module.name`` here, with the edit that adds
    ``from source_module import name`` when the module does not import it yet; None when
    the name is taken by something else."""
    module = source.module
    if module is None:
        return None
    spelled = imported_name(module, source_module, name)
    if spelled is not None:
        return spelled, None
    if not name_is_free(module, name):
        return None
    line, before, after = _import_place(source, source_module)
    newline = source.newline
    text = f"{before * newline}from {source_module} import {name}{newline}{after * newline}"
    return name, source.insert_line(line, text)


def _import_place(source: Source, new_module: str) -> tuple[int, bool, bool]:
    """Where ``from new_module import ...`` goes among the imports at the top of the
    module: the line to insert it before, and whether a blank line goes before or after
    it. Where isort (and Ruff) would put it when those imports are sorted (standard
    library, then third-party, then the project's own, sections apart; ``import x``
    before ``from x import``), else after the last of them."""
    statements = source.statement_lines()
    if not statements:
        return len((source.text or "").splitlines()) + 1, False, False
    imports: list[tuple[tuple[int, int, str], int, int]] = []
    line = statements[0][1]
    for index, (statement, first, last) in enumerate(statements):
        if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
            break
        small = statement.body[0]
        docstring = (
            index == 0
            and isinstance(small, cst.Expr)
            and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        )
        if not docstring and not isinstance(small, (cst.Import, cst.ImportFrom)):
            break
        if not docstring:
            imports.append((_sort_key(small), first, last))
        line = last + 1
    keys = [key for key, _, _ in imports]
    if not imports:
        return line, False, False
    wanted = (_section(new_module), 1, new_module.lower())
    grouped = _in_its_group(imports, wanted)
    if grouped is not None:
        return grouped, False, False
    if keys != sorted(keys):
        sections = [key[0] for key in keys]
        if sections != sorted(sections):
            return line, False, False  # no order to respect
        # Sections in order, names within them in some other order (isort's
        # force_sort_within_sections, a hand-kept list): last in its own section.
        earlier = [item for item in imports if item[0][0] <= wanted[0]]
        if earlier:
            key, _, last = earlier[-1]
            return last + 1, key[0] != wanted[0], False
        key, first, _ = imports[0]
        return first, False, True
    earlier = [item for item in imports if item[0] < wanted]
    if earlier:
        key, _, last = earlier[-1]
        return last + 1, key[0] != wanted[0], False
    key, first, _ = imports[0]
    return first, False, key[0] != wanted[0]


def _in_its_group(
    imports: list[tuple[tuple[int, int, str], int, int]], wanted: tuple[int, int, str]
) -> int | None:
    """The line for a new import when the imports stand in groups apart (blank lines
    between, as isort writes sections): the first group whose imports are all of the
    new one's section (third-party comes before the project's own, which jobcheck
    cannot tell from third-party by name), at its place in the group's order, else at
    the group's end. None when the imports are one block or no group fits."""
    groups: list[list[tuple[tuple[int, int, str], int, int]]] = []
    previous = None
    for item in imports:
        if previous is None or item[1] > previous + 1:
            groups.append([])
        groups[-1].append(item)
        previous = item[2]
    if len(groups) < 2:
        return None
    group = next((g for g in groups if all(key[0] == wanted[0] for key, _, _ in g)), None)
    if group is None:
        return None
    keys = [key for key, _, _ in group]
    if keys == sorted(keys):
        later = [item for item in group if item[0] > wanted]
        if later:
            return later[0][1]
    return group[-1][2] + 1


def _section(module: str) -> int:
    top = module.split(".")[0]
    if top == "__future__":
        return 0
    if top in sys.stdlib_module_names:
        return 1
    return 2


def _sort_key(statement: cst.Import | cst.ImportFrom) -> tuple[int, int, str]:
    if isinstance(statement, cst.ImportFrom):
        if statement.relative:
            return (3, 1, "." * len(statement.relative) + (_dotted(statement.module) or ""))
        name = _dotted(statement.module) or ""
        return (_section(name), 1, name.lower())
    name = _dotted(statement.names[0].name) or ""
    return (_section(name), 0, name.lower())


def _top_imports(module: cst.Module) -> list[cst.Import | cst.ImportFrom]:
    found: list[cst.Import | cst.ImportFrom] = []
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            found.extend(s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))
    return found


def _dotted(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


def dotted(node: cst.BaseExpression | None) -> str | None:
    return _dotted(node)
