"""The project code a scheduled command runs: a Kubernetes CronJob's container or a
crontab line is a job whose body is the code its command line starts.

- ``python manage.py sync_orders`` (or ``django-admin sync_orders``): Django runs the
  ``Command`` class of ``<app>/management/commands/sync_orders.py``, its ``handle``
  (django/core/management/base.py ``BaseCommand.execute`` calls ``self.handle``);
- ``python -m shop.reports.daily`` and ``python scripts/backup.py``: the module run as
  ``__main__``, whose conventional entry point is its ``main()`` function.

Wrappers before the program (``cd /app &&``, ``flock -n lock``, ``timeout -k 30 10m``,
``sh -c "..."``, ``sudo -u app``, ``exec``, ``env X=1``) are read through
(``jobcheck/commandline.py``). What a command starts that the
project does not define (``celery call``, ``/app/bin/backup``) maps to nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence

from jobcheck.commandline import SHELLS, programs, wrappers
from jobcheck.facts.values import number

_PYTHON = re.compile(r"(?:.*/)?python(?:\d+(?:\.\d+)*)?")
MANAGE_COMMAND = "{module}.Command.handle"
SCRIPT_SUFFIXES = (".sh", ".bash")
MODULE_ENTRY = "{module}.main"


def command_targets(
    command: str, modules: Iterable[str], scripts: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The functions of the project (by qualname) that ``command`` runs, given every
    module name of the project, and the command lines of its shell scripts by path (a
    command that runs ``/app/scripts/nightly.sh`` runs what that script runs)."""
    known = modules if isinstance(modules, frozenset) else frozenset(modules)
    targets: list[str] = []
    for line in [command, *scripts_run(command, scripts or {})]:
        for words in programs(line):
            target = _target(words, known)
            if target is not None and target not in targets:
                targets.append(target)
    return targets


def command_modules(
    command: str, modules: Iterable[str], scripts: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The modules whose code ``command`` runs (for the second pass: a management command
    module mentions no job system)."""
    return [
        target.removesuffix(".Command.handle").removesuffix(".main")
        for target in command_targets(command, modules, scripts)
    ]


def scripts_run(command: str, scripts: Mapping[str, Sequence[str]]) -> list[str]:
    """The command lines of the project's shell scripts that ``command`` runs
    (``/app/scripts/nightly.sh``, ``bash scripts/nightly.sh``), one level deep, with the
    script's arguments in place of ``$@``/``$1``, and the command a line stores in a
    variable to run it (clist's run-manage.bash: ``cmd="./manage.py $@"`` then ``$cmd``)."""
    found: list[str] = []
    for script, arguments in _scripts_called(command, scripts):
        for line in scripts[script][:_MAX_SCRIPT_COMMANDS]:
            line = _with_arguments(line, arguments)
            stored = _STORED_COMMAND.fullmatch(line)
            found.append(stored.group(2) if stored else line)
    return found


def _scripts_called(
    command: str, scripts: Mapping[str, Sequence[str]]
) -> list[tuple[str, list[str]]]:
    called: list[tuple[str, list[str]]] = []
    for words in programs(command):
        if words[0].rsplit("/", 1)[-1] in SHELLS and len(words) > 1:
            words = words[1:]
        if not words[0].endswith(SCRIPT_SUFFIXES):
            continue
        script = _script_file(words[0], scripts)
        if script is not None:
            called.append((script, words[1:]))
    return called


# Command lines of one script read for each command that runs it: a script of thousands
# (a pull request can write one) run by thousands of crontab lines is a product of both.
_MAX_SCRIPT_COMMANDS = 100
# ``cmd="./manage.py $@"``: a variable holding a command line the script runs later.
_STORED_COMMAND = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*=(["'])(.+)\1""")
_ARGUMENT = re.compile(r'"\$\{?([@*]|[1-9])\}?"|\$\{?([@*]|[1-9])\}?')


def _with_arguments(line: str, arguments: list[str]) -> str:
    """``./manage.py "$@"`` run as ``run-manage.bash parse --all`` is
    ``./manage.py parse --all``."""

    every = " ".join(arguments)
    if len(every) * line.count("$") > _MAX_EXPANDED:
        return line  # thousands of "$@" times thousands of arguments: left as written

    def argument(match: re.Match[str]) -> str:
        which = match.group(1) or match.group(2)
        if which in "@*":
            return every
        index = int(which) - 1
        return arguments[index] if index < len(arguments) else ""

    return _ARGUMENT.sub(argument, line)


_MAX_EXPANDED = 1 << 20
"""Characters of arguments a script line may take in: each ``$@`` takes all of them."""


# Path segments of a command's program that are compared with the project's files, from
# the end: a path of thousands of segments would cost as many joins and searches.
_MAX_SEGMENTS = 32


def _script_file(path: str, scripts: Mapping[str, Sequence[str]]) -> str | None:
    """The project's script a path names: the one file whose path ends with the longest
    tail of it (``/app/scripts/nightly.sh`` -> ``deploy/scripts/nightly.sh``)."""
    parts = [p for p in path.split("/") if p not in ("", ".")][-_MAX_SEGMENTS:]
    for start in range(len(parts)):
        tail = "/".join(parts[start:])
        found = [s for s in scripts if s.replace("\\", "/").endswith("/" + tail) or s == tail]
        if len(found) == 1:
            return found[0]
        if found:
            return None  # several scripts of that name: cannot tell which
    return None


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
    candidates = _by_last_name(known).get(suffix.rsplit(".", 1)[-1], ())
    found = sorted(m for m in candidates if m == suffix or m.endswith("." + suffix))
    return MANAGE_COMMAND.format(module=found[0]) if len(found) == 1 else None


def _module_of_path(path: str, known: frozenset[str]) -> str | None:
    """The module a script path names (``scripts/backup.py`` -> ``scripts.backup``), when
    the project has exactly one module ending so."""
    parts = [p for p in path.removesuffix(".py").split("/") if p not in ("", ".", "..")]
    parts = parts[-_MAX_SEGMENTS:]
    candidates = _by_last_name(known).get(parts[-1].rsplit(".", 1)[-1], ()) if parts else ()
    for start in range(len(parts) - 1):
        dotted = ".".join(parts[start:])
        found = [m for m in candidates if m == dotted or m.endswith("." + dotted)]
        if len(found) == 1:
            return found[0]
    return parts[-1] if parts and parts[-1] in known else None


@functools.lru_cache(maxsize=4)
def _by_last_name(known: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The project's modules by the last part of their name: a command is compared with
    the few modules that can match, not with every module of the project."""
    found: dict[str, list[str]] = {}
    for module in known:
        found.setdefault(module.rsplit(".", 1)[-1], []).append(module)
    return {name: tuple(modules) for name, modules in found.items()}


def script_wrappers(command: str, scripts: Mapping[str, Sequence[str]]) -> frozenset[str]:
    """What the project's scripts ``command`` runs take around their work: ``lock`` (a
    ``flock``, ``run-one``...), ``timeout``."""
    found: set[str] = set()
    for line in scripts_run(command, scripts):
        for key, value in wrappers(line).options:
            if key == "timeout" and not (number(value) or 0) > 0:
                continue  # timeout 0 disables it
            found.add(key)
    return frozenset(found)
