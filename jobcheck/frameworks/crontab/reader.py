"""Schedules and processes outside Python: crontab files (a user crontab, or the
system format of ``/etc/crontab`` and ``cron.d`` with a user field), Procfiles and
supervisord programs.

Each crontab line becomes a :class:`ScheduleEntry` (framework "crontab") with its timing,
its command, and what wraps it: a lock (``flock``, ``run-one``, ``solo``...) and a time
limit (``timeout N``). ``@reboot`` is not a schedule, and environment lines are not
entries (``CRON_TZ``/``TZ`` are kept as an option of the lines below them). Verified
facts: ``jobcheck/frameworks/crontab/semantics.py``.
"""

from __future__ import annotations

import os
import re

from jobcheck import timing
from jobcheck.commandline import wrappers
from jobcheck.facts import FileFacts, Loc, ProcessDecl, ScheduleEntry
from jobcheck.facts.values import Const, Value
from jobcheck.frameworks.crontab.semantics import (
    MACROS,
    SCHEDULE_ZONE_VARIABLE,
    SYSTEM_USERS,
)
from jobcheck.location import line_loc

_ENVIRONMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")
# Five time fields shaped as cron's (digits, ``*``, ranges, steps, lists; names for the
# month and the day of week), then the command: a line of prose is no entry.
_FIELDS = re.compile(
    r"\s*([\d*/,?LW#-]+)\s+([\d*/,-]+)\s+([\d*/,?LW#-]+)\s+([\w*/,-]+)\s+([\w*/,?L#-]+)"
    r"\s+(\S.*)"
)
_MACRO = re.compile(r"\s*(@[A-Za-z]+)\s+(\S.*)")
_UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_SEPARATORS = frozenset({"&&", "||", ";", "|"})
_REDIRECTION = re.compile(r"\d*(?:>>?|<<?|>&|&>>?|>\|)")


# -- crontab -----------------------------------------------------------------------


def read_crontab(facts: FileFacts, text: str) -> None:
    lines = text.splitlines()
    system = _system_format(facts.path, lines)
    zone: str | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        environment = _ENVIRONMENT.match(line)
        if environment is not None and not stripped.startswith("@"):
            if environment.group(1) == SCHEDULE_ZONE_VARIABLE:
                zone = environment.group(2).strip().strip("'\"")
            continue
        entry = _entry(line, number, system, zone)
        if entry is not None:
            facts.schedules.append(entry)


def _system_format(path: str, lines: list[str]) -> bool:
    """Lines with a user field: ``/etc/crontab`` and ``cron.d`` files, or a file whose
    header names the user column (the stock ``# m h dom mon dow user command``)."""
    normalized = "/" + path.replace(os.sep, "/")
    if "/cron.d/" in normalized or normalized.endswith("/etc/crontab"):
        return True
    header = " ".join(line for line in lines[:30] if line.lstrip().startswith("#")).lower()
    return re.search(r"\b(?:user|user-name)\b\s+(?:command|cmd)", header) is not None


def _entry(line: str, number: int, system: bool, zone: str | None) -> ScheduleEntry | None:
    macro = _MACRO.match(line)
    if macro is not None:
        name = macro.group(1)
        if name not in MACROS:
            return None  # @reboot runs once at boot; anything else cron refuses
        expression, rest, rest_at = MACROS[name], macro.group(2), macro.start(2)
        schedule_end = macro.end(1)
    else:
        fields = _FIELDS.match(line)
        if fields is None:
            return None
        expression = " ".join(fields.group(i) for i in range(1, 6))
        rest, rest_at, schedule_end = fields.group(6), fields.start(6), fields.end(5)
    options: list[tuple[str, Value]] = []
    user, command, command_at = _split_user(rest, rest_at, system)
    if user is not None:
        options.append(("user", Const(user)))
    if zone is not None:
        options.append((SCHEDULE_ZONE_VARIABLE, Const(zone)))
    command = _UNESCAPED_PERCENT.split(command, maxsplit=1)[0].replace("\\%", "%").rstrip()
    if not command:
        return None
    wrapped = wrappers(command)
    options.extend(wrapped.options)
    schedule_start = len(line) - len(line.lstrip())
    when = timing.cron_expression(expression, line[schedule_start:schedule_end])
    return ScheduleEntry(
        framework="crontab",
        source="crontab",
        name=None,
        task_name=None,
        target=None,
        target_text=wrapped.runs or command,
        timing=when,
        loc=Loc(number, schedule_start + 1, number, len(line.rstrip()) + 1),
        task_loc=Loc(number, command_at + 1, number, command_at + len(command) + 1),
        timing_loc=Loc(number, schedule_start + 1, number, schedule_end + 1),
        options=tuple(options),
        command=command,
    )


def _split_user(rest: str, at: int, system: bool) -> tuple[str | None, str, int]:
    """The user field of the system format (also taken when a line names a well-known
    system user there), and the command after it."""
    first, _, after = rest.partition(" ")
    first = first.split("\t")[0]
    if (system or first in SYSTEM_USERS or _user_then_program(first, after)) and after.strip():
        offset = rest.index(after.lstrip(), len(first))
        return first, rest[offset:], at + offset
    return None, rest, at


def _user_then_program(first: str, after: str) -> bool:
    """A user field in a file that is not known to be of the system format (a file the
    image copies to ``/etc/cron.d``): a user-like name followed by a program path or a
    well-known program (``appuser /usr/local/bin/python ...``)."""
    if not _USER_NAME.fullmatch(first) or first in _PROGRAM_NAMES | _COMMON_COMMANDS:
        return False
    program = after.strip().split(" ", 1)[0]
    name = os.path.basename(program)
    return (
        name in _PROGRAM_NAMES
        or _PYTHON.fullmatch(name) is not None
        or name.endswith((".sh", ".py"))
        or "/bin/" in program
    )


