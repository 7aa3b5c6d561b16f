"""Copies of one project in one tree: each is checked as a project of its own.

Module names come from the package layout, relative to each file's import root (the
folder above its outermost package). A monorepo that vendors a service twice, or a
tree holding ``a/saleor`` and ``b/saleor``, gives two files the name
``saleor.celeryconf``; one project model would keep one of them, and every finding
that depends on the other copy's facts would be lost.

So files are grouped by import root, and two roots that define the same top-level
package are copies: they go to different units. Every other root (a shared library,
scripts) joins every unit, as each copy may import it. With no copies, which is the
common case, there is one unit: the whole tree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from jobcheck.facts import FileFacts
from jobcheck.project.lazy import ModuleLoader


@dataclass
class Unit:
    """The files of one project model."""

    facts: list[FileFacts]
    loader: ModuleLoader | None
    roots: frozenset[str]


def import_root(path: str, module: str) -> str:
    """The folder a file's module name is relative to (``a/shop/orders/tasks.py``,
    ``orders.tasks`` -> ``a/shop``)."""
    folder = os.path.dirname(os.path.normpath(path))
    depth = module.count(".") if module else 0
    if os.path.basename(path) == "__init__.py":
        depth += 1
    for _ in range(depth):
        folder = os.path.dirname(folder)
    return folder


def split_copies(facts: list[FileFacts], loader: ModuleLoader | None) -> list[Unit]:
    """The units to check (one, unless the tree holds copies of a project)."""
    modules: dict[str, set[str]] = {}  # root -> modules
    root_of: dict[str, str] = {}  # path -> root
    for f in facts:
        root_of[f.path] = root = import_root(f.path, f.module)
        modules.setdefault(root, set()).add(f.module)
    for module, paths in (loader.modules() if loader is not None else {}).items():
        for path in paths:
            root_of[path] = root = import_root(path, module)
            modules.setdefault(root, set()).add(module)
    _attach_other_files(facts, root_of, modules)
    groups = _colour(modules)
    if len(groups) <= 1:
        return [Unit(facts, loader, frozenset(modules))]
    units = []
    for roots in groups:
        members = frozenset(roots)

        def inside(path: str, members: frozenset[str] = members) -> bool:
            return root_of.get(path, import_root(path, "")) in members

        units.append(
            Unit(
                [f for f in facts if inside(f.path)],
                loader.restricted(inside) if loader is not None else None,
                members,
            )
        )
    return units


def _attach_other_files(
    facts: list[FileFacts], root_of: dict[str, str], modules: dict[str, set[str]]
) -> None:
    """A file that is not Python (a script, a manifest, a Procfile) belongs to the copy
    whose import root holds it (``first/bin/worker.sh`` to ``first``), not to every
    copy: the nearest enclosing root of Python modules, if one holds it."""
    python_roots = {root for root, names in modules.items() if names - {""}}
    for f in facts:
        if f.module:
            continue
        folder = root_of[f.path]
        while folder and folder not in python_roots:
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        if folder in python_roots and folder != root_of[f.path]:
            modules.get(root_of[f.path], set()).discard("")
            if not modules.get(root_of[f.path]):
                modules.pop(root_of[f.path], None)
            root_of[f.path] = folder
            modules[folder].add("")


def _packages(names: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in names if "." in name}


def _colour(modules: dict[str, set[str]]) -> list[set[str]]:
    """Roots in groups such that no group holds two roots defining the same top-level
    package; roots that clash with none are in every group."""
    packages = {root: _packages(names) for root, names in modules.items()}
    clashing = {
        root
        for root in packages
        for other in packages
        if other != root and packages[root] & packages[other]
    }
    shared = set(packages) - clashing
    groups: list[set[str]] = []
    for root in sorted(clashing):
        for group in groups:
            if not any(packages[root] & packages[member] for member in group):
                group.add(root)
                break
        else:
            groups.append({root})
    if not groups:
        return [set(packages)]
    for group in groups:
        group |= shared
    return groups
