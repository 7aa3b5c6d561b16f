"""astroid inference, used lazily for the few enqueue arguments names cannot decide.

``order = load_order(pk); send.delay(order)``: whether ``order`` is a record depends on
``load_order``, perhaps in another module. astroid reads the source (it never imports or
runs it) and infers what the call returns. Modules are built only for files that have
such an argument, and the cache is cleared after each run so memory stays bounded.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from jobcheck.facts import Argument, FileFacts

if TYPE_CHECKING:
    from jobcheck.project.model import Project

_MAX_RESULTS = 5
_used = False
"""Whether astroid built anything since the last :func:`clear`."""


def infer_argument_class(project: Project, f: FileFacts, argument: Argument) -> str | None:
    """The dotted path of the class ``argument`` is an instance of, if astroid can tell.

    A project may carry an ``inference_memo`` dict (the language server keeps one across
    runs and drops a file's entries when its text changes, all of them when files on
    disk change): answers are looked up there first."""
    memo = getattr(project, "inference_memo", None)
    key = (f.path, argument.loc, argument.text)
    if memo is not None and key in memo:
        return memo[key]
    found = _infer_argument_class(project, f, argument)
    if memo is not None:
        memo[key] = found
    return found


def _infer_argument_class(project: Project, f: FileFacts, argument: Argument) -> str | None:
    try:
        import astroid
    except ImportError:  # pragma: no cover - astroid is a dependency
        return None
    source = project.source_of(f.path)
    if source is None:
        return None
    global _used
    _used = True
    root = _import_root(f)
    try:
        with _on_sys_path(root):
            module = _module(project, f, source)
            node = _name_at(module, argument.loc.line, argument.loc.column - 1)
            if node is None:
                return None
            for index, inferred in enumerate(node.infer()):
                if index >= _MAX_RESULTS:
                    break
                if isinstance(inferred, astroid.Instance):
                    return inferred.qname()
    except Exception:  # astroid failing on odd code must never cost the user their run
        return None
    return None


def clear() -> None:
    """Drop every module astroid built during this run."""
    global _used
    if not _used:
        return  # clear_cache() rebuilds the builtins module: about a second, for nothing
    _used = False
    try:
        import astroid
    except ImportError:  # pragma: no cover
        return
    astroid.MANAGER.clear_cache()


def forget_modules_under(folder: str) -> None:
    """Drop the modules astroid read from files under ``folder`` and keep the rest
    (builtins, the standard library, installed packages). The language server calls
    this after each run: the project's files change between runs, the others do not,
    and rebuilding them all (``clear``) costs about a second."""
    global _used
    if not _used:
        return
    _used = False
    try:
        import astroid
    except ImportError:  # pragma: no cover
        return
    prefix = folder.rstrip("/") + "/"
    cache = astroid.MANAGER.astroid_cache
    for name in [n for n, m in cache.items() if (m.file or "").startswith(prefix)]:
        del cache[name]


def _module(project: Project, f: FileFacts, source: str):  # type: ignore[no-untyped-def]
    import astroid

    cache = project.astroid_modules
    if f.path not in cache:
        cache[f.path] = astroid.MANAGER.ast_from_string(source, f.module, str(Path(f.path)))
    return cache[f.path]


def _name_at(module, line: int, column: int):  # type: ignore[no-untyped-def]
    import astroid

    for node in _walk(module):
        if (
            isinstance(node, (astroid.nodes.Name, astroid.nodes.Attribute, astroid.nodes.Call))
            and node.lineno == line
            and node.col_offset == column
        ):
            return node
    return None


def _walk(node) -> Iterator:  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.get_children())


def _import_root(f: FileFacts) -> str | None:
    path = Path(f.path).resolve()
    parts = f.module.split(".") if f.module else []
    depth = len(parts) if path.name != "__init__.py" else len(parts) + 1
    root = path
    for _ in range(depth):
        root = root.parent
    return str(root)


@contextlib.contextmanager
def _on_sys_path(root: str | None) -> Iterator[None]:
    # astroid finds the project's modules through sys.path; it reads them as text.
    added = root is not None and root not in sys.path
    if added:
        sys.path.append(root)  # type: ignore[arg-type]
    try:
        yield
    finally:
        if added:
            sys.path.remove(root)  # type: ignore[arg-type]
