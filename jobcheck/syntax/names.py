"""Resolving names through a file's imports to dotted paths.

``from celery import shared_task as st`` makes ``st`` mean ``celery.shared_task``;
``from .tasks import send`` in ``shop/views.py`` makes ``send`` mean ``shop.tasks.send``.
This small table replaces libcst's ``QualifiedNameProvider``, which costs several times
the parse and does not resolve relative imports.
"""

from __future__ import annotations

from jobcheck.syntax import tree as cst


def dotted(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def module_of_import(node: cst.ImportFrom, module: str, is_package: bool) -> str | None:
    """The absolute module an ``ImportFrom`` reads from."""
    base = dotted(node.module) if node.module is not None else None
    level = len(node.relative)
    if level == 0:
        return base
    package_parts = module.split(".") if module else []
    if not is_package:
        package_parts = package_parts[:-1]
    if level > 1:
        package_parts = package_parts[: len(package_parts) - (level - 1)]
    parts = [*package_parts, *([base] if base else [])]
    return ".".join(parts) if parts else None


class Names:
    """The import and definition table of one module."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.aliases: dict[str, str] = {}
        self.defined: set[str] = set()
        self.imported_roots: set[str] = set()
        self.tree: cst.Module | None = None
        """The module's tree (for the text of a node, where only names are at hand)."""

    def add_import(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted(alias.name)
                if full is None:
                    continue
                self.imported_roots.add(full.split(".")[0])
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.aliases[alias.asname.name.value] = full
                else:
                    head = full.split(".")[0]
                    self.aliases.setdefault(head, head)
            return
        source = module_of_import(node, self.module, self.is_package)
        if source is None:
            return
        self.imported_roots.add(source.split(".")[0])
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{source}.{name}"

    def define(self, name: str) -> None:
        """A module-level definition (def, class or assignment)."""
        if name not in self.aliases:
            self.defined.add(name)

    def resolve(self, name: str) -> str:
        """The dotted path a dotted name written in this module stands for."""
        head, _, rest = name.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
        elif head in self.defined and self.module:
            base = f"{self.module}.{head}"
        else:
            return name
        return f"{base}.{rest}" if rest else base

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        name = dotted(expr)
        return self.resolve(name) if name is not None else None

    def local(self, name: str) -> str:
        return f"{self.module}.{name}" if self.module else name
