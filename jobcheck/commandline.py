"""Shell command lines as a scheduler runs them (a crontab line, a CronJob's container
command, a Procfile or supervisord process): the program each runs, past the wrappers
around it, and what those wrappers say (a lock, a time limit).

Read through: ``cd dir &&`` and other set-up segments, ``VAR=x`` assignments, shells
(``sh -c "..."``, ``bash -lc '...'``, ``su user -c "..."``), lock wrappers (``flock``,
``run-one``...), ``timeout`` and transparent wrappers (``nice``, ``sudo -u app``,
``nohup``, ``env``...), each with the options that take a value. Used by the crontab
and Kubernetes readers (extraction) and by the project model (the code a command runs).
Light module: no libcst.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from dataclasses import dataclass, field

from jobcheck.facts.values import Const, Value
from jobcheck.timing import read_number

# Wrappers that take a lock for the command they run.
# util-linux flock.c: ``flock [options] file|directory command [args]`` or ``flock
# [options] file -c command``; getopt "+sexnoFuw:E:hV?" plus --verbose, --fcntl, --start
# N, --length N: options stop at the lock file. Without ``-n``/``--nb``/``-w 0`` flock
# WAITS for the lock (runs queue up instead of being skipped); with it, a held lock exits
# with ``conflict_exit_code`` (1) and the command does not run.
FLOCK_VALUE_OPTIONS = frozenset(
    {"-w", "--wait", "--timeout", "-E", "--conflict-exit-code", "--start", "--length"}
)
FLOCK_NONBLOCKING = frozenset({"-n", "--nb", "--nonblocking"})
LOCK_WRAPPERS = frozenset(
    {
        "flock",  # util-linux
        "lockf",  # FreeBSD lockf(1): lockf [-kns] [-t seconds] file command
        "run-one",  # Ubuntu run-one: one instance of the command at a time (flock inside)
        "run-this-one",
        "keep-one-running",
        "solo",  # solo -port=PORT command: a bound port as the lock
        "lockrun",  # lockrun --lockfile=FILE -- command
        "setlock",  # daemontools setlock [-nNxX] file command
        "lckdo",  # moreutils lckdo [-w] lockfile program
        "chronic-lock",
        # mySociety's run-with-lockfile [-n] LOCKFILE "COMMAND": the command runs through
        # ``sh -c``; -n fails at once when the lock is held.
        "run-with-lockfile",
    }
)
LOCK_FILE_ARGUMENT = frozenset({"flock", "lockf", "setlock", "lckdo", "run-with-lockfile"})
# Lock wrappers that hand one quoted command string to a shell.
LOCK_RUNS_A_STRING = frozenset({"run-with-lockfile"})

# coreutils timeout.c: ``timeout [OPTION] DURATION COMMAND``; options -s/--signal SIG,
# -k/--kill-after DURATION, --foreground, --preserve-status, -v/--verbose; DURATION is a
# floating number with an optional suffix s (default), m, h or d; 0 disables the timeout.
TIMEOUT_VALUE_OPTIONS = frozenset({"-s", "--signal", "-k", "--kill-after"})
TIMEOUT_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}

# Wrappers that neither lock nor limit: skipped to reach the command (with their options
# that take a value).
TRANSPARENT_WRAPPERS: dict[str, frozenset[str]] = {
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}),
    "nohup": frozenset(),
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h"}),
    "runuser": frozenset({"-u", "--user", "-g", "--group", "-G"}),
    "chronic": frozenset(),
    "exec": frozenset(),
    "time": frozenset(),
}
# Shells whose ``-c`` string is the command (``bash -lc '...'`` too); ``su [-] [user] -c``.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash", "ksh"})
SETUP_COMMANDS = frozenset({"cd", "export", "source", ".", "set", "umask", "true", ":"})

_ENVIRONMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_REDIRECTION = re.compile(r"\d*(?:>>?|<<?|>&|&>>?|>\|)")


@dataclass
class Wrapped:
    """What a command line's wrappers say: the lock and time limit around the command
    it runs, that command, and every program the line runs."""

    options: list[tuple[str, Value]] = field(default_factory=list)
    runs: str | None = None
    """The first command the line runs past its wrappers, as shell words joined."""
    programs: list[list[str]] = field(default_factory=list)
    """The words of every program the line runs (set-up commands left out)."""


def wrappers(command: str) -> Wrapped:
    """The lock (``flock``, ``run-one``, ``solo``...) and ``timeout`` wrapping a command,
    and the command they run (past ``cd dir &&``, environment assignments and shells)."""
    read = _wrapped(command)
    return Wrapped(list(read.options), read.runs, [list(words) for words in read.programs])


@functools.lru_cache(maxsize=512)
def _wrapped(command: str) -> Wrapped:
    """Kept (callers get a copy): a command line is read by its reader, the worker map
    and several checks."""
    found = Wrapped()
    _read(command, found, depth=0)
    return found


def programs(command: str) -> list[list[str]]:
    """The words of every program ``command`` runs, wrappers and shells read through."""
    return wrappers(command).programs


def _read(command: str, found: Wrapped, depth: int) -> None:
    if depth > 5:
        return
    for segment in _segments(split(command)):
        if not segment or segment[0] in SETUP_COMMANDS:
            continue
        options: list[tuple[str, Value]] = []
        words, inner = _unwrap(segment, options)
        if found.runs is None:
            found.options.extend(options)
        if inner is not None:
            _read(inner, found, depth + 1)
            continue
        words = _without_redirections(words)
        if not words:
            continue
        if found.runs is None:
            found.runs = shlex.join(words)
        found.programs.append(words)


def _segments(words: list[str]) -> list[list[str]]:
    segments: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            segments.append([])
        else:
            segments[-1].append(word)
    return segments


def _unwrap(words: list[str], options: list[tuple[str, Value]]) -> tuple[list[str], str | None]:
    """Peel wrappers off the front of ``words``, noting locks and time limits; the words
    left, or the command string a shell or ``flock -c`` runs."""
    index = 0
    for _ in range(20):
        while index < len(words) and _ENVIRONMENT.fullmatch(words[index]):
            index += 1  # FOO=bar command
        if index >= len(words):
            break
        program = os.path.basename(words[index])
        if program in LOCK_WRAPPERS:
            options.append(("lock", Const(program)))
            if program == "flock":
                options.append(("lock_waits", Const(_flock_waits(words, index + 1))))
            index, inner = _after_lock(program, words, index + 1)
            if inner is None and program in LOCK_RUNS_A_STRING and len(words) == index + 1:
                inner = words[index]  # run-with-lockfile -n LOCK "cd /app && ./manage.py x"
            if inner is not None:
                return [], inner
        elif program == "timeout":
            index, seconds = _after_timeout(words, index + 1)
            options.append(("timeout", Const(seconds)))
        elif program in TRANSPARENT_WRAPPERS:
            index = _after_options(words, index + 1, TRANSPARENT_WRAPPERS[program])
        elif program in SHELLS or program == "su":
            inner = _shell_string(words, index + 1)
            if inner is None:
                break
            return [], inner
        else:
            break
    return words[index:], None


def _shell_string(words: list[str], index: int) -> str | None:
    """The string ``sh -c STRING`` (``bash -lc``, ``su - app -c``) runs, or None."""
    for position in range(index, len(words) - 1):
        word = words[position]
        if word in ("-c", "--command") or (
            word.startswith("-") and not word.startswith("--") and "c" in word[1:]
        ):
            return words[position + 1]
    return None


def _without_redirections(words: list[str]) -> list[str]:
    """``cmd >> log 2>&1``: the command, not where its output goes."""
    for position, word in enumerate(words):
        if _REDIRECTION.fullmatch(word):
            if position and words[position - 1].isdigit():  # the 2 of 2>&1
                position -= 1
            return words[:position]
    return words


def _after_lock(program: str, words: list[str], index: int) -> tuple[int, str | None]:
    """Skip a lock wrapper's options (and the lock file of ``flock``, ``setlock``,
    ``lckdo``); ``flock file -c "command"`` gives the command string."""
    while index < len(words) and words[index].startswith("-") and words[index] != "--":
        index += 2 if words[index] in FLOCK_VALUE_OPTIONS or words[index] == "-t" else 1
    if index < len(words) and words[index] == "--":
        index += 1
    if program in LOCK_FILE_ARGUMENT:
        index += 1  # the lock file
        if index < len(words) and words[index] in ("-c", "--command"):
            return index + 2, words[index + 1] if index + 1 < len(words) else ""
    return index, None


def _after_timeout(words: list[str], index: int) -> tuple[int, float | None]:
    """``timeout [-s SIG] [-k DURATION] [--preserve-status] DURATION command``."""
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in TIMEOUT_VALUE_OPTIONS else 1
    if index >= len(words):
        return index, None
    return index + 1, timeout_seconds(words[index])


def timeout_seconds(text: str) -> float | None:
    """coreutils ``timeout`` durations: a number with an optional s, m, h or d suffix
    (0 disables the limit)."""
    match = _DURATION.fullmatch(text)
    amount = read_number(match.group(1)) if match is not None else None
    if match is None or amount is None:
        return None  # not a duration, or one too long to be a number (unknown)
    return float(amount) * TIMEOUT_UNITS[match.group(2) or "s"]


def _flock_waits(words: list[str], index: int) -> bool:
    """Whether ``flock`` waits for a held lock: not with ``-n`` or a zero ``-w``."""
    while index < len(words) and words[index].startswith("-"):
        word = words[index]
        if word in FLOCK_NONBLOCKING:
            return False
        if word in ("-w", "--wait", "--timeout") and index + 1 < len(words):
            if timeout_seconds(words[index + 1]) == 0:
                return False
        index += 2 if word in FLOCK_VALUE_OPTIONS else 1
    return True


def _after_options(words: list[str], index: int, takes_value: frozenset[str]) -> int:
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in takes_value else 1
    return index


def split(command: str) -> list[str]:
    """Shell words, with ``;``, ``&&``, ``|`` and redirections as words of their own."""
    return list(_split(command))


@functools.lru_cache(maxsize=512)
def _split(command: str) -> tuple[str, ...]:
    """Kept: the readers, the worker map and the checks each read the same command
    lines, and shlex reads a character at a time (a second a megabyte)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return tuple(lexer)
    except ValueError:  # an unclosed quote
        return tuple(command.split())


def option_values(words: list[str], flags: tuple[str, ...], several: bool = False) -> list[str]:
    """Every value a command gives to ``flags``: ``-Q a``, ``-Qa``, ``--queues=a``, and with
    ``several`` every word up to the next option (``--queues a b``)."""
    values: list[str] = []
    for index, word in enumerate(words):
        if word in flags:
            # By position, not a slice of the rest: a line of ten thousand -Q flags
            # would copy the rest of the line for each.
            for position in range(index + 1, len(words)):
                value = words[position]
                if value.startswith("-"):
                    break
                values.append(value)
                if not several:
                    break
            continue
        for flag in flags:
            if flag.startswith("--") and word.startswith(flag + "="):
                values.append(word.split("=", 1)[1])
            elif not flag.startswith("--") and word.startswith(flag) and len(word) > len(flag):
                values.append(word[len(flag) :])
    return values


def arguments_after(words: list[str], flags_without_value: frozenset[str]) -> list[str]:
    """The positional words of a command's tail: options and the values they take are
    skipped (an option takes one unless it is in ``flags_without_value`` or has ``=``)."""
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = "=" not in word and word not in flags_without_value
        else:
            found.append(word)
    return found
