"""The project code a scheduled command runs: a Kubernetes CronJob's container or a
crontab line is a job whose body is the code its command line starts.

- ``python manage.py sync_orders`` (or ``django-admin sync_orders``): Django runs the
  ``Command`` class of ``<app>/management/commands/sync_orders.py``, its ``handle``
  (django/core/management/base.py ``BaseCommand.execute`` calls ``self.handle``);
- ``python -m shop.reports.daily`` and ``python scripts/backup.py``: the module run as
  ``__main__``, whose conventional entry point is its ``main()`` function.

Wrappers before the program (``cd /app &&``, ``flock -n lock``, ``timeout 10m``,
``sh -c "..."``, ``exec``, ``env X=1``) are read through. What a command starts that the
project does not define (``celery call``, ``/app/bin/backup``) maps to nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator

_SEPARATORS = re.compile(r"&&|\|\||;|\|")
_PYTHON = re.compile(r"(?:.*/)?python(?:\d+(?:\.\d+)*)?")
# Programs that run what follows them (with options of their own before it).
_WRAPPERS = frozenset(
    {"timeout", "flock", "run-one", "nice", "ionice", "exec", "env", "chronic", "lckdo"}
)
_SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/env"})
MANAGE_COMMAND = "{module}.Command.handle"
MODULE_ENTRY = "{module}.main"


def command_targets(command: str, modules: Iterable[str]) -> list[str]:
    """The functions of the project (by qualname) that ``command`` runs, given every
    module name of the project."""
    known = frozenset(modules)
    targets: list[str] = []
    for words in _programs(command):
        target = _target(words, known)
        if target is not None and target not in targets:
            targets.append(target)
    return targets


def command_modules(command: str, modules: Iterable[str]) -> list[str]:
    """The modules whose code ``command`` runs (for the second pass: a management command
    module mentions no job system)."""
    return [
        target.removesuffix(".Command.handle").removesuffix(".main")
        for target in command_targets(command, modules)
    ]


def _programs(command: str) -> Iterator[list[str]]:
    """The word lists of each program a command line runs, shells and wrappers read
    through."""
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part, comments=False, posix=True)
        except ValueError:
            continue
        words = _unwrapped(words)
        if len(words) >= 3 and words[0] in _SHELLS and words[1] == "-c":
            yield from _programs(words[2])
        elif words:
            yield words


def _unwrapped(words: list[str]) -> list[str]:
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]  # ``X=1 python ...``
        elif head in _WRAPPERS:
            words = _after_wrapper(head, words[1:])
        else:
            break
    return words


def _after_wrapper(wrapper: str, rest: list[str]) -> list[str]:
    """The words after a wrapper's own options and operand (``flock -n /tmp/x``,
    ``timeout 10m``)."""
    while rest and rest[0].startswith("-"):
        rest = rest[1:]
    if wrapper in ("timeout", "flock", "lckdo") and rest:
        rest = rest[1:]  # the duration or the lock file
    return rest


def _target(words: list[str], known: frozenset[str]) -> str | None:
    program = words[0]
    if program.rsplit("/", 1)[-1] == "django-admin":
        return _management_command(words[1:], known)
    if _PYTHON.fullmatch(program):
        words = words[1:]
    if not words:
        return None
    if words[0] == "-m" and len(words) > 1:
        return MODULE_ENTRY.format(module=words[1]) if words[1] in known else None
    if words[0].rsplit("/", 1)[-1] == "manage.py":
        return _management_command(words[1:], known)
    if words[0].endswith(".py"):
        module = _module_of_path(words[0], known)
        return MODULE_ENTRY.format(module=module) if module is not None else None
    return None


def _management_command(words: list[str], known: frozenset[str]) -> str | None:
    names = [w for w in words if not w.startswith("-")]
    if not names:
        return None
    suffix = f"management.commands.{names[0]}"
    found = sorted(m for m in known if m == suffix or m.endswith("." + suffix))
    return MANAGE_COMMAND.format(module=found[0]) if len(found) == 1 else None


def _module_of_path(path: str, known: frozenset[str]) -> str | None:
    """The module a script path names (``scripts/backup.py`` -> ``scripts.backup``), when
    the project has exactly one module ending so."""
    parts = [p for p in path.removesuffix(".py").split("/") if p not in ("", ".", "..")]
    for start in range(len(parts) - 1):
        dotted = ".".join(parts[start:])
        found = [m for m in known if m == dotted or m.endswith("." + dotted)]
        if len(found) == 1:
            return found[0]
    return parts[-1] if parts and parts[-1] in known else None
