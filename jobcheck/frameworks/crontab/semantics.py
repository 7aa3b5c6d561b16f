"""cron, its command wrappers, Procfiles and supervisord: verified facts, as documented
constants, and what the checks make of crontab lines. Light module: no libcst.

cron was read in cronie (cronie-crond/cronie @5f9f16b, ``src/entry.c``, ``src/cron.c``,
``src/do_command.c``); flock in util-linux ``sys-utils/flock.c`` (code index, commit
04649d5a); ``timeout`` in GNU coreutils ``src/timeout.c`` (code index).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jobcheck.commandline import programs
from jobcheck.facts.values import number, string
from jobcheck.frameworks.semantics_base import (
    ScheduleTerms,
    Semantics,
    Words,
    fixed_minute_expression,
    with_minute,
)

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Project

# src/entry.c ``load_entry``: ``@reboot`` sets WHEN_REBOOT (runs once at start-up: not a
# schedule); the other keywords, compared with strcmp (lower case only), are these
# fields; any other ``@word`` is an error (e_timespec).
MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
REBOOT = "@reboot"
DAYS_OR = True
"""src/cron.c: when neither day field is '*' (DOM_STAR, DOW_STAR), a day matching either
one fires; otherwise both must match."""
PERCENT_IS_NEWLINE = True
"""src/do_command.c: the first unescaped ``%`` ends the command (the rest is its stdin);
``\\%`` is a literal percent sign."""
SCHEDULE_ZONE_VARIABLE = "CRON_TZ"
"""src/cron.c: ``job_tz = env_get("CRON_TZ", e->envp)``: the zone the entries after it are
matched in (cronie; other crons ignore it)."""
SYSTEM_CRONTAB_HAS_USER = True
"""``/etc/crontab`` and ``/etc/cron.d/*`` lines carry a user name between the schedule and
the command (crontab(5))."""
OVERLAP = "runs overlap"
"""cron starts each run at its time whether or not the last one finished: only a wrapper
lock serialises them, and every host with the crontab runs it."""

# The wrappers around a command (locks, timeouts, shells): jobcheck/commandline.py.
# Users that name the user field of a line even outside the system crontab's paths.
SYSTEM_USERS = frozenset({"root", "www-data", "nobody"})

# A Procfile (Heroku) is ``<process type>: <command>`` per line; the ``clock`` type is the
# convention for a process that runs an in-process scheduler, one dyno of it.
CLOCK_PROCESS = "clock"
# supervisord: ``[program:x]`` with ``command=``; ``numprocs`` (default 1) copies of it.
SUPERVISORD_DEFAULTS = {"numprocs": 1, "autostart": True, "autorestart": "unexpected"}


def enqueued_task(command: str | None) -> str | None:
    """The task a command only enqueues (``celery -A shop call shop.tasks.refresh``, ``celery
    call`` sends the task and exits: celery/bin/call.py): the scheduled job is that
    task, whose own limits and locks the checks judge, not the command's."""
    for words in programs(command or ""):
        for index, word in enumerate(words[:-1]):
            if word == "call" and any(w.rsplit("/", 1)[-1] == "celery" for w in words[:index]):
                return _call_name(words[index + 1 :])
    return None


# celery/bin/call.py: the options of ``celery call`` that take a value.
CALL_VALUE_OPTIONS = frozenset(
    {
        "-a",
        "--args",
        "-k",
        "--kwargs",
        "--eta",
        "--countdown",
        "--expires",
        "--serializer",
        "--queue",
        "--exchange",
        "--routing-key",
    }
)


def _call_name(words: list[str]) -> str | None:
    """The task name after ``celery call``'s own options."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        has_value = words[index] in CALL_VALUE_OPTIONS and "=" not in words[index]
        index += 2 if has_value else 1
    return words[index] if index < len(words) else None


def call_option(command: str | None, name: str) -> str | None:
    """The value ``celery call`` is given for an option (``--expires 300``), if any."""
    for words in programs(command or ""):
        for index, word in enumerate(words):
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word.partition("=")[2]
    return None


# Programs that take their own lock and skip (or fail) a second run: logrotate locks its
# state file unless told not to (logrotate(8): ``--skip-state-lock``: "Do not lock the
# state file"); certbot serialises its runs with fasteners locks on its directories and
# exits with "Another instance of Certbot is already running."
LOCKS_ITSELF = {"logrotate": "--skip-state-lock", "certbot": None}
# Commands that only signal a server of this host (``nginx -s reload``): they return at
# once, and every host is meant to run them.
_SIGNAL_VERBS = frozenset({"reload", "restart", "try-restart", "reload-or-restart", "kill"})


def _locks_itself(words: list[str]) -> bool:
    name = words[0].rsplit("/", 1)[-1]
    if name not in LOCKS_ITSELF:
        return False
    disabling = LOCKS_ITSELF[name]
    return disabling is None or disabling not in words


def _only_signals(words: list[str]) -> bool:
    name = words[0].rsplit("/", 1)[-1]
    if name in {"kill", "pkill", "killall"}:
        return True
    if name in {"nginx", "openresty"}:
        return "-s" in words
    if name in {"apachectl", "apache2ctl"}:
        return any(w in {"graceful", "restart"} for w in words[1:])
    if name in {"systemctl", "service"}:
        return any(w in _SIGNAL_VERBS for w in words[1:])
    return False


def _runs_alone(words: list[str]) -> bool:
    """The program locks itself or only signals a server of this host."""
    return _locks_itself(words) or _only_signals(words)


def _every_program(entry: ScheduleEntry, test: Callable[[list[str]], bool]) -> bool:
    """The line runs at least one program, and ``test`` holds for each."""
    found = programs(entry.command or "")
    return bool(found) and all(test(words) for words in found)


def _shown(entry: ScheduleEntry, limit: int = 60) -> str:
    text = entry.target_text
    return text if len(text) <= limit else text[: limit - 3] + "..."


class CrontabSemantics(Semantics):
    name = "crontab"
    title = "cron"
    job_noun = "crontab line"
    scheduler_noun = "cron"

    words = Words(
        let_it_fail="let it exit non-zero with the error on stderr (cron mails a run's output)",
        hung_call_consequence=(
            "a silent server holds the run for ever (cron stops nothing), and the next "
            "runs start beside it"
        ),
        single_run_advice="; or wrap the crontab line's command in flock -n",
    )

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="crontab line",
            runs_one_at_a_time=_runs_one_at_a_time(entry),
            enqueued_job_name=_enqueued_job_name(entry),
            time_zone=_time_zone(entry),
            minute_zero_note=_minute_zero_note(entry),
            unguarded=_unguarded_schedule(entry),
        )

    schedule_guard_noun = "a flock wrapper on the line"

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        if enqueued_task(entry.target_text) is not None:
            return None  # 'celery call x': the task's own contract is listed
        limit = number(entry.option("timeout"))
        lock = string(entry.option("lock"))
        return {
            "queue": "none: cron starts the command",
            "time_limit": f"{limit:g} s (timeout)" if limit else "none (no timeout wrapper)",
            "retries": "none",
            "backoff": "-",
            "dead_letter": "none: cron mails the output to MAILTO",
            "lock": lock if lock else "no (no flock/run-one wrapper)",
        }

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        expression = with_minute(entry, minute)
        return f"{expression} <command>" if expression else None

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        return f"{fixed_minute_expression(seconds)} <command>"


def _enqueued_job_name(entry: ScheduleEntry) -> str | None:
    return enqueued_task(entry.command)


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    # A lock wrapper serialises the runs: with -n the next run is skipped, without it
    # the next run waits for the lock (no overlap either way). A line that only
    # enqueues a task ends at once.
    return entry.option("lock") is not None or enqueued_task(entry.target_text) is not None


def _unguarded_schedule(entry: ScheduleEntry) -> str | None:
    if _every_program(entry, _runs_alone):
        return None  # logrotate's state lock; 'nginx -s reload' on each host is meant
    return (
        f"crontab line '{_shown(entry)}' runs with no lock: cron starts each run at its "
        "time whether or not the last one finished (and every host with this crontab "
        "runs it); wrap the command in 'flock -n /tmp/<name>.lock <command>' so a run "
        "that finds the lock held is skipped"
    )


def _time_zone(entry: ScheduleEntry) -> str | None:
    return string(entry.option(SCHEDULE_ZONE_VARIABLE))


def _minute_zero_note(entry: ScheduleEntry) -> str:
    text = entry.timing.text.strip()
    if text.startswith("@") and text in MACROS:
        return f"; {text} is '{MACROS[text]}'"
    return ""


SEMANTICS = CrontabSemantics()
