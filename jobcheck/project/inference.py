"""astroid inference, used lazily for the few enqueue arguments names cannot decide.

``order = load_order(pk); send.delay(order)``: whether ``order`` is a record depends on
``load_order``, perhaps in another module. astroid reads the source and infers what the
call returns; it never imports or runs anything of the project (``astroid_guard``).
Modules are built only for files that have such an argument, and the cache is cleared
after each run so memory stays bounded.

Results are remembered (:class:`Memo`) with the files astroid read to reach them, so
that a run over an unchanged project (the results cache, ``jobcheck/cache.py``) asks
astroid nothing at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jobcheck.facts import Argument, EnqueueSite, FileFacts
from jobcheck.project import astroid_guard

if TYPE_CHECKING:
    from jobcheck.project.model import Project

_MAX_RESULTS = 5
# Past this many modules in astroid's cache (the standard library and dependencies it
# read), the whole cache is dropped; the project's own modules are dropped every run.
_MAX_CACHED_MODULES = 2000

_roots_used: set[str] = set()
"""Import roots of the projects astroid read during this run (nothing: it was not used)."""


@dataclass
class Memo:
    """Inference results, valid while the files astroid read keep their signatures."""

    results: dict[tuple, str | None] = field(default_factory=dict)
    files: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """Every file astroid read (absolute path) -> (mtime, size) when it was read."""
    changed: bool = False

    def still_valid(self) -> bool:
        return all(_signature(path) == signature for path, signature in self.files.items())


_memo = Memo()


def use_memo(memo: Memo | None) -> None:
    """Start a run with the results of an earlier one (when still valid), or afresh."""
    global _memo
    _memo = memo if isinstance(memo, Memo) and memo.still_valid() else Memo()
    _memo.changed = False


def current_memo() -> Memo:
    return _memo


def infer_argument_class(project: Project, f: FileFacts, argument: Argument) -> str | None:
    """The dotted path of the class ``argument`` is an instance of, if astroid can tell.

    A project may carry its own ``inference_memo`` dict (the language server keeps one
    across runs and drops a file's entries when its text changes); else the run's
    :class:`Memo` is used, which the results cache keeps between runs."""
    key = (f.path, f.module, argument.loc, argument.text)
    own = getattr(project, "inference_memo", None)
    memo = own if own is not None else _memo.results
    if key in memo:
        return memo[key]
    result = _infer(project, f, argument)
    memo[key] = result
    if own is None:
        _memo.changed = True
    return result


# Ambiguous arguments inferred ahead of the checks in one run, at most.
MAX_SPECULATIVE = 200


class _Sources:
    """What inference needs of a project, before the project model exists."""

    def __init__(self, source_of: Callable[[str], str | None]) -> None:
        self.source_of = source_of
        self.astroid_modules: dict[str, object] = {}


_speculation: _Sources | None = None
_speculated = 0


def speculate(f: FileFacts, site: EnqueueSite, source_of: Callable[[str], str | None]) -> None:
    """Infer the ambiguous arguments of one enqueue site now, ahead of the checks.

    Called while worker processes are still parsing other files: the inference that
    SCL-21 will ask for then runs on the core the waiting parent leaves idle, instead
    of after every parse. Results go to the memo the checks read."""
    global _speculation, _speculated
    for argument in site.arguments:
        if argument.kind != "ambiguous" or _speculated >= MAX_SPECULATIVE:
            continue
        if _speculation is None:
            _speculation = _Sources(source_of)
        _speculated += 1
        infer_argument_class(_speculation, f, argument)  # type: ignore[arg-type]


def _infer(project: Project, f: FileFacts, argument: Argument) -> str | None:
    try:
        import astroid
    except ImportError:  # pragma: no cover - astroid is a dependency
        return None
    source = project.source_of(f.path)
    if source is None:
        return None
    root = _import_root(f)
    if root is not None:
        _roots_used.add(root)
    try:
        with astroid_guard.sandboxed(_roots_used):
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
    """Drop the project's modules from astroid's cache, so that the next run (an editor
    session reuses the process) reads the files afresh; keep the standard library and
    dependencies unless the cache grew past its bound. Free when astroid was not used
    (``clear_cache`` would rebuild the builtins, which takes seconds)."""
    global _speculation, _speculated
    _speculation, _speculated = None, 0
    if not _roots_used:
        return
    roots = tuple(str(Path(root)) + "/" for root in _roots_used)
    _roots_used.clear()
    import astroid

    cache = astroid.MANAGER.astroid_cache
    for module in cache.values():
        path = getattr(module, "file", None)
        if path and path not in _memo.files:
            _memo.files[path] = _signature(path)
    if len(cache) > _MAX_CACHED_MODULES:
        astroid.MANAGER.clear_cache()
        return
    for name, module in list(cache.items()):
        path = getattr(module, "file", None) or ""
        if path.startswith(roots):
            del cache[name]


def forget_modules_under(folder: str) -> None:
    """Drop the modules astroid read from files under ``folder`` and keep the rest
    (builtins, the standard library, installed packages). The language server calls
    this after each run: the project's files change between runs, the others do not,
    and rebuilding them all costs about a second. Free when astroid was not used."""
    if not _roots_used:
        return
    _roots_used.clear()
    import astroid

    prefix = folder.rstrip("/") + "/"
    cache = astroid.MANAGER.astroid_cache
    for name in [
        n for n, m in cache.items() if (getattr(m, "file", None) or "").startswith(prefix)
    ]:
        del cache[name]


def _module(project: Project, f: FileFacts, source: str):  # type: ignore[no-untyped-def]
    import astroid

    cache = project.astroid_modules
    if f.path not in cache:
        cache[f.path] = astroid.MANAGER.ast_from_string(
            source, f.module, str(Path(f.path).resolve())
        )
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


def _signature(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
