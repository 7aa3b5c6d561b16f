"""cron, its command wrappers, Procfiles and supervisord: verified facts, as documented
constants (not wired to checks yet). Light module: no libcst.

cron was read in cronie (cronie-crond/cronie @5f9f16b, ``src/entry.c``, ``src/cron.c``,
``src/do_command.c``); flock in util-linux ``sys-utils/flock.c`` (code index, commit
04649d5a); ``timeout`` in GNU coreutils ``src/timeout.c`` (code index).
"""

from __future__ import annotations

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
    }
)
LOCK_FILE_ARGUMENT = frozenset({"flock", "lockf", "setlock", "lckdo"})

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
    "sudo": frozenset({"-u", "--user", "-g", "--group"}),
    "chronic": frozenset(),
    "exec": frozenset(),
    "time": frozenset(),
}
# Users that name the user field of a line even outside the system crontab's paths.
SYSTEM_USERS = frozenset({"root", "www-data", "nobody"})

# A Procfile (Heroku) is ``<process type>: <command>`` per line; the ``clock`` type is the
# convention for a process that runs an in-process scheduler, one dyno of it.
CLOCK_PROCESS = "clock"
# supervisord: ``[program:x]`` with ``command=``; ``numprocs`` (default 1) copies of it.
SUPERVISORD_DEFAULTS = {"numprocs": 1, "autostart": True, "autorestart": "unexpected"}
