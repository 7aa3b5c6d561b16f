"""astroid with every way of running the analysed project's code shut.

astroid reads source as text, but it can also import: a C extension it finds is loaded
when its name is a standard-library one (``AstroidManager._can_load_extension``,
astroid/manager.py), the gi brain ``__import__``s ``gi.repository`` modules to inspect
them (astroid/brain/brain_gi.py, ``_import_gi_module``), and the stdlib-frozen probe
calls ``importlib.util.find_spec``, which imports parent packages
(astroid/interpreter/_import/spec.py, ``ImportlibFinder.find_module``). jobcheck runs on
strangers' pull requests, so while astroid works:

- no extension module is ever loaded (astroid builds an empty stub instead);
- brains that import modules are switched off;
- ``sys.path`` holds neither the current folder nor the project's import roots: the
  project's modules are found by :class:`ProjectModules` and built from their text;
- an audit hook refuses every import that is not of astroid's own modules or of the
  standard library (which, with ``sys.path`` cleaned, is the interpreter's own);
- astroid opens only regular files of a bounded size (a symbolic link to
  ``/dev/zero`` or a FIFO named ``models.py`` would otherwise hang it).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

MAX_SOURCE_BYTES = 4 * 1024 * 1024
"""Larger files are not read by astroid (inference gives up on what they define)."""

# Brains whose failed-import hooks import real modules to inspect them.
_IMPORTING_HOOK_MODULES = ("astroid.brain.brain_gi",)

_state = threading.local()
_configured = False
_lock = threading.Lock()


class RefusedImport(ImportError):
    """An import attempted while astroid analysed the project."""


def configure() -> None:
    """Shut astroid's ways of running code, once per process."""
    global _configured
    with _lock:
        if _configured:
            return
        import astroid
        import astroid.builder
        import astroid.interpreter._import.spec as spec
        import astroid.nodes.scoped_nodes.scoped_nodes as scoped_nodes

        manager = astroid.MANAGER
        manager.always_load_extensions = False
        manager.extension_package_whitelist = set()
        # An instance attribute shadows the method: no C extension is ever loaded.
        manager._can_load_extension = _never  # type: ignore[method-assign]
        hooks = manager._failed_import_hooks
        hooks[:] = [h for h in hooks if getattr(h, "__module__", "") not in _IMPORTING_HOOK_MODULES]
        hooks.append(_project_module_hook)
        for module in (astroid.builder, spec, scoped_nodes):
            module.open = safe_open  # type: ignore[attr-defined]
        sys.addaudithook(_audit)
        _configured = True


def _never(modname: str) -> bool:
    return False


@contextlib.contextmanager
def sandboxed(roots: Iterable[str]) -> Iterator[None]:
    """Run astroid inference over a project under ``roots`` (its import roots): imports
    refused, ``sys.path`` cleaned, the project's modules built from their text."""
    configure()
    previous_roots = getattr(_state, "roots", None)
    previous_active = getattr(_state, "active", False)
    _state.roots = tuple(dict.fromkeys(str(Path(r)) for r in roots))
    saved_path = list(sys.path)
    sys.path[:] = _clean_path(saved_path, _state.roots)
    _state.active = True
    try:
        yield
    finally:
        _state.active = previous_active
        _state.roots = previous_roots
        sys.path[:] = saved_path


def _clean_path(path: list[str], roots: tuple[str, ...]) -> list[str]:
    """``sys.path`` without the current folder (``""``, which astroid's ``chdir`` into
    the project would point there) and without the analysed import roots. Folders
    inside a root stay: a virtualenv there is the user's own installation."""
    excluded = {os.getcwd(), *(os.path.abspath(root) for root in roots)}
    return [e for e in path if e not in ("", ".") and os.path.abspath(e) not in excluded]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "import" or not getattr(_state, "active", False):
        return
    name = args[0]
    if not isinstance(name, str):
        raise RefusedImport("jobcheck: import refused while analysing a project")
    top = name.partition(".")[0]
    if top == "astroid" or top in sys.stdlib_module_names:
        return
    raise RefusedImport(f"jobcheck: import of {name!r} refused while analysing a project")


def _project_module_hook(modname: str) -> Any:
    """A module of the analysed project, built from its source (astroid calls this when
    the module is not on the cleaned ``sys.path``)."""
    from astroid.exceptions import AstroidBuildingError

    roots = getattr(_state, "roots", None) or ()
    parts = modname.split(".")
    if not all(part.isidentifier() for part in parts):
        raise AstroidBuildingError(modname=modname)
    for root in roots:
        for candidate in (
            Path(root, *parts).with_suffix(".py"),
            Path(root, *parts, "__init__.py"),
        ):
            source = read_source(candidate)
            if source is not None:
                import astroid

                return astroid.MANAGER.ast_from_string(source, modname, str(candidate))
    raise AstroidBuildingError(modname=modname)


def read_source(path: Path | str) -> str | None:
    """The text of a regular file of at most :data:`MAX_SOURCE_BYTES` (None otherwise)."""
    try:
        with safe_open(os.fspath(path), "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    from jobcheck.syntax.decoding import SourceError, decode

    try:
        return decode(data)
    except SourceError:
        return None


def safe_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:
    """``open`` for astroid: regular files of a bounded size only, opened without
    blocking (a FIFO would block an ordinary ``open`` until a writer comes)."""
    if not isinstance(file, (str, bytes, os.PathLike)) or any(c in mode for c in "wax+"):
        raise PermissionError("jobcheck: astroid may only read files")
    descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{os.fsdecode(file)}: not a regular file")
        if info.st_size > MAX_SOURCE_BYTES:
            raise OSError(f"{os.fsdecode(file)}: larger than {MAX_SOURCE_BYTES} bytes")
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return open(descriptor, mode, *args, **kwargs)
    except BaseException:
        os.close(descriptor)
        raise