# Commands whose first argument is often a path: never read as a user name.
_COMMON_COMMANDS = frozenset(
    {
        "rsync",
        "cp",
        "mv",
        "rm",
        "find",
        "tar",
        "gzip",
        "pg_dump",
        "mysqldump",
        "echo",
        "test",
        "cat",
        "touch",
        "sleep",
        "ls",
        "chmod",
        "chown",
        "mkdir",
        "ln",
        "kill",
        "pkill",
        "logrotate",
    }
)
_USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?")
_PROGRAM_NAMES = frozenset(
    {
        "sh",
        "bash",
        "cd",
        "flock",
        "timeout",
        "run-one",
        "nice",
        "ionice",
        "php",
        "node",
        "ruby",
        "perl",
        "curl",
        "wget",
        "celery",
        "django-admin",
        "rq",
        "huey_consumer",
        "env",
    }
)


# -- Procfile ------------------------------------------------------------------------

_PROCESS = re.compile(r"([A-Za-z0-9_-]+)\s*:\s*(\S.*)")


def read_procfile(facts: FileFacts, text: str) -> None:
    """``type: command`` lines (Heroku's Procfile; honcho and foreman read the same)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        match = _PROCESS.fullmatch(line.rstrip())
        if match is None:
            continue
        facts.processes.append(
            ProcessDecl(
                source="procfile",
                name=match.group(1),
                command=match.group(2).strip(),
                loc=line_loc(number, line),
            )
        )


# -- supervisord ---------------------------------------------------------------------

_SECTION = re.compile(r"\s*\[([^\]]+)\]")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")
SUPERVISORD_OPTIONS = (
    "numprocs",
    "process_name",
    "autostart",
    "autorestart",
    "startsecs",
    "stopwaitsecs",
    "stopsignal",
    "stopasgroup",
    "killasgroup",
    "user",
    "directory",
    "priority",
)


def read_supervisord(facts: FileFacts, text: str) -> None:
    """``[program:name]`` sections and their ``command`` (continuation lines start with
    white space; `` ;`` starts an inline comment)."""
    program: str | None = None
    values: dict[str, tuple[list[str], int]] = {}
    """Each key's value (its continuation lines as further parts) and line."""
    last_key: str | None = None
    lines = text.splitlines()

    def value(key: str) -> str:
        return " ".join(part for part in values[key][0] if part)

    def flush() -> None:
        if program is not None and "command" in values:
            command, line = value("command"), values["command"][1]
            options = tuple(
                (key, Const(value(key))) for key in SUPERVISORD_OPTIONS if key in values
            )
            where = line_loc(line, lines[line - 1])
            facts.processes.append(ProcessDecl("supervisord", program, command, where, options))

    for number, line in enumerate(lines, start=1):
        section = _SECTION.match(line)
        if section is not None:
            flush()
            kind, _, name = section.group(1).partition(":")
            program = name.strip() if kind.strip() == "program" else None
            values, last_key = {}, None
            continue
        if program is None or not line.strip() or line.lstrip()[:1] in (";", "#"):
            continue
        if line[:1] in (" ", "\t") and last_key is not None:
            values[last_key][0].append(_uncomment(line))  # joined once, at the end
            continue
        key = _KEY.match(line)
        if key is not None:
            last_key = key.group(1).lower()
            values[last_key] = ([_uncomment(key.group(2))], number)
    flush()


def _uncomment(text: str) -> str:
    return re.split(r"\s;", text, maxsplit=1)[0].strip()


# -- shell scripts -------------------------------------------------------------------

# Lines that start Python or a job system, and the lock and time-limit wrappers a script
# takes around them (clist's run-manage.bash: ``exec 200>/tmp/$name.lock; flock -n 200``).
_SCRIPT_PROGRAMS = re.compile(
    r"\b(?:python[\d.]*|manage\.py|django-admin|celery|flock|run-one|lockrun|setlock|lckdo"
    r"|timeout)\b"
)


def read_script(facts: FileFacts, text: str) -> None:
    """The command lines of a shell script that start Python or a job system, with
    backslash continuations joined: what a crontab line or CronJob running the script
    runs (``jobcheck/project/commands.py``). A line that may start a worker (an
    entrypoint's ``exec celery -A app worker -Q mail``) is also a process definition."""
    lines = text.splitlines()
    traps = (("trap", Const(True)),) if _TRAP.search(text) else ()
    number = 0
    while number < len(lines):
        first, parts = number, [lines[number]]
        while parts[-1].endswith("\\") and number + 1 < len(lines):
            number += 1
            parts[-1] = parts[-1][:-1]
            parts.append(lines[number])
        number += 1
        stripped = " ".join(parts).strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _SCRIPT_PROGRAMS.search(stripped):
            facts.script_commands.append(stripped)
        if _WORKER_PROGRAMS.search(stripped):
            name = facts.path.replace("\\", "/").rsplit("/", 1)[-1]
            where = line_loc(first + 1, lines[first])
            facts.processes.append(ProcessDecl("script", name, stripped, where, traps))


# A script that traps a signal (``trap 'kill -TERM $child' TERM``) may forward it itself.
_TRAP = re.compile(r"^\s*trap\b", re.MULTILINE)

# Programs that start a job system's worker (each framework reads the command itself).
_WORKER_PROGRAMS = re.compile(
    r"\b(?:celery|rq|dramatiq|huey_consumer(?:\.py)?|run_huey|djangohuey|arq|sidekiq)\b"
)
